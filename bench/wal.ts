// The latency phases run on recycled WAL segments. When PostgreSQL fills a 16 MB WAL segment and
// no recycled one is ready, it creates the next and writes 16 MB of zeros into it (wal_init_zero)
// while it holds the WAL write lock: no commit completes meanwhile. Measured on these machines:
// each new segment was a 16 MB write burst on the disk and a 40–55 ms pause of every commit, once
// every 2.5–3.5 s at the 70 % rate, and pgbench's own p99 at that rate was 29–51 ms with it against
// 8–13 ms with wal_init_zero off. A server under steady load writes into segments recycled by its
// checkpoints (PostgreSQL keeps as many as it wrote between the last two); the bench, which starts
// on a fresh database (whose CREATE DATABASE checkpoints) and then writes in bursts, mostly did not.
// So each latency phase, ours and pgbench's alike, starts with a CHECKPOINT, which recycles the
// segments the phases before it filled, and reports how many segments it filled against how many
// were ready: more filled than ready means some were created during the phase, stalls included.
import pg from 'pg';

const SEGMENT_BYTES = 16 * 1024 * 1024;

export type WalUse =
  | { segments_ready: number; segments_filled: number; segments_created: number }
  | { skipped: string };

async function position(client: pg.Client): Promise<{ lsn: bigint; ready: number }> {
  const { rows } = await client.query<{ lsn: string; ready: string }>(
    `SELECT pg_current_wal_lsn() - '0/0' AS lsn,
            (SELECT count(*) FROM pg_ls_waldir() WHERE name ~ '^[0-9A-F]{24}$' AND name > pg_walfile_name(pg_current_wal_lsn())) AS ready`,
  );
  return { lsn: BigInt(rows[0]!.lsn), ready: Number(rows[0]!.ready) };
}

/** Runs `phase` after a CHECKPOINT, with the WAL segments it filled against those that were ready. */
export async function onRecycledWal<T>(databaseUrl: string, phase: () => Promise<T>): Promise<{ result: T; wal: WalUse }> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    let before: { lsn: bigint; ready: number };
    try {
      await client.query('CHECKPOINT');
      before = await position(client);
    } catch (err) {
      // CHECKPOINT and pg_ls_waldir need a superuser (or pg_checkpoint and pg_monitor).
      return { result: await phase(), wal: { skipped: (err as Error).message } };
    }
    const result = await phase();
    const after = await position(client);
    const filled = Number((after.lsn / BigInt(SEGMENT_BYTES)) - (before.lsn / BigInt(SEGMENT_BYTES)));
    return { result, wal: { segments_ready: before.ready, segments_filled: filled, segments_created: Math.max(0, filled - before.ready) } };
  } finally {
    await client.end();
  }
}
