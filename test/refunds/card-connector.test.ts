// No fake success in production: a card refund goes to the card connector, and where none is
// configured (production today) it is refused with a clear error and nothing changes.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { backends, startTestServer, type TestServer } from '../helpers/server.ts';
import { createMerchant, formPost, V3Client, type Credentials } from '../helpers/clients.ts';
import { cpf } from '../helpers/documents.ts';
import { createHmac } from 'node:crypto';

for (const backend of backends()) {
  describe(`card refunds without a card connector (${backend})`, () => {
    let s: TestServer;
    let m: Credentials;
    let v3: V3Client;
    before(async () => {
      s = await startTestServer(backend);
      m = await createMerchant(s.url, 'Cards');
      v3 = V3Client.deposits(s.url, m);
    });
    after(() => s.close());

    test('production refuses a card refund (v3 106, streamline 607): no refund, no ledger movement, no event', async () => {
      const d = await v3.post('/v3/deposits', {
        country: 'BR', amount: '50.00', currency: 'BRL', invoice_id: `card-${backend}-${Date.now()}`, payment_method: 'VI',
        payer: { document: cpf('111444777'), first_name: 'Maria', last_name: 'Souza', email: 'maria@example.com' },
      });
      assert.equal(d.status, 200, d.text);
      assert.equal((await v3.post(`/v3/sandbox/deposits/${d.body.deposit_id}/approve`, '')).status, 200);
      const count = async () => (await s.ctx.db.query<{ n: string }>(
        `SELECT (SELECT count(*) FROM refunds) + (SELECT count(*) FROM ledger_transfers) + (SELECT count(*) FROM events) AS n`,
      )).rows[0]!.n;
      const before = await count();
      // The connector is chosen from CAJA_ENV at each refund; the deposit was made in staging.
      s.ctx.config.env = 'production';
      try {
        const r = await v3.post('/v3/refunds', { deposit_id: d.body.deposit_id, amount: '20.00' });
        assert.deepEqual([r.status, r.body.code, r.body.type], [403, 106, 'FEATURE_NOT_ENABLED'], r.text);
        assert.match(r.body.description, /no card connector is configured/);
        const f: Record<string, string> = { x_login: m.deposits.login, x_trans_key: m.deposits.trans_key, x_invoice: '', x_document: String(d.body.deposit_id), x_amount: '20.00' };
        f.x_control = createHmac('sha256', m.deposits.secret_key).update(`A${f.x_invoice}${f.x_document}${f.x_amount}`).digest('hex').toUpperCase();
        const sl = await formPost(s.url, '/api_curl/apd/refund', f);
        assert.deepEqual([sl.body.status, sl.body.error_code], ['ERROR', 607], sl.text);
      } finally {
        s.ctx.config.env = 'staging';
      }
      assert.equal(await count(), before, 'nothing changed');
      // Staging still answers through its simulator.
      const ok = await v3.post('/v3/refunds', { deposit_id: d.body.deposit_id, amount: '20.00' });
      assert.equal(ok.body.refund_info?.result, 'SUCCESS', ok.text);
    });
  });
}
