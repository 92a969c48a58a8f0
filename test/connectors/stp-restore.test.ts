// Issue 38 §1: after a database restore nothing is paid twice or "paid" without being sent. caja
// in production, STP as its simulator (a separate process that verifies every firma), on PGlite
// and PostgreSQL: the database restored to a backup taken before a cashout left (PostgreSQL:
// CREATE DATABASE … TEMPLATE; PGlite: a copy of its data directory; a real copy of every table
// and sequence): the next cashout gets the same id, yet its own claveRastreo, and is really sent;
// nothing is COMPLETED without an order. The orders that cannot be taken for another (two
// installations, a mismatch, the next operation day, the lease): stp-orders.test.ts.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { backends, ADMIN_TOKEN } from '../helpers/server.ts';
import { admin } from '../helpers/clients.ts';
import { createScratchDatabase, postgresUrl } from '../helpers/databases.ts';
import { migratedPgliteDir } from '../helpers/data-dir.ts';
import { pgTemplate } from '../helpers/pg-template.ts';
import { startStpSimulator, type StpSimulator } from '../helpers/stp-simulator.ts';
import { cashoutStatus, createCashout, ordersAt, pass, payoutRow, prepare, PRODUCTION, registras } from '../helpers/stp-orders.ts';
import { loadConfig } from '../../src/config/config.ts';
import type { AppContext } from '../../src/config/context.ts';
import { buildApp } from '../../src/server/app.ts';
import { openContext } from '../../src/server/runtime.ts';
import { runCashoutJobs } from '../../src/cashouts/worker.ts';

type Server = { url: string; ctx: AppContext; close(): Promise<void> };

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
