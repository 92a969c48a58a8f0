// Month partitions (migration 091, src/retention/partitions.ts): months created ahead by any
// number of processes at once, and retention retiring a whole month of events and attempts —
// detached, archived to files, dropped — while a month holding a row that must stay is kept.
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { backends, startTestServer, type TestServer } from '../helpers/server.ts';
import { createMerchant, type Credentials, V3Client } from '../helpers/clients.ts';
import { openContext } from '../../src/server/runtime.ts';
import { AHEAD_MONTHS, ensurePartitions, monthPartitions, PARTITIONED_TABLES } from '../../src/retention/partitions.ts';
import { runRetention } from '../../src/retention/worker.ts';
import { addMonths, partitionName } from '../../src/retention/rules.ts';
import { archivedRows, archiveFiles } from './helpers.ts';

const TABLES = ['events', 'notifications', 'notification_attempts'] as const;
type Rows = Record<string, Map<number, Record<string, unknown>>>;

async function tableRows(s: TestServer): Promise<Rows> {
  const out: Rows = {};
  for (const t of TABLES) {
    const { rows } = await s.ctx.db.query<{ j: Record<string, unknown> }>(`SELECT row_to_json(x) AS j FROM ${t} x ORDER BY id`);
    out[t] = new Map(rows.map((r) => [Number(r.j.id), r.j]));
  }
  return out;
}

/** `n` events in the month starting at `month`, each with a delivered notification and one attempt that month. */
async function seedMonth(s: TestServer, merchantId: number, month: Date, n: number): Promise<number[]> {
  return s.ctx.db.tx(async (q) => {
    const { rows } = await q.query<{ id: number }>(
      `INSERT INTO events (merchant_id, type, subject_type, subject_id, data, created_at)
       SELECT $1, 'deposit.status_changed', 'deposit', g, jsonb_build_object('n', g), $2::timestamptz + interval '1 day' + g * interval '1 minute'
       FROM generate_series(1, $3::int) g RETURNING id`,
      [merchantId, month, n],
    );
    const ids = rows.map((r) => Number(r.id));
    await q.query(
      `INSERT INTO notifications (event_id, merchant_id, subject_key, kind, url, content_type, body, signing_set, status, attempt_count, created_at, finished_at)
       SELECT id, merchant_id, 'deposit:' || subject_id, 'v3.deposit', 'https://merchant.example/hook', 'application/json', data::text, 'deposits',
              'delivered', 1, created_at, created_at + interval '2 seconds'
       FROM events WHERE id = ANY($1::bigint[])`,
      [ids],
    );
    await q.query(
      `INSERT INTO notification_attempts (notification_id, attempt_no, started_at, url, status_code, latency_ms, created_at)
       SELECT n.id, 1, n.created_at + interval '1 second', n.url, 200, 40, n.created_at + interval '1 second'
       FROM notifications n WHERE n.event_id = ANY($1::bigint[])`,
      [ids],
    );
    return ids;
  });
}

const partitionOf = async (s: TestServer, table: string, id: number) =>
  (await s.ctx.db.query<{ p: string }>(`SELECT tableoid::regclass::text AS p FROM ${table} WHERE id = $1`, [id])).rows[0]?.p;

