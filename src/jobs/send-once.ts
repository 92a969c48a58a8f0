// "Send once": the one job primitive behind every request caja sends a provider that moves money
// (payout orders: src/cashouts/payouts.ts; refunds: src/refunds/provider-refunds.ts; refused
// payments sent back: src/deposits/send-backs.ts; every future provider's). A job is a row of its
// table (one row per order, keyed by its cashout, refund or send-back),
// with the reference sent to the provider (random: src/domain/references.ts) and a state:
//   claim      a row due is leased (leased_until, longer than any request) by this process's
//              holder (leased_by): one process steps it at a time
//   before     the row is written 'sending' by the primitive before the request, under the
//              reference sent and this process's lease (the lease kept through it): a reference
//              the table does not hold for the row is never sent
//   resend     a row found 'sending' is looked up at the provider by its reference first, and
//              sent only when the provider has none; a row 'sent' is only looked up
//   match      what the provider shows (a look-up, or an order a send's answer reveals) is
//              adopted only when the feature's `matches` says it is the row's order (amount,
//              account, beneficiary); otherwise the row stops for the operator, never sent again
//   outcome    applied through the feature's state machine, which applies each transition once
//   backoff    a step that failed waits BACKOFF_SECONDS by attempts; but when the provider answers
//              again (a probe, a look-up, a send, the provider's catch-up poll) every row waiting
//              on it is due at once (wake)
//   dead       a row leased by a holder that is gone (its process died: its PostgreSQL session
//              ended; on PGlite, any earlier process) is claimed again at once, without waiting
//              out the lease; the resend rule above keeps it from being sent twice
// A step is `sendStep` over the feature's declared `SendSpec` (reference, lookup, matches, send,
// applyFound/applySent, notShown, stop, failed): the order of the steps is the primitive's.
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
  work: 'payouts' | 'refunds' | 'send-backs';
  table: 'connector_payouts' | 'connector_refunds' | 'connector_send_backs';
  key: 'cashout_id' | 'refund_id' | 'id';
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

/**
 * The providers whose last reconciliation poll was answered (any process's poll: the connectors
 * table's last_poll_at): the rows waiting on one of them after a step that failed before then are
 * due now. Answers how many.
 */
