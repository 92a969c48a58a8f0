// Cashouts sent as orders through a payout connector the operator configured (STP for MX), and
// tracked until settled. docs/connectors.md, "The STP connector" (payouts).
//
//   hand-over  a PENDING cashout whose wait is over → DELIVERED (no longer cancellable: 510),
//              with its order's reference (random: src/domain/references.ts, never derived from
//              the cashout id, which a restored database gives again) stored, in one
//              transaction; holding, releasing and cancelling work as before until then
//   new        → 'sending' is written BEFORE the order is sent, then the request; the row's lease
//              is held through the whole request (a provider's hint waits for it)
//   sending    a request may have reached the provider (crash, timeout, unreadable answer): the
//              order is looked up by its reference first (on every operation day the provider
//              may have dated it), and sent only when the provider has none; the provider itself
//              refuses a second order with the same reference
//   stopped    an order found under the row's reference whose amount, account or beneficiary
//              is not the cashout's: never adopted, never sent again; the operator sees it
//              (caja_connector_orders_stopped, the console's connectors page) and settles it
//   sent       looked up when not heard of for CAJA_STP_ORDER_CHECK_SECONDS (or at once when the
//              provider posts a state change, a hint): paid → COMPLETED, refused or cancelled
//              → REJECTED (reservation voided), returned → REJECTED, late if it was COMPLETED
//              (money back to the merchant's available balance); a paid order is watched for a
//              return for RETURN_WATCH_DAYS, then the row is 'done'
// Every outcome goes through transitionCashoutIn (ledger, history, event, notification), whose
// state machine makes each apply once.
//
// Recovery: an order whose step failed (the provider not answering) waits its backoff; but as
// soon as the provider answers again, every order waiting on it is due at once. Each pass of the
// worker tries the first waiting order of each network early (a probe, at most once a second per
// process); when it, or any other step, gets an answer from the provider, the waiting orders of
// that network are made due and stepped in the same pass.
import { type SendOnceJobs, type SendSpec, type SendState, backoffSeconds as backoff, claim as claimJobs, recover, sendStep, wakeAfterPolls } from '../jobs/send-once.ts';
import type { AppContext } from '../config/context.ts';
import { type OpsActor, recordAudit } from '../audit/audit.ts';
import { type CashoutRow, CashoutError, transitionCashoutIn } from './service.ts';
import { payoutOrderOf } from './connector.ts';
import { ConnectorError } from '../connectors/payin.ts';
import type { OrderPayoutConnector, OrderSendResult, OrderState, PayoutOrder } from '../connectors/payout.ts';
import { connectorKind, orderPayoutConnectors } from '../connectors/registry.ts';

const BATCH = 50;
/** A paid order can still come back (SPEI returns): watched this long after payment. */
const RETURN_WATCH_DAYS = 7;

type State = 'new' | 'sending' | 'sent' | 'done' | 'stopped';

interface Row {
  cashout_id: number;
  connector: string;
  reference: string;
  state: State;
  attempts: number;
  created_at: Date;
  provider_id: string | null;
  operation_day: string | null;
}

/** PENDING cashouts of the connector's countries whose wait is over are handed to it; answers their ids. */
export async function handOverDueCashouts(ctx: AppContext, connector: OrderPayoutConnector): Promise<number[]> {
  return ctx.db.tx(async (q) => {
    const now = ctx.now();
    const { rows } = await q.query<CashoutRow>(
      `SELECT * FROM cashouts WHERE status = 'PENDING' AND pickup_at <= $1 AND country = ANY($2::text[])
       ORDER BY pickup_at LIMIT ${BATCH} FOR UPDATE SKIP LOCKED`,
      [now, connector.countries],
    );
    for (const c of rows) {
      const reference = connector.newReference();
      await transitionCashoutIn(q, ctx, c.id, 'deliver', { actor: 'bank', cause: `handed to ${connector.name} as order ${reference}`, bankReference: reference });
      await q.query(
        `INSERT INTO connector_payouts (cashout_id, connector, reference, state, next_check_at, created_at, updated_at) VALUES ($1, $2, $3, 'new', $4, $4, $4)`,
        [c.id, connector.name, reference, now],
      );
    }
    return rows.map((c) => c.id);
  });
}

