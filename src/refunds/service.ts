// Refunds of completed deposits, shared by the v3 and streamline faces.
//
// createRefund locks the deposit row (FOR UPDATE) and sums its PENDING and COMPLETED refunds in
// the same transaction, so racing requests can never refund more than the deposit. The refund's
// share of what the deposit credited is reserved from the merchant's available balance in that
// transaction too (InsufficientFunds refuses it). A refund a provider makes (the card network, a
// Pix devolução, an STP order back to the paying account) is written with its reference in that
// transaction and sent after the commit, never inside it (src/connectors/refunds.ts: send once,
// look up before any resend); in production a refund no provider can make is refused there.
// Others (staging's bank refunds) stay PENDING until the sandbox answers, through transitionRefund, which
// posts the reservation (COMPLETED) or voids it (REJECTED, CANCELLED) and writes the event and
// the notification in the same transaction.
//
// An idempotency key (X-Idempotency-Key) is claimed in the creating transaction: the same key
// and body replay the first refund; another body is refused.
import type { AppContext } from '../config/context.ts';
import { type Audit, type AuditEntry, recordAudit } from '../audit/audit.ts';
import type { Queryable } from '../db/db.ts';
import { type Decimal, fromDb, isPositive, neg, toDb, toFixed } from '../domain/money.ts';
import { canTransition, holdsAmount, REFUND_STATUSES, refundAccountErrors, refundAmounts, type RefundFieldError, type RefundStatus } from '../domain/refund-rules.ts';
import { refundDebit } from '../domain/settlement.ts';
import { depositCreditOf } from '../balances/service.ts';
import { cajaAccount, findReservation, InsufficientFunds, merchantAccount, post, reserve, transfer, voidReservation } from '../ledger/ledger.ts';
import { recordEvent } from '../notifications/outbox.ts';
import { cardRefundConnector } from './card-connector.ts';
import { CARD_NETWORK, refundDestination, refundReference, refundsThroughConnector } from '../connectors/refund-routes.ts';
import { kickConnectorRefund } from './provider-refunds.ts';

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

