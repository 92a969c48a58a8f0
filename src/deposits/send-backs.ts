// Payments the payer rule refused, sent back in full through their connector (Pix: a devolução of
// the whole Pix; STP: an order of the full amount to the ordering CLABE), as a send-once job
// (src/jobs/send-once.ts). docs/connectors.md, "The payer rule".
//
// applyPayment (./payments.ts) writes the job in the refusal's transaction: a connector_send_backs
// row ('new') under the reference stored with the payment (connector_payments.return_reference);
// a refused payment the callback's answer already refused (STP's devolver: returnsByAnswer) is the
// provider's to send back and gets none. Then, right after the commit (kickSendBack) and from the
// payments worker until settled (runSendBacks), one process at a time (the row's lease):
//   new       → 'sending' is written BEFORE the provider is asked, then the request
//   sending   → a request may have reached the provider (crash, timeout, lost answer): looked up
//               by the stored reference first (the connector's lookupReturn: Pix GET devolução by
//               its id, STP consOrdEnvRastreo by its claveRastreo), sent only if it has none
//   sent      → looked up until the provider settles it (every SENT_CHECK_SECONDS)
//   done      the money left (connector_payments.returned_at is set as soon as the provider shows it)
//   stopped   what the provider holds under the reference is not this send-back (amount,
//             account), or the provider refused or did not make it: never adopted nor sent again;
//             the operator looks (error log, caja_connector_orders_stopped with kind send_back)
// A step that failed (the provider not answering) waits its backoff; a provider that answers its
// reconciliation poll makes its waiting send-backs due at once.
import type { AppContext } from '../config/context.ts';
import type { Queryable } from '../db/db.ts';
import { type SendOnceJobs, type SendSpec, type SendState, backoffSeconds, claim as claimJobs, sendStep, wakeAfterPolls } from '../jobs/send-once.ts';
import { fromDb } from '../domain/money.ts';
import { PAYER_MISMATCH_REASON } from '../domain/payer-rule.ts';
import { ConnectorError, type PayinConnector, type ProviderPayment, type SendBackShown } from '../connectors/payin.ts';
import { payinConnectorNamed } from '../connectors/registry.ts';

const BATCH = 50;
/** How often a send-back the provider shows under way is looked up again. */
const SENT_CHECK_SECONDS = 60;

type State = SendState | 'done' | 'stopped';

interface Row {
  id: number;
  connector: string;
  payment_id: string;
  reference: string;
  state: State;
  attempts: number;
  charge_reference: string | null;
  amount: string;
  currency: string;
  receiver: string | null;
  paid_at: Date;
  payer_document: string | null;
  raw: unknown;
}

/** The send-once jobs of send-backs (src/jobs/send-once.ts). */
const JOBS: SendOnceJobs = {
  work: 'send-backs', table: 'connector_send_backs', key: 'id',
  open: `state <> 'done' AND state <> 'stopped'`,
  waiting: 'last_error IS NOT NULL',
};

/**
 * The send-back of a payment just refused, written in the refusal's transaction under the
 * reference stored with the payment; none when the connector sends nothing back, or the
 * provider sends it back itself (a refusal answered to its callback: returnsByAnswer).
 */
export async function recordSendBack(q: Queryable, connector: PayinConnector, paymentId: string, reference: string, via: string): Promise<boolean> {
  if (!connector.returnPayment || !connector.lookupReturn) return false;
  if (connector.returnsByAnswer === true && via === 'webhook') return false;
  const { rowCount } = await q.query(
    'INSERT INTO connector_send_backs (connector, payment_id, reference) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING',
    [connector.name, paymentId, reference],
  );
  return (rowCount ?? 0) > 0;
}

