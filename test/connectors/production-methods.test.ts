// Production never shows made-up collection details (issue 26 §2): a method is offered only when
// a connector really collects it. With none configured, production lists no method and refuses
// every deposit by naming the method; with the operator's own accounts configured, bank transfer
// and branch deposit methods show exactly those accounts and wait PENDING for the operator.
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { buildClabe } from '../../src/domain/clabe.ts';
import { STAGING_BENEFICIARY } from '../../src/domain/payment-info.ts';
import { admin, bearer, createMerchant, type Credentials, formPost, V3Client } from '../helpers/clients.ts';
import { cpf } from '../helpers/documents.ts';
import { backends, type TestServer, startTestServer } from '../helpers/server.ts';
import { setRates } from '../helpers/four-eyes.ts';

const OPERATOR_CNPJ = '11444777000161';
const OPERATOR_CLABE = buildClabe('012', '180', '00012345678');
const upper = (key: string, msg: string) => createHmac('sha256', key).update(msg, 'utf8').digest('hex').toUpperCase();

/** Nothing staging makes up may appear in a production answer. */
function assertNoStagingDetails(text: string): void {
  for (const made of [STAGING_BENEFICIARY.cnpj, STAGING_BENEFICIARY.brName, STAGING_BENEFICIARY.name]) {
    assert.ok(!text.includes(made), `production answered staging's ${made}: ${text.slice(0, 300)}`);
  }
}

function newInvoice(s: TestServer, m: Credentials, bank: string, invoice: string) {
  const f: Record<string, string> = {
    x_login: m.deposits.login, x_trans_key: m.deposits.trans_key, x_invoice: invoice, x_amount: '100.00', x_currency: 'BRL',
    x_country: 'BR', x_bank: bank, x_iduser: '77', x_cpf: cpf('529982247'), x_name: 'Maria Souza', x_email: 'maria@example.com',
    x_address: 'Rua Augusta 1500', x_zip: '01304-001', x_city: 'Sao Paulo', x_state: 'SP', x_return: 'https://shop.example/return', type: 'json',
  };
  const v = (k: string) => f[k] ?? '';
  f.control = upper(m.deposits.secret_key, `${v('x_invoice')}V${v('x_amount')}I${v('x_iduser')}2${v('x_bank')}1${v('x_cpf')}H${v('x_bdate')}G${v('x_email')}Y${v('x_zip')}A${v('x_address')}P${v('x_city')}S${v('x_state')}P`);
  return formPost(s.url, '/api_curl/streamline/NewInvoice', f);
}

const payer = { document: cpf('529982247'), first_name: 'Maria', last_name: 'Souza', email: 'maria@example.com' };

