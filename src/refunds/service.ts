// Refunds of completed deposits, shared by the v3 and streamline faces.
//
// createRefund locks the deposit row (FOR UPDATE) and sums its PENDING and COMPLETED refunds in
// the same transaction, so racing requests can never refund more than the deposit. The refund's
// share of what the deposit credited is reserved from the merchant's available balance in that
// transaction too (InsufficientFunds refuses it). A refund a provider makes (the card network, a
// Pix devolução, an STP order back to the paying account) is written with its reference in that
// transaction and sent after the commit, never inside it (src/refunds/provider-refunds.ts: send once,
// look up before any resend); in production a refund no provider can make is refused there.
// Others (staging's bank refunds) stay PENDING until the sandbox answers, through transitionRefund, which
// posts the reservation (COMPLETED) or voids it (REJECTED, CANCELLED) and writes the event and
// the notification in the same transaction.
//
// An idempotency key (X-Idempotency-Key) is claimed in the creating transaction: the same key
// and body replay the first refund; another body is refused.
import { type LockedDeposit, lockDeposit } from '../deposits/lookups.ts';
import type { AppContext } from '../config/context.ts';
import { type Audit, recordAudit } from '../audit/audit.ts';
import type { Queryable } from '../db/db.ts';
import { type Decimal, fromDb, isPositive, toDb, toFixed } from '../domain/money.ts';
import { holdsAmount, REFUND_STATUSES, refundAccountErrors, refundAmounts, type RefundFieldError } from '../domain/refund-rules.ts';
import { refundDebit } from '../domain/settlement.ts';
import { depositCreditOf } from '../balances/service.ts';
import { InsufficientFunds, reserve } from '../ledger/ledger.ts';
import { recordEvent } from '../notifications/outbox.ts';
import { cardRefundConnector } from '../connectors/registry.ts';
import { CARD_NETWORK, refundDestination, refundReference, refundsThroughConnector } from '../connectors/refund-routes.ts';
import { kickConnectorRefund } from './provider-refunds.ts';
import { getRefund, type RefundBankAccount, type RefundRow } from './transitions.ts';

export { getRefund, type RefundBankAccount, type RefundRow, RefundTransitionError, transitionRefund } from './transitions.ts';

const HOLDING_STATUSES = REFUND_STATUSES.filter(holdsAmount);

export type RefundFailure = 'not_found' | 'not_completed' | 'amount' | 'bank_account' | 'missing_bank_account' | 'insufficient_funds' | 'idempotency_key_used' | 'no_card_connector' | 'no_refund_route';

export class RefundError extends Error {
  constructor(
    readonly kind: RefundFailure,
    message: string,
    /** kind 'bank_account': each part of the account that does not fit the deposit's country. */
    readonly fields: RefundFieldError[] = [],
  ) {
    super(message);
  }
}

export interface RefundInput {
  source: 'v3' | 'streamline';
  depositId?: number;
  invoiceId?: string;
  amount?: Decimal;
  /** The amount is in the deposit's local currency (streamline's default) rather than its own. */
  amountInLocal: boolean;
  requestedAmount?: string;
  requestedCurrency?: string;
  bankAccount?: RefundBankAccount;
  comments?: string;
  notificationUrl?: string;
  /** X-Idempotency-Key and the SHA-256 of the body it came with. */
  idempotency?: { key: string; fingerprint: string };
}

export function isCardPaymentType(paymentType: string | null): boolean {
  return paymentType === 'CREDIT_CARD' || paymentType === 'DEBIT_CARD';
}

class Replay {
  constructor(readonly refundId: number) {}
}

export interface CreateRefundResult {
  refund: RefundRow;
  /** True when an idempotency key matched an earlier request: `refund` is that one's. */
  replayed: boolean;
}

/** Claims the key, or throws Replay (same body) or RefundError (another body). */
async function claimKey(q: Queryable, merchantId: number, idem: { key: string; fingerprint: string }): Promise<void> {
  const claimed = await q.query(
    `INSERT INTO idempotency_keys (merchant_id, scope, key, fingerprint) VALUES ($1, 'refunds', $2, $3) ON CONFLICT DO NOTHING RETURNING key`,
    [merchantId, idem.key, idem.fingerprint],
  );
  if (claimed.rows.length) return;
  // Another request holds or held the key; ON CONFLICT waited for it to commit.
  const { rows } = await q.query<{ fingerprint: string; refund_id: number | null }>(
    `SELECT fingerprint, refund_id FROM idempotency_keys WHERE merchant_id = $1 AND scope = 'refunds' AND key = $2`,
    [merchantId, idem.key],
  );
  const prior = rows[0];
  if (!prior || prior.fingerprint !== idem.fingerprint || prior.refund_id === null) {
    throw new RefundError('idempotency_key_used', 'The idempotency key was already used with a different request');
  }
  throw new Replay(prior.refund_id);
}

