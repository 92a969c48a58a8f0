// The API Pix connector against the PSP simulator (a separate process with its own CA, mTLS,
// OAuth2 with short-lived tokens; src/connectors/pix/simulator), with caja in production on
// PGlite and PostgreSQL: configuration, a deposit collected, completed and refunded through the
// PSP, and the PSP misbehaving in each way the issue lists. Every request caja made is checked
// against the Central Bank's OpenAPI document by the simulator (violations() empty at the end).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { backends, startTestServer, type TestServer } from '../helpers/server.ts';
import { admin, createMerchant, formPost, V3Client, type Credentials } from '../helpers/clients.ts';
import { createHmac } from 'node:crypto';
import { cpf } from '../helpers/documents.ts';
import { assertLedgerOk } from '../helpers/ledger.ts';
import { startPixSimulator, type PixSimulator } from '../helpers/pix-simulator.ts';
import { verifyPixCrc } from '../../src/domain/pix.ts';
import { reconcile } from '../../src/deposits/payments.ts';
import { payinConnectorNamed } from '../../src/connectors/registry.ts';
import { resendStoppedRefund, trackConnectorRefunds } from '../../src/refunds/provider-refunds.ts';
import { expireDueDeposits } from '../../src/deposits/worker.ts';
import { cancelByCustomer } from '../../src/deposits/checkout.ts';
import { setRates } from '../helpers/four-eyes.ts';
import { until } from '../helpers/until.ts';

