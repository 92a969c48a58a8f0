// Refunds from either face check the bank_account they receive with the same rules as v5
// validation and cashouts (domain/bank-accounts.ts), each face answering in its own format.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { backends, startTestServer, type TestServer } from '../helpers/server.ts';
import { createMerchant, formPost, V3Client, type Credentials } from '../helpers/clients.ts';
import { cpf } from '../helpers/documents.ts';

const upper = (key: string, msg: string) => createHmac('sha256', key).update(msg, 'utf8').digest('hex').toUpperCase();
const ITAU = { beneficiary: 'Maria Souza', bank_code: '341', branch: '2545', account_number: '02366-1', account_type: 'CHECKING' };

for (const backend of backends()) {
  describe(`refund bank accounts (${backend})`, () => {
    let s: TestServer;
    let m: Credentials;
    let v3: V3Client;
    let n = 0;
    before(async () => {
      s = await startTestServer(backend);
      m = await createMerchant(s.url, 'Refund accounts');
      v3 = V3Client.deposits(s.url, m);
    });
    after(() => s.close());

    async function completedPix() {
      const r = await v3.post('/v3/deposits', {
        country: 'BR', amount: '100.00', currency: 'BRL', invoice_id: `ra-${backend}-${++n}-${Date.now()}`, payment_method: 'IX',
        payer: { document: cpf('111444777'), first_name: 'Maria', last_name: 'Souza', email: 'maria@example.com' },
      });
      assert.equal(r.status, 200, r.text);
      assert.equal((await v3.post(`/v3/sandbox/deposits/${r.body.deposit_id}/approve`, '')).status, 200);
      return r.body as { deposit_id: number; merchant_invoice_id: string };
    }

    test('v3: a wrong check digit or an unknown bank is a 201 naming the field; a valid account refunds', async () => {
      const d = await completedPix();
      const digit = await v3.post('/v3/refunds', { deposit_id: d.deposit_id, amount: '1.00', bank_account: { ...ITAU, account_number: '02366-2' } });
      assert.deepEqual([digit.status, digit.body.code, digit.body.details], [400, 201, ['bank_account.account_number: check digit does not match the Itaú account']]);
      const bank = await v3.post('/v3/refunds', { deposit_id: d.deposit_id, amount: '1.00', bank_account: { ...ITAU, bank_code: '999' } });
      assert.deepEqual([bank.status, bank.body.code], [400, 201]);
      assert.match(bank.body.details[0], /^bank_account\.bank_code: is not a bank of BR/);
      const ok = await v3.post('/v3/refunds', { deposit_id: d.deposit_id, amount: '1.00', bank_account: ITAU });
      assert.equal(ok.status, 200, ok.text);
    });

    test('streamline: the same rule answers error 300 naming the form field', async () => {
      const d = await completedPix();
      const refund = (extra: Record<string, string>) => {
        const f: Record<string, string> = {
          x_login: m.deposits.login, x_trans_key: m.deposits.trans_key, x_invoice: d.merchant_invoice_id, x_document: String(d.deposit_id),
          x_amount: '1.00', x_bank_beneficiary: 'Maria Souza', x_bank: 'Itaú', x_bank_code: '341', x_bank_account: '02366-1',
          x_account_type: 'C', x_bank_branch: '2545', type: 'json', ...extra,
        };
        const v = (k: string) => f[k] ?? '';
        f.x_control = upper(m.deposits.secret_key, `A${v('x_invoice')}${v('x_document')}${v('x_amount')}${v('x_bank_beneficiary')}${v('x_bank')}${v('x_bank_account')}${v('x_account_type')}${v('x_bank_branch')}`);
        return formPost(s.url, '/api_curl/apd/refund', f);
      };
      const bad = await refund({ x_bank_account: '02366-2' });
      assert.deepEqual(bad.body, { status: 'ERROR', description: 'Invalid parameter: x_bank_account check digit does not match the Itaú account', error_code: 300 });
      const branch = await refund({ x_bank_branch: 'abc' });
      assert.equal(branch.body.error_code, 300);
      assert.match(branch.body.description, /x_bank_branch/);
      const ok = await refund({});
      assert.equal(ok.body.status, 'OK', ok.text);
    });
  });
}