/** Rows due for a step (or `id`, that row only), claimed (leased) so that one process steps each at a time. */
async function claim(ctx: AppContext, id: number | null, limit: number): Promise<Row[]> {
  const claimed = await claimJobs<{ id: number }>(ctx, JOBS, { id, limit });
  if (claimed.length === 0) return [];
  const { rows } = await ctx.db.query<Row>(
    `SELECT s.id, s.connector, s.payment_id, s.reference, s.state, s.attempts, p.charge_reference, p.amount::text AS amount, p.currency, p.receiver,
            p.paid_at, p.payer_document, p.raw
     FROM connector_send_backs s JOIN connector_payments p ON p.connector = s.connector AND p.payment_id = s.payment_id
     WHERE s.id = ANY($1::integer[]) ORDER BY s.next_check_at`,
    [claimed.map((c) => c.id)],
  );
  return rows;
}

/** The payment as its connector read it (what it sends back and looks up). */
function paymentOf(row: Row): ProviderPayment {
  return {
    id: row.payment_id, chargeReference: row.charge_reference, amount: fromDb(row.amount), currency: row.currency, receiver: row.receiver,
    paidAt: row.paid_at, payerDocument: row.payer_document, ...(row.raw === null ? {} : { raw: row.raw }),
  };
}

/** Writes the row's next state and releases the lease; a send-back the provider shows marks its payment returned. */
async function save(ctx: AppContext, row: Row, state: State, o: { waitSeconds: number; attempts?: number; error?: string | null; shown?: SendBackShown }): Promise<void> {
  const now = ctx.now();
  await ctx.db.tx(async (q) => {
    await q.query(
      `UPDATE connector_send_backs SET state = $2, attempts = $3, next_check_at = $4, leased_until = NULL, last_error = $5, updated_at = $6,
         stopped = CASE WHEN $2 = 'stopped' THEN $5 ELSE stopped END,
         provider_id = COALESCE($7, provider_id), provider_state = COALESCE($8, provider_state)
       WHERE id = $1`,
      [row.id, state, o.attempts ?? row.attempts, new Date(now.getTime() + o.waitSeconds * 1000), o.error ?? null, now, o.shown?.providerId ?? null, o.shown?.providerState ?? null],
    );
    if (state === 'sent' || state === 'done') {
      await q.query('UPDATE connector_payments SET returned_at = $3 WHERE connector = $1 AND payment_id = $2 AND returned_at IS NULL', [row.connector, row.payment_id, now]);
    }
  });
}

/** What the provider shows of the send-back (matched: the primitive checked it is this one), applied once. */
async function settle(ctx: AppContext, row: Row, shown: SendBackShown): Promise<void> {
  const attempts = row.attempts + 1;
  switch (shown.state) {
    case 'pending':
      await save(ctx, row, 'sent', { waitSeconds: SENT_CHECK_SECONDS, attempts, shown });
      return;
    case 'done':
      if (row.state !== 'done') ctx.log.info({ connector: row.connector, payment: row.payment_id, reference: row.reference }, 'payment from another payer sent back (payer_must_match)');
      await save(ctx, row, 'done', { waitSeconds: 0, attempts, shown });
      return;
    case 'failed': {
      const error = `the provider did not make the send-back: ${shown.reason ?? shown.providerState ?? 'failed'}`;
      ctx.log.error({ connector: row.connector, payment: row.payment_id, reference: row.reference, reason: error }, 'sending back a refused payment failed at the provider: stopped for the operator');
      await save(ctx, row, 'stopped', { waitSeconds: 0, attempts, error, shown });
    }
  }
}

/** What a step works with: the connector and the payment it sends back. */
interface Step { connector: PayinConnector; payment: ProviderPayment }

