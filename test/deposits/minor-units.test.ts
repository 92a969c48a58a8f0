// Amounts in each currency's real units, as a merchant sees them over HTTP: a CLP deposit with
// cents is refused; USD converted into CLP is whole pesos in the deposit, its payment_info, the
// voucher, the streamline answer and the exchange-rate lookups; BRL keeps its centavos.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { backends, startTestServer, type TestServer } from '../helpers/server.ts';
import { bearer, createMerchant, formPost, V3Client, type Credentials } from '../helpers/clients.ts';

for (const backend of backends()) {
  describe(`minor units over HTTP (${backend})`, () => {
    let s: TestServer;
    let m: Credentials;
    let v3: V3Client;
    let n = 0;
    before(async () => {
      s = await startTestServer(backend);
      m = await createMerchant(s.url, 'Pesos');
      v3 = V3Client.deposits(s.url, m);
    });
    after(() => s.close());

    test('CLP 10018.84 is refused naming amount; nothing is stored', async () => {
      const r = await v3.post('/v3/deposits', { country: 'CL', currency: 'CLP', amount: '10018.84', invoice_id: `cl-${backend}-${++n}` });
      assert.deepEqual([r.status, r.body.code, r.body.details], [400, 201, ['amount: must be a whole number of CLP (CLP has no minor unit)']]);
      const { rows } = await s.ctx.db.query(`SELECT 1 FROM deposits WHERE invoice_id = $1`, [`cl-${backend}-${n}`]);
      assert.equal(rows.length, 0);
    });

    test('USD 13.37 in Chile is 12571 CLP everywhere the amount shows', async () => {
      const r = await v3.post('/v3/deposits', {
        country: 'CL', currency: 'USD', amount: '13.37', invoice_id: `cl-${backend}-${++n}`, payment_method: 'SV', surcharge_on_payer: false,
        payer: { email: 'ana@example.com', first_name: 'Ana', last_name: 'Pérez', document: '11.111.111-1' },
      });
      assert.equal(r.status, 200, r.text);
      const info = r.body.payment_info;
      assert.deepEqual([info.amount, info.currency], [12571, 'CLP']);
      assert.match(info.metadata.bar_code, /0001257100/, 'the voucher bar code carries 12571.00');
      const d = await v3.get(`/v3/deposits/${r.body.deposit_id}`);
      assert.equal(d.status, 200, d.text);
      assert.equal(JSON.stringify(d.body).includes('12571.14'), false, d.text);
      const voucher = await (await fetch(info.metadata.receipt_url)).text();
      assert.doesNotMatch(voucher, /12[.,]?571[.,]14/);
      const rates = await bearer(s.url, m.read_only_key, '/v3/exchange_rates?country=CL&amount=13.37');
      assert.deepEqual([rates.body.converted_amount, rates.body.converted_amount_text], [12571, '12571']);
      const ex = await formPost(s.url, '/apd/webcurrencyexchange', { x_login: m.web_status.login, x_trans_key: m.web_status.trans_key, x_country: 'CL', x_amount: '13.37' });
      assert.equal(ex.body.local_amount, '12571');
      const br = await bearer(s.url, m.read_only_key, '/v3/exchange_rates?country=BR&amount=13.37');
      assert.match(br.body.converted_amount_text, /^\d+\.\d{2}$/, 'BRL keeps its centavos');
    });
  });
}