/** The send-once jobs of payout orders (src/jobs/send-once.ts). */
const JOBS: SendOnceJobs = {
  work: 'payouts', table: 'connector_payouts', key: 'cashout_id',
  open: `state <> 'done' AND state <> 'stopped'`,
  waiting: `state IN ('new', 'sending') AND last_error IS NOT NULL`,
};

/**
 * Rows due for a step, leased so that one process works on each at a time. `probe` (a network's
 * name): instead, the first of its orders waiting after a failed step, before its backoff is over.
 */
const claim = (ctx: AppContext, cashoutId: number | null, limit: number, probe: string | null = null): Promise<Row[]> =>
  claimJobs<Row>(ctx, JOBS, { id: cashoutId, limit, probe });

type Heard = { providerId?: string; state?: string; day?: string };

/**
 * Writes the row's next state and releases the lease (the `sending` written right before a
 * request, with the lease kept, is the send-once primitive's own step).
 */
async function save(ctx: AppContext, row: Row, state: State, o: { attempts?: number; waitSeconds: number; error?: string | null; heard?: Heard }): Promise<void> {
  const now = ctx.now();
  await ctx.db.query(
    // A hint that came while this step ran (hinted) makes the next look-up due now.
    `UPDATE connector_payouts SET state = $2, attempts = $3,
       next_check_at = CASE WHEN hinted AND $2::text NOT IN ('done', 'stopped') THEN $6::timestamptz ELSE $4::timestamptz END,
       hinted = false, leased_until = NULL, last_error = $5, updated_at = $6,
       provider_id = COALESCE($7, provider_id), provider_state = COALESCE($8, provider_state), heard_at = CASE WHEN $9 THEN $6 ELSE heard_at END,
       operation_day = COALESCE($10, operation_day)
     WHERE cashout_id = $1`,
    [row.cashout_id, state, o.attempts ?? row.attempts, new Date(now.getTime() + o.waitSeconds * 1000), o.error ?? null, now,
      o.heard?.providerId ?? null, o.heard?.state ?? null, o.heard !== undefined, o.heard?.day ?? null],
  );
}

async function cashout(ctx: AppContext, id: number): Promise<CashoutRow> {
  const { rows } = await ctx.db.query<CashoutRow>('SELECT * FROM cashouts WHERE id = $1', [id]);
  return rows[0]!;
}

/** Applies a transition unless the cashout is already past it (a state heard twice applies once). */
async function apply(ctx: AppContext, id: number, trigger: 'complete' | 'reject', o: Parameters<typeof transitionCashoutIn>[4]): Promise<void> {
  try {
    await ctx.db.tx((q) => transitionCashoutIn(q, ctx, id, trigger, o));
  } catch (err) {
    if (!(err instanceof CashoutError && err.kind === 'invalid_transition')) throw err;
  }
}

/** What the provider's state of the order means for the cashout (matched: the primitive checked it is this cashout's). */
async function settle(ctx: AppContext, connector: OrderPayoutConnector, row: Row, c: CashoutRow, found: OrderState): Promise<void> {
  const checkSeconds = connector.checkSeconds;
  switch (found.kind) {
    case 'processing':
      await save(ctx, row, 'sent', { waitSeconds: checkSeconds, heard: found });
      return;
    case 'paid': {
      if (c.status === 'DELIVERED') {
        await apply(ctx, c.id, 'complete', { actor: 'bank', cause: `paid by ${connector.name} (${found.state})`, ...(connector.providerIdIsBankReference && found.providerId ? { bankReference: found.providerId } : {}) });
        ctx.metrics.payoutTimeToPaid.observe({ connector: connector.name }, Math.max(0, (ctx.now().getTime() - c.created_at.getTime()) / 1000));
      }
      const watchedUntil = (c.completed_at ?? ctx.now()).getTime() + RETURN_WATCH_DAYS * 24 * 3600_000;
      await save(ctx, row, ctx.now().getTime() > watchedUntil ? 'done' : 'sent', { waitSeconds: checkSeconds, heard: found });
      return;
    }
    case 'rejected':
    case 'returned': {
      // A return of a paid cashout is the contract's late rejection (809): money back to available.
      const late = c.status === 'COMPLETED';
      if (c.status === 'DELIVERED' || late) {
        await apply(ctx, c.id, 'reject', { actor: 'bank', cause: `${connector.name}: ${found.cause}`, rejection: late ? '809' : found.code });
      }
      await save(ctx, row, 'done', { waitSeconds: checkSeconds, heard: found });
      return;
    }
  }
}

