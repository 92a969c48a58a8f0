// The CLABEs STP deposits are given (src/connectors/stp/clabes.ts), in production against the STP
// simulator: drawn at random and reserved, never the operator's own accounts (the concentrating
// account inside the range, the own-accounts CLABEs), never one handed out before a database
// restore; a transfer to the operator's own account that names a deposit's reference is kept for
// the operator, never silence.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { createRequire } from 'node:module';
import type pg from 'pg';
import { backends, postgresUrl, startTestServer, type TestServer } from '../helpers/server.ts';
import { admin, createMerchant, type Credentials, V3Client } from '../helpers/clients.ts';
import { createScratchDatabase } from '../helpers/databases.ts';
import { startStpSimulator, type StpSimulator } from '../helpers/stp-simulator.ts';
import { isValidClabe } from '../../src/domain/clabe.ts';
import { reconcile } from '../../src/deposits/payments.ts';
import { payinConnectorNamed } from '../../src/connectors/registry.ts';
import { clabeInRange } from '../../src/connectors/stp/mapping.ts';
import { allocateClabe } from '../../src/connectors/stp/clabes.ts';
import { setRates } from '../helpers/four-eyes.ts';
import { pollSeconds } from '../../src/connectors/kind.ts';
import { stpKind } from '../../src/connectors/stp/kind.ts';

const MX_PAYER = { document: 'GODE561231GR8', first_name: 'Eva', last_name: 'Gómez', email: 'eva@example.com' };
let n = 0;

async function speiDeposit(v3: V3Client, amount = '100.00') {
  const r = await v3.post('/v3/deposits', { country: 'MX', amount, currency: 'MXN', payment_method: 'SE', invoice_id: `clabes-${++n}-${Date.now()}`, payer: MX_PAYER });
  assert.equal(r.status, 200, r.text);
  return { id: r.body.deposit_id as number, clabe: r.body.payment_info.metadata.account as string, amount: Number(r.body.payment_info.amount), reference: r.body.payment_info.metadata.reference as string };
}

