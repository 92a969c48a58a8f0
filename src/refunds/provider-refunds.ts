// Refunds sent to a provider, and tracked here until settled: deposits paid through a real
// connector (Pix: a devolução; STP: an SPEI order back to the paying account) and card refunds
// (the card network the registry answers: src/connectors/registry.ts cardRefundConnector).
//
// The refund service writes the refund PENDING with its reservation and a connector_refunds row
// ('new', with the reference and, for STP, the destination) in its transaction; then (right
// after its commit, and from the refunds worker, src/refunds/worker.ts, until settled), one process at a time (a row
// is claimed with a lease, leased_until, longer than any request, released when its step ends):
//   new       → 'sending' is written BEFORE the provider is asked, the lease kept for the whole
//               request, then the request
//   sending   → a request may have reached the provider (crash, timeout): it is looked up by the
//               stored reference first, and sent only if the provider does not know it: never
//               sent twice
//   sent      → looked up until the provider settles it (sooner when it posts a state change: a hint)
//   stopped   what the provider holds under the reference is not this refund (another amount,
//               account or beneficiary): never adopted nor sent again; the operator sees it
//               (caja_connector_orders_stopped, the console's connectors page) and may send it again
//               under a new reference (resendStoppedRefund)
// A settled answer moves the refund through transitionRefund (COMPLETED posts the reservation,
// REJECTED voids it; event and notification as for every refund), and the row is 'done'. A
// look-up that finds something under the reference that is not this refund (MISMATCH) stops the
// row (`stopped`): nothing completes it, nothing is sent again, the operator is told (error log).
//
// Recovery: a refund whose step failed (the provider not answering) waits its backoff; but as soon
// as the provider answers again, every refund waiting on it is due at once. Each pass tries the
// first waiting refund of each provider early (a probe, at most once a second per process); when
// it, or any other step, gets an answer from the provider, the refunds waiting on that provider
// are made due and stepped in the same pass.
import { type SendOnceJobs, type SendSpec, type SendState, backoffSeconds, claim as claimJobs, recover, sendStep, waitingConnectors, wakeAfterPolls } from '../jobs/send-once.ts';
import type { AppContext } from '../config/context.ts';
import { type OpsActor, recordAudit } from '../audit/audit.ts';
import { fromDb } from '../domain/money.ts';
import { chargeReferences } from '../deposits/lookups.ts';
import { RefundTransitionError, transitionRefund } from './transitions.ts';
import { ConnectorError, type RefundOrder, type RefundOutcome } from '../connectors/payin.ts';
import { CARD_NETWORK, refundReference } from '../connectors/refund-routes.ts';
import { cardRefundConnector, payinConnectorNamed } from '../connectors/registry.ts';

interface Row {
  refund_id: number;
  connector: string;
  reference: string;
  payment_id: string;
  state: 'new' | 'sending' | 'sent' | 'done' | 'stopped';
  attempts: number;
  destination: unknown;
  created_at: Date;
  merchant_id: number;
  deposit_id: number;
  amount: string;
  currency: string;
  refund_status: string;
  refund_amount: string;
  refund_currency: string;
  connector_reference: string | null;
}

/** The send-once jobs of refunds (src/jobs/send-once.ts). */
const JOBS: SendOnceJobs = {
  work: 'refunds', table: 'connector_refunds', key: 'refund_id',
  open: `state <> 'done' AND stopped IS NULL`,
  waiting: 'last_error IS NOT NULL',
  // Moved to the lease's end: a hint while the row is held moves it back (setState keeps it due).
  onClaim: 'next_check_at = $2',
};

/**
 * Refunds due for a step, claimed (leased) so that one process works on each at a time. `probe`
 * (a provider's name): instead, the first of its refunds waiting after a failed step, before its
 * backoff is over.
 */