/**
 * The amount of a network's other orders handed over since `since`, not rejected (a network's
 * daily limit, e.g. the PSP's for Pix sends): every row written 'sending' counts before its
 * request leaves, so two sends stepped at once each count the other, and together they never
 * pass the limit (at worst one waits).
 */
async function handedOverSince(ctx: AppContext, connector: string, except: number, since: Date): Promise<string> {
  const { rows } = await ctx.db.query<{ total: string | null }>(
    `SELECT sum(c.local_amount)::text AS total FROM connector_payouts cp JOIN cashouts c ON c.id = cp.cashout_id
     WHERE cp.connector = $1 AND cp.cashout_id <> $2 AND cp.state IN ('sending', 'sent', 'done') AND c.status IN ('DELIVERED', 'COMPLETED') AND c.delivered_at >= $3`,
    [connector, except, since],
  );
  return rows[0]?.total ?? '0';
}

/** What a payout step works with: its network, the cashout and the order sent for it. */
interface Step { connector: OrderPayoutConnector; cashout: CashoutRow; order: PayoutOrder }

/** A payout order as the send-once primitive runs it (src/jobs/send-once.ts). */
const payoutSend = (ctx: AppContext, connectorOf: (row: Row) => OrderPayoutConnector | undefined): SendSpec<Row, Step, OrderState, OrderSendResult> => ({
  jobs: JOBS,
  key: (row) => row.cashout_id,
  state: (row) => row.state as SendState,
  attempts: (row) => row.attempts,
  reference: (row) => row.reference,
  sendingWaitSeconds: (row) => backoff(row.attempts),
  async prepare(row) {
    const connector = connectorOf(row);
    if (!connector) {
      await save(ctx, row, row.state, { waitSeconds: 60, error: `connector ${row.connector} is not configured` });
      return null;
    }
    const c = await cashout(ctx, row.cashout_id);
    if (c.status !== 'DELIVERED' && c.status !== 'COMPLETED') {
      // Settled another way (an operator): nothing more to ask.
      await save(ctx, row, 'done', { waitSeconds: 0 });
      return null;
    }
    return { connector, cashout: c, order: payoutOrderOf(c) };
  },
  lookup: (row, s) => s.connector.lookup(s.order, row.reference, row.created_at, row.operation_day),
  // The connector compares what the provider shows (amount, account or key, beneficiary) with the order.
  matches: (_row, _s, found) => (found.mismatch ? { ok: false, reason: found.mismatch } : { ok: true }),
  send: (row, s, reference) => s.connector.send(s.order, reference, { handedOverSince: (since) => handedOverSince(ctx, row.connector, row.cashout_id, since) }),
  answered: (result) => result.kind !== 'retry',
  applyFound: (row, s, found) => settle(ctx, s.connector, row, s.cashout, found),
  async applySent(row, s, result) {
    const after = { ...row, attempts: row.attempts + 1 };
    switch (result.kind) {
      case 'accepted':
        await save(ctx, after, 'sent', { waitSeconds: s.connector.checkSeconds, heard: { providerId: result.providerId, state: 'registered' } });
        return;
      case 'exists':
        // The provider holds an order with this reference already (an earlier request arrived):
        // looked up at the next step (backing off, should its consultation lag behind).
        await save(ctx, after, 'sending', { waitSeconds: backoff(row.attempts + 1) });
        return;
      case 'rejected':
        await apply(ctx, s.cashout.id, 'reject', { actor: 'bank', cause: `refused by ${s.connector.name}: ${result.error}`, rejection: result.code });
        await save(ctx, after, 'done', { waitSeconds: 0, error: result.error });
        return;
      case 'retry':
        await save(ctx, after, 'sending', { waitSeconds: backoff(row.attempts + 1), error: result.error });
        return;
    }
  },
  // Accepted, yet not found (yet): asked again later, never sent again.
  notShown: (row, s) => save(ctx, row, 'sent', { waitSeconds: s.connector.checkSeconds, error: 'the provider does not show the order yet' }),
  // Not this cashout's order (a reference a restored database or another installation gave
  // again): neither completed nor rejected by it, nor sent again. Raised to the operator
  // (caja_connector_orders_stopped, the console's connectors page).
  stop: (row, s, reason, found) => save(ctx, row, 'stopped', {
    waitSeconds: 0, error: `the order found at ${s.connector.name} under ${row.reference} is not this cashout's: ${reason}`,
    heard: { providerId: found.providerId, state: found.state, day: found.day },
  }),
  async failed(row, _s, state, err) {
    if (err instanceof ConnectorError) ctx.log.warn({ err, cashoutId: row.cashout_id, connector: row.connector }, 'payout order step failed; looked up and retried later');
    else ctx.log.error({ err, cashoutId: row.cashout_id, connector: row.connector }, 'payout order step failed');
    await save(ctx, { ...row, attempts: row.attempts + 1 }, state, { waitSeconds: backoff(row.attempts + 1), error: err instanceof Error ? err.message : String(err) });
  },
});

