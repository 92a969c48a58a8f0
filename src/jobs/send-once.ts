// "Send once": the one job primitive behind every request caja sends a provider that moves money
// (payout orders: src/cashouts/payouts.ts; refunds: src/refunds/provider-refunds.ts; every future
// provider's). A job is a row of its table (one row per order, keyed by its cashout or refund),
// with the reference sent to the provider (random: src/domain/references.ts) and a state:
//   claim      a row due is leased (leased_until, longer than any request) by this process's
//              holder (leased_by): one process steps it at a time
//   before     the row is written 'sending' before the request (the lease kept through it)
//   resend     a row found 'sending' is looked up at the provider by its reference first, and
//              sent only when the provider has none
//   outcome    applied through the feature's state machine, which applies each transition once
//   backoff    a step that failed waits BACKOFF_SECONDS by attempts; but when the provider answers
//              again (a probe, a look-up, a send, the provider's catch-up poll) every row waiting
//              on it is due at once (wake)
//   dead       a row leased by a holder that is gone (its process died: its PostgreSQL session
//              ended; on PGlite, any earlier process) is claimed again at once, without waiting
//              out the lease; the resend rule above keeps it from being sent twice
// The feature keeps what is its own: what a step asks and how an answer moves its cashout or refund.
import { randomUUID } from 'node:crypto';
import type { AppContext } from '../config/context.ts';
import type { DbSession } from '../db/db.ts';
import { probeDue } from './probe.ts';

/** Seconds before the next attempt of a step that failed, by attempts so far. */
export const BACKOFF_SECONDS = [1, 2, 5, 10, 30, 60];

export const backoffSeconds = (attempts: number): number => BACKOFF_SECONDS[Math.min(attempts, BACKOFF_SECONDS.length - 1)]!;

/** How long a step holds its row: a look-up and a send, each within the connector's timeout. */
export const leaseMs = (ctx: Pick<AppContext, 'config'>): number => 2 * ctx.config.connectors.timeoutMs + 5000;

export const leaseUntil = (ctx: Pick<AppContext, 'config' | 'now'>): Date => new Date(ctx.now().getTime() + leaseMs(ctx));

/** One kind of send-once job: its table and what its rows' states mean. */
export interface SendOnceJobs {
  /** Names the work for the probe gate. */
  work: 'payouts' | 'refunds';
  table: 'connector_payouts' | 'connector_refunds';
  key: 'cashout_id' | 'refund_id';
  /** SQL: the row still has steps to run (neither settled nor stopped). */
  open: string;
  /** SQL: the row waits after a failed step (its backoff). */
  waiting: string;
  /** SQL: more to set on claim (the lease's end is $2). */
  onClaim?: string;
}

/** The process that holds leases, as the database knows it. */
interface Holder {
  id: string;
  session: DbSession | null;
}

/** On PGlite (one process per database) the holder is the process itself. */
const PROCESS_HOLDER = `p-${randomUUID()}`;

const holders = new WeakMap<object, Promise<Holder>>();

async function register(ctx: Pick<AppContext, 'db'>): Promise<Holder> {
  // Holders that are gone are forgotten (a row still leased by one is taken over all the same:
  // an unknown holder is a gone one).
  if (ctx.db.kind !== 'pg') {
    await ctx.db.query('DELETE FROM job_holders WHERE id <> $1', [PROCESS_HOLDER]);
    await ctx.db.query('INSERT INTO job_holders (id) VALUES ($1) ON CONFLICT (id) DO NOTHING', [PROCESS_HOLDER]);
    return { id: PROCESS_HOLDER, session: null };
  }
  const session = ctx.db.session ? await ctx.db.session() : null;
  if (session) {
    await ctx.db.query(`DELETE FROM job_holders h WHERE NOT EXISTS (SELECT 1 FROM pg_stat_activity a WHERE a.pid = h.backend_pid AND a.backend_start = h.backend_start)`);
  }
  const id = `s-${randomUUID()}`;
  await ctx.db.query('INSERT INTO job_holders (id, backend_pid, backend_start) VALUES ($1, $2, $3)', [id, session?.pid ?? null, session?.started ?? null]);
  return { id, session };
}

/** This process's holder on ctx's database; registered again when its session was lost. */
export async function holder(ctx: Pick<AppContext, 'db'>): Promise<string> {
  let h = holders.get(ctx.db);
  if (h) {
    const known = await h.catch(() => null);
    if (!known || (known.session && !known.session.alive())) h = undefined;
  }
  if (!h) {
    h = register(ctx);
    holders.set(ctx.db, h);
  }
  return (await h).id;
}