/** Creates a refund; `audit` (a panel user's action) is written in the refund's transaction. */
export async function createRefund(ctx: AppContext, merchantId: number, input: RefundInput, audit?: Audit<RefundRow>): Promise<CreateRefundResult> {
  let id: number;
  let viaConnector = false;
  let card = false;
  try {
    id = await ctx.db.tx(async (q) => {
      // The deposit is locked first: the bank account is checked against its country before the
      // key is claimed (an account that does not fit is a field error, whatever the key).
      const deposit = await lockDeposit(q, merchantId, input.depositId, input.invoiceId);
      if (deposit && input.bankAccount) {
        const fields = refundAccountErrors(deposit.country, isCardPaymentType(deposit.payment_type), input.bankAccount);
        if (fields.length) throw new RefundError('bank_account', fields.map((f) => `bank_account.${f.field}: ${f.reason}`).join('; '), fields);
      }
      if (input.idempotency) await claimKey(q, merchantId, input.idempotency);
      const inserted = await insertRefund(ctx, q, merchantId, deposit, input);
      const refundId = inserted.refundId;
      viaConnector = inserted.viaConnector;
      card = inserted.card;
      if (input.idempotency) {
        await q.query(`UPDATE idempotency_keys SET refund_id = $3 WHERE merchant_id = $1 AND scope = 'refunds' AND key = $2`, [merchantId, input.idempotency.key, refundId]);
      }
      if (audit) await recordAudit(q, audit, (await getRefund(q, merchantId, refundId))!);
      return refundId;
    });
  } catch (err) {
    if (err instanceof Replay) return { refund: (await getRefund(ctx.db, merchantId, err.refundId))!, replayed: true };
    if (err instanceof InsufficientFunds) {
      throw new RefundError('insufficient_funds', 'The available balance does not cover this refund');
    }
    throw err;
  }
  // A refund through a connector is sent once committed, without making the merchant wait for
  // the provider (the refunds worker takes over if this fails or the process stops).
  // A card refund's first answer is awaited: it is the response (SUCCESS or REJECTED; IN_PROGRESS
  // when the network answers later or could not be reached).
  if (card) await kickConnectorRefund(ctx, id, true);
  else if (viaConnector) void kickConnectorRefund(ctx, id);
  return { refund: (await getRefund(ctx.db, merchantId, id))!, replayed: false };
}