export interface RefundBankAccount {
  beneficiary?: string;
  document?: string;
  document_type?: string;
  bank_code?: string;
  bank_name?: string;
  branch?: string;
  account_number?: string;
  account_type?: string;
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

export interface RefundRow {
  id: number;
  merchant_id: number;
  deposit_id: number;
  source: 'v3' | 'streamline';
  status: RefundStatus;
  amount: string;
  currency: string;
  local_amount: string;
  local_currency: string;
  requested_amount: string | null;
  requested_currency: string | null;
  card: boolean;
  bank_account: RefundBankAccount | null;
  comments: string | null;
  notification_url: string | null;
  reason: string | null;
  reason_code: string | null;
  settlement_amount: string | null;
  settlement_fee: string | null;
  settlement_currency: string | null;
  created_at: Date;
  updated_at: Date;
  completed_at: Date | null;
  // Joined from the deposit.
  invoice_id: string;
  country: string;
  payment_method: string | null;
  payment_type: string | null;
  deposit_test: boolean;
}

const SELECT = `SELECT r.*, d.invoice_id, d.country, d.payment_method, d.payment_type, d.test AS deposit_test
  FROM refunds r JOIN deposits d ON d.id = r.deposit_id`;

interface LockedDeposit {
  id: number;
  status: string;
  amount: string;
  currency: string;
  local_amount: string;
  local_currency: string;
  country: string;
  payment_method: string | null;
  payment_type: string | null;
  connector: string | null;
}

/** The merchant's deposit by id and/or invoice (both must agree when both are given), locked. */
async function lockDeposit(q: Queryable, merchantId: number, depositId?: number, invoiceId?: string): Promise<LockedDeposit | null> {
  if (depositId === undefined && invoiceId === undefined) return null;
  const conditions = ['merchant_id = $1'];
  const params: unknown[] = [merchantId];
  if (depositId !== undefined) {
    params.push(depositId);
    conditions.push(`id = $${params.length}`);
  }
  if (invoiceId !== undefined) {
    params.push(invoiceId);
    conditions.push(`invoice_id = $${params.length}`);
  }
  const { rows } = await q.query<LockedDeposit>(
    `SELECT id, status, amount, currency, local_amount, local_currency, country, payment_method, payment_type, connector FROM deposits WHERE ${conditions.join(' AND ')} FOR UPDATE`,
    params,
  );
  return rows[0] ?? null;
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
  // the provider (the connectors worker takes over if this fails or the process stops).
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
  const paidVia = !card && deposit.connector !== null && refundsThroughConnector(deposit.connector) ? await connectorPayment(q, deposit.id, deposit.connector) : null;
  // Where the provider sends it (STP: the account the abono came from), decided before anything
  // is reserved: a payment that names no account it can send to is refused.
  const destination = paidVia ? refundDestination(paidVia.connector, paidVia.raw) : null;
  if (destination && !destination.ok) throw new RefundError('no_refund_route', `No provider can refund this deposit: ${destination.reason}`);
  if (!card && !paidVia && ctx.config.env === 'production') {
    // Nothing in caja could ever send it (a deposit collected into the operator's own account, or
    // without a connector's payment): refused rather than left PENDING with the money reserved.
    throw new RefundError('no_refund_route', `No provider can refund this deposit: its method (${deposit.country} ${deposit.payment_method ?? 'unknown'}) is collected${deposit.connector ? ` through ${deposit.connector}` : ''} without a provider that sends refunds`);
  }
  if (!card && !paidVia && !input.bankAccount) throw new RefundError('missing_bank_account', 'bank_account is required to refund this deposit');
  if (card && !cardRefundConnector(ctx.config)) throw new RefundError('no_card_connector', 'Card refunds are not available: no card connector is configured for this environment');
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

export async function getRefund(q: Queryable, merchantId: number | null, refundId: number): Promise<RefundRow | null> {
  const { rows } = await q.query<RefundRow>(
    `${SELECT} WHERE r.id = $1${merchantId === null ? '' : ' AND r.merchant_id = $2'}`,
    merchantId === null ? [refundId] : [refundId, merchantId],
  );
  return rows[0] ?? null;
}

/** The refund's status does not allow the change asked for (510 INVALID_STATUS_TRANSITION). */
export class RefundTransitionError extends Error {
  readonly kind = 'invalid_transition' as const;
}

/**
 * A refund created before the double-entry ledger (still PENDING at the upgrade) reserved
 * nothing; it takes its share of the deposit's credit when it completes, as it did then.
 */
async function debitUnreserved(q: Queryable, r: RefundRow & { deposit_amount: string }): Promise<void> {
  const credit = await depositCreditOf(q, r.deposit_id);
  if (!credit) return;
  const none = { units: 0n, scale: 0 };
  const debit = refundDebit(fromDb(r.amount), fromDb(r.deposit_amount), credit.net, none, none);
  try {
    await transfer(q, {
      merchantId: r.merchant_id, kind: 'refund.debit', subjectType: 'refund', subjectId: r.id,
      postings: [merchantAccount(r.merchant_id, credit.currency, 'available', neg(debit)), cajaAccount(credit.currency, 'settlement', debit)],
    });
  } catch (err) {
    if (err instanceof InsufficientFunds) throw new RefundTransitionError('The available balance does not cover this refund');
    throw err;
  }
}

/** Moves a PENDING refund to its outcome (bank answer, sandbox, operator); `audit` is written in its transaction. */
export async function transitionRefund(
  ctx: AppContext,
  merchantId: number,
  refundId: number,
  to: RefundStatus,
  cause: string,
  reason?: string,
  reasonCode?: string,
  audit?: AuditEntry,
  /** False when the caller answers the change itself (a card refund's response): no notification. */
  notify = true,
): Promise<RefundRow | null> {
  const found = await ctx.db.tx(async (q) => {
    const { rows } = await q.query<{ id: number }>('SELECT id FROM refunds WHERE id = $1 AND merchant_id = $2 FOR UPDATE', [refundId, merchantId]);
    if (!rows[0]) return false;
    await applyTransition(q, refundId, to, cause, reason, reasonCode, notify);
    if (audit) await recordAudit(q, audit);
    return true;
  });
  return found ? getRefund(ctx.db, merchantId, refundId) : null;
}

async function applyTransition(q: Queryable, refundId: number, to: RefundStatus, cause: string, reason: string | undefined, reasonCode: string | undefined, notify: boolean) {
  const r = (await q.query<RefundRow & { deposit_amount: string }>(
    `SELECT r.*, d.test AS deposit_test, d.amount AS deposit_amount FROM refunds r JOIN deposits d ON d.id = r.deposit_id WHERE r.id = $1`,
    [refundId],
  )).rows[0];
  if (!canTransition(r.status, to)) throw new RefundTransitionError(`A ${r.status} refund cannot become ${to}`);
  await q.query(
    `UPDATE refunds SET status = $2, reason = $3, reason_code = $4, updated_at = now(), completed_at = CASE WHEN $2 = 'COMPLETED' THEN now() ELSE completed_at END WHERE id = $1`,
    [refundId, to, reason ?? null, reasonCode ?? null],
  );
  await q.query('INSERT INTO refund_status_changes (refund_id, from_status, to_status, cause) VALUES ($1, $2, $3, $4)', [refundId, r.status, to, cause]);
  if (to === 'COMPLETED') {
    await q.query('UPDATE deposits SET refunded_amount = refunded_amount + $2, updated_at = now() WHERE id = $1', [r.deposit_id, r.amount]);
  }
  // The reservation made at creation leaves the balance for good, or goes back to available.
  const reservation = await findReservation(q, 'refund.reserve', 'refund', refundId);
  if (reservation && to === 'COMPLETED') await post(q, reservation, 'refund.post', r.settlement_fee ? fromDb(r.settlement_fee) : undefined);
  else if (reservation) await voidReservation(q, reservation, 'refund.void');
  else if (to === 'COMPLETED' && r.settlement_amount === null) await debitUnreserved(q, r);
  const notifications = notify && r.notification_url
    ? [{ kind: 'v3.refund', url: r.notification_url, contentType: 'application/json' as const, body: JSON.stringify({ refund_id: refundId }), signingSet: 'deposits' as const }]
    : [];
  await recordEvent(q, {
    merchantId: r.merchant_id,
    type: 'refund.status_changed',
    subjectType: 'refund',
    subjectId: refundId,
    data: { refund_id: refundId, deposit_id: r.deposit_id, status: to, previous_status: r.status, cause, at: new Date().toISOString(), ...(reasonCode ? { reason_code: reasonCode } : {}) },
    notifications,
  });
}