/** A send-back as the send-once primitive runs it (src/jobs/send-once.ts). */
const sendBackSpec = (ctx: AppContext): SendSpec<Row, Step, SendBackShown, SendBackShown | null> => ({
  jobs: JOBS,
  key: (row) => row.id,
  state: (row) => row.state as SendState,
  attempts: (row) => row.attempts,
  reference: (row) => row.reference,
  sendingWaitSeconds: (row) => backoffSeconds(row.attempts + 1),
  async prepare(row) {
    const connector = await payinConnectorNamed(ctx, row.connector);
    if (!connector?.returnPayment || !connector.lookupReturn) {
      await save(ctx, row, row.state, { waitSeconds: 60, attempts: row.attempts + 1, error: `connector ${row.connector} is not configured to send payments back` });
      return null;
    }
    return { connector, payment: paymentOf(row) };
  },
  lookup: (row, s) => s.connector.lookupReturn!(s.payment, row.reference),
  // The connector compares what the provider holds under the reference (amount, account) with the payment.
  matches: (_row, _s, shown) => (shown.mismatch ? { ok: false, reason: shown.mismatch } : { ok: true }),
  send: (_row, s, reference) => s.connector.returnPayment!(s.payment, reference, PAYER_MISMATCH_REASON),
  shownBy: (result) => result,
  errorAnswered: (err) => err instanceof ConnectorError && err.kind !== 'unavailable',
  applyFound: (row, _s, found) => settle(ctx, row, found),
  async applySent(row, _s, result) {
    // The provider holds the reference already (an earlier request arrived): looked up next.
    if (result === null) await save(ctx, row, 'sending', { waitSeconds: backoffSeconds(row.attempts + 1), attempts: row.attempts + 1, error: 'the provider holds this reference already: looked up next' });
    else await settle(ctx, row, result);
  },
  // Sent, yet the provider does not show it (yet): looked up again later, never sent again.
  notShown: (row) => save(ctx, row, 'sent', { waitSeconds: SENT_CHECK_SECONDS, attempts: row.attempts + 1, error: 'the provider does not show the send-back yet' }),
  stop: (row, _s, reason, shown) => save(ctx, row, 'stopped', { waitSeconds: 0, error: `what the provider holds under ${row.reference} is not this send-back: ${reason}`, shown }),
  async failed(row, _s, state, err, sending) {
    const message = err instanceof Error ? err.message : String(err);
    if (err instanceof ConnectorError && err.kind === 'refused' && sending) {
      // The provider refused the request itself (or the payment names nowhere to send it): nothing was made.
      ctx.log.error({ err, connector: row.connector, payment: row.payment_id }, 'sending back a refused payment was refused: stopped for the operator');
      await save(ctx, row, 'stopped', { waitSeconds: 0, attempts: row.attempts + 1, error: `refused: ${message}` });
      return;
    }
    ctx.log.warn({ err, connector: row.connector, payment: row.payment_id }, 'sending back a refused payment failed; retried later');
    await save(ctx, row, state, { waitSeconds: backoffSeconds(row.attempts + 1), attempts: row.attempts + 1, error: message });
  },
});

async function stepRows(ctx: AppContext, rows: Row[]): Promise<void> {
  const spec = sendBackSpec(ctx);
  for (const row of rows) {
    try {
      await sendStep(ctx, spec, row);
    } catch (err) {
      ctx.log.error({ err, connector: row.connector, payment: row.payment_id }, 'send-back step failed');
      await save(ctx, row, row.state, { waitSeconds: backoffSeconds(row.attempts + 1), attempts: row.attempts + 1, error: err instanceof Error ? err.message : String(err) }).catch(() => undefined);
    }
  }
}

/** Steps one payment's send-back now, unless another process holds it (right after its refusal commits). */
export async function kickSendBack(ctx: AppContext, connector: string, paymentId: string): Promise<void> {
  try {
    const { rows } = await ctx.db.query<{ id: number }>('SELECT id FROM connector_send_backs WHERE connector = $1 AND payment_id = $2', [connector, paymentId]);
    if (rows[0]) await stepRows(ctx, await claim(ctx, rows[0].id, 1));
  } catch (err) {
    ctx.log.warn({ err, connector, payment: paymentId }, 'send-back: first step failed; the payments worker retries');
  }
}

/**
 * One pass of the payments worker over the send-backs due (those waiting on a provider that
 * answered its reconciliation poll since their step failed are due at once); answers how many.
 */
export async function runSendBacks(ctx: AppContext, limit = BATCH): Promise<number> {
  await wakeAfterPolls(ctx, JOBS);
  let total = 0;
  let rows: Row[];
  do {
    rows = await claim(ctx, null, limit);
    await stepRows(ctx, rows);
    total += rows.length;
  } while (rows.length === limit);
  return total;
}