async function insertRefund(
  ctx: AppContext,
  q: Queryable,
  merchantId: number,
  deposit: LockedDeposit | null,
  input: RefundInput,
): Promise<{ refundId: number; viaConnector: boolean; card: boolean }> {
  if (!deposit) throw new RefundError('not_found', 'Deposit not found');
  if (deposit.status !== 'COMPLETED') throw new RefundError('not_completed', `Only completed deposits can be refunded; this one is ${deposit.status}`);
  const card = isCardPaymentType(deposit.payment_type);
  // A deposit paid through a real connector is refunded through it (Pix: a devolução, which
  // returns the money to the paying account): the bank account is neither needed nor used.
  const paidVia = deposit.connector !== null && refundsThroughConnector(deposit.connector) ? await connectorPayment(q, deposit.id, deposit.connector) : null;
  // Where the provider sends it (STP: the account the abono came from), decided before anything
  // is reserved: a payment that names no account it can send to is refused.
  const destination = paidVia ? refundDestination(paidVia.connector, paidVia.raw) : null;
  if (destination && !destination.ok) throw new RefundError('no_refund_route', `No provider can refund this deposit: ${destination.reason}`);
  if (!card && !paidVia && !ctx.config.simulated) {
    // Nothing in caja could ever send it (a deposit collected into the operator's own account, or
    // without a connector's payment): refused rather than left PENDING with the money reserved.
    throw new RefundError('no_refund_route', `No provider can refund this deposit: its method (${deposit.country} ${deposit.payment_method ?? 'unknown'}) is collected${deposit.connector ? ` through ${deposit.connector}` : ''} without a provider that sends refunds`);
  }
  if (!card && !paidVia && !input.bankAccount) throw new RefundError('missing_bank_account', 'bank_account is required to refund this deposit');
  if (card && !paidVia && !cardRefundConnector(ctx.config)) throw new RefundError('no_card_connector', 'Card refunds are not available: no card connector is configured for this environment');
  const held = (
    await q.query<{ amount: string; local_amount: string; settlement_amount: string; settlement_fee: string }>(
      `SELECT coalesce(sum(amount), 0) AS amount, coalesce(sum(local_amount), 0) AS local_amount,
              coalesce(sum(settlement_amount), 0) AS settlement_amount, coalesce(sum(settlement_fee), 0) AS settlement_fee
       FROM refunds WHERE deposit_id = $1 AND status = ANY($2)`,
      [deposit.id, HOLDING_STATUSES],
    )
  ).rows[0];
  const amounts = refundAmounts(
    { amount: fromDb(deposit.amount), localAmount: fromDb(deposit.local_amount), heldAmount: fromDb(held.amount), heldLocal: fromDb(held.local_amount) },
    input.amount,
    input.amountInLocal,
  );
  if (!amounts.ok) throw new RefundError('amount', amounts.reason);
  // A refund undoes its share of what the deposit credited: the net leaves the merchant's
  // available balance (reserved now, posted on completion) and the fee share is given back from
  // the merchant's fees. Test and crypto deposits credited nothing and take nothing.
  const credit = await depositCreditOf(q, deposit.id);
  const share = (total: Decimal, before: string) => refundDebit(amounts.amount, fromDb(deposit.amount), total, fromDb(held.amount), fromDb(before));
  const debit = credit ? { net: share(credit.net, held.settlement_amount), fee: share(credit.fees, held.settlement_fee) } : null;
  const { rows } = await q.query<{ id: number }>(
    `INSERT INTO refunds (merchant_id, deposit_id, source, status, amount, currency, local_amount, local_currency,
       requested_amount, requested_currency, card, bank_account, comments, notification_url, settlement_amount, settlement_fee, settlement_currency)
     VALUES ($1, $2, $3, 'PENDING', $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16) RETURNING id`,
    [
      merchantId, deposit.id, input.source, toDb(amounts.amount), deposit.currency, toDb(amounts.localAmount), deposit.local_currency,
      input.requestedAmount ?? null, input.requestedCurrency ?? null, card,
      input.bankAccount ? JSON.stringify(input.bankAccount) : null, input.comments ?? null, input.notificationUrl ?? null,
      debit ? toDb(debit.net) : null, debit ? toDb(debit.fee) : null, credit?.currency ?? null,
    ],
  );
  const refundId = rows[0].id;
  if (debit && credit && (isPositive(debit.net) || isPositive(debit.fee))) {
    await reserve(q, { merchantId, currency: credit.currency, amount: debit.net, kind: 'refund.reserve', subjectType: 'refund', subjectId: refundId });
  }
  await q.query(`INSERT INTO refund_status_changes (refund_id, from_status, to_status, cause) VALUES ($1, NULL, 'PENDING', 'created')`, [refundId]);
  await recordEvent(q, {
    merchantId,
    type: 'refund.created',
    subjectType: 'refund',
    subjectId: refundId,
    data: { refund_id: refundId, deposit_id: deposit.id, status: 'PENDING', amount: toFixed(amounts.amount, 2), currency: deposit.currency },
  });
  // The provider's reference (and destination) are stored with the refund before it is sent.
  const via = paidVia ?? (card ? { connector: CARD_NETWORK, paymentId: String(deposit.id) } : null);
  if (via) {
    await q.query(
      `INSERT INTO connector_refunds (refund_id, connector, reference, payment_id, state, destination) VALUES ($1, $2, $3, $4, 'new', $5)`,
      [refundId, via.connector, refundReference(via.connector), via.paymentId, destination?.ok && destination.destination ? JSON.stringify(destination.destination) : null],
    );
  }
  return { refundId, viaConnector: via !== null, card };
}

/** The provider payment that completed a deposit, when a real connector's provider paid it. */
async function connectorPayment(q: Queryable, depositId: number, connector: string): Promise<{ connector: string; paymentId: string; raw: unknown } | null> {
  const { rows } = await q.query<{ payment_id: string; raw: unknown }>(
    // The payment that completed it; else (an operator completed it as a late payment: POST
    // /admin/deposits/{id}/complete) the payment recorded as unmatched for it.
    `SELECT payment_id, raw FROM connector_payments WHERE deposit_id = $1 AND connector = $2 ORDER BY status = 'applied' DESC, created_at LIMIT 1`,
    [depositId, connector],
  );
  return rows[0] ? { connector, paymentId: rows[0].payment_id, raw: rows[0].raw } : null;
}
