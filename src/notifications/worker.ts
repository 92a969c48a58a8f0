// The delivery worker: claims due outbox rows under a lease, POSTs each (signed) with bounded
// concurrency overall and per destination, and records every attempt. Any number of processes
// may run one against the same database; the lease and SKIP LOCKED keep each attempt to one
// process, and a process that dies mid-delivery leaves a lease that simply runs out.
import { randomUUID } from 'node:crypto';
import type { AppContext } from '../config/context.ts';
import { cajaSignatureHeader } from '../domain/signatures.ts';
import { credentialContext } from '../domain/secrets.ts';
import type { Worker } from '../jobs/periodic-worker.ts';
import { isPublicAddress, policyFor, RefusedTarget, refusalText, resolveTarget, type Resolver } from './address-guard.ts';
import { OriginGate, retryDelaySeconds } from './backoff.ts';
import { postNotification, type PostResult } from './http-post.ts';
import { type AttemptOutcome, claimDue, type ClaimedRow, finishAttempts, recordLostAttempt } from './store.ts';
import { isDatabaseUnavailable } from '../db/unavailable.ts';

export const USER_AGENT = 'caja-notifications/1';

export interface NotificationWorkerOptions {
  /** For tests: answers DNS look-ups instead of the system resolver. */
  resolver?: Resolver;
  /** Errors the loop survives (database unavailable, ...); default: the process log. */
  onError?: (err: unknown, where: string) => void;
}

export class NotificationWorker implements Worker {
  readonly name = 'notifications';
  /** Identifies this worker's leases; a new one per worker, so a restart never reuses one. */
  readonly token = randomUUID();
  private readonly gate: OriginGate;
  /** Every delivery not finished yet, its outcome's write included (stop() waits for them). */
  private readonly inFlight = new Set<Promise<void>>();
  /**
   * Deliveries holding a slot: from the claim until the endpoint answered (or failed). The slot
   * is free again before the outcome is written, so a slow commit does not idle the slots.
   */
  private active = 0;
  private readonly leaseSeconds: number;
  private stopping = false;
  /** The last claim filled every free slot (or skipped busy origins): more may be waiting. */
  private eager = false;
  private sleeper: (() => void) | null = null;
  private woken = false;
  private readonly loop: Promise<void>;
  /** Outcomes waiting to be written together (see recordOutcome). */
  private outcomes: { outcome: AttemptOutcome; done: (err?: unknown) => void }[] = [];
  private flushing: Promise<void> | null = null;
  /** Outcomes queued or being written. Claiming pauses while they exceed the concurrency. */
  private unrecorded = 0;

  constructor(
    private readonly ctx: AppContext,
    private readonly opts: NotificationWorkerOptions = {},
  ) {
    const n = ctx.config.notifications;
    // A lease shorter than one delivery would let a second worker send the same attempt while
    // the first is still waiting for its answer.
    this.leaseSeconds = Math.max(n.leaseSeconds, Math.ceil((n.timeoutMs + 1000) / 1000));
    // An endpoint pauses at most as long as the first retry step, so tests with tiny schedules
    // are not held up by it, and at most 30 s otherwise.
    this.gate = new OriginGate(n.perOriginConcurrency, Math.min(30_000, n.retryScheduleSeconds[0] * 1000));
    this.loop = this.run();
  }

  private report(err: unknown, where: string): void {
    if (this.opts.onError) this.opts.onError(err, where);
    // The database away (a failover) passes; the delivery is retried when its lease runs out.
    else this.ctx.log[isDatabaseUnavailable(err) ? 'warn' : 'error']({ err }, `notification worker: ${where}`);
  }

  /** Sleeps up to ms, or less when a delivery finishes and more work may be waiting. */
  private sleep(ms: number): Promise<void> {
    if (this.woken) {
      this.woken = false;
      return Promise.resolve();
    }
    return new Promise((resolve) => {
      const timer = setTimeout(() => this.wake(false), ms);
      this.sleeper = () => {
        clearTimeout(timer);
        this.sleeper = null;
        resolve();
      };
    });
  }

  /** Ends the current sleep; with `early` and no sleep under way, the next sleep is skipped. */
  private wake(early = true): void {
    if (this.sleeper) this.sleeper();
    else if (early) this.woken = true;
  }