async function claim(ctx: AppContext, refundId: number | null, limit: number, probe: string | null = null): Promise<Row[]> {
  const claimed = await claimJobs<{ refund_id: number }>(ctx, JOBS, { id: refundId, limit, probe });
  if (claimed.length === 0) return [];
  const { rows } = await ctx.db.query<Row>(
    `SELECT c.refund_id, c.connector, c.reference, c.payment_id, c.state, c.attempts, c.destination, c.created_at, r.merchant_id, r.deposit_id,
            r.local_amount AS amount, r.local_currency AS currency, r.amount AS refund_amount, r.currency AS refund_currency,
            r.status AS refund_status
     FROM connector_refunds c JOIN refunds r ON r.id = c.refund_id
     WHERE c.refund_id = ANY($1::bigint[])`,
    [claimed.map((c) => c.refund_id)],
  );
  // The payment each refund returns, as its provider names the deposit's charge (the deposits' owner reads it).
  const charges = await chargeReferences(ctx.db, [...new Set(rows.map((r) => Number(r.deposit_id)))]);
  const byId = new Map(rows.map((r) => [Number(r.refund_id), { ...r, connector_reference: charges.get(Number(r.deposit_id)) ?? null }]));
  return claimed.map((c) => byId.get(Number(c.refund_id))).filter((r): r is Row => r !== undefined);
}

/** The providers that answered their reconciliation poll (deposits' poll worker): refunds waiting on them since before then are due now. */
export async function wakeRefundsAfterPolls(ctx: AppContext): Promise<number> {
  return wakeAfterPolls(ctx, JOBS);
}

async function setState(
  ctx: AppContext, refundId: number, state: Row['state'], attempts: number, error: string | null,
  o: { heard?: RefundOutcome } = {},
): Promise<void> {
  const wait = backoffSeconds(attempts) * 1000;
  await ctx.db.query(
    // A hint that came while the row was held (next_check_at moved from the lease's end to
    // before now) leaves the look-up due. The lease is released.
    `UPDATE connector_refunds SET state = $2, attempts = $3, last_error = $4, updated_at = $6,
       next_check_at = CASE WHEN next_check_at <= $6 AND leased_until IS NOT NULL THEN next_check_at ELSE $5 END,
       leased_until = NULL,
       provider_id = COALESCE($7, provider_id), provider_state = COALESCE($8, provider_state) WHERE refund_id = $1`,
    [refundId, state, attempts, error, new Date(ctx.now().getTime() + wait), ctx.now(), o.heard?.providerId ?? null, o.heard?.providerState ?? null],
  );
}

/** Stops a row for the operator: never completed, never sent again (MISMATCH). */
async function stop(ctx: AppContext, row: Row, reason: string): Promise<void> {
  await ctx.db.query(`UPDATE connector_refunds SET state = 'stopped', stopped = $2, last_error = $2, leased_until = NULL, updated_at = $3 WHERE refund_id = $1`, [row.refund_id, reason, ctx.now()]);
}

/** What sends and looks up one row's refund: its pay-in connector, or the card network. */
type Sender = { name: string; refund(order: RefundOrder): Promise<RefundOutcome>; refundStatus(order: RefundOrder): Promise<RefundOutcome | null> };

async function senderFor(ctx: AppContext, row: Row): Promise<Sender | null> {
  if (row.connector !== CARD_NETWORK) return payinConnectorNamed(ctx, row.connector);
  const network = cardRefundConnector(ctx.config);
  if (!network) return null;
  const card = (o: RefundOrder) => ({ refundId: o.refundId, depositId: o.depositId, amount: fromDb(row.refund_amount), currency: row.refund_currency, reference: o.reference! });
  return {
    name: network.name,
    refund: async (o) => network.refund(card(o)),
    refundStatus: async (o) => network.status(card(o)),
  };
}

/** Moves the refund by the provider's settled answer (PENDING: looked up again), then the row. */
async function applyOutcome(ctx: AppContext, row: Row, outcome: RefundOutcome, quiet: boolean): Promise<void> {
  if (outcome.status === 'PENDING') {
    await setState(ctx, row.refund_id, 'sent', row.attempts + 1, null, { heard: outcome });
    return;
  }
  try {
    const cause = row.connector === CARD_NETWORK ? 'card network answer' : `${row.connector} ${outcome.status === 'COMPLETED' ? 'returned' : 'refused'}`;
    // The answer to a card refund's first request is the refund's own answer (SUCCESS or
    // REJECTED): no notification; a later one is notified as every change.
    await transitionRefund(ctx, row.merchant_id, row.refund_id, outcome.status as 'COMPLETED' | 'REJECTED', cause, outcome.reason, outcome.reasonCode, undefined, !(quiet && row.connector === CARD_NETWORK));
  } catch (err) {
    if (!(err instanceof RefundTransitionError)) throw err;
  }
  await setState(ctx, row.refund_id, 'done', row.attempts + 1, null, { heard: outcome });
}

