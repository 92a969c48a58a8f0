// Issue 38 §1: after a database restore (and with two installations sharing a master key) nothing
// is paid twice or "paid" without being sent. caja in production, STP as its simulator (a separate
// process that verifies every firma), on PGlite and PostgreSQL:
//   - the database restored to a backup taken before a cashout left (PostgreSQL: CREATE DATABASE
//     … TEMPLATE; PGlite: a copy of its data directory; a real copy of every table and sequence):
//     the next cashout gets the same id, yet its own claveRastreo, and is really sent; nothing is
//     COMPLETED without an order
//   - two installations sharing a master key on one STP account: each cashout its own order
//   - an order found under a row's reference that is not the cashout's (amount, account,
//     beneficiary) is never adopted: the row is stopped, raised on /metrics and the console
//   - an order STP dates the next operation day is found (not left DELIVERED, not sent again)
//   - the lease is held through the send: a state hint arriving meanwhile runs no second step
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { backends, startTestServer, type TestServer } from '../helpers/server.ts';
import { ADMIN_TOKEN } from '../helpers/server.ts';
import { admin, cashoutRequest, createMerchant, type Credentials } from '../helpers/clients.ts';
import { createScratchDatabase, postgresUrl } from '../helpers/databases.ts';
import { migratedPgliteDir } from '../helpers/data-dir.ts';
import { pgTemplate } from '../helpers/pg-template.ts';
import { startStpSimulator, type StpSimulator } from '../helpers/stp-simulator.ts';
import { buildClabe } from '../../src/domain/clabe.ts';
import { loadConfig } from '../../src/config/config.ts';
import type { AppContext } from '../../src/config/context.ts';
import { buildApp } from '../../src/server/app.ts';
import { openContext } from '../../src/server/runtime.ts';
import { runCashoutJobs } from '../../src/cashouts/worker.ts';
import { handOverDueCashouts, resendStoppedPayout } from '../../src/cashouts/payouts.ts';
import { payinConnectorNamed } from '../../src/connectors/registry.ts';
import type { StpConnector } from '../../src/connectors/stp/connector.ts';
import { makeOperator, signedIn } from '../ops/helpers.ts';
import { fundMerchant, type Reachable, setRates } from '../helpers/four-eyes.ts';

const BENEFICIARY_CLABE = buildClabe('012', '180', '00123456789');
const PRODUCTION = { CAJA_ENV: 'production', CAJA_CONNECTOR_TIMEOUT_MS: '1500', CAJA_CASHOUT_DELAY_SECONDS: '0', CAJA_STP_ORDER_CHECK_SECONDS: '1' };

type Server = { url: string; ctx: AppContext; close(): Promise<void> };

let seq = 0;
async function createCashout(url: string, m: Credentials, amount: string, over: Record<string, unknown> = {}): Promise<number> {
  const r = await cashoutRequest(url, m, 'POST', '/v3/cashout', {
    country: 'MX', currency: 'MXN', amount, document_id: 'GODE561231GR8', beneficiary_name: 'Eva', beneficiary_lastname: 'Gómez',
    bank_code: '12', bank_account: BENEFICIARY_CLABE, account_type: 'C', external_id: `restore-${++seq}-${Date.now()}`, ...over,
  });
  assert.equal(r.status, 200, r.text);
  return r.body.cashout_id as number;
}
const cashoutStatus = async (url: string, m: Credentials, id: number) => (await cashoutRequest(url, m, 'POST', '/v3/cashout/status', { cashout_id: id })).body.cashout_status as number;
const payoutRow = async (ctx: AppContext, id: number) => (await ctx.db.query<{ reference: string; state: string; last_error: string | null }>(
  'SELECT reference, state, last_error FROM connector_payouts WHERE cashout_id = $1', [id])).rows[0];
