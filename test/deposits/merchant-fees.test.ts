// Fees per merchant over HTTP: PUT /admin/merchants/{id}/fees sets a merchant's own fee and
// surcharge percentages (checked, audited with the token that made the change); its deposits are
// charged by them (a method sent at once, a method chosen later on the hosted page, the quote of
// GET /v3/exchange_rates), other merchants keep the global schedule, and a deposit keeps the
// schedule it was created under after a change.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { admin, bearer, createMerchant, V3Client, type Credentials } from '../helpers/clients.ts';
import { cpf } from '../helpers/documents.ts';
import { backends, startTestServer, type TestServer } from '../helpers/server.ts';

const payer = { document: cpf('529982247'), first_name: 'Maria', last_name: 'Souza', email: 'maria@example.com' };
let seq = 0;
const inv = () => `fee-${process.pid}-${++seq}`;

for (const backend of backends()) {
  describe(`fees per merchant (${backend})`, () => {
    let s: TestServer;
    let own: Credentials;
    let plain: Credentials;

    before(async () => {
      s = await startTestServer(backend);
      own = await createMerchant(s.url, 'Own fees');
      plain = await createMerchant(s.url, 'Default fees');
    });
    after(() => s.close());

    /** A Pix (BANK_TRANSFER) deposit of 100 USD, the method sent at once; its fee in USD. */
    async function pixFee(m: Credentials): Promise<number> {
      const r = await V3Client.deposits(s.url, m).post('/v3/deposits', { invoice_id: inv(), country: 'BR', currency: 'USD', amount: '100.00', payment_method: 'IX', payer });
      assert.equal(r.status, 200, r.text);
      return (await V3Client.deposits(s.url, m).get(`/v3/deposits/${r.body.deposit_id}`)).body.fee_amount;
    }

    test('bad schedules are refused field by field, nothing changes; an unknown merchant is 404', async () => {
      const bad = await admin(s.url, 'PUT', `/admin/merchants/${own.merchant_id}/fees`, {
        fee: { BANK_TRANSFER: '100', VOUCHER: '-1', CREDIT_CARD: '1.23456', WALLET: 'abc', TELEPATHY: '1' }, surcharge: { VOUCHER: '99.99999' },
      });
      assert.equal(bad.status, 400, bad.text);
      assert.deepEqual(bad.body.details.sort(), [
        'fee.BANK_TRANSFER: must be less than 100',
        'fee.CREDIT_CARD: must be a decimal number with at most 4 decimals (a percentage from 0 to less than 100)',
        'fee.TELEPATHY: not a method type (BANK_TRANSFER, BANK_DEPOSIT, VOUCHER, CREDIT_CARD, DEBIT_CARD, WALLET, CRYPTO)',
        'fee.VOUCHER: must not be negative (a percentage from 0 to less than 100)',
        'fee.WALLET: must be a decimal number with at most 4 decimals (a percentage from 0 to less than 100)',
        'surcharge.VOUCHER: must be a decimal number with at most 4 decimals (a percentage from 0 to less than 100)',
      ].sort());
      const still = await admin(s.url, 'GET', `/admin/merchants/${own.merchant_id}/fees`);
      assert.deepEqual(still.body.overrides, {});
      assert.equal(still.body.fee.BANK_TRANSFER, '1.5');
      assert.equal((await admin(s.url, 'PUT', '/admin/merchants/2000000000/fees', { fee: { VOUCHER: '1' } })).status, 404);
      assert.equal((await admin(s.url, 'PUT', `/admin/merchants/${own.merchant_id}/fees`, { fee: ['1'] })).status, 400);
    });

    test("a merchant's own fee charges its deposits and quotes; others keep the default; a deposit keeps its schedule after a change", async () => {
      assert.equal(await pixFee(own), 1.5, 'the global bank-transfer fee before any change');
      // A hosted deposit made under the global schedule, its method chosen only after the change.
      const hosted = await V3Client.deposits(s.url, own).post('/v3/deposits', { invoice_id: inv(), country: 'BR', currency: 'USD', amount: '100.00', payer });
      assert.equal(hosted.status, 200, hosted.text);
      const put = await admin(s.url, 'PUT', `/admin/merchants/${own.merchant_id}/fees`, { fee: { BANK_TRANSFER: '0.8725', VOUCHER: 3 }, surcharge: { VOUCHER: '0' } });
      assert.equal(put.status, 200, put.text);
      assert.deepEqual(put.body.overrides, { fee: { BANK_TRANSFER: '0.8725', VOUCHER: '3' }, surcharge: { VOUCHER: '0' } });
      assert.equal(put.body.fee.CREDIT_CARD, '3.5', 'types not overridden follow the global schedule');
      assert.equal(put.body.surcharge.BANK_DEPOSIT, '0.5');

      assert.equal(await pixFee(own), 0.87, '0.8725 % of 100 USD, half-up to the cent');
      assert.equal(await pixFee(plain), 1.5, 'another merchant keeps the global schedule');
      const quote = await bearer(s.url, own.read_only_key, '/v3/exchange_rates?country=BR&amount=100&payment_method=IX');
      assert.equal(quote.body.fee, 0.87, quote.text);
      assert.equal((await bearer(s.url, plain.read_only_key, '/v3/exchange_rates?country=BR&amount=100&payment_method=IX')).body.fee, 1.5);

      // The hosted deposit from before the change: choosing Pix now charges the schedule it was created under.
      const url = hosted.body.redirect_url as string;
      const page = await fetch(`${url}?method=IX`, { headers: { 'accept-language': 'en' } }).then((r) => r.text());
      const csrf = /name="csrf" value="([0-9a-f]+)"/.exec(page)?.[1] ?? '';
      const chose = await fetch(url, { method: 'POST', redirect: 'manual', headers: { 'content-type': 'application/x-www-form-urlencoded', origin: s.url }, body: new URLSearchParams({ csrf, method: 'IX' }).toString() });
      assert.equal(chose.status, 303, await chose.text());
      const chosen = (await V3Client.deposits(s.url, own).get(`/v3/deposits/${hosted.body.deposit_id}`)).body;
      assert.deepEqual([chosen.payment_method, chosen.fee_amount], ['IX', 1.5]);

      // One made under the override keeps it when the schedule goes back to the global one.
      const made = await V3Client.deposits(s.url, own).post('/v3/deposits', { invoice_id: inv(), country: 'BR', currency: 'USD', amount: '100.00', payment_method: 'IX', payer });
      const reset = await admin(s.url, 'PUT', `/admin/merchants/${own.merchant_id}/fees`, {});
      assert.deepEqual(reset.body.overrides, {});
      assert.equal((await V3Client.deposits(s.url, own).get(`/v3/deposits/${made.body.deposit_id}`)).body.fee_amount, 0.87);
      assert.equal(await pixFee(own), 1.5);

      // Each change is in the audit log with the token that made it and what it was before.
      const { rows } = await s.ctx.db.query<{ actor: string; detail: { before: unknown; after: unknown } }>(
        `SELECT actor, detail FROM operator_audit WHERE action = 'merchant.fees' AND merchant_id = $1 ORDER BY id`, [own.merchant_id],
      );
      assert.equal(rows.length, 2);
      assert.match(rows[0]!.actor, /^token:/);
      assert.deepEqual(rows[1]!.detail, { before: { fee: { BANK_TRANSFER: '0.8725', VOUCHER: '3' }, surcharge: { VOUCHER: '0' } }, after: {} });
    });
  });
}