/** What a refund step works with: its sender and the order. */
interface Step { connector: Sender; order: RefundOrder }

/** A provider refund as the send-once primitive runs it (src/jobs/send-once.ts). */
const refundSend = (ctx: AppContext, quiet: boolean): SendSpec<Row, Step, RefundOutcome, RefundOutcome> => ({
  jobs: JOBS,
  key: (row) => row.refund_id,
  state: (row) => row.state as SendState,
  attempts: (row) => row.attempts,
  reference: (row) => row.reference,
  sendingWaitSeconds: (row) => backoffSeconds(row.attempts + 1),
  async prepare(row) {
    if (row.refund_status !== 'PENDING') {
      // Settled another way (an operator): nothing more to ask the provider.
      await setState(ctx, row.refund_id, 'done', row.attempts, null);
      return null;
    }
    const connector = await senderFor(ctx, row);
    if (!connector) {
      await setState(ctx, row.refund_id, row.state, row.attempts + 1, `connector ${row.connector} is not configured`);
      return null;
    }
    const order: RefundOrder = {
      refundId: row.refund_id, depositId: row.deposit_id, chargeReference: row.connector_reference, paymentId: row.payment_id,
      amount: fromDb(row.amount), currency: row.currency, reference: row.reference, destination: row.destination ?? undefined, createdAt: row.created_at,
    };
    return { connector, order };
  },
  lookup: (_row, s) => s.connector.refundStatus(s.order),
  // The connector compares what the provider holds under the reference (amount, account,
  // beneficiary) with the refund, and answers MISMATCH when it is another.
  matches: (_row, _s, shown) => (shown.status === 'MISMATCH' ? { ok: false, reason: shown.reason ?? 'the provider holds something else under this reference' } : { ok: true }),
  send: (_row, s) => s.connector.refund(s.order),
  // A send's answer may show a refund already there under the reference (a Pix devolução).
  shownBy: (result) => result,
  errorAnswered: (err) => err instanceof ConnectorError && err.kind !== 'unavailable',
  applyFound: (row, _s, found) => applyOutcome(ctx, row, found, quiet),
  applySent: (row, _s, result) => applyOutcome(ctx, row, result, quiet),
  // Sent, yet the provider does not know it (yet): look again later.
  notShown: (row) => setState(ctx, row.refund_id, 'sent', row.attempts + 1, 'the provider does not know the refund yet'),
  stop: (row, _s, reason) => stop(ctx, row, reason),
  async failed(row, _s, state, err, sending) {
    if (err instanceof ConnectorError && err.kind === 'refused' && sending) {
      // The provider answered the request itself with a refusal: no devolução or order exists.
      await applyOutcome(ctx, row, { status: 'REJECTED', reason: `The provider refused the refund: ${err.provider?.detail ?? err.provider?.title ?? err.message}`, reasonCode: 'PROVIDER_REFUSED' }, quiet);
      return;
    }
    ctx.log.warn({ err, refundId: row.refund_id, connector: row.connector }, 'connector refund step failed; retried later');
    await setState(ctx, row.refund_id, state, row.attempts + 1, err instanceof Error ? err.message : String(err));
  },
});

async function step(ctx: AppContext, row: Row, quiet = false, heard: { answered: boolean } = { answered: false }): Promise<void> {
  await sendStep(ctx, refundSend(ctx, quiet), row, heard);
}

/**
 * Sends one new refund now (the refund service calls it after its commit; errors are logged).
 * `quiet`: the caller answers the outcome itself (a card refund's response), so it is not notified.
 */
export async function kickConnectorRefund(ctx: AppContext, refundId: number, quiet = false): Promise<void> {
  try {
    for (const row of await claim(ctx, refundId, 1)) await step(ctx, row, quiet);
  } catch (err) {
    ctx.log.warn({ err, refundId }, 'connector refund: first step failed; the worker retries');
  }
}