/** Every order step due now (backoffs and check intervals skipped), then the cashout worker's pass. */
async function pass(ctx: AppContext): Promise<void> {
  await ctx.db.query(`UPDATE connector_payouts SET next_check_at = now() - interval '1 second' WHERE state NOT IN ('done', 'stopped')`);
  await runCashoutJobs(ctx);
}
const registras = (sim: StpSimulator, clave: string) => sim.state().then((st) => st.requests.filter((r) => r.path.endsWith('/ordenPago/registra') && r.claveRastreo === clave).length);
const ordersAt = (sim: StpSimulator, clave: string) => sim.state().then((st) => st.orders.filter((o) => o.claveRastreo === clave));

/** Sets up a production caja for STP: the connector, a rate, a merchant with 1,000 USD. */
async function prepare(s: Reachable, sim: StpSimulator, name: string): Promise<Credentials> {
  const url = s.url;
  await sim.control.receiver(url);
  assert.equal((await admin(url, 'PUT', '/admin/connectors/stp', sim.config)).status, 200);
  await setRates(s, { MXN: '18.00' });
  const m = await createMerchant(url, name);
  await fundMerchant(s, m.merchant_id, '1000.00', 'USD', 'test funding');
  return m;
}

for (const backend of backends()) {
  // PostgreSQL: the backup is a copy of the database (CREATE DATABASE … TEMPLATE); the embedded
  // database: a copy of its data directory taken while caja is stopped. Either way every table and
  // sequence goes back to the backup's moment.
  describe(`after a database restore (${backend}: the database copied as a backup, then restored)`, () => {
    const pgUrl = postgresUrl();
    let sim: StpSimulator;
    let live: { url: string; drop: () => Promise<void> } | null = null;
    const dataDir = mkdtempSync(join(tmpdir(), 'caja-restore-live-'));
    const backupDir = mkdtempSync(join(tmpdir(), 'caja-restore-backup-'));
    const masterKey = randomBytes(32).toString('base64');
    const servers: Server[] = [];
    let backupName = '';

    /** caja on a database (a PostgreSQL URL, or an embedded data directory) as `npm start` opens it after a restore (same master key). */
    async function startOn(where: { url: string } | { dir: string }): Promise<Server> {
      const config = loadConfig({
        ...PRODUCTION, PORT: '0', HOST: '127.0.0.1', CAJA_ADMIN_ON_PUBLIC_PORT: 'true', CAJA_MASTER_KEY: masterKey, CAJA_ADMIN_TOKEN: ADMIN_TOKEN, LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
        ...('url' in where ? { DATABASE_URL: where.url, DATA_DIR: mkdtempSync(join(tmpdir(), 'caja-restore-')) } : { DATA_DIR: where.dir }),
      });
      const ctx = await openContext(config);
      const app = await buildApp(ctx);
      await app.listen({ port: 0, host: '127.0.0.1' });
      const address = app.server.address();
      const base = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
      ctx.config.publicBaseUrl = base;
      const s = { url: base, ctx, close: async () => { await app.close(); await ctx.db.close(); } };
      servers.push(s);
      return s;
    }
    const sql = async (text: string) => {
      const c = new pg.Client({ connectionString: pgUrl });
      await c.connect();
      try {
        await c.query(text);
      } finally {
        await c.end();
      }
    };
    const liveDb = () => (live ? { url: live.url } : { dir: dataDir });

    before(async () => {
      sim = await startStpSimulator();
      // The live database starts migrated (test/helpers/data-dir.ts, pg-template.ts), as an
      // installation's after its first start; each start still runs migrate().
      if (backend === 'pg') live = await createScratchDatabase(pgUrl!, 'caja_restore', await pgTemplate(pgUrl!));
      else cpSync(await migratedPgliteDir(), join(dataDir, 'pglite'), { recursive: true });
    });
    after(async () => {
      for (const s of servers) await s.close().catch(() => undefined);
      if (backupName) await sql(`DROP DATABASE IF EXISTS ${backupName} WITH (FORCE)`).catch(() => undefined);
      await live?.drop();
      await sim?.stop();
      rmSync(dataDir, { recursive: true, force: true });
      rmSync(backupDir, { recursive: true, force: true });
    });

    test('a cashout after the restore gets its own claveRastreo, is really sent, and is not COMPLETED by the old order', { timeout: 120_000 }, async () => {
      // Configured and funded; then the backup (every table and sequence as of now), caja stopped.
      const first = await startOn(liveDb());
      const m = await prepare(first, sim, 'Restore shop');
      await first.close();
      let restoredDb: { url: string } | { dir: string };
      if (live) {
        const name = new URL(live.url).pathname.slice(1);
        backupName = `${name}_backup`;
        await sql(`CREATE DATABASE ${backupName} TEMPLATE ${name}`);
        const url = new URL(live.url);
        url.pathname = `/${backupName}`;
        restoredDb = { url: url.toString() };
      } else {
        cpSync(join(dataDir, 'pglite'), join(backupDir, 'pglite'), { recursive: true });
        restoredDb = { dir: backupDir };
      }

      // Business goes on: a cashout leaves and is paid.
      const before = await startOn(liveDb());
      await sim.control.receiver(before.url);
      const paidId = await createCashout(before.url, m, '180.00');
      await runCashoutJobs(before.ctx);
      const paidRow = (await payoutRow(before.ctx, paidId))!;
      assert.equal(paidRow.state, 'sent');
      await sim.control.estado(paidRow.reference, 'LQ');
      assert.equal(await cashoutStatus(before.url, m, paidId), 1, 'COMPLETED');
      await before.close();

      // The database is restored to the backup: the cashout above never happened for caja.
      const restored = await startOn(restoredDb);
      await sim.control.receiver(restored.url);
      const nextId = await createCashout(restored.url, m, '90.00', { beneficiary_name: 'Ana', beneficiary_lastname: 'Ruiz' });
      assert.equal(nextId, paidId, 'the restored sequence gives the same cashout id again');
      await runCashoutJobs(restored.ctx);
      await pass(restored.ctx);
      const row = (await payoutRow(restored.ctx, nextId))!;
      assert.equal(await cashoutStatus(restored.url, m, nextId), 4, 'DELIVERED: its own order is not paid yet (never COMPLETED by the old one)');
      assert.notEqual(row.reference, paidRow.reference, 'the same claveRastreo as the order sent before the restore');
      assert.equal(row.state, 'sent');
      const orders = await ordersAt(sim, row.reference);
      assert.equal(orders.length, 1, 'its order was really sent to STP');
      assert.equal(orders[0]!.monto, 90);
      assert.equal(await registras(sim, row.reference), 1);
      // Its own order paid: COMPLETED once; the order sent before the restore is left alone.
      await sim.control.estado(row.reference, 'LQ');
      assert.equal(await cashoutStatus(restored.url, m, nextId), 1);
      assert.equal(await registras(sim, paidRow.reference), 1, 'the old order was never sent again');
      assert.equal((await admin(restored.url, 'GET', '/admin/ledger/check')).status, 200);
    });
  });
}

