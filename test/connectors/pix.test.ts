// The API Pix connector against the PSP simulator (a separate process with its own CA, mTLS,
// OAuth2 with short-lived tokens; src/connectors/pix/simulator), with caja in production on
// PGlite and PostgreSQL: configuration, a deposit collected and completed through the PSP, the
// webhook duplicated, forged, replayed or lost, the token expiring. Every request caja made is
// checked against the Central Bank's OpenAPI document by the simulator (violations() empty at the
// end). The PSP failing, deposits expiring and the hosted checkout: pix-outages.test.ts;
// devoluções: pix-refunds.test.ts (test/helpers/pix-connector.ts sets them up).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { backends, startTestServer, type TestServer } from '../helpers/server.ts';
import { admin, createMerchant, V3Client } from '../helpers/clients.ts';
import { cpf } from '../helpers/documents.ts';
import { startPixSimulator, type PixSimulator } from '../helpers/pix-simulator.ts';
import { startPixSuite, type PixSuite } from '../helpers/pix-connector.ts';
import { verifyPixCrc } from '../../src/domain/pix.ts';
import { reconcile } from '../../src/deposits/payments.ts';
import { payinConnectorNamed } from '../../src/connectors/registry.ts';
import { setRates } from '../helpers/four-eyes.ts';
import { until } from '../helpers/until.ts';

