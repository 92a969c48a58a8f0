// Archive files: gzip'd NDJSON, one row a line as PostgreSQL's row_to_json wrote it, one file per
// table, UTC day and batch under the archive directory. The protocol that makes "in exactly one
// file and in no table" hold across crashes (036_retention.sql):
//   1. under the retention lock, in the batch's transaction: write `.partial/<uuid>.ndjson.gz`, fsync
//      it and its directory;
//   2. in the same transaction: delete the rows, insert the file's manifest row; commit;
//   3. rename the partial into place and fsync the day's directory.
// Whoever next holds the lock settles leftovers first: a partial with a manifest row was committed
// (rename it), one without was rolled back (remove it).
import { createHash, randomUUID } from 'node:crypto';
import { mkdir, open, readdir, readFile, rename, rm, stat } from 'node:fs/promises';
import { hostname } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { gunzipSync, gzipSync } from 'node:zlib';
import { type Db, type Queryable, violatesConstraint } from '../db/db.ts';
import { archiveFileName } from './rules.ts';

const PARTIAL_DIR = '.partial';

export interface ArchivedRow {
  id: number;
  /** The row as row_to_json wrote it. */
  json: string;
}

/** A file written and fsynced, waiting for its transaction's commit. */
export interface PendingFile {
  file: string;
  partial: string;
  table: string;
  rows: number;
}

async function fsyncDir(path: string): Promise<void> {
  const h = await open(path, 'r');
  try {
    await h.sync();
  } finally {
    await h.close();
  }
}

/**
 * Writes one table's rows of one day as a partial file, fsynced, and records it in the manifest
 * within the caller's transaction (q), which must delete the same rows before it commits.
 */
export async function writeArchiveFile(q: Queryable, dir: string, table: string, day: string, rows: ArchivedRow[]): Promise<PendingFile> {
  const first = rows[0]!.id;
  const last = rows[rows.length - 1]!.id;
  const file = archiveFileName(table, day, first, last);
  const partial = `${randomUUID()}.ndjson.gz`;
  const content = gzipSync(Buffer.from(rows.map((r) => `${r.json}\n`).join(''), 'utf8'));
  const partialDir = join(dir, PARTIAL_DIR);
  await mkdir(partialDir, { recursive: true });
  const h = await open(join(partialDir, partial), 'wx', 0o600);
  try {
    await h.writeFile(content);
    await h.sync();
  } finally {
    await h.close();
  }
  await fsyncDir(partialDir);
  await q.query(
    `INSERT INTO retention_archive_files (file, partial, table_name, day, first_id, last_id, row_count, sha256, host)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
    [file, partial, table, day, first, last, rows.length, createHash('sha256').update(content).digest('hex'), `${hostname()}:${process.pid}`],
  );
  return { file, partial, table, rows: rows.length };
}

/** Moves committed partial files into place (after the commit). */
export async function settleFiles(dir: string, files: Pick<PendingFile, 'file' | 'partial'>[]): Promise<void> {
  for (const f of files) {
    const target = join(dir, f.file);
    await mkdir(dirname(target), { recursive: true });
    try {
      await rename(join(dir, PARTIAL_DIR, f.partial), target);
    } catch (err) {
      // The next lock holder settled it first (it saw the committed manifest row).
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT' || !(await exists(target))) throw err;
    }
    await fsyncDir(dirname(target));
  }
}

async function exists(path: string): Promise<boolean> {
  return stat(path).then(
    () => true,
    () => false,
  );
}

/**
 * Settles partial files left by a process that died between steps (call under the retention
 * lock, so that no partial is still being written): committed ones go into place, the others
 * were rolled back and are removed. Answers how many of each.
 */
export async function recoverPartials(q: Queryable, dir: string): Promise<{ settled: number; removed: number }> {
  let names: string[];
  try {
    names = (await readdir(join(dir, PARTIAL_DIR))).filter((n) => n.endsWith('.ndjson.gz'));
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { settled: 0, removed: 0 };
    throw err;
  }
  let settled = 0;
  let removed = 0;
  for (const partial of names) {
    const { rows } = await q.query<{ file: string }>('SELECT file FROM retention_archive_files WHERE partial = $1', [partial]);
    if (rows[0]) {
      await settleFiles(dir, [{ file: rows[0].file, partial }]);
      settled++;
    } else {
      await rm(join(dir, PARTIAL_DIR, partial), { force: true });
      removed++;
    }
  }
  return { settled, removed };
}

/** The rows of an archive file, each as its JSON object. */
export async function readArchiveFile(path: string): Promise<Record<string, unknown>[]> {
  const text = gunzipSync(await readFile(path)).toString('utf8');
  return text
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}

/** The tables retention archives, in the order a restore must follow (a row after what it names). */
export const ARCHIVED_TABLES = ['events', 'notifications', 'notification_attempts'] as const;

export class ArchiveError extends Error {}

/** The table an archive file holds, from its name (archiveFileName). */
export function tableOfFile(path: string): (typeof ARCHIVED_TABLES)[number] {
  const m = /^([a-z_]+)-\d{12}-\d{12}\.ndjson\.gz$/.exec(basename(path));
  const table = ARCHIVED_TABLES.find((t) => t === m?.[1]);
  if (!table) throw new ArchiveError(`${path}: not an archive file (expected <table>-<first id>-<last id>.ndjson.gz of ${ARCHIVED_TABLES.join(', ')})`);
  return table;
}

/**
 * Puts an archive file's rows back into their table (rows already there are left as they are).
 * Restore events before their notifications, and notifications before their attempts. Answers
 * how many rows were inserted.
 */
export async function restoreArchiveFile(db: Db, path: string): Promise<number> {
  const table = tableOfFile(path);
  const rows = await readArchiveFile(path);
  return db.tx(async (q) => {
    // Generated columns (notifications.origin) are computed again, not inserted. No conflict
    // target: events and attempts are partitioned, their keys are (id, created_at).
    const { rows: cols } = await q.query<{ column_name: string }>(
      `SELECT column_name FROM information_schema.columns
       WHERE table_schema = current_schema() AND table_name = $1 AND is_generated = 'NEVER' ORDER BY ordinal_position`,
      [table],
    );
    // A notification archived before migration 098 has no event_type: the table's trigger reads it
    // from its event, which must be back first (the trigger refuses it otherwise).
    const list = cols.map((c) => `"${c.column_name}"`).join(', ');
    try {
      const r = await q.query(
        `INSERT INTO ${table} (${list}) SELECT ${list} FROM json_populate_recordset(null::${table}, $1::json) ON CONFLICT DO NOTHING`,
        [JSON.stringify(rows)],
      );
      return r.rowCount;
    } catch (err) {
      if (table === 'notifications' && violatesConstraint(err, '23503', 'notifications_event_type')) {
        throw new ArchiveError(`${path}: a notification's event is not in the events table: restore the events' files first`);
      }
      throw err;
    }
  });
}
