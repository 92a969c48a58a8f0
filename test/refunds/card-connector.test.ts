// No fake success in production: a card refund goes to the card connector, and where none is
// configured (production today) it is refused with a clear error and nothing changes.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { backends, startTestServer, type TestServer } from '../helpers/server.ts';
import { createMerchant, formPost, V3Client, type Credentials } from '../helpers/clients.ts';
import { cpf } from '../helpers/documents.ts';
import { createHmac } from 'node:crypto';
import { stagingCardNetwork } from '../../src/connectors/staging/card-network.ts';
import { trackConnectorRefunds } from '../../src/refunds/provider-refunds.ts';
import { ConnectorError } from '../../src/connectors/payin.ts';

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
      // The connector is chosen at each refund from the config's capability (production: no simulated
      // providers); the deposit was made in staging.
      Object.assign(s.ctx.config, { env: 'production', simulated: false });
      try {
        const r = await v3.post('/v3/refunds', { deposit_id: d.body.deposit_id, amount: '20.00' });
        assert.deepEqual([r.status, r.body.code, r.body.type], [403, 106, 'FEATURE_NOT_ENABLED'], r.text);
        assert.match(r.body.description, /no card connector is configured/);
        const f: Record<string, string> = { x_login: m.deposits.login, x_trans_key: m.deposits.trans_key, x_invoice: '', x_document: String(d.body.deposit_id), x_amount: '20.00' };
        f.x_control = createHmac('sha256', m.deposits.secret_key).update(`A${f.x_invoice}${f.x_document}${f.x_amount}`).digest('hex').toUpperCase();
        const sl = await formPost(s.url, '/api_curl/apd/refund', f);
        assert.deepEqual([sl.body.status, sl.body.error_code], ['ERROR', 607], sl.text);
      } finally {
        Object.assign(s.ctx.config, { env: 'staging', simulated: true });
      }
      assert.equal(await count(), before, 'nothing changed');
      // Staging still answers through its simulator.
      const ok = await v3.post('/v3/refunds', { deposit_id: d.body.deposit_id, amount: '20.00' });
      assert.equal(ok.body.refund_info?.result, 'SUCCESS', ok.text);
    });
  });
}