for (const backend of backends()) {
  describe(`Pix connector through the API Pix simulator (${backend})`, () => {
    let sim: PixSimulator;
    let s: TestServer;
    let m: Credentials;
    let v3: V3Client;
    let n = 0;

    before(async () => {
      sim = await startPixSimulator({ tokenTtl: 30, webhookBackoffMs: 100, webhookRetries: 2 });
      s = await startTestServer(backend, {
        CAJA_ENV: 'production',
        // The poll is driven by the tests (reconcile) after the worker's first pass.
        CAJA_PIX_POLL_SECONDS: '3600',
        CAJA_EXPIRY_INTERVAL_MS: '200',
        CAJA_CONNECTOR_TIMEOUT_MS: '1500',
      }, { workers: true });
      await setRates(s, { BRL: '5.00' });
      m = await createMerchant(s.url, 'Pix shop');
      v3 = V3Client.deposits(s.url, m);
    });

    after(async () => {
      await assertLedgerOk(s.ctx.db);
      await s.close();
      await sim.stop();
    });

    const body = (extra: Record<string, unknown> = {}) => ({
      country: 'BR', amount: '100.00', currency: 'BRL', payment_method: 'IX', invoice_id: `pix-${backend}-${++n}-${Date.now()}`,
      description: 'Order 42',
      payer: { document: cpf('111444777'), first_name: 'Maria', last_name: 'Souza', email: 'maria@example.com' },
      ...extra,
    });

    async function pixDeposit(extra: Record<string, unknown> = {}) {
      const r = await v3.post('/v3/deposits', body(extra));
      assert.equal(r.status, 200, r.text);
      const { rows } = await s.ctx.db.query<{ connector: string; connector_reference: string; payer_amount: string }>(
        'SELECT connector, connector_reference, payer_amount::text FROM deposits WHERE id = $1', [r.body.deposit_id]);
      return { id: r.body.deposit_id as number, txid: rows[0]!.connector_reference, info: r.body.payment_info, row: rows[0]! };
    }

    const status = async (id: number) => (await v3.get(`/v3/deposits/${id}`)).body.status as string;
    const payments = async (txid: string) =>
      (await s.ctx.db.query<{ payment_id: string; status: string; seen_via: string }>('SELECT payment_id, status, seen_via FROM connector_payments WHERE charge_reference = $1', [txid])).rows;

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

    test('PSP down (503, hang, reset) then back: creation refused with 520 and nothing stored, then the retry works', async () => {
      for (const mode of ['503', 'hang', 'reset'] as const) {
        await sim.control.outage(mode);
        const b = body();
        const down = await v3.post('/v3/deposits', b, { 'X-Idempotency-Key': `down-${b.invoice_id}` });
        assert.deepEqual([down.status, down.body.code, down.body.type], [503, 520, 'PAYMENT_PROVIDER_UNAVAILABLE'], `${mode}: ${down.text}`);
        const { rows } = await s.ctx.db.query('SELECT id FROM deposits WHERE invoice_id = $1', [b.invoice_id]);
        assert.deepEqual(rows, []);
        await sim.control.outage('none');
        const back = await v3.post('/v3/deposits', b, { 'X-Idempotency-Key': `down-${b.invoice_id}` });
        assert.equal(back.status, 200, `${mode}: ${back.text}`);
        assert.ok(back.body.payment_info.secondary_metadata.digitable_line);
      }
      // A replay is answered from the deposit, without the PSP (even while it is down), and
      // makes no second cob; a used invoice id is 201 without asking the PSP either.
      const b = body();
      const first = await v3.post('/v3/deposits', b, { 'X-Idempotency-Key': `replay-${b.invoice_id}` });
      assert.equal(first.status, 200, first.text);
      const cobs = (await sim.state()).cobs.length;
      await sim.control.outage('503');
      try {
        const replay = await v3.post('/v3/deposits', b, { 'X-Idempotency-Key': `replay-${b.invoice_id}` });
        assert.equal(replay.status, 200, replay.text);
        assert.equal(replay.headers.get('idempotent-replayed'), 'true');
        assert.equal(replay.body.deposit_id, first.body.deposit_id);
        const used = await v3.post('/v3/deposits', b);
        assert.deepEqual([used.status, used.body.code], [400, 201]);
      } finally {
        await sim.control.outage('none');
      }
      assert.equal((await sim.state()).cobs.length, cobs);
      assert.ok((await admin(s.url, 'GET', '/admin/connectors/pix')).body.health.last_error);
    });

    test('PSP resetting connections with the keep-alive pool full: a creation and the webhook answer 503, never 500', async () => {
      // Eight concurrent creations leave eight kept-alive connections in the client's pool; with
      // the PSP resetting every connection, the next request meets a closed one, and so does its
      // one retry on the next pooled connection.
      const fill = async () => {
        const made = await Promise.all(Array.from({ length: 8 }, () => v3.post('/v3/deposits', body())));
        assert.deepEqual(made.map((r) => r.status), made.map(() => 200));
      };
      await fill();
      await sim.control.outage('reset');
      try {
        const b = body();
        const down = await v3.post('/v3/deposits', b, { 'X-Idempotency-Key': `reset-${b.invoice_id}` });
        assert.deepEqual([down.status, down.body.code, down.body.type], [503, 520, 'PAYMENT_PROVIDER_UNAVAILABLE'], down.text);
        assert.deepEqual((await s.ctx.db.query('SELECT id FROM deposits WHERE invoice_id = $1', [b.invoice_id])).rows, []);
      } finally {
        await sim.control.outage('none');
      }
      // The webhook's read-back through a pool of closed connections: 503 (the PSP retries).
      await fill();
      const d = await pixDeposit();
      await sim.control.outage('reset');
      try {
        const paid = await sim.control.pay(d.txid);
        await sim.control.webhooksIdle();
        const deliveries = (await sim.state()).deliveries.filter((x) => x.endToEndIds.includes(paid.endToEndId));
        assert.ok(deliveries.length >= 1 && deliveries.every((x) => x.status === 503), JSON.stringify(deliveries));
        assert.equal(await status(d.id), 'PENDING');
      } finally {
        await sim.control.outage('none');
      }
      await reconcile(s.ctx, (await payinConnectorNamed(s.ctx, 'pix'))!, 3600, true);
      assert.equal(await status(d.id), 'COMPLETED');
    });

    test('PSP process killed then restarted: creation refused with 520 while it is gone, the first one after works', async () => {
      await sim.kill();
      const b = body();
      const gone = await v3.post('/v3/deposits', b);
      assert.deepEqual([gone.status, gone.body.code], [503, 520], gone.text);
      await sim.restart();
      const back = await v3.post('/v3/deposits', b);
      assert.equal(back.status, 200, back.text);
      const d = await pixDeposit();
      await sim.control.pay(d.txid);
      await until('deposit completed', () => status(d.id), (x) => x === 'COMPLETED');
    });

    test('PSP unreadable when its webhook comes: answered 503 (the PSP retries), nothing credited, the poll completes it later', async () => {
      const d = await pixDeposit();
      await sim.control.outage('503');
      try {
        const paid = await sim.control.pay(d.txid);
        await sim.control.webhooksIdle();
        const deliveries = (await sim.state()).deliveries.filter((x) => x.endToEndIds.includes(paid.endToEndId));
        assert.ok(deliveries.length >= 2 && deliveries.every((x) => x.status === 503), JSON.stringify(deliveries));
        assert.equal(await status(d.id), 'PENDING');
        assert.deepEqual(await payments(d.txid), []);
      } finally {
        await sim.control.outage('none');
      }
      await reconcile(s.ctx, (await payinConnectorNamed(s.ctx, 'pix'))!, 3600, true);
      assert.equal(await status(d.id), 'COMPLETED');
    });

    test('cob creation refused: 521 with the PSP\'s reason, nothing stored, the retry works', async () => {
      await sim.control.failNextCob(400, 1, 'Chave não pertence ao usuário');
      const b = body();
      const refused = await v3.post('/v3/deposits', b);
      assert.deepEqual([refused.status, refused.body.code, refused.body.type], [502, 521, 'PAYMENT_PROVIDER_REFUSED'], refused.text);
      assert.match(refused.body.description, /refused/);
      assert.deepEqual((await s.ctx.db.query('SELECT id FROM deposits WHERE invoice_id = $1', [b.invoice_id])).rows, []);
      assert.equal((await v3.post('/v3/deposits', b)).status, 200);
    });

    test('a payment for an expired deposit is kept as unmatched and shown to the operator, never credited', async () => {
      const d = await pixDeposit();
      // Past its expiry and the grace period a deposit charged at the PSP keeps for late news.
      await s.ctx.db.query(`UPDATE deposits SET expires_at = now() - interval '2 hours' WHERE id = $1`, [d.id]);
      await expireDueDeposits(s.ctx);
      // The server's own expiry worker may hold the row (SKIP LOCKED) and commit a moment later.
      await until('expired', () => status(d.id), (x) => x === 'CANCELLED');
      const paid = await sim.control.pay(d.txid, { force: true });
      const listed = await until('unmatched payment listed',
        async () => (await admin(s.url, 'GET', '/admin/connectors/pix/payments?status=unmatched')).body.payments as any[],
        (p) => p.some((x) => x.end_to_end_id === paid.endToEndId));
      const row = listed.find((x) => x.end_to_end_id === paid.endToEndId);
      assert.equal(row.deposit_id, d.id);
      assert.equal(row.txid, d.txid);
      assert.match(row.reason, /CANCELLED/);
      assert.equal(await status(d.id), 'CANCELLED');
      const metrics = await (await fetch(`${s.url}/metrics`)).text();
      assert.match(metrics, /caja_connector_payments_total\{connector="pix",status="unmatched"\} [1-9]/);
    });

    test('paid in time, heard of after the expiry: the deposit is still PENDING during the grace period and completes', async () => {
      await sim.control.webhookMode('drop');
      try {
        const d = await pixDeposit();
        const expiredAt = new Date(Date.now() - 30_000);
        await s.ctx.db.query('UPDATE deposits SET expires_at = $2 WHERE id = $1', [d.id, expiredAt]);
        await expireDueDeposits(s.ctx);
        assert.equal(await status(d.id), 'PENDING', 'within the grace period');
        await sim.control.pay(d.txid, { horario: new Date(expiredAt.getTime() - 5_000).toISOString() });
        await reconcile(s.ctx, (await payinConnectorNamed(s.ctx, 'pix'))!, 3600, true);
        assert.equal(await status(d.id), 'COMPLETED');
        // Another one, paid after its expiry (the PSP still took it): kept for the operator.
        const late = await pixDeposit();
        await s.ctx.db.query('UPDATE deposits SET expires_at = $2 WHERE id = $1', [late.id, new Date(Date.now() - 180_000)]);
        const paid = await sim.control.pay(late.txid);
        await reconcile(s.ctx, (await payinConnectorNamed(s.ctx, 'pix'))!, 3600, true);
        assert.equal(await status(late.id), 'PENDING');
        const row = (await admin(s.url, 'GET', '/admin/connectors/pix/payments?status=unmatched')).body.payments.find((x: any) => x.end_to_end_id === paid.endToEndId);
        assert.match(row.reason, /after the deposit expired/);
      } finally {
        await sim.control.webhookMode('deliver');
      }
    });

    async function paidDeposit() {
      const d = await pixDeposit();
      await sim.control.pay(d.txid);
      await until('deposit completed', () => status(d.id), (x) => x === 'COMPLETED');
      return d;
    }
    const refundStatus = async (id: number) => (await v3.get(`/v3/refunds/${id}`)).body.status as string;
    /** The devolução id stored with the refund's row (random, before the first PUT). */
    const devolucaoId = async (id: number) => (await s.ctx.db.query<{ reference: string }>('SELECT reference FROM connector_refunds WHERE refund_id = $1', [id])).rows[0]!.reference;

    test('devolução settled: the refund needs no bank account, is sent once and completes', async () => {
      const d = await paidDeposit();
      const r = await v3.post('/v3/refunds', { deposit_id: d.id, amount: '30.00' });
      assert.equal(r.status, 200, r.text);
      const id = r.body.refund_id as number;
      assert.equal(await refundStatus(id), 'PENDING');
      const devId = await devolucaoId(id);
      assert.match(devId, /^cajadev[a-zA-Z0-9]{25}$/, 'a random devolução id, stored with the refund');
      const dev = await until('devolução at the PSP', async () => (await sim.state()).devolucoes.filter((x: any) => x.id === devId), (x) => x.length === 1);
      assert.equal(dev[0].valor, '30.00');
      await sim.control.settleDevolucoes();
      await until('refund completed', () => refundStatus(id), (x) => x === 'COMPLETED');
      assert.equal((await sim.state()).devolucoes.filter((x: any) => x.id === devId).length, 1);
    });

    test('a devolução found under the refund\'s id that is not the refund\'s (another valor) is never adopted: stopped, on /metrics', async () => {
      const d = await paidDeposit();
      const first = await v3.post('/v3/refunds', { deposit_id: d.id, amount: '30.00' });
      assert.equal(first.status, 200, first.text);
      const firstDev = await devolucaoId(first.body.refund_id);
      await until('devolução at the PSP', async () => (await sim.state()).devolucoes.filter((x: any) => x.id === firstDev).length, (x) => x === 1);
      // The first refund's devolução is returned; the second's stays in process at the PSP.
      await sim.control.settleDevolucoes();
      await until('first refund completed', () => refundStatus(first.body.refund_id), (x) => x === 'COMPLETED');
      const second = await v3.post('/v3/refunds', { deposit_id: d.id, amount: '20.00' });
      assert.equal(second.status, 200, second.text);
      const id = second.body.refund_id as number;
      const rowOf = async () => (await s.ctx.db.query<{ state: string; last_error: string }>('SELECT state, last_error FROM connector_refunds WHERE refund_id = $1', [id])).rows[0]!;
      await until('sent', async () => (await rowOf()).state, (x) => x === 'sent');
      // Its row names the first refund's devolução (as a row restored with a reference used since
      // would; the first refund's own row is then not in the restored database: moved aside here,
      // a reference names one row).
      await s.ctx.db.query(`UPDATE connector_refunds SET reference = 'gone' || refund_id WHERE refund_id = $1`, [first.body.refund_id]);
      await s.ctx.db.query(`UPDATE connector_refunds SET reference = $2 WHERE refund_id = $1`, [id, firstDev]);
      const row = await until('looked up', async () => {
        await s.ctx.db.query(`UPDATE connector_refunds SET next_check_at = now() - interval '1 second' WHERE refund_id = $1 AND state = 'sent'`, [id]);
        await trackConnectorRefunds(s.ctx);
        return rowOf();
      }, (x) => x.state !== 'sent');
      assert.equal(row.state, 'stopped');
      assert.match(row.last_error, /valor 30\.00 \(the refund's is 20\.00\)/);
      assert.equal(await refundStatus(id), 'PENDING', 'not COMPLETED by the first refund\'s devolução');
      assert.match(await (await fetch(`${s.url}/metrics`)).text(), /caja_connector_orders_stopped\{connector="pix",kind="refund"\} 1/);
      // Stopped rows are never stepped again.
      await s.ctx.db.query(`UPDATE connector_refunds SET next_check_at = now() - interval '1 second' WHERE refund_id = $1`, [id]);
      await trackConnectorRefunds(s.ctx);
      assert.equal(await refundStatus(id), 'PENDING');
      // The operator sends it again under a new devolução id (`caja connector pix resend`).
      const actor = { kind: 'token' as const, id: 0, name: 'cli', ip: null };
      const resent = (await resendStoppedRefund(s.ctx.db, id, actor))!;
      assert.equal(resent.from, firstDev);
      assert.equal(await resendStoppedRefund(s.ctx.db, id, actor), null, 'once');
      await until('its own devolução at the PSP', async () => {
        await trackConnectorRefunds(s.ctx);
        return (await sim.state()).devolucoes.filter((x: any) => x.id === resent.to);
      }, (x) => x.length === 1 && x[0].valor === '20.00');
      await sim.control.settleDevolucoes();
      await until('refund completed', () => refundStatus(id), (x) => x === 'COMPLETED');
    });

    test('devolução refused (NAO_REALIZADO): the refund is rejected and its reservation voided', async () => {
      await sim.control.devolucao({ outcome: 'NAO_REALIZADO' });
      try {
        const d = await paidDeposit();
        const r = await v3.post('/v3/refunds', { deposit_id: d.id, amount: '100.00', bank_account: { beneficiary: 'Maria Souza', bank_code: '341', branch: '0001', account_number: '12345-4', account_type: 'CHECKING' } });
        assert.equal(r.status, 200, r.text);
        const id = r.body.refund_id as number;
        const devId = await devolucaoId(id);
        await until('devolução at the PSP', async () => (await sim.state()).devolucoes.filter((x: any) => x.id === devId).length, (x) => x === 1);
        await sim.control.settleDevolucoes();
        await until('refund rejected', () => refundStatus(id), (x) => x === 'REJECTED');
        // The whole amount can be refunded again: nothing is held any more.
        const again = await v3.post('/v3/refunds', { deposit_id: d.id, amount: '100.00' });
        assert.equal(again.status, 200, again.text);
      } finally {
        await sim.control.devolucao({ outcome: 'DEVOLVIDO' });
      }
    });

    test('the lease is held for the whole PUT: a worker pass while the devolução is being sent runs no second step', async () => {
      // A PSP slower than the first backoff (2 s): the connector waits up to 12 s for it (long
      // enough that the PUT is still in flight through the whole check on a loaded machine).
      const slow = await startTestServer(backend, { CAJA_ENV: 'production', CAJA_CONNECTOR_TIMEOUT_MS: '12000', CAJA_MASTER_KEY: s.ctx.config.masterKey.toString('base64') });
      try {
        await setRates(slow, { BRL: '5.00' });
        assert.equal((await admin(slow.url, 'PUT', '/admin/connectors/pix', sim.config)).status, 200);
        const sm = await createMerchant(slow.url, 'Slow PSP shop');
        const sv3 = V3Client.deposits(slow.url, sm);
        const created = await sv3.post('/v3/deposits', body({ amount: '40.00' }));
        assert.equal(created.status, 200, created.text);
        const txid = (await slow.ctx.db.query<{ connector_reference: string }>('SELECT connector_reference FROM deposits WHERE id = $1', [created.body.deposit_id])).rows[0]!.connector_reference;
        await sim.control.pay(txid);
        await until('deposit completed', async () => (await sv3.get(`/v3/deposits/${created.body.deposit_id}`)).body.status, (x) => x === 'COMPLETED');
        await sim.control.outage('hang');
        const r = await sv3.post('/v3/refunds', { deposit_id: created.body.deposit_id, amount: '10.00' });
        assert.equal(r.status, 200, r.text);
        const id = r.body.refund_id as number;
        // Its first PUT in flight: 'sending' with the lease held.
        await until('sending', async () => (await slow.ctx.db.query<{ state: string; leased: boolean }>('SELECT state, leased_until > now() AS leased FROM connector_refunds WHERE refund_id = $1', [id])).rows[0]!, (x) => x.state === 'sending' && x.leased);
        const requestsBefore = (await sim.state()).requests.length;
        // Past the first backoff, the PUT still unanswered: the worker's pass must leave the row alone.
        await new Promise((res) => setTimeout(res, 2300));
        assert.equal(await trackConnectorRefunds(slow.ctx), 0, 'a second step took the row while its PUT was in flight');
        // Other servers share the PSP (token renewals, polls): only this refund's devolução counts.
        const reference = (await slow.ctx.db.query<{ reference: string }>('SELECT reference FROM connector_refunds WHERE refund_id = $1', [id])).rows[0]!.reference;
        const during = (await sim.state()).requests.slice(requestsBefore).filter((q: { path: string }) => q.path.includes(reference));
        assert.equal(during.length, 0, `nothing asked of the PSP about this devolução alongside the PUT: ${JSON.stringify(during)}`);
        await sim.control.outage('none');
      } finally {
        await sim.control.outage('none');
        await slow.close();
        assert.equal((await admin(s.url, 'PUT', '/admin/connectors/pix', sim.config)).status, 200);
      }
    });

    test('a devolução whose answer was lost is looked up, not sent again', async () => {
      const d = await paidDeposit();
      // The PSP hangs: the PUT times out after (maybe) reaching it; the refund stays PENDING.
      await sim.control.outage('hang');
      const r = await v3.post('/v3/refunds', { deposit_id: d.id, amount: '10.00' });
      assert.equal(r.status, 200, r.text);
      const id = r.body.refund_id as number;
      await until('sending', async () => (await s.ctx.db.query<{ state: string; attempts: number }>('SELECT state, attempts FROM connector_refunds WHERE refund_id = $1', [id])).rows[0]!,
        (x) => x.state === 'sending' && x.attempts >= 1, 10_000);
      await sim.control.outage('none');
      await until('devolução sent', async () => (await s.ctx.db.query<{ state: string }>('SELECT state FROM connector_refunds WHERE refund_id = $1', [id])).rows[0]!.state, (x) => x === 'sent');
      await sim.control.settleDevolucoes();
      await until('refund completed', () => refundStatus(id), (x) => x === 'COMPLETED');
      const devId = await devolucaoId(id);
      assert.equal((await sim.state()).devolucoes.filter((x: any) => x.id === devId).length, 1);
      const puts = (await sim.state()).requests.filter((q) => q.method === 'PUT' && q.path.endsWith(`/devolucao/${devId}`) && q.status !== null && q.status < 300);
      assert.ok(puts.length <= 1, JSON.stringify(puts));
    });

    test('hosted checkout: picking Pix creates the cob (a PSP outage leaves the choice open), then the payment completes it', async () => {
      const r = await v3.post('/v3/deposits', { country: 'BR', currency: 'BRL', amount: '50.00', invoice_id: `pix-hosted-${backend}-${Date.now()}`, payment_method: 'IX' });
      assert.equal(r.status, 200, r.text);
      assert.equal(r.body.checkout_type, 'HOSTED');
      const url = r.body.redirect_url as string;
      const token = url.split('/').pop()!;
      const page = await (await fetch(url, { headers: { 'accept-language': 'en' } })).text();
      const csrf = /name="csrf" value="([0-9a-f]+)"/.exec(page)?.[1] ?? '';
      const choose = () => fetch(url, {
        method: 'POST', redirect: 'manual',
        headers: { 'content-type': 'application/x-www-form-urlencoded', origin: s.url, 'accept-language': 'en' },
        body: new URLSearchParams({ csrf, method: 'IX', 'payer.document': cpf('529982247'), 'payer.first_name': 'Ana', 'payer.last_name': 'Silva', 'payer.email': 'ana@example.com' }).toString(),
      });
      await sim.control.outage('503');
      // The connectors' configuration expired from the cache (CAJA_CACHE_SECONDS): the choice reads it
      // again. Read inside the choice's transaction, that waited on PGlite's one connection for ever.
      s.ctx.cache.changed();
      const down = await choose();
      assert.equal(down.status, 200);
      assert.match(await down.text(), /not available right now/);
      const still = (await s.ctx.db.query<{ payment_method: string | null; payment_info: unknown }>('SELECT payment_method, payment_info FROM deposits WHERE id = $1', [r.body.deposit_id])).rows[0]!;
      assert.deepEqual([still.payment_method, still.payment_info], ['IX', null], 'the merchant named the method; nothing was set up');
      await sim.control.outage('none');
      s.ctx.cache.changed();
      const chose = await choose();
      assert.equal(chose.status, 303, await chose.text());
      assert.match(chose.headers.get('location') ?? '', new RegExp(`/pay/${token}`));
      const d = (await s.ctx.db.query<{ connector: string; connector_reference: string; payment_info: any }>('SELECT connector, connector_reference, payment_info FROM deposits WHERE id = $1', [r.body.deposit_id])).rows[0]!;
      assert.equal(d.connector, 'pix');
      const info = typeof d.payment_info === 'string' ? JSON.parse(d.payment_info) : d.payment_info;
      const cob = (await sim.state()).cobs.find((c: any) => c.txid === d.connector_reference);
      assert.equal(info.secondary_metadata.digitable_line, cob.pixCopiaECola);
      assert.deepEqual(cob.devedor, { cpf: cpf('529982247'), nome: 'Ana Silva' });
      await sim.control.pay(d.connector_reference);
      await until('hosted deposit completed', () => status(r.body.deposit_id), (x) => x === 'COMPLETED');
    });

    test('a hosted Pix deposit the customer cancels has its cob withdrawn at the PSP; a payment still made is kept unmatched', async () => {
      const r = await v3.post('/v3/deposits', { country: 'BR', currency: 'BRL', amount: '20.00', invoice_id: `pix-cancel-${backend}-${Date.now()}`, payment_method: 'IX' });
      const url = r.body.redirect_url as string;
      const token = url.split('/').pop()!;
      const page = await (await fetch(url, { headers: { 'accept-language': 'en' } })).text();
      const csrf = /name="csrf" value="([0-9a-f]+)"/.exec(page)?.[1] ?? '';
      const chose = await fetch(url, {
        method: 'POST', redirect: 'manual',
        headers: { 'content-type': 'application/x-www-form-urlencoded', origin: s.url, 'accept-language': 'en' },
        body: new URLSearchParams({ csrf, method: 'IX', 'payer.document': cpf('529982247'), 'payer.first_name': 'Ana', 'payer.last_name': 'Silva', 'payer.email': 'ana@example.com' }).toString(),
      });
      assert.equal(chose.status, 303);
      const txid = (await s.ctx.db.query<{ connector_reference: string }>('SELECT connector_reference FROM deposits WHERE id = $1', [r.body.deposit_id])).rows[0]!.connector_reference;
      await cancelByCustomer(s.ctx, token);
      assert.equal(await status(r.body.deposit_id), 'CANCELLED');
      const cob = (await sim.state()).cobs.find((c: any) => c.txid === txid);
      assert.equal(cob.status, 'REMOVIDA_PELO_USUARIO_RECEBEDOR');
      const paid = await sim.control.pay(txid, { force: true });
      await until('unmatched payment listed',
        async () => (await admin(s.url, 'GET', '/admin/connectors/pix/payments?status=unmatched')).body.payments as any[],
        (p) => p.some((x) => x.end_to_end_id === paid.endToEndId && x.deposit_id === r.body.deposit_id));
      assert.equal(await status(r.body.deposit_id), 'CANCELLED');
    });

    test('streamline NewInvoice: a Pix invoice gets the PSP\'s cob; the PSP down is error 320, a refused cob 321, nothing stored', async () => {
      const fields = (invoice: string) => {
        const f: Record<string, string> = {
          x_login: m.deposits.login, x_trans_key: m.deposits.trans_key, x_invoice: invoice, x_amount: '100.00', x_currency: 'BRL',
          x_country: 'BR', x_bank: 'IX', x_iduser: '4411', x_cpf: cpf('529982247'), x_name: 'João da Silva', x_email: 'joao@example.com',
          x_address: 'Rua Augusta 1500', x_zip: '01304-001', x_city: 'São Paulo', x_state: 'SP', x_version: '1.1', type: 'json',
          x_return: 'https://shop.example/return',
        };
        const v = (k: string) => f[k] ?? '';
        f.control = createHmac('sha256', m.deposits.secret_key).update(
          `${v('x_invoice')}V${v('x_amount')}I${v('x_iduser')}2${v('x_bank')}1${v('x_cpf')}H${v('x_bdate')}G${v('x_email')}Y${v('x_zip')}A${v('x_address')}P${v('x_city')}S${v('x_state')}P`, 'utf8',
        ).digest('hex').toUpperCase();
        return f;
      };
      const invoice = `SL-pix-${backend}-${Date.now()}`;
      await sim.control.outage('503');
      try {
        const down = await formPost(s.url, '/api_curl/streamline/NewInvoice', fields(invoice));
        assert.equal(down.status, 200);
        assert.deepEqual([down.body.status, down.body.error_code], ['1', 320], down.text);
      } finally {
        await sim.control.outage('none');
      }
      await sim.control.failNextCob(400);
      const refused = await formPost(s.url, '/api_curl/streamline/NewInvoice', fields(invoice));
      assert.deepEqual([refused.body.status, refused.body.error_code], ['1', 321], refused.text);
      assert.deepEqual((await s.ctx.db.query('SELECT id FROM deposits WHERE invoice_id = $1', [invoice])).rows, []);
      const ok = await formPost(s.url, '/api_curl/streamline/NewInvoice', fields(invoice));
      assert.equal(ok.body.status, '0', ok.text);
      const { rows } = await s.ctx.db.query<{ connector: string; checkout_type: string }>('SELECT connector, checkout_type FROM deposits WHERE invoice_id = $1', [invoice]);
      assert.deepEqual(rows, [{ connector: 'pix', checkout_type: 'ONE_SHOT' }]);
    });

    test('every request caja made follows the API Pix document', async () => {
      assert.deepEqual(await sim.violations(), []);
    });
  });
}
