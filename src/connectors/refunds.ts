// Refunds of deposits paid through a real connector (Pix: a devolução), sent and tracked here.
//
// The refund service writes the refund PENDING with its reservation and a connector_refunds row
// ('new') in its transaction; then (right after, and from the connectors worker until settled):
//   new       → 'sending' is written BEFORE the provider is asked, then the request (PUT); the row
//               stays this step's (its lease) until the request is over
//   sending   → a request may have reached the provider (crash, timeout): it is looked up (GET)
//               first, and sent only if the provider does not know it; the reference is random
//               and stored with the row before the first request, so it is the same one either
//               way: never sent twice
//   sent      → looked up until the provider settles it
//   stopped   what the provider holds under the reference is not this refund (another amount): never
//               adopted nor sent again; the operator sees it (caja_connector_orders_stopped, the
//               console's connectors page) and settles the refund
// A settled answer moves the refund through transitionRefund (COMPLETED posts the reservation,
// REJECTED voids it; event and notification as for every refund), and the row is 'done'.
import type { AppContext } from '../config/context.ts';
import { type OpsActor, recordAudit } from '../audit/audit.ts';
import { fromDb } from '../domain/money.ts';
import { RefundTransitionError, transitionRefund } from '../refunds/service.ts';
import { ConnectorError, type RefundOrder, type RefundOutcome } from './payin.ts';
import { connectorRefundReference } from './refund-reference.ts';
import { payinConnectorNamed } from './registry.ts';

/** Seconds before the next look-up of a refund still in progress, by look-ups so far. */
const BACKOFF_SECONDS = [1, 2, 5, 10, 30, 60];

interface Row {
  refund_id: number;
  connector: string;
  reference: string;
  payment_id: string;
  state: 'new' | 'sending' | 'sent' | 'done' | 'stopped';
  attempts: number;
  merchant_id: number;
  deposit_id: number;
  amount: string;
  currency: string;
  refund_status: string;
  connector_reference: string | null;
}

/** How long a step holds its row (next_check_at pushed that far): a look-up and a send, each within the timeout. */
const leaseUntil = (ctx: AppContext) => new Date(ctx.now().getTime() + 2 * ctx.config.connectors.timeoutMs + 5000);

/** Refunds due for a step, claimed (pushed later) so that one process works on each at a time. */
async function claim(ctx: AppContext, refundId: number | null, limit: number): Promise<Row[]> {
  const now = ctx.now();
  const lease = leaseUntil(ctx);
  const { rows } = await ctx.db.query<Row>(
    `WITH due AS (
       SELECT refund_id FROM connector_refunds
       WHERE state <> 'done' AND state <> 'stopped' AND next_check_at <= $1 AND ($3::integer IS NULL OR refund_id = $3)
       ORDER BY next_check_at LIMIT $4 FOR UPDATE SKIP LOCKED
     ), c AS (
       UPDATE connector_refunds cr SET next_check_at = $2 FROM due WHERE cr.refund_id = due.refund_id RETURNING cr.*
     )
     SELECT c.refund_id, c.connector, c.reference, c.payment_id, c.state, c.attempts, r.merchant_id, r.deposit_id,
            r.local_amount AS amount, r.local_currency AS currency, r.status AS refund_status, d.connector_reference
     FROM c JOIN refunds r ON r.id = c.refund_id JOIN deposits d ON d.id = r.deposit_id`,
    [now, lease, refundId, limit],
  );
  return rows;
}

/**
 * Writes the row's next state, due again after the backoff; `holdLease`: the state written right
 * before a request, due only once the lease is over (the row stays this step's through the whole
 * request: no other pass looks it up or sends it alongside).
 */
async function setState(ctx: AppContext, refundId: number, state: Row['state'], attempts: number, error: string | null, holdLease = false): Promise<void> {
  const wait = BACKOFF_SECONDS[Math.min(attempts, BACKOFF_SECONDS.length - 1)]!;
  await ctx.db.query(
    'UPDATE connector_refunds SET state = $2, attempts = $3, last_error = $4, next_check_at = $5, updated_at = $6 WHERE refund_id = $1',
    [refundId, state, attempts, error, holdLease ? leaseUntil(ctx) : new Date(ctx.now().getTime() + wait * 1000), ctx.now()],
  );
}

