// Retention over HTTP: events and notifications older than their period leave the API once the
// worker has run, the archive holds exactly what was deleted, cursors and ids past retention get
// a clear answer, and `caja archive restore`'s function puts rows back.
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { backends, startTestServer, type TestServer } from '../helpers/server.ts';
import { createMerchant, type Credentials, V3Client } from '../helpers/clients.ts';
import { commitEvent, FAST_ENV, notificationIdOf, type Receiver, startReceiver, statusOf, waitFor } from '../notifications/helpers.ts';
import { ARCHIVED_TABLES, restoreArchiveFile, tableOfFile } from '../../src/retention/archive.ts';
import { archiveFiles, archivedRows } from './helpers.ts';
import { purgeIdempotencyKeys } from '../../src/deposits/worker.ts';

for (const backend of backends()) {
  describe(`retention of events and notifications (${backend})`, () => {
    let server: TestServer;
    let receiver: Receiver;
    let acme: Credentials;
    let other: Credentials;
    let client: V3Client;
    const archiveDir = mkdtempSync(join(tmpdir(), 'caja-archive-'));
    const ev: number[] = [];
    const nt: number[] = [];
    let otherOld: number;
    let otherNew: number;
    let feedBefore: any[];
    let viewsBefore: Map<number, any>;
    let snapshot: Record<string, Record<string, unknown>[]>;

    /**
     * The feed serves events of transactions older than every one running on the server
     * (pg_snapshot_xmin is cluster-wide): a long transaction elsewhere on a shared PostgreSQL
     * holds it back for a while, so the test waits for the feed to show what it expects.
     */
    const caughtUp = (path: string, n: number) =>
      waitFor(`${path} to serve ${n} events`, async () => {
        const r = await client.get(path);
        return r.status === 200 && r.body.events.length >= n ? r : undefined;
      }, 120_000);

    before(async () => {
      receiver = await startReceiver();
      server = await startTestServer(
        backend,
        {
          ...FAST_ENV,
          CAJA_RETENTION_EVENTS_DAYS: '35',
          CAJA_RETENTION_NOTIFICATIONS_DAYS: '30',
          // Batches of 2 rows: several batches and files per pass.
          CAJA_RETENTION_BATCH_ROWS: '2',
          CAJA_RETENTION_INTERVAL_SECONDS: '1',
          CAJA_ARCHIVE_DIR: archiveDir,
          CAJA_RETENTION_REPLAY_GRACE_HOURS: '1',
        },
        { workers: true },
      );
      acme = await createMerchant(server.url, 'Acme');
      other = await createMerchant(server.url, 'Other');
      client = V3Client.deposits(server.url, acme);
      // In creation order, as time would have it: acme's six old events, other's old one, then the recent ones.
      for (let i = 0; i < 8; i++) {
        if (i === 6) otherOld = (await commitEvent(server.ctx, { merchantId: other.merchant_id, url: `${receiver.url}/ok` })).eventId;
        const e = await commitEvent(server.ctx, { merchantId: acme.merchant_id, url: `${receiver.url}/ok` });
        ev.push(e.eventId);
        nt.push(await notificationIdOf(server.ctx, e.eventId));
      }
      otherNew = (await commitEvent(server.ctx, { merchantId: other.merchant_id, url: `${receiver.url}/ok` })).eventId;
      const otherOldN = await notificationIdOf(server.ctx, otherOld);
      const otherNewN = await notificationIdOf(server.ctx, otherNew);
      await waitFor('every notification delivered', async () => {
        for (const id of [...nt, otherOldN, otherNewN]) if ((await statusOf(server.ctx, id)) !== 'delivered') return false;
        return true;
      });
      feedBefore = (await caughtUp('/v3/events?limit=500', 8)).body.events;
      viewsBefore = new Map();
      for (const id of nt) viewsBefore.set(id, (await client.get(`/v3/notifications/${id}`)).body);

      // 40 days pass for acme's first six events and other's first; acme's fifth notification
      // ended failed, the sixth was resent and is pending again (so it and its event stay). The
      // snapshot is read in the same transaction, so it is what the worker finds.
      snapshot = await server.ctx.db.tx(async (q) => {
        const oldEvents = [...ev.slice(0, 6), otherOld];
        await q.query(`UPDATE events SET created_at = now() - interval '40 days' WHERE id = ANY($1::bigint[])`, [oldEvents]);
        await q.query(
          `UPDATE notifications SET created_at = now() - interval '40 days', finished_at = now() - interval '40 days' + interval '1 minute'
           WHERE event_id = ANY($1::bigint[])`,
          [oldEvents],
        );
        await q.query(`UPDATE notifications SET status = 'failed', last_error = 'HTTP 500' WHERE id = $1`, [nt[4]]);
        await q.query(`UPDATE notifications SET status = 'pending', next_attempt_at = now() + interval '1 day', finished_at = NULL WHERE id = $1`, [nt[5]]);
        const goneEvents = [...ev.slice(0, 5), otherOld];
        const rows = async (sql: string, ids: number[]) => (await q.query<{ j: Record<string, unknown> }>(sql, [ids])).rows.map((r) => r.j);
        return {
          events: await rows(`SELECT row_to_json(e) AS j FROM events e WHERE id = ANY($1::bigint[]) ORDER BY id`, goneEvents),
          notifications: await rows(`SELECT row_to_json(n) AS j FROM notifications n WHERE event_id = ANY($1::bigint[]) ORDER BY id`, goneEvents),
          notification_attempts: await rows(
            `SELECT row_to_json(a) AS j FROM notification_attempts a JOIN notifications n ON n.id = a.notification_id WHERE n.event_id = ANY($1::bigint[]) ORDER BY a.id`,
            goneEvents,
          ),
        };
      });
      // The worker runs by itself (every second).
      await waitFor('the old events archived', async () => (await server.ctx.db.query('SELECT 1 FROM events WHERE id = $1', [otherOld])).rows.length === 0, 30_000);
    });
    after(async () => {
      await server?.close();
      await receiver?.close();
    });

    test('old events and notifications are gone from the API; the rest answers as before', async () => {
      const feed = await caughtUp('/v3/events?limit=500', 3);
      assert.equal(feed.status, 200);
      // The sixth is kept (its notification is pending), with the time the test gave it.
      assert.deepEqual(feed.body.events.map((e: any) => e.id), ev.slice(5));
      assert.deepEqual(feed.body.events.slice(1), feedBefore.filter((e: any) => ev.slice(6).includes(e.id)));
      const list = await client.get('/v3/notifications');
      assert.deepEqual(list.body.notifications.map((n: any) => n.id), [nt[7], nt[6], nt[5]]);
      // Inside retention, a notification reads exactly as it did.
      assert.deepEqual((await client.get(`/v3/notifications/${nt[6]}`)).body, viewsBefore.get(nt[6]!));
      for (const id of nt.slice(0, 5)) {
        const r = await client.get(`/v3/notifications/${id}`);
        assert.equal(r.status, 404);
        assert.equal(r.body.code, 208);
        assert.equal(r.body.description, 'Notification past retention: archived');
        const resend = await client.post(`/v3/notifications/${id}/resend`, {});
        assert.equal(resend.status, 404);
        assert.equal(resend.body.description, 'Notification past retention: archived');
      }
      // A page before an archived id is empty, not an error.
      const page = await client.get(`/v3/notifications?before=${nt[2]}`);
      assert.equal(page.status, 200);
      assert.deepEqual(page.body.notifications, []);
      assert.equal((await client.get(`/v3/notifications/99999999`)).body.description, 'Notification not found');
    });

    test('a feed cursor past retention is a clear 400; a kept one pages as before; another merchant’s is unknown', async () => {
      const past = await client.get(`/v3/events?after=${ev[1]}`);
      assert.equal(past.status, 400);
      assert.equal(past.body.code, 201);
      assert.equal(past.body.description, 'Cursor past retention');
      assert.match(past.body.details[0], /start again from after=0/);
      const kept = await caughtUp(`/v3/events?after=${ev[6]}`, 1);
      assert.equal(kept.status, 200);
      assert.deepEqual(kept.body.events.map((e: any) => e.id), [ev[7]]);
      const foreign = await client.get(`/v3/events?after=${otherNew}`);
      assert.equal(foreign.status, 400);
      assert.equal(foreign.body.description, 'Unknown cursor');
    });

    test('the archive holds exactly the rows deleted, once each, and nothing is left partial', async () => {
      const archived = await archivedRows(archiveDir);
      assert.deepEqual(archived, snapshot);
      assert.ok(snapshot.notification_attempts!.length >= 6);
      const files = archiveFiles(archiveDir);
      assert.ok(files.every((f) => /^(events|notifications|notification_attempts)\/\d{4}-\d{2}-\d{2}\/\1-\d{12}-\d{12}\.ndjson\.gz$/.test(f)), files.join(' '));
      const manifest = await server.ctx.db.query<{ file: string }>('SELECT file FROM retention_archive_files ORDER BY file');
      assert.deepEqual(manifest.rows.map((r) => r.file), files);
      assert.deepEqual(readdirSync(join(archiveDir, '.partial')), []);
      const metrics = await (await fetch(`${server.url}/metrics`)).text();
      for (const t of ARCHIVED_TABLES) {
        assert.match(metrics, new RegExp(`caja_retention_archived_rows_total\\{table="${t}"\\} ${snapshot[t]!.length}\\n`));
      }
    });

    test('the replay store: claims expired longer than the grace are purged in batches, the rest kept', async () => {
      await server.ctx.db.query(
        `INSERT INTO signed_requests (merchant_id, request_hash, expires_at, status, body)
         SELECT $1, 'retention-' || g, now() - make_interval(mins => g * 25), 200, '{}' FROM generate_series(1, 7) g`,
        [acme.merchant_id],
      );
      // Batches of 2 (CAJA_RETENTION_BATCH_ROWS): expired 75 to 175 minutes ago, five claims, three batches.
      await purgeIdempotencyKeys(server.ctx);
      const { rows } = await server.ctx.db.query<{ request_hash: string }>(
        `SELECT request_hash FROM signed_requests WHERE request_hash LIKE 'retention-%' ORDER BY request_hash`,
      );
      assert.deepEqual(rows.map((r) => r.request_hash), ['retention-1', 'retention-2']);
    });

    test('restored from the archive, a notification reads as it did before', async () => {
      // The operator lengthens retention first, or the worker would archive them again.
      server.ctx.config.retention.eventsDays = 100;
      server.ctx.config.retention.notificationsDays = 100;
      const files = archiveFiles(archiveDir).sort((a, b) => ARCHIVED_TABLES.indexOf(tableOfFile(a)) - ARCHIVED_TABLES.indexOf(tableOfFile(b)));
      let restored = 0;
      for (const f of files) restored += await restoreArchiveFile(server.ctx.db, join(archiveDir, f));
      assert.equal(restored, snapshot.events!.length + snapshot.notifications!.length + snapshot.notification_attempts!.length);
      // A second restore changes nothing.
      for (const f of files) assert.equal(await restoreArchiveFile(server.ctx.db, join(archiveDir, f)), 0);
      // The same notification, but for the 40 days the test moved its times back.
      const timeless = (n: any) => ({ ...n, created_at: undefined, finished_at: undefined });
      for (const id of nt.slice(0, 4)) assert.deepEqual(timeless((await client.get(`/v3/notifications/${id}`)).body), timeless(viewsBefore.get(id)));
      const feed = await caughtUp('/v3/events?limit=500', feedBefore.length);
      assert.deepEqual(feed.body.events.map((e: any) => e.id), feedBefore.map((e: any) => e.id));
    });
  });
}