  private async run(): Promise<void> {
    const n = this.ctx.config.notifications;
    while (!this.stopping) {
      const free = n.concurrency - this.active;
      // Back-pressure: when outcomes are written slower than endpoints answer, stop claiming
      // until they catch up (a flush wakes the loop), so unwritten outcomes stay bounded.
      if (free > 0 && this.unrecorded < n.concurrency) {
        const excludedOrigins = this.gate.excluded();
        let rows: ClaimedRow[];
        try {
          rows = await claimDue(this.ctx.db, {
            limit: free,
            leaseSeconds: this.leaseSeconds,
            token: this.token,
            excludedOrigins,
            perOriginLimit: n.perOriginConcurrency,
            inFlightByOrigin: this.gate.inFlight(),
          });
        } catch (err) {
          if (this.stopping) break;
          this.report(err, 'claim failed');
          await this.sleep(Math.max(n.pollIntervalMs, 1000));
          continue;
        }
        for (const row of rows) this.dispatch(row);
        // Anything claimed means more may be waiting: a backlog to one endpoint is claimed only
        // its per-origin share at a time, far fewer rows than free slots, and must not then wait
        // for the next poll (it drained at ~9/s that way). Freed slots wake the loop at once.
        // An origin left out of the claim (at its limit) may have rows waiting too: a claim that
        // came back empty only because of that must not stop its deliveries from waking the loop.
        this.eager = rows.length > 0 || excludedOrigins.length > 0;
        if (rows.length === free && this.active < n.concurrency) continue;
      }
      if (this.stopping) break;
      const reopen = this.gate.nextReopenMs();
      await this.sleep(reopen === null ? n.pollIntervalMs : Math.min(n.pollIntervalMs, reopen + 1));
    }
  }

  private dispatch(row: ClaimedRow): void {
    this.gate.start(row.origin);
    this.active++;
    let slotHeld = true;
    const releaseSlot = () => {
      if (!slotHeld) return;
      slotHeld = false;
      this.active--;
    };
    const p: Promise<void> = this.deliver(row, releaseSlot)
      .catch((err) => this.report(err, `notification ${row.id}`))
      .finally(() => {
        releaseSlot();
        this.inFlight.delete(p);
        if (this.eager && this.worthClaiming(row.origin)) this.wake();
      });
    this.inFlight.add(p);
  }

  /**
   * Claiming after every single completion would cost one claim query per delivery; waiting
   * until half the slots (overall, or of the origin that just finished) are free claims in
   * batches while keeping the pipeline full.
   */
  private worthClaiming(origin: string): boolean {
    const n = this.ctx.config.notifications;
    const free = n.concurrency - this.active;
    const originFree = n.perOriginConcurrency - this.gate.inFlightOf(origin);
    return free >= Math.ceil(n.concurrency / 2) || originFree >= Math.ceil(n.perOriginConcurrency / 2);
  }