// The card network is called after the refund's transaction committed, never inside it, with the
// send-once rule: the reference is stored first; a request whose answer was lost is looked up by
// it before anything is sent again; a later answer is applied once (and notified).
for (const backend of backends()) {
  describe(`card refunds: the network called outside the transaction, sent once (${backend})`, () => {
    let s: TestServer;
    let m: Credentials;
    let v3: V3Client;
    const original = { ...stagingCardNetwork };
    let n = 0;
    before(async () => {
      s = await startTestServer(backend);
      m = await createMerchant(s.url, 'Cards once');
      v3 = V3Client.deposits(s.url, m);
    });
    after(async () => {
      Object.assign(stagingCardNetwork, original);
      await s.close();
    });

    async function cardDeposit() {
      const d = await v3.post('/v3/deposits', {
        country: 'BR', amount: '50.00', currency: 'BRL', invoice_id: `card-once-${backend}-${Date.now()}-${++n}`, payment_method: 'VI',
        payer: { document: cpf('111444777'), first_name: 'Maria', last_name: 'Souza', email: 'maria@example.com' },
      });
      assert.equal(d.status, 200, d.text);
      assert.equal((await v3.post(`/v3/sandbox/deposits/${d.body.deposit_id}/approve`, '')).status, 200);
      return d.body.deposit_id as number;
    }
    const sendRow = async (refundId: number) => (await s.ctx.db.query<{ reference: string; state: string; connector: string }>(
      'SELECT reference, state, connector FROM connector_refunds WHERE refund_id = $1', [refundId])).rows[0];
    const pass = async () => {
      await s.ctx.db.query(`UPDATE connector_refunds SET next_check_at = now() - interval '1 second' WHERE state <> 'done'`);
      await trackConnectorRefunds(s.ctx);
    };

    if (backend === 'pg') {
      test('when the network is asked, the refund and its reference are committed (seen from another connection)', async () => {
        const depositId = await cardDeposit();
        const seen: Array<{ status?: string; reference?: string; state?: string }> = [];
        stagingCardNetwork.refund = async (order) => {
          const row = await Promise.race([
            s.ctx.db.query<{ status: string; reference: string; state: string }>(
              'SELECT r.status, cr.reference, cr.state FROM refunds r JOIN connector_refunds cr ON cr.refund_id = r.id WHERE r.id = $1', [order.refundId]).then((x) => x.rows[0] ?? {}),
            // Generous: a query on a loaded machine may take seconds; a blocked one never ends.
            new Promise<{ status?: string }>((res) => setTimeout(() => res({ status: 'not visible (locked or uncommitted)' }), 10_000)),
          ]);
          seen.push({ ...row });
          return original.refund(order);
        };
        try {
          const r = await v3.post('/v3/refunds', { deposit_id: depositId, amount: '10.00' });
          assert.equal(r.status, 200, r.text);
          assert.equal(r.body.refund_info.result, 'SUCCESS', r.text);
          assert.equal(seen.length, 1);
          assert.equal(seen[0]!.status, 'PENDING', JSON.stringify(seen));
          assert.equal(seen[0]!.state, 'sending', 'sending is written before the request');
          assert.match(seen[0]!.reference ?? '', /^[A-Za-z0-9]{20,}$/);
        } finally {
          stagingCardNetwork.refund = original.refund;
        }
      });
    }

    test('the answer lost: IN_PROGRESS, then looked up by its reference and settled once, never sent twice', async () => {
      const depositId = await cardDeposit();
      const received: string[] = [];
      let lose = true;
      stagingCardNetwork.refund = async (order) => {
        received.push(order.reference);
        const answer = await original.refund(order);
        if (lose) {
          lose = false;
          throw new ConnectorError('unavailable', 'the card network did not answer in time');
        }
        return answer;
      };
      try {
        const r = await v3.post('/v3/refunds', { deposit_id: depositId, amount: '12.00', notification_url: 'https://shop.example/card-refunds' });
        assert.equal(r.status, 200, r.text);
        assert.equal(r.body.refund_info.result, 'IN_PROGRESS', r.text);
        const id = Number(r.body.refund_id);
        assert.equal((await sendRow(id))!.state, 'sending');
        await s.ctx.db.query(`UPDATE connector_refunds SET next_check_at = now() - interval '1 second' WHERE state <> 'done'`);
        await Promise.all([trackConnectorRefunds(s.ctx), trackConnectorRefunds(s.ctx)]);
        const got = await v3.get(`/v3/refunds/${id}`);
        assert.equal(got.body.status, 'COMPLETED', got.text);
        assert.equal(received.length, 1, 'sent once: the lost answer was looked up, not sent again');
        assert.equal((await sendRow(id))!.state, 'done');
        await pass();
        const changes = await s.ctx.db.query<{ to_status: string }>('SELECT to_status FROM refund_status_changes WHERE refund_id = $1 ORDER BY id', [id]);
        assert.deepEqual(changes.rows.map((c) => c.to_status), ['PENDING', 'COMPLETED']);
        const notified = await s.ctx.db.query<{ body: string }>(`SELECT body FROM notifications WHERE url = 'https://shop.example/card-refunds'`);
        assert.deepEqual(notified.rows.map((x) => JSON.parse(x.body)), [{ refund_id: id }], 'the later answer is notified');
      } finally {
        stagingCardNetwork.refund = original.refund;
      }
    });

    test('the network down before the request reached it: IN_PROGRESS, then sent (once) by the worker; .03 still rejected', async () => {
      const depositId = await cardDeposit();
      const received: string[] = [];
      let down = true;
      stagingCardNetwork.refund = async (order) => {
        if (down) {
          down = false;
          throw new ConnectorError('unavailable', 'connection refused');
        }
        received.push(order.reference);
        return original.refund(order);
      };
      try {
        const r = await v3.post('/v3/refunds', { deposit_id: depositId, amount: '10.03' });
        assert.equal(r.body.refund_info.result, 'IN_PROGRESS', r.text);
        await pass();
        await pass();
        const got = await v3.get(`/v3/refunds/${r.body.refund_id}`);
        assert.deepEqual([got.body.status, got.body.reason_code], ['REJECTED', 'INSUFFICIENT_FUNDS'], got.text);
        assert.equal(received.length, 1);
      } finally {
        stagingCardNetwork.refund = original.refund;
      }
    });
  });
}