export async function wakeAfterPolls(ctx: AppContext, jobs: SendOnceJobs): Promise<number> {
  const now = ctx.now();
  const { rowCount } = await ctx.db.query(
    `UPDATE ${jobs.table} t SET next_check_at = $1
     WHERE ${jobs.open} AND ${jobs.waiting} AND t.next_check_at > $1 AND (t.leased_until IS NULL OR t.leased_until < $1)
       AND t.updated_at < (SELECT c.last_poll_at FROM connectors c WHERE c.name = t.connector AND c.last_poll_ok)`,
    [now],
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

/** What a look-up or a send's answer shows, matched against the row: adopted only when it is the row's. */
export type SendMatch = { ok: true } | { ok: false; reason: string };

/** The states of a row that still has a step to run. */
export type SendState = 'new' | 'sending' | 'sent';

/**
 * One provider send, declared: the steps every feature fills in, run in the primitive's order by
 * `sendStep`, so that none can be skipped. `R` is the claimed row, `C` what a step works with
 * (the connector and the order it sends), `F` what the provider shows of the order (a look-up's
 * answer), `S` a send's answer.
 */
export interface SendSpec<R, C, F, S> {
  jobs: SendOnceJobs;
  /** The row's key (its cashout or refund id). */
  key(row: R): number;
  state(row: R): SendState;
  attempts(row: R): number;
  /** The reference stored with the row: the only one ever sent, checked against the table before the request. */
  reference(row: R): string | null;
  /** Seconds before a row written 'sending' is due again, should its step never end (the process died). */
  sendingWaitSeconds(row: R): number;
  /** What the step needs (connector, order), or null when the feature closed the row itself (settled another way, no connector). */
  prepare(row: R): Promise<C | null>;
  /** The order at the provider by the row's reference; null: the provider has none. */
  lookup(row: R, c: C): Promise<F | null>;
  /** Whether what the provider shows is this row's order (amount, account, beneficiary): never adopted otherwise. */
  matches(row: R, c: C, shown: F): SendMatch;
  /** Sends the order under `reference` (the stored one). */
  send(row: R, c: C, reference: string): Promise<S>;
  /** What a send's answer shows of an order (matched as a look-up's), or null when it shows none. */
  shownBy?(result: S): F | null;
  /** Whether a send's answer is the provider answering (not its trouble); true when not given. */
  answered?(result: S): boolean;
  /** Whether a failed look-up or send still heard the provider (it answered, with an error). */
  errorAnswered?(err: unknown): boolean;
  /** Applies what a look-up found (matched): the outcome, once, through the feature's state machine. */
  applyFound(row: R, c: C, found: F): Promise<void>;
  /** Applies a send's answer (its shown order matched). */
  applySent(row: R, c: C, result: S): Promise<void>;
  /** A row already sent that the provider does not show (yet): asked again later, never sent again. */
  notShown(row: R, c: C): Promise<void>;
  /** Stops the row for the operator: never adopted, never sent again. */
  stop(row: R, c: C, reason: string, shown: F): Promise<void>;
  /** A look-up or send failed (`state`: the row's state now; `sending`: the send's own request). */
  failed(row: R, c: C, state: SendState, err: unknown, sending: boolean): Promise<void>;
}

/** The primitive refused a send: no reference stored for the row, or its lease is no longer this process's. */
export class SendOnceError extends Error {
  constructor(readonly kind: 'no_reference' | 'lease_lost', message: string) {
    super(message);
  }
}

/**
 * Writes the row 'sending' before its request, under the reference it is about to send and the
 * lease this process holds: answers false (and nothing is sent) when the table does not hold that
 * reference for the row, or another process holds it now.
 */
async function markSending(ctx: AppContext, jobs: SendOnceJobs, key: number, reference: string, attempts: number, waitSeconds: number): Promise<boolean> {
  const now = ctx.now();
  const { rowCount } = await ctx.db.query(
    `UPDATE ${jobs.table} SET state = 'sending', attempts = $3, last_error = NULL, updated_at = $4, next_check_at = $5, leased_until = $6
     WHERE ${jobs.key} = $1 AND reference = $2 AND leased_by = $7 AND state IN ('new', 'sending')`,
    [key, reference, attempts, now, new Date(now.getTime() + waitSeconds * 1000), leaseUntil(ctx), await holder(ctx)],
  );
  return (rowCount ?? 0) === 1;
}

/**
 * One step of a claimed row, in the primitive's order:
 *   sent       looked up; found → matched → applied (or stopped); not shown → asked later
 *   sending    looked up first (a request may have reached the provider); found → as above;
 *              none → sent again, under the same stored reference
 *   new        sent
 * A send is always preceded by the row written 'sending' under the reference sent (checked in the
 * table, with this process's lease): a reference not stored is never sent. Whatever the provider
 * shows, from a look-up or in a send's answer, is adopted only when `matches` says it is the
 * row's; otherwise the row stops for the operator. `heard.answered`: whether the provider answered.
 */
export async function sendStep<R, C, F, S>(ctx: AppContext, spec: SendSpec<R, C, F, S>, row: R, heard: { answered: boolean } = { answered: false }): Promise<void> {
  const c = await spec.prepare(row);
  if (c === null) return;
  let state = spec.state(row);
  let sending = false;
  let outcome: { found: F } | { sent: S };
  try {
    if (state === 'sending' || state === 'sent') {
      const found = await spec.lookup(row, c);
      heard.answered = true;
      if (found !== null) outcome = { found };
      else if (state === 'sent') {
        await spec.notShown(row, c);
        return;
      }
    }
    outcome ??= await (async () => {
      const reference = spec.reference(row);
      if (!reference) throw new SendOnceError('no_reference', `${spec.jobs.key} ${spec.key(row)}: no reference stored, nothing is sent`);
      // Written before the request: should this process die with it in flight, the next step
      // looks the order up instead of sending another. The lease is kept through the request.
      if (!(await markSending(ctx, spec.jobs, spec.key(row), reference, spec.attempts(row) + 1, spec.sendingWaitSeconds(row)))) {
        throw new SendOnceError('lease_lost', `${spec.jobs.key} ${spec.key(row)}: the table does not hold reference ${reference} under this process's lease, nothing is sent`);
      }
      state = 'sending';
      sending = true;
      const sent = await spec.send(row, c, reference);
      if (spec.answered?.(sent) ?? true) heard.answered = true;
      return { sent };
    })();
  } catch (err) {
    if (spec.errorAnswered?.(err)) heard.answered = true;
    if (err instanceof SendOnceError) {
      ctx.log.error({ err, table: spec.jobs.table, id: spec.key(row) }, 'send once: nothing sent');
      // Another process holds the row now (or it changed under us): its step is that process's.
      if (err.kind === 'lease_lost') return;
    }
    await spec.failed(row, c, state, err, sending);
    return;
  }
  const shown = 'found' in outcome ? outcome.found : spec.shownBy?.(outcome.sent) ?? null;
  if (shown !== null) {
    const match = spec.matches(row, c, shown);
    if (!match.ok) {
      ctx.log.error({ table: spec.jobs.table, id: spec.key(row), reference: spec.reference(row), mismatch: match.reason }, 'send once: what the provider holds under the reference is not the row\'s order: stopped for the operator');
      await spec.stop(row, c, match.reason, shown);
      return;
    }
  }
  if ('found' in outcome) await spec.applyFound(row, c, outcome.found);
  else await spec.applySent(row, c, outcome.sent);
}
