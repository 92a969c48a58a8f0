// Retention under faults: a batch that dies after writing its file but before its commit, one that
// commits but cannot move its file into place, a server process killed (SIGKILL) mid-pass again
// and again, and two processes running retention at once. After each: every row that was there is
// either still in its table or in exactly one archive file, with the same content — never both,
// never neither, never twice.
import assert from 'node:assert/strict';
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { promisify } from 'node:util';
import { mkdtempSync, readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { backends, startTestServer, type TestServer } from '../helpers/server.ts';
import { createMerchant } from '../helpers/clients.ts';
import { serverEntry } from '../helpers/server-entry.ts';
import { openContext } from '../../src/server/runtime.ts';
import { retentionBatch, runRetention } from '../../src/retention/worker.ts';
import { readArchiveFile, tableOfFile } from '../../src/retention/archive.ts';
import { archivedRows, archiveFiles } from './helpers.ts';
import { CAJA_CLI } from '../helpers/programs.ts';
import { cajaInProcess } from '../helpers/cli.ts';

type Rows = Record<string, Map<number, Record<string, unknown>>>;
const TABLES = ['events', 'notifications', 'notification_attempts'] as const;

/** `old` events 40 days old (the first half with a delivered notification and one attempt), and 5 recent ones. */
async function seed(s: TestServer, merchantId: number, old: number): Promise<void> {
  await s.ctx.db.tx(async (q) => {
    await q.query(
      `INSERT INTO events (merchant_id, type, subject_type, subject_id, data, created_at)
       SELECT $1, 'deposit.status_changed', 'deposit', g, jsonb_build_object('body', 'event ' || g), now() - interval '40 days' + g * interval '1 second'
       FROM generate_series(1, $2::int) g`,
      [merchantId, old],
    );
    await q.query(
      `INSERT INTO notifications (event_id, merchant_id, subject_key, kind, url, content_type, body, signing_set, status, attempt_count, created_at, finished_at)
       SELECT id, merchant_id, 'deposit:' || subject_id, 'v3.deposit', 'https://merchant.example/hook', 'application/json', data ->> 'body', 'deposits',
              'delivered', 1, created_at, created_at + interval '2 seconds'
       FROM events WHERE merchant_id = $1 AND subject_id <= $2::int / 2`,
      [merchantId, old],
    );
    await q.query(
      `INSERT INTO notification_attempts (notification_id, attempt_no, started_at, url, status_code, latency_ms, created_at)
       SELECT id, 1, created_at + interval '1 second', url, 200, 40, created_at + interval '1 second' FROM notifications WHERE merchant_id = $1`,
      [merchantId],
    );
    await q.query(
      `INSERT INTO events (merchant_id, type, subject_type, subject_id, data)
       SELECT $1, 'deposit.status_changed', 'deposit', 100000 + g, '{}' FROM generate_series(1, 5) g`,
      [merchantId],
    );
  });
}

async function tableRows(s: TestServer): Promise<Rows> {
  const out: Rows = {};
  for (const t of TABLES) {
    const { rows } = await s.ctx.db.query<{ j: Record<string, unknown> }>(`SELECT row_to_json(x) AS j FROM ${t} x ORDER BY id`);
    out[t] = new Map(rows.map((r) => [Number(r.j.id), r.j]));
  }
  return out;
}

/**
 * Every original row is in its table or in the archive, exactly once, unchanged. The archive is
 * its files plus partial files whose batch committed (recorded in the manifest): a process killed
 * between its commit and the rename leaves those, and the next holder of the lock moves them into
 * place. Answers how many rows are archived.
 */
async function assertNothingLostOrTwice(s: TestServer, dir: string, original: Rows): Promise<number> {
  const now = await tableRows(s);
  const archived = await archivedRows(dir);
  for (const p of partials(dir)) {
    const { rows } = await s.ctx.db.query<{ file: string }>('SELECT file FROM retention_archive_files WHERE partial = $1', [p]);
    if (rows[0]) archived[tableOfFile(rows[0].file)]!.push(...(await readArchiveFile(join(dir, '.partial', p))));
  }
  let n = 0;
  for (const t of TABLES) {
    const ids = archived[t]!.map((r) => Number(r.id));
    assert.equal(new Set(ids).size, ids.length, `${t}: a row archived twice`);
    for (const r of archived[t]!) {
      const id = Number(r.id);
      assert.ok(!now[t]!.has(id), `${t} ${id} both archived and in its table`);
      assert.deepEqual(r, original[t]!.get(id), `${t} ${id} archived with other content`);
    }
    for (const [id, row] of original[t]!) {
      if (!ids.includes(id)) assert.deepEqual(now[t]!.get(id), row, `${t} ${id} lost`);
    }
    n += ids.length;
  }
  return n;
}

const partials = (dir: string) => {
  try {
    return readdirSync(join(dir, '.partial'));
  } catch {
    return [];
  }
};

for (const backend of backends()) {
  describe(`retention under faults (${backend})`, () => {
    let server: TestServer;
    const dir = mkdtempSync(join(tmpdir(), 'caja-archive-'));
    let original: Rows;
    let merchantId: number;

    before(async () => {
      server = await startTestServer(backend, {
        CAJA_RETENTION_EVENTS_DAYS: '30',
        CAJA_RETENTION_NOTIFICATIONS_DAYS: '30',
        CAJA_RETENTION_BATCH_ROWS: '7',
        CAJA_ARCHIVE_DIR: dir,
      });
      merchantId = (await createMerchant(server.url, 'Acme')).merchant_id;
      await seed(server, merchantId, 40);
      original = await tableRows(server);
    });
    after(async () => {
      await server?.close();
    });

    test('a batch that fails after writing its file and before its commit leaves a partial file, removed by the next batch', async () => {
      // The batch's last write (the API's horizon) fails inside its transaction, after the
      // archive files were fsynced.
      await server.ctx.db.exec(`CREATE TABLE retention_fault (on_table text);
        CREATE FUNCTION retention_fault() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
          IF EXISTS (SELECT 1 FROM retention_fault WHERE on_table = TG_TABLE_NAME) THEN RAISE EXCEPTION 'injected fault'; END IF;
          RETURN NEW;
        END $$;
        CREATE TRIGGER horizons_fault BEFORE INSERT ON retention_horizons FOR EACH ROW EXECUTE FUNCTION retention_fault();
        INSERT INTO retention_fault VALUES ('retention_horizons');`);
      await assert.rejects(retentionBatch(server.ctx, 'notifications', 0), /injected fault/);
      assert.equal(partials(dir).length, 2, 'the notifications and attempts files of the batch');
      assert.deepEqual(archiveFiles(dir), []);
      assert.equal(await assertNothingLostOrTwice(server, dir, original), 0);

      await server.ctx.db.query('DELETE FROM retention_fault');
      const r = await retentionBatch(server.ctx, 'notifications', 0);
      assert.ok(!r.busy && r.archived === 14, JSON.stringify(r));
      assert.deepEqual(partials(dir), []);
      assert.equal(await assertNothingLostOrTwice(server, dir, original), 14);
    });

    test('a batch that commits but cannot move its file into place leaves it to the next one', async () => {
      // Where the day's directory should be there is a file: the rename after the commit fails.
      const day = new Date(Date.now() - 40 * 86_400_000 + 60_000).toISOString().slice(0, 10);
      const blocked = ['notifications', 'notification_attempts'].map((t) => join(dir, t, day));
      for (const p of blocked) {
        renameSync(p, `${p}.aside`);
        writeFileSync(p, 'in the way');
      }
      await assert.rejects(retentionBatch(server.ctx, 'notifications', 0), /EEXIST|ENOTDIR/);
      // Committed: the rows are gone from their tables and their files wait as partial ones.
      assert.equal(partials(dir).length, 2);
      const gone = await server.ctx.db.query<{ n: number }>('SELECT count(*)::int AS n FROM notifications');
      assert.equal(gone.rows[0]!.n, 20 - 14);
      for (const p of blocked) {
        rmSync(p);
        renameSync(`${p}.aside`, p);
      }
      await runRetention(server.ctx);
      assert.deepEqual(partials(dir), []);
      const archived = await assertNothingLostOrTwice(server, dir, original);
      assert.equal(archived, 40 + 20 + 20);
      const left = await server.ctx.db.query<{ n: number }>('SELECT count(*)::int AS n FROM events');
      assert.equal(left.rows[0]!.n, 5);
    });
  });
}

const pgOnly = backends().includes('pg');

describe('retention across processes (pg)', { skip: pgOnly ? false : 'needs PostgreSQL (DATABASE_URL): one database shared by several processes' }, () => {
  let server: TestServer;
  const dir = mkdtempSync(join(tmpdir(), 'caja-archive-'));
  const env = {
    CAJA_RETENTION_EVENTS_DAYS: '30',
    CAJA_RETENTION_NOTIFICATIONS_DAYS: '30',
    CAJA_RETENTION_BATCH_ROWS: '20',
    CAJA_RETENTION_INTERVAL_SECONDS: '1',
    CAJA_ARCHIVE_DIR: dir,
  };
  let original: Rows;
  let merchantId: number;

  before(async () => {
    if (!pgOnly) return;
    server = await startTestServer('pg', env);
    merchantId = (await createMerchant(server.url, 'Acme')).merchant_id;
    await seed(server, merchantId, 1600);
    original = await tableRows(server);
  });
  after(async () => {
    await server?.close();
  });

  function startServerProcess(): ChildProcess {
    return spawn(process.execPath, [serverEntry()], {
      env: {
        ...process.env,
        ...env,
        DATABASE_URL: server.ctx.config.databaseUrl,
        CAJA_MASTER_KEY: server.ctx.config.masterKey.toString('base64'),
        CAJA_ADMIN_TOKEN: server.ctx.config.adminToken,
        CAJA_ENV: 'staging',
        CAJA_PROCESSES: '1',
        PORT: '0',
        LOG_LEVEL: 'silent',
        DATA_DIR: mkdtempSync(join(tmpdir(), 'caja-retention-proc-')),
      },
      stdio: 'ignore',
    });
  }

  test('a server killed with SIGKILL mid-pass, five times, loses and duplicates nothing', async () => {
    const seen: string[] = [];
    for (let i = 0; i < 5; i++) {
      const child = startServerProcess();
      const exited = new Promise((resolve) => child.once('exit', resolve));
      // Killed in the middle of a pass: once it has committed a batch more, a few milliseconds on.
      const files = async () => (await server.ctx.db.query<{ n: number }>('SELECT count(*)::int AS n FROM retention_archive_files')).rows[0]!.n;
      const start = await files();
      const deadline = Date.now() + 60_000;
      while ((await files()) === start && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
      await new Promise((r) => setTimeout(r, Math.floor(Math.random() * 60)));
      child.kill('SIGKILL');
      await exited;
      const archived = await assertNothingLostOrTwice(server, dir, original);
      seen.push(`${archived} archived, ${partials(dir).length} partial`);
    }
    console.log(`after each kill: ${seen.join('; ')}`);
    // What the kills interrupted, the next holder of the lock settles.
    while (Object.values(await runRetention(server.ctx)).some((n) => n > 0));
    assert.deepEqual(partials(dir), []);
    assert.equal(await assertNothingLostOrTwice(server, dir, original), 1600 + 800 + 800);
  });

  test('two processes at once: one batch at a time, every row archived once', async () => {
    await server.ctx.db.query(`UPDATE events SET created_at = now() - interval '40 days' WHERE merchant_id = $1`, [merchantId]);
    // The five recent events, now old too, join the rows that must be found exactly once.
    for (const [t, rows] of Object.entries(await tableRows(server))) for (const [id, row] of rows) original[t]!.set(id, row);
    const second = await openContext(server.ctx.config, { memory: true });
    try {
      const results = await Promise.all([server.ctx, second].map(async (ctx) => {
        let total = 0;
        for (let i = 0; i < 20; i++) total += Object.values(await runRetention(ctx)).reduce((a, b) => a + b, 0);
        return total;
      }));
      assert.equal(results[0]! + results[1]!, 5);
      assert.equal(await assertNothingLostOrTwice(server, dir, original), 1600 + 800 + 800 + 5);
      const left = await server.ctx.db.query<{ n: number }>('SELECT count(*)::int AS n FROM events');
      assert.equal(left.rows[0]!.n, 0);
    } finally {
      await second.db.close();
    }
  });

  test('caja archive restore puts every archived row back as it was, whatever the order of the files', async () => {
    const env = {
      ...process.env,
      DATABASE_URL: server.ctx.config.databaseUrl,
      CAJA_MASTER_KEY: server.ctx.config.masterKey.toString('base64'),
      CAJA_ADMIN_TOKEN: server.ctx.config.adminToken,
      DATA_DIR: mkdtempSync(join(tmpdir(), 'caja-retention-cli-')),
      LOG_LEVEL: 'silent',
    };
    // The restore runs in this process (test/helpers/cli.ts); the refusal below as the real program.
    const caja = async (args: string[]) => {
      try {
        return { code: 0, ...(await promisify(execFile)(process.execPath, [CAJA_CLI, ...args], { env, maxBuffer: 16 * 1024 * 1024 })) };
      } catch (err) {
        return err as { code: number; stdout: string; stderr: string };
      }
    };
    // Attempts first: the command orders them (events, notifications, attempts) itself.
    const files = archiveFiles(dir).map((f) => join(dir, f)).reverse();
    const r = await cajaInProcess(['archive', 'restore', ...files], env);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout.trim().split('\n').length, files.length);
    const now = await tableRows(server);
    for (const t of TABLES) assert.deepEqual([...now[t]!.entries()], [...original[t]!.entries()], t);
    const bad = await caja(['archive', 'restore', join(dir, 'deposits-000000000001-000000000002.ndjson.gz')]);
    assert.equal(bad.code, 64);
    assert.match(bad.stderr, /not an archive file/);
  });
});