/**
 * One pass of the worker over refunds due for a step; answers how many were due. When fewer than
 * `limit` were, the refunds waiting on a provider that does not answer are probed (one each), and
 * those of a provider that answered are made due and stepped now.
 */
export async function trackConnectorRefunds(ctx: AppContext, limit = 50): Promise<number> {
  const passStart = ctx.now();
  const rows = await claim(ctx, null, limit);
  const answered = new Set<string>();
  const stepAll = async (claimed: Row[]) => {
    for (const row of claimed) {
      const heard = { answered: false };
      await step(ctx, row, false, heard);
      if (heard.answered) answered.add(row.connector);
    }
  };
  await stepAll(rows);
  if (rows.length === limit) return rows.length;
  const heardOf = new Map<string, boolean>(rows.map((r) => [r.connector, answered.has(r.connector)]));
  await recover<Row>(ctx, JOBS, {
    passStart, heardOf, candidates: await waitingConnectors(ctx, JOBS), limit,
    claim: (n, probe) => claim(ctx, null, n, probe),
    step: async (claimed, heard) => {
      for (const row of claimed) {
        const h = { answered: false };
        await step(ctx, row, false, h);
        if (heard) heard.set(row.connector, heard.get(row.connector) === true || h.answered);
      }
    },
  });
  return rows.length;
}

/**
 * A provider's state-change post named this reference (STP's estado): a hint. The refund is
 * looked up at the provider (never taken from the post), now, unless a process holds it (its
 * lease); then it stays due, and the worker's next pass looks it up.
 */
export async function hintConnectorRefund(ctx: AppContext, connector: string, reference: string): Promise<boolean> {
  const { rows } = await ctx.db.query<{ refund_id: number }>(
    `UPDATE connector_refunds SET next_check_at = $3 WHERE connector = $1 AND reference = $2 AND state IN ('sending', 'sent') AND stopped IS NULL
     RETURNING refund_id`,
    [connector, reference, ctx.now()],
  );
  for (const r of rows) await kickConnectorRefund(ctx, r.refund_id);
  if (rows.length) return true;
  const known = await ctx.db.query<{ refund_id: number; state: string; status: string }>(
    'SELECT cr.refund_id, cr.state, r.status FROM connector_refunds cr JOIN refunds r ON r.id = cr.refund_id WHERE cr.connector = $1 AND cr.reference = $2',
    [connector, reference],
  );
  const row = known.rows[0];
  if (row?.state === 'done' && row.status === 'COMPLETED') {
    // A completed refund's order changed state (a return after liquidation): caja does not undo
    // a completed refund; the operator settles it (docs/connectors.md, "Not done").
    ctx.log.error({ refundId: row.refund_id, connector, reference }, 'the provider reports a state change for a completed refund\'s order (a return?): the operator must look');
  }
  return row !== undefined;
}

/**
 * The operator checked at the provider that a stopped refund was never sent (what its reference
 * names is another devolução): it goes out again under a new random reference, as a new row
 * ('new': sent by the next pass). Answers the old and new references, or null when the refund has
 * no stopped row (or is no longer PENDING). Audited.
 */
export async function resendStoppedRefund(db: AppContext['db'], refundId: number, actor: OpsActor): Promise<{ from: string; to: string } | null> {
  return db.tx(async (q) => {
    const { rows } = await q.query<{ connector: string; reference: string; status: string; merchant_id: number }>(
      `SELECT cr.connector, cr.reference, r.status, r.merchant_id FROM connector_refunds cr JOIN refunds r ON r.id = cr.refund_id
       WHERE cr.refund_id = $1 AND cr.state = 'stopped' FOR UPDATE OF cr`,
      [refundId],
    );
    const row = rows[0];
    if (!row || row.status !== 'PENDING') return null;
    const to = refundReference(row.connector);
    await q.query(
      `UPDATE connector_refunds SET reference = $2, state = 'new', stopped = NULL, leased_until = NULL, attempts = 0, last_error = NULL, next_check_at = now(), updated_at = now() WHERE refund_id = $1`,
      [refundId, to],
    );
    await recordAudit(q, { ops: actor, action: 'refund.resent', merchantId: row.merchant_id, subject: `refund:${refundId}`, detail: { connector: row.connector, from: row.reference, to } });
    return { from: row.reference, to };
  });
}