  private async deliver(row: ClaimedRow, releaseSlot: () => void): Promise<void> {
    const { config, box, db } = this.ctx;
    const n = config.notifications;
    if (row.prev_lease) await recordLostAttempt(db, row).catch((err) => this.report(err, 'recording a lost attempt'));
    const startedAt = this.ctx.now();
    const t0 = performance.now();
    let result: PostResult;
    let permanent = false;
    try {
      const target = await withDeadline(resolveTarget(row.url, policyFor(config), this.opts.resolver), n.timeoutMs);
      const secret = row.secret_enc ? box.decrypt(row.secret_enc, credentialContext(row.merchant_id, row.signing_set)) : null;
      if (!secret) throw new Error(`merchant ${row.merchant_id} has no ${row.signing_set} signing secret`);
      // During a rotation's overlap the replaced secret signs too (one v1 each).
      const previous = row.previous_secret_enc ? box.decrypt(row.previous_secret_enc, credentialContext(row.merchant_id, row.signing_set)) : null;
      const headers = {
        'Content-Type': row.content_type,
        'Caja-Signature': cajaSignatureHeader(previous ? [secret, previous] : secret, Math.floor(Date.now() / 1000), row.body),
        'Caja-Notification-Id': String(row.id),
        'Caja-Event-Id': String(row.event_id),
        'User-Agent': USER_AGENT,
      };
      const remaining = Math.max(1, n.timeoutMs - Math.round(performance.now() - t0));
      result = await postNotification(target, headers, row.body, remaining);
      result.latencyMs = Math.round(performance.now() - t0);
      // A loopback or private destination (staging, for local development) may be an internal
      // service: its answer is never recorded, so GET /v3/notifications cannot echo it.
      if (!isPublicAddress(target.address)) result.excerpt = null;
    } catch (err) {
      permanent = err instanceof RefusedTarget && err.permanent;
      const shown = refusalText(err, policyFor(config));
      // The merchant reads `shown`; the operator's log keeps the detail it leaves out.
      if (shown !== (err as Error).message) this.ctx.log.warn({ notification_id: row.id, reason: (err as Error).message }, 'notification destination refused');
      result = { statusCode: null, latencyMs: Math.round(performance.now() - t0), error: shown, excerpt: null };
    }
    const code = result.statusCode;
    const ok = code !== null && code >= 200 && code < 300;
    if (code !== null && !ok) {
      result.error = code >= 300 && code < 400 ? `HTTP ${code}: redirects are not followed` : `HTTP ${code}`;
    }
    const endpointAnswered = code !== null && code < 500 && code !== 429;
    this.ctx.metrics.notificationAttempts.inc({ result: ok ? 'delivered' : 'failed' });
    if (code !== null) this.ctx.metrics.notificationLatency.observe(result.latencyMs / 1000);
    this.gate.finish(row.origin, ok || endpointAnswered);
    // The slot (overall and the endpoint's) is free now: refill it at once rather than after the
    // outcome's commit (outcomes are written in batches; waiting for each capped one endpoint at
    // a few dozen/s, and held every slot for a commit). The row stays leased to this worker
    // until its outcome is written, so no one claims it meanwhile.
    releaseSlot();
    if (this.eager && this.worthClaiming(row.origin)) this.wake();
    await this.recordOutcome({
      id: row.id,
      token: this.token,
      attemptNo: row.attempt_count,
      startedAt,
      url: row.url,
      ok,
      permanent,
      statusCode: code,
      latencyMs: result.latencyMs,
      error: result.error,
      excerpt: result.excerpt,
      retryInSeconds: retryDelaySeconds(row.attempt_count, n.retryScheduleSeconds),
      maxAgeSeconds: n.maxAgeSeconds,
    });
  }

  /**
   * Queues an outcome; one write at a time takes everything queued, so under load outcomes are
   * committed in batches (one commit for many deliveries) and when idle each goes at once.
   * Resolves once written; a process dying before that leaves the lease to run out, and the
   * notification is sent again (at least once).
   */
  private recordOutcome(outcome: AttemptOutcome): Promise<void> {
    this.unrecorded++;
    return new Promise((resolve, reject) => {
      this.outcomes.push({ outcome, done: (err) => (err ? reject(err) : resolve()) });
      if (!this.flushing) this.flushing = this.flush();
    });
  }

  private async flush(): Promise<void> {
    while (this.outcomes.length > 0) {
      const batch = this.outcomes;
      this.outcomes = [];
      try {
        await finishAttempts(this.ctx.db, batch.map((b) => b.outcome));
        for (const b of batch) b.done();
      } catch (err) {
        for (const b of batch) b.done(err);
      }
      const wasHeld = this.unrecorded >= this.ctx.config.notifications.concurrency;
      this.unrecorded -= batch.length;
      if (wasHeld) this.wake();
    }
    this.flushing = null;
  }

  /** Stops claiming and waits for deliveries under way (each bounded by the timeout). */
  async stop(): Promise<void> {
    this.stopping = true;
    this.wake();
    await this.loop;
    await Promise.allSettled([...this.inFlight]);
  }
}

function withDeadline<T>(p: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout;
  return Promise.race([
    p,
    new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms resolving the host`)), ms);
    }),
  ]).finally(() => clearTimeout(timer));
}

export function notificationWorker(ctx: AppContext): Worker {
  return new NotificationWorker(ctx);
}