for (const backend of backends()) {
  describe(`month partitions (${backend})`, () => {
    let server: TestServer;
    let acme: Credentials;
    const dir = mkdtempSync(join(tmpdir(), 'caja-archive-'));
    const now = new Date();
    const m3 = addMonths(now, -3);
    const m2 = addMonths(now, -2);

    before(async () => {
      server = await startTestServer(backend, {
        CAJA_RETENTION_EVENTS_DAYS: '1',
        CAJA_RETENTION_NOTIFICATIONS_DAYS: '1',
        CAJA_ARCHIVE_DIR: dir,
      });
      acme = await createMerchant(server.url, 'Acme');
    });
    after(async () => {
      await server?.close();
    });

    test('every table has this month and the next ones; months further ahead are created once, by any number of processes at once', async () => {
      for (const table of PARTITIONED_TABLES) {
        const names = (await monthPartitions(server.ctx.db, table)).filter((p) => p.attached).map((p) => p.name);
        for (let i = 0; i <= AHEAD_MONTHS; i++) assert.ok(names.includes(partitionName(table, addMonths(now, i))), `${table}: ${names.join(' ')}`);
      }
      // Five months on: three months are due that do not exist yet, in every table.
      const later = addMonths(now, 5);
      const due = PARTITIONED_TABLES.flatMap((t) => [5, 6, 7].map((i) => `${t}@${addMonths(now, i).toISOString().slice(0, 7)}`)).sort();
      const contexts = backend === 'pg' ? [server.ctx, await openContext(server.ctx.config, { memory: true })] : [server.ctx, server.ctx];
      try {
        const created = await Promise.all(contexts.map((c) => ensurePartitions(c.db, later)));
        assert.deepEqual(created.flat().sort(), due, 'each month created exactly once');
        assert.deepEqual(await ensurePartitions(server.ctx.db, later), [], 'a second run creates nothing');
      } finally {
        if (contexts[1] !== server.ctx) await contexts[1]!.db.close();
      }
      // A row of that time lands in its month; one of a month not created yet, in the default partition.
      const { rows } = await server.ctx.db.query<{ id: number }>(
        `INSERT INTO events (merchant_id, type, subject_type, subject_id, data, created_at) VALUES ($1, 't', 'deposit', 1, '{}', $2), ($1, 't', 'deposit', 2, '{}', $3) RETURNING id`,
        [acme.merchant_id, addMonths(now, 6), addMonths(now, 9)],
      );
      assert.equal(await partitionOf(server, 'events', rows[0]!.id), partitionName('events', addMonths(now, 6)));
      assert.equal(await partitionOf(server, 'events', rows[1]!.id), 'events_default');
      // Creating that month later moves its rows out of the default partition.
      await ensurePartitions(server.ctx.db, addMonths(now, 9));
      assert.equal(await partitionOf(server, 'events', rows[1]!.id), partitionName('events', addMonths(now, 9)));
      await server.ctx.db.query('DELETE FROM events WHERE id = ANY($1::bigint[])', [rows.map((r) => r.id)]);
    });

    test('retention detaches, archives and drops a month; a month holding a notification still pending is kept', async () => {
      await ensurePartitions(server.ctx.db, m3);
      const old = await seedMonth(server, acme.merchant_id, m3, 30);
      const kept = await seedMonth(server, acme.merchant_id, m2, 10);
      // One notification of the later month was resent: pending again, so it, its attempts and its event stay.
      const { rows: pend } = await server.ctx.db.query<{ id: number }>(
        `UPDATE notifications SET status = 'pending', finished_at = NULL, next_attempt_at = now() + interval '1 day' WHERE event_id = $1 RETURNING id`,
        [kept[0]],
      );
      assert.equal(await partitionOf(server, 'events', old[0]!), partitionName('events', m3));
      const original = await tableRows(server);

      await runRetention(server.ctx);

      const parts = async (t: string) => (await monthPartitions(server.ctx.db, t)).map((p) => p.name);
      assert.ok(!(await parts('events')).includes(partitionName('events', m3)), 'the old month of events is dropped');
      assert.ok(!(await parts('notification_attempts')).includes(partitionName('notification_attempts', m3)), 'the old month of attempts is dropped');
      assert.ok((await parts('events')).includes(partitionName('events', m2)), 'the month with a kept event stays');
      assert.ok((await parts('notification_attempts')).includes(partitionName('notification_attempts', m2)), 'the month with a kept attempt stays');
      // Status history is partitioned but never retired.
      assert.ok((await parts('deposit_status_changes')).includes(partitionName('deposit_status_changes', m3)));

      // Every original row is in its table or in exactly one archive file, unchanged.
      const nowRows = await tableRows(server);
      const archived = await archivedRows(dir);
      for (const t of TABLES) {
        const ids = archived[t]!.map((r) => Number(r.id));
        assert.equal(new Set(ids).size, ids.length, `${t}: archived twice`);
        for (const r of archived[t]!) {
          assert.ok(!nowRows[t]!.has(Number(r.id)), `${t} ${r.id} both archived and kept`);
          assert.deepEqual(r, original[t]!.get(Number(r.id)));
        }
        for (const [id, row] of original[t]!) if (!ids.includes(id)) assert.deepEqual(nowRows[t]!.get(id), row, `${t} ${id} lost`);
      }
      // The whole old month went, as one file per table, named by the month's first day.
      for (const id of old) assert.ok(archived.events!.some((r) => Number(r.id) === id));
      const month = m3.toISOString().slice(0, 10);
      assert.ok(archiveFiles(dir).some((f) => f.startsWith(`events/${month}/events-`)), archiveFiles(dir).join(' '));
      assert.ok(archiveFiles(dir).some((f) => f.startsWith(`notification_attempts/${month}/`)));
      // The kept notification, its attempt and its event are still there.
      assert.ok(nowRows.notifications!.has(Number(pend[0]!.id)));
      assert.ok(nowRows.events!.has(kept[0]!));
      assert.ok([...nowRows.notification_attempts!.values()].some((a) => Number(a.notification_id) === Number(pend[0]!.id)));

      // The API says an archived cursor is past retention.
      const client = V3Client.deposits(server.url, acme);
      const r = await client.get(`/v3/events?after=${old[3]}`);
      assert.equal(r.status, 400);
      assert.equal(r.body.description, 'Cursor past retention');

      // A second pass finds nothing more to do in the kept month but its pending notification.
      await runRetention(server.ctx);
      assert.deepEqual((await tableRows(server)).notifications!.size, nowRows.notifications!.size);
    });

    test('two processes retiring at once archive a month once', async () => {
      const m4 = addMonths(now, -4);
      await ensurePartitions(server.ctx.db, m4);
      const ids = await seedMonth(server, acme.merchant_id, m4, 25);
      const before = (await archivedRows(dir)).events!.length;
      const second = backend === 'pg' ? await openContext(server.ctx.config, { memory: true }) : server.ctx;
      try {
        await Promise.all([server.ctx, second].map(async (c) => {
          for (let i = 0; i < 3; i++) await runRetention(c);
        }));
      } finally {
        if (second !== server.ctx) await second.db.close();
      }
      const events = (await archivedRows(dir)).events!;
      assert.equal(events.length, before + ids.length);
      for (const id of ids) assert.equal(events.filter((r) => Number(r.id) === id).length, 1);
      assert.ok(!(await monthPartitions(server.ctx.db, 'events')).some((p) => p.name === partitionName('events', m4)));
    });
  });
}