/**
 * SQL: the row's holder ($6) is gone. PostgreSQL: its session is no longer in pg_stat_activity.
 * PGlite: it is not this process (a process that ran before this one on the same data).
 */
function holderGone(ctx: Pick<AppContext, 'db'>, alias: string): string {
  const other = `${alias}.leased_by IS NOT NULL AND ${alias}.leased_by <> $6`;
  if (ctx.db.kind !== 'pg') return other;
  if (!ctx.db.session) return 'false';
  return `${other} AND NOT EXISTS (SELECT 1 FROM job_holders h JOIN pg_stat_activity a ON a.pid = h.backend_pid AND a.backend_start = h.backend_start
    WHERE h.id = ${alias}.leased_by)`;
}

/**
 * Rows due for a step, leased to this process (one process steps a row at a time): `id`, that
 * row only; `probe` (a provider's name), instead the first of its rows waiting after a failed
 * step, before its backoff is over. Answers the rows as the table holds them.
 */
export async function claim<R>(ctx: AppContext, jobs: SendOnceJobs, o: { id?: number | null; limit: number; probe?: string | null }): Promise<R[]> {
  const me = await holder(ctx);
  const { rows } = await ctx.db.query<R>(
    `WITH due AS (
       SELECT ${jobs.key} FROM ${jobs.table} t
       WHERE ${jobs.open} AND (t.leased_until IS NULL OR t.leased_until < $1 OR (${holderGone(ctx, 't')}))
         AND ($3::integer IS NULL OR ${jobs.key} = $3)
         AND CASE WHEN $5::text IS NULL THEN next_check_at <= $1 ELSE connector = $5 AND ${jobs.waiting} END
       ORDER BY next_check_at LIMIT $4 FOR UPDATE SKIP LOCKED
     )
     UPDATE ${jobs.table} j SET leased_until = $2, leased_by = $6${jobs.onClaim ? `, ${jobs.onClaim}` : ''} FROM due WHERE j.${jobs.key} = due.${jobs.key}
     RETURNING j.*`,
    [ctx.now(), leaseUntil(ctx), o.id ?? null, o.limit, o.probe ?? null, me],
  );
  return rows;
}

/**
 * The provider answered: its rows waiting after a failed step are due now (not those stepped in
 * this pass, since `passStart`: they just had their try). Answers how many.
 */
export async function wake(ctx: AppContext, jobs: SendOnceJobs, connectors: Iterable<string>, passStart: Date): Promise<number> {
  const names = [...connectors];
  if (names.length === 0) return 0;
  const now = ctx.now();
  const { rowCount } = await ctx.db.query(
    `UPDATE ${jobs.table} SET next_check_at = $2 WHERE connector = ANY($1::text[]) AND ${jobs.open} AND ${jobs.waiting}
       AND next_check_at > $2 AND (leased_until IS NULL OR leased_until < $2) AND updated_at < $3`,
    [names, now, passStart],
  );
  return rowCount ?? 0;
}

/** The providers with rows waiting after a failed step, their backoff not over. */
export async function waitingConnectors(ctx: AppContext, jobs: SendOnceJobs): Promise<string[]> {
  const { rows } = await ctx.db.query<{ connector: string }>(
    `SELECT DISTINCT connector FROM ${jobs.table} WHERE ${jobs.open} AND ${jobs.waiting} AND next_check_at > $1`,
    [ctx.now()],
  );
  return rows.map((r) => r.connector);
}

/**
 * The end of a pass, after its steps (`heardOf`: each provider stepped, and whether it answered):
 * a provider among `candidates` nothing was asked of is probed (one of its waiting rows is
 * stepped early, at most once a second per process); then the rows waiting on every provider that
 * answered are woken and stepped now.
 */
export async function recover<R>(
  ctx: AppContext, jobs: SendOnceJobs,
  o: {
    passStart: Date; heardOf: Map<string, boolean>; candidates: Iterable<string>; limit: number;
    /** The feature's claim (this module's, with what its step reads besides the row). */
    claim: (limit: number, probe: string | null) => Promise<R[]>;
    step: (rows: R[], heardOf?: Map<string, boolean>) => Promise<void>;
  },
): Promise<void> {
  for (const name of o.candidates) {
    if (!o.heardOf.has(name) && probeDue(ctx, jobs.work, name)) await o.step(await o.claim(1, name), o.heardOf);
  }
  const answered = [...o.heardOf].filter(([, yes]) => yes).map(([name]) => name);
  if ((await wake(ctx, jobs, answered, o.passStart)) > 0) {
    // Those woken are stepped now (whatever a step of theirs hears wakes nothing more).
    let rows: R[];
    do {
      rows = await o.claim(o.limit, null);
      await o.step(rows);
    } while (rows.length === o.limit);
  }
}