async function step(ctx: AppContext, row: Row): Promise<void> {
  if (row.refund_status !== 'PENDING') {
    // Settled another way (an operator): nothing more to ask the provider.
    await setState(ctx, row.refund_id, 'done', row.attempts, null);
    return;
  }
  const connector = await payinConnectorNamed(ctx, row.connector);
  if (!connector) {
    await setState(ctx, row.refund_id, row.state, row.attempts + 1, `connector ${row.connector} is not configured`);
    return;
  }
  const order: RefundOrder = {
    refundId: row.refund_id, depositId: row.deposit_id, chargeReference: row.connector_reference, paymentId: row.payment_id,
    amount: fromDb(row.amount), currency: row.currency, reference: row.reference,
  };
  let outcome: RefundOutcome | null = null;
  let state = row.state;
  try {
    if (state === 'sending' || state === 'sent') outcome = await connector.refundStatus(order);
    if (state === 'new' || (state === 'sending' && outcome === null)) {
      // Written before the request: should this process die with the request in flight, the
      // next step looks it up instead of sending it again.
      await setState(ctx, row.refund_id, 'sending', row.attempts + 1, null, true);
      state = 'sending';
      outcome = await connector.refund(order);
      state = 'sent';
    }
  } catch (err) {
    if (err instanceof ConnectorError && err.kind === 'refused' && state === 'sending') {
      // The provider answered the request itself with a refusal: no devolução exists.
      outcome = { status: 'REJECTED', reason: `The provider refused the refund: ${err.provider?.detail ?? err.provider?.title ?? err.message}`, reasonCode: 'PROVIDER_REFUSED' };
    } else {
      ctx.log.warn({ err, refundId: row.refund_id, connector: row.connector }, 'connector refund step failed; retried later');
      await setState(ctx, row.refund_id, state, row.attempts + 1, err instanceof Error ? err.message : String(err));
      return;
    }
  }
  if (outcome === null) {
    // Sent, yet the provider does not know it (yet): look again later.
    await setState(ctx, row.refund_id, state, row.attempts + 1, 'the provider does not know the refund yet');
    return;
  }
  if (outcome.mismatch) {
    // Not this refund (a reference a restored database gave again): neither completed nor
    // rejected by it, nor sent again. Raised to the operator.
    ctx.log.error({ refundId: row.refund_id, connector: row.connector, reference: row.reference, mismatch: outcome.mismatch }, 'refund found at the provider does not match: stopped');
    await setState(ctx, row.refund_id, 'stopped', row.attempts + 1, `what ${row.connector} holds under ${row.reference} is not this refund: ${outcome.mismatch}`);
    return;
  }
  if (outcome.status === 'PENDING') {
    await setState(ctx, row.refund_id, 'sent', row.attempts + 1, null);
    return;
  }
  try {
    await transitionRefund(ctx, row.merchant_id, row.refund_id, outcome.status, `${row.connector} ${outcome.status === 'COMPLETED' ? 'returned' : 'refused'}`, outcome.reason, outcome.reasonCode);
  } catch (err) {
    if (!(err instanceof RefundTransitionError)) throw err;
  }
  await setState(ctx, row.refund_id, 'done', row.attempts + 1, null);
}

/** Sends one new refund now (the refund service calls it after its commit; errors are logged). */
export async function kickConnectorRefund(ctx: AppContext, refundId: number): Promise<void> {
  try {
    for (const row of await claim(ctx, refundId, 1)) await step(ctx, row);
  } catch (err) {
    ctx.log.warn({ err, refundId }, 'connector refund: first step failed; the worker retries');
  }
}

/** One pass of the worker over refunds due for a step; answers how many it handled. */
export async function trackConnectorRefunds(ctx: AppContext, limit = 50): Promise<number> {
  const rows = await claim(ctx, null, limit);
  for (const row of rows) await step(ctx, row);
  return rows.length;
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
    const to = connectorRefundReference(row.connector);
    await q.query(
      `UPDATE connector_refunds SET reference = $2, state = 'new', attempts = 0, last_error = NULL, next_check_at = now(), updated_at = now() WHERE refund_id = $1`,
      [refundId, to],
    );
    await recordAudit(q, { ops: actor, action: 'refund.resent', merchantId: row.merchant_id, subject: `refund:${refundId}`, detail: { connector: row.connector, from: row.reference, to } });
    return { from: row.reference, to };
  });
}