async function connectorsByName(ctx: AppContext): Promise<Map<string, OrderPayoutConnector>> {
  return new Map((await orderPayoutConnectors(ctx)).map((c) => [c.name, c]));
}

/** Steps the rows; notes in `heard` each network stepped, true when it answered. */
async function stepRows(ctx: AppContext, rows: Row[], heardOf: Map<string, boolean> = new Map()): Promise<Map<string, boolean>> {
  if (rows.length === 0) return heardOf;
  const byName = await connectorsByName(ctx);
  const spec = payoutSend(ctx, (row) => byName.get(row.connector));
  for (const row of rows) {
    const heard = { answered: false };
    try {
      await sendStep(ctx, spec, row, heard);
    } catch (err) {
      ctx.log.error({ err, cashoutId: row.cashout_id }, 'payout order step failed');
      await save(ctx, row, row.state, { waitSeconds: backoff(row.attempts + 1), error: err instanceof Error ? err.message : String(err) }).catch(() => undefined);
    }
    if (byName.has(row.connector)) heardOf.set(row.connector, heardOf.get(row.connector) === true || heard.answered);
  }
  return heardOf;
}

/** Runs one cashout's step now, when no other process holds it (a hand-over, a provider's hint). */
export async function kickPayout(ctx: AppContext, cashoutId: number): Promise<void> {
  await stepRows(ctx, await claim(ctx, cashoutId, 1));
}

/**
 * A provider's state-change post named this order: a hint. The order is looked up at the
 * provider (never taken from the post) by the next step, which runs now unless another process
 * holds the row; that one's step then leaves the look-up due at once (hinted), for the worker's
 * next pass.
 */
export async function hintPayout(ctx: AppContext, connector: string, by: { reference?: string | null; providerId?: string | null }): Promise<boolean> {
  const { rows } = await ctx.db.query<{ cashout_id: number }>(
    `UPDATE connector_payouts SET next_check_at = $4, hinted = true WHERE connector = $1 AND state IN ('sending', 'sent', 'done')
       AND (reference = $2 OR provider_id = $3) RETURNING cashout_id`,
    [connector, by.reference ?? null, by.providerId ?? null, ctx.now()],
  );
  for (const r of rows) {
    // A 'done' row (a late return) is reopened by the hint only to be looked up.
    await ctx.db.query(`UPDATE connector_payouts SET state = 'sent' WHERE cashout_id = $1 AND state = 'done'`, [r.cashout_id]);
    await kickPayout(ctx, r.cashout_id);
  }
  return rows.length > 0;
}