for (const backend of backends()) {
  describe(`STP CLABEs: own accounts never given, wrong-account transfers kept (${backend})`, () => {
    let sim: StpSimulator;
    let s: TestServer;
    let m: Credentials;
    let v3: V3Client;
    // The concentrating account as operators often have it: inside the range, account number 1
    // (the number a sequence gives first), and a second own account of the range (number 2).
    let ordering: string;
    let ownAccount: string;

    before(async () => {
      sim = await startStpSimulator();
      s = await startTestServer(backend, { CAJA_ENV: 'production', CAJA_CONNECTOR_TIMEOUT_MS: '1500' });
      await sim.control.receiver(s.url);
      ordering = clabeInRange(sim.config.clabe_prefix, 1);
      ownAccount = clabeInRange(sim.config.clabe_prefix, 2);
      const put = await admin(s.url, 'PUT', '/admin/connectors/stp', { ...sim.config, ordering_clabe: ordering });
      assert.equal(put.status, 200, put.text);
      const own = await admin(s.url, 'PUT', '/admin/connectors/own_accounts', { accounts: [
        { country: 'MX', method: 'BV', beneficiary_name: 'Operadora Caja SA de CV', account: ownAccount},
      ] });
      assert.equal(own.status, 200, own.text);
      await setRates(s, { MXN: '18.00' });
      m = await createMerchant(s.url, 'SPEI shop');
      v3 = V3Client.deposits(s.url, m);
    });

    after(async () => {
      assert.equal((await admin(s.url, 'GET', '/admin/ledger/check')).status, 200);
      await s.close();
      await sim.stop();
    });

    const recorded = async (clabe: string) =>
      (await s.ctx.db.query<{ status: string; reason: string | null; deposit_id: number | null; seen_via: string }>(
        `SELECT status, reason, deposit_id, seen_via FROM connector_payments WHERE connector = 'stp' AND charge_reference = $1 ORDER BY created_at`, [clabe])).rows;

    test('deposits never get the concentrating account or an own account, each CLABE is reserved before it is shown', async () => {
      const given: string[] = [];
      for (let i = 0; i < 5; i++) given.push((await speiDeposit(v3)).clabe);
      for (const clabe of given) {
        assert.ok(clabe.startsWith(sim.config.clabe_prefix) && isValidClabe(clabe), clabe);
        assert.notEqual(clabe, ordering, 'a deposit was given the concentrating account');
        assert.notEqual(clabe, ownAccount, 'a deposit was given an own account');
      }
      assert.equal(new Set(given).size, given.length);
      const { rows } = await s.ctx.db.query<{ clabe: string; origin: string }>('SELECT clabe, origin FROM stp_clabes WHERE clabe = ANY($1)', [given]);
      assert.deepEqual(rows.map((r) => r.origin).sort(), given.map(() => 'deposit'));
    });

    test('the allocator: a small range is filled without the own accounts, then says it is full', async () => {
      const prefix = `646180${String(1000 + Math.floor(Math.random() * 9000))}`;
      const skip = new Set([clabeInRange(prefix, 1), clabeInRange(prefix, 3)]);
      const got: string[] = [];
      for (let i = 0; i < 4; i++) {
        const c = await allocateClabe(s.ctx.db, { prefix, skip, max: 6 }, null);
        assert.ok(c, `draw ${i}`);
        got.push(c);
      }
      assert.deepEqual(got.map((c) => Number(c.slice(10, 17))).sort(), [2, 4, 5, 6]);
      assert.equal(await allocateClabe(s.ctx.db, { prefix, skip, max: 6 }, null), null);
      // Concurrent draws on the last free numbers: each given once.
      // Another prefix than the first (a random one equal to it found its four numbers taken).
      const prefix2 = `646180${String(1000 + ((Number(prefix.slice(6)) - 1000 + 1 + Math.floor(Math.random() * 8999)) % 9000))}`;
      const many = await Promise.all(Array.from({ length: 12 }, () => allocateClabe(s.ctx.db, { prefix: prefix2, skip: new Set(), max: 8 }, null)));
      const ok = many.filter((c): c is string => c !== null);
      assert.equal(ok.length, 8);
      assert.equal(new Set(ok).size, 8);
    });

    test('a transfer to the concentrating account naming a deposit\'s reference is kept for the operator (confirmar), not silence', async () => {
      const d = await speiDeposit(v3, '140.00');
      const r = await sim.control.abono({ cuentaBeneficiario: ordering, monto: d.amount, referenciaNumerica: Number(d.reference) });
      assert.deepEqual(r.answers[0]!.answer, { mensaje: 'confirmar' });
      assert.equal((await v3.get(`/v3/deposits/${d.id}`)).body.status, 'PENDING');
      const rows = await recorded(ordering);
      assert.equal(rows.length, 1, 'the transfer was not kept');
      assert.equal(rows[0]!.status, 'unmatched');
      assert.match(rows[0]!.reason!, new RegExp(`^own_account: .*deposit ${d.id}\\b`));
      const listed = await admin(s.url, 'GET', '/admin/connectors/stp/payments?status=unmatched&limit=500');
      assert.equal(listed.status, 200, listed.text);
      assert.ok(listed.body.payments.some((p: { clabe: string; reason: string }) => p.clabe === ordering && p.reason.startsWith('own_account:')), listed.text);
      // The same post again: answered the same, kept once.
      assert.deepEqual((await sim.control.repostAbono(r.order.claveRastreo)).answers[0]!.answer, { mensaje: 'confirmar' });
      assert.equal((await recorded(ordering)).length, 1);
    });

    test('the same to an own account of the range, and to the concentrating account in the concept; found by the poll when the post is lost', async () => {
      const d = await speiDeposit(v3, '150.00');
      const a = await sim.control.abono({ cuentaBeneficiario: ownAccount, monto: d.amount, conceptoPago: `PAGO REF ${d.reference}`, referenciaNumerica: 1 });
      assert.deepEqual(a.answers[0]!.answer, { mensaje: 'confirmar' });
      assert.equal((await recorded(ownAccount)).length, 1);
      const e = await speiDeposit(v3, '160.00');
      const lost = await sim.control.abono({ cuentaBeneficiario: ordering, monto: e.amount, referenciaNumerica: Number(e.reference), delivery: 'drop' });
      assert.equal(lost.answers.length, 0);
      const connector = (await payinConnectorNamed(s.ctx, 'stp'))!;
      await reconcile(s.ctx, connector, pollSeconds(s.ctx.config, stpKind), true);
      const rows = (await recorded(ordering)).filter((x) => x.reason?.includes(`deposit ${e.id}`));
      assert.deepEqual(rows.map((x) => [x.status, x.seen_via]), [['unmatched', 'poll']]);
      for (const x of [d, e]) assert.equal((await v3.get(`/v3/deposits/${x.id}`)).body.status, 'PENDING');
      // A deposit given the concentrating account before the fix (a sequence handed it out): its
      // customer's transfer, without any reference, is kept for the operator too.
      const legacy = await speiDeposit(v3, '170.00');
      await s.ctx.db.query('UPDATE deposits SET connector_reference = $2 WHERE id = $1', [legacy.id, ownAccount]);
      const paid = await sim.control.abono({ cuentaBeneficiario: ownAccount, monto: legacy.amount, referenciaNumerica: 1 });
      assert.deepEqual(paid.answers[0]!.answer, { mensaje: 'confirmar' });
      const kept = (await recorded(ownAccount)).filter((x) => x.deposit_id === legacy.id);
      assert.equal(kept.length, 1);
      assert.match(kept[0]!.reason!, /^own_account: /);
      assert.equal((await v3.get(`/v3/deposits/${legacy.id}`)).body.status, 'PENDING');
      // Money sent to the concentrating account that names no deposit is the operator's funding: nothing kept.
      const funding = await sim.control.abono({ cuentaBeneficiario: ordering, monto: 5000, referenciaNumerica: 1 });
      assert.deepEqual(funding.answers[0]!.answer, { mensaje: 'confirmar' });
      assert.equal((await recorded(ordering)).filter((x) => x.reason?.includes('(unknown)')).length, 0);
      // Nor when the poll reads it (deposits look up the references it names: none).
      const before = (await recorded(ordering)).length;
      await reconcile(s.ctx, connector, pollSeconds(s.ctx.config, stpKind), true);
      assert.equal((await recorded(ordering)).length, before);
    });
  });
}