for (const backend of backends()) {
  describe(`production offers only what a connector collects (${backend})`, () => {
    let s: TestServer;
    let m: Credentials;
    let c: V3Client;
    before(async () => {
      s = await startTestServer(backend, { CAJA_ENV: 'production', PUBLIC_BASE_URL: 'https://pay.example.com' });
      await setRates(s, { BRL: '5.00', MXN: '18.00' });
      m = await createMerchant(s.url, 'Live shop');
      c = V3Client.deposits(s.url, m);
    });
    after(() => s.close());

    test('without connectors: no method listed, every deposit refused by naming its method, nothing written', async () => {
      const listed = await bearer(s.url, m.read_only_key, '/v3/payment_methods?country=BR');
      assert.equal(listed.status, 200, listed.text);
      assert.deepEqual(listed.body, []);
      const banks = await formPost(s.url, '/api_curl/apd/get_banks_by_country', { x_login: m.deposits.login, x_trans_key: m.deposits.trans_key, country_code: 'MX', type: 'json' });
      assert.equal(banks.status, 200, banks.text);
      assert.deepEqual(JSON.parse(banks.text), []);

      const pix = await c.post('/v3/deposits', { country: 'BR', amount: '10.00', currency: 'BRL', payment_method: 'IX', payer });
      assert.equal(pix.status, 400, pix.text);
      assert.equal(pix.body.code, 201);
      assert.match(pix.body.details.join(' '), /payment_method: 'IX' \(Pix\) is not available.*available in BR: none/);
      const spei = await c.post('/v3/deposits', { country: 'MX', amount: '100.00', currency: 'MXN', payment_method: 'SE' });
      assert.equal(spei.status, 400, spei.text);
      assert.match(spei.body.details.join(' '), /'SE' \(SPEI\) is not available/);
      const hosted = await c.post('/v3/deposits', { country: 'BR', amount: '10.00', currency: 'BRL' });
      assert.equal(hosted.status, 400, hosted.text);
      assert.match(hosted.body.details.join(' '), /no payment method of the requested types is available/);

      const form = await newInvoice(s, m, 'IX', `PROD-${backend}-1`);
      assert.equal(JSON.parse(form.text).status, '1', form.text);
      assert.match(JSON.parse(form.text).desc, /x_bank: 'IX' \(Pix\) is not available/);
      for (const r of [pix, spei, hosted, form]) assertNoStagingDetails(r.text);
      const { rows } = await s.ctx.db.query('SELECT count(*)::int AS n FROM deposits');
      assert.equal(rows[0].n, 0);
    });

    test('own accounts: the configuration is checked field by field', async () => {
      const bad = await admin(s.url, 'PUT', '/admin/connectors/own_accounts', {
        accounts: [
          { country: 'BR', method: 'BB', beneficiary_name: 'Operadora Ltda', account: '12345-6', document: '11444777000162' },
          { country: 'BR', method: 'IX', beneficiary_name: 'Operadora Ltda', agency: '1234', account: '1', document: OPERATOR_CNPJ },
          { country: 'MX', method: 'SE', beneficiary_name: 'Operadora SA', account: '012180000123456789' },
          { country: 'XX', method: 'BB', beneficiary_name: 'x', account: '1' },
        ],
      });
      assert.equal(bad.status, 400, bad.text);
      const details = bad.body.details.join('\n');
      assert.match(details, /accounts\[0\]\.agency: is required in BR/);
      assert.match(details, /accounts\[0\]\.document: /);
      assert.match(details, /accounts\[1\]\.method: 'IX' \(Pix\) is not paid into a bank account/);
      assert.match(details, /accounts\[2\]\.account: must be an 18-digit CLABE with a valid check digit/);
      assert.match(details, /accounts\[3\]\.country: not an accepted country/);
      assert.equal((await admin(s.url, 'GET', '/admin/connectors/own_accounts')).status, 404);
    });

    test("own accounts: only their methods are offered, and deposits show the operator's account", async () => {
      const put = await admin(s.url, 'PUT', '/admin/connectors/own_accounts', {
        accounts: [
          { country: 'BR', method: 'bb', beneficiary_name: 'Operadora Pagamentos Ltda', agency: '1234-5', account: '98765-4', document: '11.444.777/0001-61' },
          { country: 'BR', method: 'I', beneficiary_name: 'Operadora Pagamentos Ltda', agency: '0912', account: '21045-3', document: OPERATOR_CNPJ },
          { country: 'MX', method: 'SE', beneficiary_name: 'Operadora SA de CV', account: OPERATOR_CLABE },
        ],
      });
      assert.equal(put.status, 200, put.text);
      assert.deepEqual(put.body.accounts[0], { country: 'BR', method: 'BB', beneficiary_name: 'Operadora Pagamentos Ltda', account: '98765-4', agency: '1234-5', document: OPERATOR_CNPJ });
      assert.equal((await admin(s.url, 'GET', '/admin/connectors/own_accounts')).body.accounts.length, 3);

      const listed = await bearer(s.url, m.read_only_key, '/v3/payment_methods?country=BR');
      assert.deepEqual(listed.body.map((x: { code: string }) => x.code), ['BB', 'I']);

      const d = await c.post('/v3/deposits', { country: 'BR', amount: '10.00', currency: 'BRL', payment_method: 'BB', payer });
      assert.equal(d.status, 200, d.text);
      assert.equal(d.body.checkout_type, 'ONE_SHOT', d.text);
      const md = d.body.payment_info.metadata;
      assert.equal(md.beneficiary_name, 'Operadora Pagamentos Ltda');
      assert.equal(md.agency, '1234-5');
      assert.equal(md.account, '98765-4');
      assert.equal(md.CNPJ, OPERATOR_CNPJ);
      assert.match(md.reference, /^\d{12}$/);
      assertNoStagingDetails(d.text);

      const mx = await c.post('/v3/deposits', {
        country: 'MX', amount: '100.00', currency: 'MXN', payment_method: 'SE',
        payer: { document: 'GODE561231GR8', first_name: 'Eva', last_name: 'Gómez', email: 'eva@example.com' },
      });
      assert.equal(mx.body.checkout_type, 'ONE_SHOT', mx.text);
      assert.equal(mx.body.payment_info.metadata.account, OPERATOR_CLABE);
      assert.match(mx.body.payment_info.metadata.reference, /^\d{7}$/);

      // Nothing but the bank statement says such a payment arrived: the deposit waits PENDING
      // until the operator confirms it.
      const status = await c.get(`/v3/deposits/${d.body.deposit_id}`);
      assert.equal(status.body.status, 'PENDING');
      const done = await admin(s.url, 'POST', `/admin/deposits/${d.body.deposit_id}/complete`, {});
      assert.equal(done.status, 200, done.text);
      assert.equal((await c.get(`/v3/deposits/${d.body.deposit_id}`)).body.status, 'COMPLETED');

      // Pix, boleto and cards stay refused while no connector collects them.
      const pix = await c.post('/v3/deposits', { country: 'BR', amount: '10.00', currency: 'BRL', payment_method: 'IX', payer });
      assert.equal(pix.status, 400, pix.text);
      assert.match(pix.body.details.join(' '), /available in BR: BB, I/);
    });

    test('the hosted checkout lists only the served methods; streamline creates through them', async () => {
      const d = await c.post('/v3/deposits', { country: 'BR', amount: '10.00', currency: 'BRL' });
      assert.equal(d.status, 200, d.text);
      const page = await fetch(d.body.redirect_url.replace('https://pay.example.com', s.url));
      const html = await page.text();
      assert.equal(page.status, 200);
      const offered = [...html.matchAll(/data-method="([^"]+)"/g)].map((x) => x[1]);
      assert.deepEqual(offered, ['BB', 'I'], html.slice(0, 2000));

      const form = await newInvoice(s, m, 'BB', `PROD-${backend}-2`);
      const answer = JSON.parse(form.text);
      assert.equal(answer.status, '0', form.text);
      const refused = await newInvoice(s, m, 'BL', `PROD-${backend}-3`);
      assert.match(JSON.parse(refused.text).desc, /x_bank: 'BL' \(Boleto\) is not available.*available in BR: BB, I/);
    });
  });
}