for (const backend of backends()) {
  describe(`STP orders that cannot be taken for another (${backend})`, () => {
    let sim: StpSimulator;
    let s: TestServer;
    let m: Credentials;

    before(async () => {
      sim = await startStpSimulator();
      s = await startTestServer(backend, PRODUCTION);
      m = await prepare(s, sim, 'SPEI shop');
    });
    after(async () => {
      await s?.close();
      await sim?.stop();
    });

    test('two installations sharing a master key on one STP account: each cashout its own order', async () => {
      const other = await startTestServer(backend, { ...PRODUCTION, CAJA_MASTER_KEY: s.ctx.config.masterKey.toString('base64') });
      try {
        const m2 = await prepare(other, sim, 'Other shop');
        // Both start from the same ids.
        const a = await createCashout(other.url, m2, '33.00');
        await runCashoutJobs(other.ctx);
        const aRow = (await payoutRow(other.ctx, a))!;
        await sim.control.estado(aRow.reference, 'LQ');
        assert.equal(await cashoutStatus(other.url, m2, a), 1);

        await sim.control.receiver(s.url);
        const b = await createCashout(s.url, m, '34.00');
        await runCashoutJobs(s.ctx);
        await pass(s.ctx);
        const bRow = (await payoutRow(s.ctx, b))!;
        assert.equal(await cashoutStatus(s.url, m, b), 4, 'DELIVERED, not COMPLETED by the other installation\'s order');
        assert.notEqual(bRow.reference, aRow.reference, 'the other installation\'s claveRastreo');
        assert.equal((await ordersAt(sim, bRow.reference)).length, 1, 'its own order sent');
      } finally {
        await other.close();
        await sim.control.receiver(s.url);
      }
    });

    test('an order found under the row\'s reference that is not the cashout\'s is never adopted: stopped, on /metrics and the console', async () => {
      const paid = await createCashout(s.url, m, '20.00');
      await runCashoutJobs(s.ctx);
      const paidRow = (await payoutRow(s.ctx, paid))!;
      await sim.control.estado(paidRow.reference, 'LQ');
      assert.equal(await cashoutStatus(s.url, m, paid), 1);

      // A row whose stored reference names an order STP holds for another amount and beneficiary
      // (a row restored from a backup with a reference used since, a second installation's order).
      const other = await createCashout(s.url, m, '21.00', { beneficiary_name: 'Ana', beneficiary_lastname: 'Ruiz' });
      const [handed] = await handOverDueCashouts(s.ctx, (await payinConnectorNamed(s.ctx, 'stp') as StpConnector).payout);
      assert.equal(handed, other);
      // (The paid row gives its reference up: in a restored database it does not exist at all.)
      await s.ctx.db.query(`UPDATE connector_payouts SET reference = reference || 'X' WHERE cashout_id = $1`, [paid]);
      await s.ctx.db.query(`UPDATE connector_payouts SET reference = $2, state = 'sending', attempts = 1 WHERE cashout_id = $1`, [other, paidRow.reference]);
      await pass(s.ctx);
      await pass(s.ctx);
      const row = (await payoutRow(s.ctx, other))!;
      assert.equal(row.state, 'stopped');
      assert.match(row.last_error ?? '', /amount 20 \(the cashout's is 21\.00\).*beneficiary EVA GOMEZ \(the cashout's is ANA RUIZ\)/);
      assert.equal(await cashoutStatus(s.url, m, other), 4, 'DELIVERED: neither completed nor rejected by an order that is not its own');
      assert.equal(await registras(sim, paidRow.reference), 1, 'nothing sent again under that reference');
      const metrics = await (await fetch(`${s.url}/metrics`)).text();
      assert.match(metrics, /caja_connector_orders_stopped\{connector="stp",kind="cashout"\} 1/);
      const op = await makeOperator(s, 'support', 'restore-support');
      const page = (await (await signedIn(s, op)).get('/ops/connectors')).html;
      assert.ok(page.includes(paidRow.reference) && page.includes(`Cashout ${other}`), 'the console shows the stopped order');
      assert.match(page, /the cashout&#39;s is 21\.00|the cashout's is 21\.00/);

      // The operator checked at STP that this cashout's order never left: sent again under a new
      // claveRastreo (`caja connector stp resend`), then paid once.
      const actor = { kind: 'token' as const, id: 0, name: 'cli', ip: null };
      assert.equal(await resendStoppedPayout(s.ctx.db, paid, actor), null, 'a cashout with no stopped order');
      // Settled by the operator days after the hand-over: the new order is looked up on today's days.
      await s.ctx.db.query(`UPDATE connector_payouts SET created_at = now() - interval '10 days' WHERE cashout_id = $1`, [other]);
      const resent = (await resendStoppedPayout(s.ctx.db, other, actor))!;
      assert.equal(resent.from, paidRow.reference);
      assert.notEqual(resent.to, paidRow.reference);
      assert.equal(await resendStoppedPayout(s.ctx.db, other, actor), null, 'once');
      await pass(s.ctx);
      const [order] = await ordersAt(sim, resent.to);
      assert.equal(order?.monto, 21, 'its own order at STP');
      await sim.control.estado(resent.to, 'LQ');
      assert.equal(await cashoutStatus(s.url, m, other), 1);
      const audit = await s.ctx.db.query<{ detail: Record<string, unknown> }>(`SELECT detail FROM operator_audit WHERE action = 'cashout.order_resent' AND subject = $1`, [`cashout:${other}`]);
      assert.deepEqual(audit.rows.map((r) => r.detail), [{ connector: 'stp', from: paidRow.reference, to: resent.to }]);
      assert.equal((await admin(s.url, 'GET', '/admin/ledger/check')).status, 200);
    });

    test('an order STP dates the next operation day is found: settled, never sent again', async () => {
      await sim.control.registraNextDay(1);
      const co = await createCashout(s.url, m, '15.00');
      await runCashoutJobs(s.ctx);
      const row = (await payoutRow(s.ctx, co))!;
      assert.equal(row.state, 'sent');
      await sim.control.estado(row.reference, 'LQ', { delivery: 'drop' });
      await pass(s.ctx);
      assert.equal(await cashoutStatus(s.url, m, co), 1, 'COMPLETED: the order dated tomorrow was found');

      // The answer lost too: the row stays 'sending'; the look-up finds the order dated the next
      // day, so registra is never called again.
      await sim.control.registraNextDay(1);
      await sim.control.registraHang(1);
      const lost = await createCashout(s.url, m, '16.00');
      await runCashoutJobs(s.ctx);
      const lostRow = (await payoutRow(s.ctx, lost))!;
      assert.equal(lostRow.state, 'sending');
      for (let i = 0; i < 4; i++) await pass(s.ctx);
      assert.equal(await registras(sim, lostRow.reference), 1, 'registra sent once');
      assert.equal((await payoutRow(s.ctx, lost))!.state, 'sent');
      await sim.control.estado(lostRow.reference, 'LQ');
      assert.equal(await cashoutStatus(s.url, m, lost), 1);
      assert.equal((await admin(s.url, 'GET', '/admin/ledger/check')).status, 200);
    });

    test('the lease is held for the whole send: a state hint during it runs no second step', async () => {
      await sim.control.registraHang(1);
      const co = await createCashout(s.url, m, '17.00');
      // The send waits for an answer that never comes (up to CAJA_CONNECTOR_TIMEOUT_MS).
      const jobs = runCashoutJobs(s.ctx);
      let clave = '';
      for (let i = 0; i < 100 && !clave; i++) {
        const st = await sim.state();
        const r = (await payoutRow(s.ctx, co));
        if (r && st.requests.some((q) => q.claveRastreo === r.reference && q.status === null)) clave = r.reference;
        else await new Promise((res) => setTimeout(res, 20));
      }
      assert.ok(clave, 'the order registered, its answer pending');
      const lookupsBefore = (await sim.state()).requests.filter((q) => q.path.endsWith('/consOrdEnvRastreo')).length;
      // STP posts the state change while caja still waits for registra's answer.
      await sim.control.estado(clave, 'LQ');
      assert.equal(await cashoutStatus(s.url, m, co), 4, 'no second step ran alongside the send');
      assert.equal((await sim.state()).requests.filter((q) => q.path.endsWith('/consOrdEnvRastreo')).length, lookupsBefore, 'no look-up during the send');
      await jobs;
      // The hint was kept: the next step looks the order up and applies it, once.
      await runCashoutJobs(s.ctx);
      await pass(s.ctx);
      assert.equal(await cashoutStatus(s.url, m, co), 1);
      const completed = await s.ctx.db.query(`SELECT 1 FROM cashout_status_changes WHERE cashout_id = $1 AND to_status = 'COMPLETED'`, [co]);
      assert.equal(completed.rows.length, 1);
    });
  });
}