// A restore: PostgreSQL only (CREATE DATABASE … TEMPLATE is the backup taken, the copy the restore).
if (postgresUrl()) {
  describe('STP CLABEs after a database restore (pg)', () => {
    const driver = () => createRequire(import.meta.url)('pg') as typeof pg;
    const base = postgresUrl()!;
    const key = randomBytes(32).toString('base64');
    let sim: StpSimulator;
    let original: { url: string; drop: () => Promise<void> };
    const backupName = `${process.env.CAJA_SCRATCH_DB_PREFIX ?? ''}caja_backup_${process.pid}_${randomBytes(4).toString('hex')}`;
    const backupUrl = () => {
      const u = new URL(base);
      u.pathname = `/${backupName}`;
      return u.toString();
    };
    const serverOn = (url: string) => startTestServer('pg', { CAJA_ENV: 'production', CAJA_CONNECTOR_TIMEOUT_MS: '1500', CAJA_MASTER_KEY: key, DATABASE_URL: url });
    async function onServer(sql: string) {
      const c = new (driver().Client)({ connectionString: base });
      await c.connect();
      try {
        await c.query(sql);
      } finally {
        await c.end();
      }
    }

    before(async () => {
      sim = await startStpSimulator();
      original = await createScratchDatabase(base, 'caja_restore');
    });
    after(async () => {
      await onServer(`DROP DATABASE IF EXISTS ${backupName} WITH (FORCE)`);
      await original.drop();
      await sim.stop();
    });

    test('backup, deposits, restore, deposits: no CLABE handed out before the restore is given again', async () => {
      let s = await serverOn(original.url);
      assert.equal((await admin(s.url, 'PUT', '/admin/connectors/stp', sim.config)).status, 200);
      await setRates(s, { MXN: '18.00' });
      const m = await createMerchant(s.url, 'SPEI shop');
      await speiDeposit(V3Client.deposits(s.url, m));
      await s.close();

      // The backup.
      await onServer(`CREATE DATABASE ${backupName} TEMPLATE ${new URL(original.url).pathname.slice(1)}`);

      // Going on: deposits handed their CLABEs, one of them paid only after the restore.
      s = await serverOn(original.url);
      const lost: Awaited<ReturnType<typeof speiDeposit>>[] = [];
      for (let i = 0; i < 6; i++) lost.push(await speiDeposit(V3Client.deposits(s.url, m)));
      await s.close();

      // The restore: the server now runs on the backup.
      s = await serverOn(backupUrl());
      try {
        await sim.control.receiver(s.url);
        const after: string[] = [];
        for (let i = 0; i < 6; i++) after.push((await speiDeposit(V3Client.deposits(s.url, m))).clabe);
        const reused = after.filter((c) => lost.some((l) => l.clabe === c));
        assert.deepEqual(reused, [], 'a CLABE handed out before the restore was given to a new deposit');
        assert.equal(new Set(after).size, after.length);
        // The customer of a lost deposit pays its CLABE: caja has no such deposit (devolver 1), and
        // from then on holds that CLABE as taken.
        const paid = await sim.control.abono({ cuentaBeneficiario: lost[1]!.clabe, monto: lost[1]!.amount });
        assert.deepEqual(paid.answers[0]!.answer, { mensaje: 'devolver', id: 1 });
        const seen = await s.ctx.db.query<{ origin: string }>('SELECT origin FROM stp_clabes WHERE clabe = $1', [lost[1]!.clabe]);
        assert.deepEqual(seen.rows, [{ origin: 'seen' }]);
      } finally {
        await s.close();
      }
    });
  });
}