for (const backend of backends()) {
  describe(`Pix connector through the API Pix simulator (${backend})`, () => {
    let p: PixSuite;
    let sim: PixSimulator;
    let s: TestServer;

    before(async () => {
      p = await startPixSuite(backend, { configure: false });
      ({ sim, s } = p);
    });

    after(() => p?.close());

    const body = (extra: Record<string, unknown> = {}) => p.body(extra);
    const pixDeposit = (extra: Record<string, unknown> = {}) => p.pixDeposit(extra);
    const status = (id: number) => p.status(id);
    const payments = (txid: string) => p.payments(txid);

    test('configuration: validated with v3 201 errors, secrets sealed and never answered, health after token and webhook', async () => {
      const bad = await admin(s.url, 'PUT', '/admin/connectors/pix', {
        ...sim.config, api_url: 'http://psp.example/v2', certificate: 'not a pem', pix_key: 'nope',
      });
      assert.equal(bad.status, 400, bad.text);
      assert.equal(bad.body.code, 201);
      const details = bad.body.details.join('\n');
      for (const field of ['api_url', 'certificate', 'pix_key']) assert.match(details, new RegExp(field));
      // Another key than the certificate's.
      const other = await startPixSimulator();
      try {
        const mismatch = await admin(s.url, 'PUT', '/admin/connectors/pix', { ...sim.config, private_key: other.config.private_key });
        assert.equal(mismatch.status, 400);
        assert.match(mismatch.body.details.join(), /private_key: does not match the certificate/);
      } finally {
        await other.stop();
      }
      assert.equal((await admin(s.url, 'GET', '/admin/connectors/pix')).status, 404);

      const put = await admin(s.url, 'PUT', '/admin/connectors/pix', sim.config);
      assert.equal(put.status, 200, put.text);
      for (const r of [put, await admin(s.url, 'GET', '/admin/connectors/pix')]) {
        assert.ok(!r.text.includes(sim.config.client_secret), 'client_secret answered');
        assert.ok(!r.text.includes('PRIVATE KEY'), 'private key answered');
        assert.equal(r.body.api_url, sim.config.api_url);
        assert.equal(r.body.pix_key, sim.config.pix_key);
        assert.equal(r.body.health.token_obtained, true);
        assert.equal(r.body.health.webhook_registered, true);
      }
      const { rows } = await s.ctx.db.query<{ secrets: string; settings: unknown }>('SELECT secrets, settings FROM connectors');
      assert.ok(!rows[0]!.secrets.includes(sim.config.client_secret) && !rows[0]!.secrets.includes('PRIVATE'));
      assert.ok(!JSON.stringify(rows[0]!.settings).includes(sim.config.client_secret));
      const state = await sim.state();
      assert.deepEqual(state.webhooks.map((w) => [w.chave, w.webhookUrl]), [[sim.config.pix_key, `${s.url}/connectors/pix/webhook`]]);
      // The worker's first reconciliation poll (the later ones are driven by the tests).
      await until('first poll', async () => (await admin(s.url, 'GET', '/admin/connectors/pix')).body.health.last_poll_ok, (ok) => ok === true);
      // Unauthenticated: refused like every /admin route.
      assert.equal((await admin(s.url, 'GET', '/admin/connectors/pix', undefined, 'wrong-token-0123456789')).status, 401);
    });

    test('pay with webhook: cob as asked, its BR Code shown, completed once through the webhook and the PSP read-back', async () => {
      const d = await pixDeposit();
      assert.match(d.txid, /^[a-zA-Z0-9]{26,35}$/);
      assert.equal(d.row.connector, 'pix');
      const cob = (await sim.state()).cobs.find((c: any) => c.txid === d.txid);
      assert.ok(cob, 'cob created at the PSP');
      assert.equal(cob.valor.original, Number(d.row.payer_amount).toFixed(2));
      assert.equal(cob.chave, sim.config.pix_key);
      assert.deepEqual(cob.devedor, { cpf: cpf('111444777'), nome: 'Maria Souza' });
      assert.equal(cob.solicitacaoPagador, 'Order 42');
      assert.ok(cob.calendario.expiracao > 3500 && cob.calendario.expiracao <= 3600, String(cob.calendario.expiracao));
      // The PSP's BR Code is what the merchant and the customer get, with its QR.
      assert.equal(d.info.secondary_metadata.digitable_line, cob.pixCopiaECola);
      assert.ok(verifyPixCrc(d.info.secondary_metadata.digitable_line));
      assert.ok(!JSON.stringify(d.info).includes('11222333000181'), 'the staging CNPJ is not shown');
      const page = await fetch(`${s.url}/pay/${(await s.ctx.db.query<{ token: string }>('SELECT token FROM deposits WHERE id = $1', [d.id])).rows[0]!.token}`);
      assert.ok((await page.text()).includes(cob.pixCopiaECola.replace(/&/g, '&amp;').slice(0, 30)));

      assert.equal(await status(d.id), 'PENDING');
      const paid = await sim.control.pay(d.txid);
      await until('deposit completed', () => status(d.id), (x) => x === 'COMPLETED');
      assert.deepEqual(await payments(d.txid), [{ payment_id: paid.endToEndId, status: 'applied', seen_via: 'webhook' }]);
      // Completed through the one completion path: history, event, balance credit.
      const { rows } = await s.ctx.db.query('SELECT actor, cause FROM deposit_status_changes WHERE deposit_id = $1 AND to_status = $2', [d.id, 'COMPLETED']);
      assert.deepEqual(rows, [{ actor: 'provider', cause: 'payment' }]);
    });

    test('a second installation sharing the master key on the same PSP account: its charges get txids never used', async () => {
      const mine = await pixDeposit();
      const other = await startTestServer(backend, { CAJA_ENV: 'production', CAJA_CONNECTOR_TIMEOUT_MS: '1500', CAJA_MASTER_KEY: s.ctx.config.masterKey.toString('base64') });
      try {
        await setRates(other, { BRL: '5.00' });
        assert.equal((await admin(other.url, 'PUT', '/admin/connectors/pix', sim.config)).status, 200);
        const om = await createMerchant(other.url, 'Other Pix shop');
        const r = await V3Client.deposits(other.url, om).post('/v3/deposits', body({ amount: '77.00' }));
        assert.equal(r.status, 200, r.text);
        // Both installations count deposits from the same start: the ids meet.
        assert.ok(r.body.deposit_id <= mine.id, `deposit ${r.body.deposit_id} of the other installation`);
        const txid = (await other.ctx.db.query<{ connector_reference: string }>('SELECT connector_reference FROM deposits WHERE id = $1', [r.body.deposit_id])).rows[0]!.connector_reference;
        const used = (await s.ctx.db.query<{ connector_reference: string }>(`SELECT connector_reference FROM deposits WHERE connector = 'pix'`)).rows.map((x) => x.connector_reference);
        assert.ok(!used.includes(txid), `txid ${txid} was this installation's already`);
        const cob = (await sim.state()).cobs.find((c: any) => c.txid === txid);
        assert.equal(cob?.valor.original, '77.00', 'its own cob at the PSP');
      } finally {
        await other.close();
        // The webhook back to this installation.
        assert.equal((await admin(s.url, 'PUT', '/admin/connectors/pix', sim.config)).status, 200);
      }
    });

    test('duplicated webhooks credit once', async () => {
      await sim.control.webhookMode('duplicate');
      try {
        const d = await pixDeposit();
        await sim.control.pay(d.txid);
        await until('deposit completed', () => status(d.id), (x) => x === 'COMPLETED');
        await sim.control.webhooksIdle();
        assert.equal((await payments(d.txid)).length, 1);
        const { rows } = await s.ctx.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM deposit_status_changes WHERE deposit_id = $1 AND to_status = 'COMPLETED'`, [d.id]);
        assert.equal(rows[0]!.n, 1);
        const credits = await s.ctx.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM ledger_transfers WHERE subject_type = 'deposit' AND subject_id = $1`, [d.id]).catch(() => null);
        if (credits) assert.equal(credits.rows[0]!.n, 1);
      } finally {
        await sim.control.webhookMode('deliver');
      }
    });

    test('a forged webhook credits nothing; a replayed one adds nothing', async () => {
      const d = await pixDeposit();
      const forged = {
        pix: [{ endToEndId: 'E00000000202611261200abcdefghijk', txid: d.txid, valor: d.row.payer_amount, chave: sim.config.pix_key, horario: new Date().toISOString() }],
      };
      for (const path of ['/connectors/pix/webhook/pix', '/connectors/pix/webhook']) {
        const r = await fetch(s.url + path, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(forged) });
        assert.equal(r.status, 200, await r.text());
      }
      assert.equal(await status(d.id), 'PENDING');
      assert.deepEqual(await payments(d.txid), []);
      // The real payment, then its webhook replayed by someone else: one payment, one credit.
      const paid = await sim.control.pay(d.txid);
      await until('deposit completed', () => status(d.id), (x) => x === 'COMPLETED');
      const replay = await fetch(s.url + '/connectors/pix/webhook/pix', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ pix: [paid.pix] }) });
      assert.equal(replay.status, 200);
      assert.equal((await payments(d.txid)).length, 1);
      // Garbage is no hint.
      const junk = await fetch(s.url + '/connectors/pix/webhook/pix', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"pix":"x"}' });
      assert.equal(junk.status, 200);
    });

    test('webhook lost: the reconciliation poll completes the deposit', async () => {
      await sim.control.webhookMode('drop');
      try {
        const d = await pixDeposit();
        const paid = await sim.control.pay(d.txid);
        await new Promise((r) => setTimeout(r, 300));
        assert.equal(await status(d.id), 'PENDING');
        const connector = (await payinConnectorNamed(s.ctx, 'pix'))!;
        const run = await reconcile(s.ctx, connector, 3600, true);
        assert.equal(run.ran, true);
        assert.equal(await status(d.id), 'COMPLETED');
        assert.deepEqual(await payments(d.txid), [{ payment_id: paid.endToEndId, status: 'applied', seen_via: 'poll' }]);
        // The next window overlaps this one: the same payment is seen again and applied no more,
        // and counted once in the payments metric (its re-reading counted apart).
        const counted = async () => {
          const text = await (await fetch(`${s.url}/metrics`)).text();
          const value = (series: string) => Number(new RegExp(`^${series.replace(/[{}"]/g, (c) => `\\${c}`)} (\\S+)$`, 'm').exec(text)?.[1] ?? 0);
          return { applied: value('caja_connector_payments_total{connector="pix",status="applied"}'), duplicate: value('caja_connector_payments_total{connector="pix",status="duplicate"}'),
            again: value('caja_connector_payments_seen_again_total{connector="pix",via="poll"}') };
        };
        const before = await counted();
        await reconcile(s.ctx, connector, 3600, true);
        assert.equal((await payments(d.txid)).length, 1);
        const after = await counted();
        assert.equal(after.applied, before.applied, 'a payment read again is not counted again');
        assert.equal(after.duplicate, 0);
        assert.ok(after.again > before.again, JSON.stringify({ before, after }));
        const windows = (await sim.state()).requests
          .filter((q) => q.method === 'GET' && /\/pix$/.test(q.path) && q.query)
          .map((q) => new URLSearchParams(q.query!))
          .map((q) => ({ inicio: Date.parse(q.get('inicio')!), fim: Date.parse(q.get('fim')!) }));
        const [prev, last] = windows.slice(-2);
        assert.ok(prev && last && last.inicio < prev.fim && last.fim >= prev.fim, JSON.stringify(windows.slice(-2)));
        // A Pix straight to the key, with no charge: seen by the poll, kept for the operator.
        const loose = await sim.control.payKey('12.34');
        await reconcile(s.ctx, connector, 3600, true);
        const unmatched = (await admin(s.url, 'GET', '/admin/connectors/pix/payments?status=unmatched')).body.payments as any[];
        const row = unmatched.find((x) => x.end_to_end_id === loose.endToEndId);
        assert.ok(row, 'a Pix without txid is listed');
        assert.deepEqual([row.txid, row.deposit_id, row.amount, row.seen_via], [null, null, '12.34', 'poll']);
        assert.match(row.reason, /without a txid/);
        const health = (await admin(s.url, 'GET', '/admin/connectors/pix')).body.health;
        assert.equal(health.last_poll_ok, true);
        assert.ok(health.polled_until);
      } finally {
        await sim.control.webhookMode('deliver');
      }
    });

    test('token expiry mid-flow: the 401 renews the token once and the call goes through', async () => {
      const before = (await sim.state()).tokensIssued;
      await sim.control.expireTokens();
      const d = await pixDeposit();
      assert.ok(d.txid);
      assert.ok((await sim.state()).tokensIssued > before);
      await sim.control.expireTokens();
      await sim.control.pay(d.txid);
      await until('deposit completed', () => status(d.id), (x) => x === 'COMPLETED');
    });

    test('every request caja made follows the API Pix document', async () => {
      assert.deepEqual(await sim.violations(), []);
    });
  });
}