/** One pass: hand over due cashouts of configured networks, then step the orders due. */
export async function runConnectorPayouts(ctx: AppContext): Promise<void> {
  const passStart = ctx.now();
  const connectors = await orderPayoutConnectors(ctx);
  // A provider that answered its reconciliation poll (deposits' poll worker) since an order's
  // step failed: that order is due now.
  await wakeAfterPolls(ctx, JOBS);
  // Each network stepped in this pass, and whether it answered.
  const heardOf = new Map<string, boolean>();
  for (const connector of connectors) {
    let handed: number[];
    do {
      handed = await handOverDueCashouts(ctx, connector);
      for (const id of handed) await stepRows(ctx, await claim(ctx, id, 1), heardOf);
    } while (handed.length === BATCH);
  }
  let rows: Row[];
  do {
    rows = await claim(ctx, null, BATCH);
    await stepRows(ctx, rows, heardOf);
  } while (rows.length === BATCH);
  // A network nothing was asked of in this pass, with orders waiting on it, is probed; whatever
  // waits on a network that answered goes now, in this pass.
  await recover<Row>(ctx, JOBS, { passStart, heardOf, candidates: connectors.map((c) => c.name), limit: BATCH, claim: (limit, probe) => claim(ctx, null, limit, probe), step: async (claimed, heard) => void (await stepRows(ctx, claimed, heard)) });
}

/** The countries whose cashouts a configured network pays (the staging bank leaves them alone). */
export async function countriesWithPayoutConnector(ctx: AppContext): Promise<string[]> {
  return (await orderPayoutConnectors(ctx)).flatMap((c) => [...c.countries]);
}

/** An order or refund stopped because what the provider holds under its reference is not the row's. */
export interface StoppedOrder {
  kind: 'cashout' | 'refund';
  id: number;
  connector: string;
  reference: string;
  problem: string | null;
  at: Date;
}

/**
 * Every stopped cashout order and refund, newest first (the console's connectors page): the
 * operator finds out at the provider what the reference names, then settles the row by hand
 * (cancel the cashout or the refund in the console, or pay it another way).
 */
export async function stoppedOrders(db: Pick<AppContext['db'], 'query'>, limit = 100): Promise<StoppedOrder[]> {
  const { rows } = await db.query<StoppedOrder>(
    `(SELECT 'cashout' AS kind, cashout_id AS id, connector, reference, last_error AS problem, updated_at AS at FROM connector_payouts WHERE state = 'stopped')
     UNION ALL
     (SELECT 'refund' AS kind, refund_id AS id, connector, reference, last_error AS problem, updated_at AS at FROM connector_refunds WHERE state = 'stopped')
     ORDER BY at DESC LIMIT $1`,
    [limit],
  );
  return rows;
}

/**
 * The operator checked at the provider that a stopped cashout's order was never sent (what its
 * reference names is another order): the cashout's order goes out again under a new random
 * reference, as a new row ('new', looked up and sent by the next step). Answers the old and new
 * references, or null when the cashout has no stopped order (or is no longer DELIVERED). Audited.
 */
export async function resendStoppedPayout(db: AppContext['db'], cashoutId: number, actor: OpsActor): Promise<{ from: string; to: string } | null> {
  return db.tx(async (q) => {
    const { rows } = await q.query<{ connector: string; reference: string; status: string; merchant_id: number }>(
      `SELECT cp.connector, cp.reference, c.status, c.merchant_id FROM connector_payouts cp JOIN cashouts c ON c.id = cp.cashout_id
       WHERE cp.cashout_id = $1 AND cp.state = 'stopped' FOR UPDATE OF cp`,
      [cashoutId],
    );
    const row = rows[0];
    // A fresh reference from the order network's kind (STP: a random claveRastreo).
    const fresh = row && connectorKind(row.connector)?.newPayoutReference;
    if (!row || row.status !== 'DELIVERED' || !fresh) return null;
    const to = fresh();
    await q.query(
      `UPDATE connector_payouts SET reference = $2, state = 'new', attempts = 0, provider_id = NULL, provider_state = NULL, operation_day = NULL,
         heard_at = NULL, hinted = false, leased_until = NULL, last_error = NULL, next_check_at = now(), updated_at = now(),
         -- The new order's hand-over: its look-ups search the operation days from now on.
         created_at = now()
       WHERE cashout_id = $1`,
      [cashoutId, to],
    );
    await recordAudit(q, { ops: actor, action: 'cashout.order_resent', merchantId: row.merchant_id, subject: `cashout:${cashoutId}`, detail: { connector: row.connector, from: row.reference, to } });
    return { from: row.reference, to };
  });
}
