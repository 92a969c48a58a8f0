// The cashout service, shared by the cashout API, the sandbox, the staging bank worker and (later)
// the panel.
//
//   createCashout(ctx, merchant, req)      store a validated request as PENDING (or ON_HOLD) and
//                                          reserve its amount from the balance, in one statement;
//                                          CashoutError 'not_served' (300: no payout network pays
//                                          the country; nothing stored), 'external_id_used' (511)
//                                          or 'insufficient_funds' (514)
//   findCashout(q, merchantId, ids)        a merchant's own cashout by cashout_id and/or external_id
//   transitionCashout(ctx, id, trigger, o) one status change, checked against the state machine
//                                          (CashoutError 'invalid_transition', 510), with its
//                                          ledger movement, history row, event and notification in
//                                          one transaction: cancel and a bank rejection void the
//                                          reservation, completion posts it, a rejection after
//                                          completion returns the money to available.
import type { AppContext } from '../config/context.ts';
import { type Audit, recordAudit } from '../audit/audit.ts';
import type { Queryable } from '../db/db.ts';
import { type CashoutStatus, type CashoutTrigger, nextCashoutStatus, REJECTIONS, type RejectionCode } from '../domain/cashout-states.ts';
import type { CashoutRequest } from '../domain/cashout-request.ts';
import { cmp, type Decimal, fromDb, isPositive, neg, toDb } from '../domain/money.ts';
import { payoutFigures } from '../domain/settlement.ts';
import { cajaAccount, findReservation, isInsufficientFunds, merchantAccount, post, reservationPostings, transfer, transferCtes, voidReservation } from '../ledger/ledger.ts';
import { orderPayoutConnectors, payoutConnectorFor } from '../connectors/registry.ts';
import { knownRate, type KnownRate, staleRate, staleRateText } from '../lookups/exchange-rates.ts';
import type { Merchant } from '../merchants/merchants.ts';
import { recordEvent } from '../notifications/outbox.ts';
import { cashoutNotifications } from './notifications.ts';
import type { CashoutRow } from './row.ts';
import { debtOf, recoverDebt } from '../deposits/returns.ts';

export type { CashoutRow } from './row.ts';

export type CashoutFailure = 'external_id_used' | 'insufficient_funds' | 'not_found' | 'invalid_transition' | 'no_rate' | 'rate_stale' | 'amount' | 'not_served';

export class CashoutError extends Error {
  constructor(
    readonly kind: CashoutFailure,
    message: string,
  ) {
    super(message);
  }
}

interface Amounts {
  localAmount: Decimal;
  usdAmount: Decimal;
  fxRate: Decimal;
  settlementAmount: Decimal;
  settlementCurrency: string;
}

/**
 * The cashout in the country's currency, in USD and in the merchant's settlement currency, at
 * the current rate, fixed now and stored with the cashout (settlement.ts payoutFigures: one
 * rounding per figure, never in the merchant's favour; too small to reserve is 'amount').
 */
/** The rate of a currency, refused when unknown or older than CAJA_RATES_MAX_AGE_HOURS. */
async function freshRate(ctx: AppContext, currency: string): Promise<Decimal> {
  const known = await knownRate(ctx.db, ctx.config, currency);
  if (!known) throw new CashoutError('no_rate', `No exchange rate is known for ${currency}`);
  const stale = staleRate(new Map<string, KnownRate>([[currency, known]]), [currency], ctx.config.rates.maxAgeHours, ctx.now());
  if (stale) throw new CashoutError('rate_stale', staleRateText(stale));
  return known.rate;
}

async function amountsOf(ctx: AppContext, merchant: Merchant, req: CashoutRequest): Promise<Amounts> {
  const rate = await freshRate(ctx, req.localCurrency);
  const settlementCurrency = merchant.settlement_currency;
  let settlementRate: Decimal | undefined;
  if (settlementCurrency !== 'USD' && settlementCurrency !== req.localCurrency) settlementRate = await freshRate(ctx, settlementCurrency);
  const figures = payoutFigures(req.amount, req.currency, req.localCurrency, settlementCurrency, { local: rate, settlement: settlementRate });
  if (!figures.ok) throw new CashoutError('amount', `Invalid params: ${figures.reason}`);
  const { local, usd, settlement } = figures.value;
  return { localAmount: local, usdAmount: usd, fxRate: rate, settlementAmount: settlement, settlementCurrency };
}

const COLUMNS = [
  'merchant_id', 'external_id', 'country', 'amount', 'currency', 'local_amount', 'local_currency', 'usd_amount', 'fx_rate',
  'settlement_amount', 'settlement_currency', 'status', 'document_id', 'document_type', 'beneficiary_name', 'beneficiary_lastname',
  'bank_code', 'bank_name', 'bank_account', 'bank_branch', 'account_type', 'email', 'phone', 'address', 'notification_url', 'comments',
  'pickup_at', 'created_at', 'updated_at', 'awaiting_approval', 'pix_key', 'owner_check',
] as const;

// One statement, atomic on its own: the cashout, its first history row, its creation event and
// the reservation of its amount on the ledger (ledger/transferCtes). An external_id already used
// inserts nothing (and waits for a concurrent insert of the same one to commit); a reservation
// the available balance cannot cover fails the whole statement, so no cashout exists without it.
const INSERT_SQL = `
WITH c AS (
  INSERT INTO cashouts (${COLUMNS.join(', ')})
  VALUES (${COLUMNS.map((_, i) => `$${i + 1}`).join(', ')})
  ON CONFLICT (merchant_id, external_id) DO NOTHING
  RETURNING *
), h AS (
  INSERT INTO cashout_status_changes (cashout_id, from_status, to_status, cause, actor, created_at)
  SELECT id, NULL, status, 'created', 'merchant', created_at FROM c
), e AS (
  INSERT INTO events (merchant_id, type, subject_type, subject_id, data)
  SELECT merchant_id, 'cashout.created', 'cashout', id, json_build_object(
    'cashout_id', id, 'external_id', external_id, 'status', status, 'amount', amount::text, 'currency', currency, 'at', $${COLUMNS.length + 1}::text)
  FROM c
),`;

/**
 * A cashout no payout network can pay would wait PENDING for ever with its amount reserved:
 * production refuses it by name (staging's bank pays every country). Deposits are refused the
 * same way for a method no connector collects (deposits/service.ts servingProblem).
 */
async function checkServed(ctx: AppContext, country: string): Promise<Awaited<ReturnType<typeof payoutConnectorFor>>> {
  const connector = await payoutConnectorFor(ctx, country);
  if (connector) return connector;
  const served = [...new Set((await orderPayoutConnectors(ctx)).flatMap((c) => c.countries))].sort();
  throw new CashoutError('not_served', `Invalid params: country: no payout provider pays cashouts to ${country} here; cashouts are paid to: ${served.join(', ') || 'none'}`);
}

/** The network's own per-payout limit (Pix payouts: the operator's max_amount), in the country's currency. */
function checkPayoutLimit(connector: Awaited<ReturnType<typeof payoutConnectorFor>>, localAmount: Decimal, localCurrency: string): void {
  const max = connector && 'maxAmount' in connector ? connector.maxAmount : undefined;
  if (max === undefined || cmp(localAmount, fromDb(max)) <= 0) return;
  throw new CashoutError('amount', `Invalid params: amount: ${toDb(localAmount)} ${localCurrency} is above the limit of ${max} ${localCurrency} per cashout of the payout provider (${connector!.name})`);
}

/** Creates a cashout and reserves its funds; `audit` (a panel user's action) is written in the same transaction. */
export async function createCashout(ctx: AppContext, merchant: Merchant, req: CashoutRequest, audit?: Audit<CashoutRow>): Promise<CashoutRow> {
  const connector = await checkServed(ctx, req.country);
  const a = await amountsOf(ctx, merchant, req);
  checkPayoutLimit(connector, a.localAmount, req.localCurrency);
  // Paid only to a key or account of the beneficiary's document (migration 060; the merchant's
  // setting, whose API comes with issue 41), fixed with the cashout.
  const ownerCheck = (merchant as Merchant & { payer_must_match?: boolean }).payer_must_match === true;
  const now = ctx.now();
  // Above the merchant's threshold a cashout waits, held, for two operators (four eyes).
  const awaitingApproval = merchant.cashout_approval_usd !== null && cmp(a.usdAmount, fromDb(merchant.cashout_approval_usd)) > 0;
  const status: CashoutStatus = req.onHold || awaitingApproval ? 'ON_HOLD' : 'PENDING';
  // The staging bank waits CAJA_CASHOUT_DELAY_SECONDS so that merchants can hold or cancel first.
  const pickupAt = status === 'PENDING' ? new Date(now.getTime() + ctx.config.cashoutDelaySeconds * 1000) : null;
  const values = [
    merchant.id, req.externalId, req.country, toDb(req.amount), req.currency, toDb(a.localAmount), req.localCurrency, toDb(a.usdAmount),
    toDb(a.fxRate), toDb(a.settlementAmount), a.settlementCurrency, status, req.documentId, req.documentType, req.beneficiaryName,
    req.beneficiaryLastname, req.bankCode, req.bankName, req.bankAccount, req.bankBranch, req.accountType, req.email, req.phone,
    req.address, req.notificationUrl, req.comments, pickupAt, now, now, awaitingApproval, req.pixKey ?? null, ownerCheck, now.toISOString(),
  ];
  const reservation = transferCtes(
    [{ merchantId: merchant.id, kind: 'cashout.reserve', subjectType: 'cashout', pending: true, at: now, postings: reservationPostings(merchant.id, a.settlementCurrency, a.settlementAmount) }],
    values.length + 1,
    '(SELECT id FROM c)',
  );
  // A merchant that owes a returned deposit's debit (src/deposits/returns.ts) pays it from its
  // available balance first, in the cashout's transaction (the available row stays locked until it
  // commits, so no return or recovery runs between); while a debt remains, no cashout.
  const owing = isPositive(await debtOf(ctx.db, merchant.id, a.settlementCurrency));
  try {
    const insert = async (q: Queryable) => {
      if (owing) {
        await recoverDebt(q, merchant.id, a.settlementCurrency);
        const debt = await debtOf(q, merchant.id, a.settlementCurrency);
        if (isPositive(debt)) {
          throw new CashoutError('insufficient_funds', `Insufficient funds: the balance is negative (${toDb(debt)} ${a.settlementCurrency} owed for returned deposits is recovered from the next credits first)`);
        }
      }
      const { rows } = await q.query<CashoutRow>(`${INSERT_SQL}${reservation.sql} SELECT * FROM c`, [...values, ...reservation.params], { name: 'caja_cashout_insert' });
      if (!rows[0]) throw new CashoutError('external_id_used', 'external_id already used');
      if (audit) await recordAudit(q, audit, rows[0]);
      return rows[0];
    };
    // One statement is its own transaction; with an audit row it takes two, in one transaction.
    return await (audit || owing ? ctx.db.tx(insert) : insert(ctx.db));
  } catch (err) {
    if (isInsufficientFunds(err)) throw new CashoutError('insufficient_funds', 'Insufficient funds');
    throw err;
  }
}

export interface CashoutIds {
  cashoutId?: number;
  externalId?: string;
}

/** A merchant's cashout by id and/or external_id (both must name the same one), optionally locked. */
export async function findCashout(q: Queryable, merchantId: number, ids: CashoutIds, lock = false): Promise<CashoutRow | null> {
  if (ids.cashoutId === undefined && ids.externalId === undefined) return null;
  const { rows } = await q.query<CashoutRow>(
    `SELECT * FROM cashouts WHERE merchant_id = $1 AND ($2::integer IS NULL OR id = $2) AND ($3::text IS NULL OR external_id = $3)${lock ? ' FOR UPDATE' : ''}`,
    [merchantId, ids.cashoutId ?? null, ids.externalId ?? null],
  );
  return rows[0] ?? null;
}

export interface TransitionOptions {
  /** 'merchant', 'bank', 'sandbox', 'operator', 'panel'. */
  actor: string;
  cause: string;
  /** When set, another merchant's cashout is not found. */
  merchantId?: number;
  rejection?: RejectionCode;
  bankReference?: string;
  /** Staging bank schedule: when the outcome of a delivery, or a return after completion, is due. */
  outcomeAt?: Date;
  returnAt?: Date | null;
  /** A panel user's action: its audit row is written in the transition's transaction. */
  audit?: Audit<CashoutRow>;
  /** The four-eyes approval (src/operators/approvals.ts): the one release of a cashout awaiting approval. */
  approved?: boolean;
}

/** One status change inside the caller's transaction (the worker batches them). */
export async function transitionCashoutIn(q: Queryable, ctx: AppContext, id: number, trigger: CashoutTrigger, o: TransitionOptions): Promise<CashoutRow> {
  const { rows: found } = await q.query<CashoutRow>(
    `SELECT * FROM cashouts WHERE id = $1${o.merchantId === undefined ? '' : ' AND merchant_id = $2'} FOR UPDATE`,
    o.merchantId === undefined ? [id] : [id, o.merchantId],
  );
  const c = found[0];
  if (!c) throw new CashoutError('not_found', 'Cashout not found with this id');
  const to = nextCashoutStatus(c.status, trigger);
  if (!to) throw new CashoutError('invalid_transition', `Invalid status transition: the cashout is ${c.status}`);
  if (trigger === 'release' && c.awaiting_approval && !o.approved) {
    throw new CashoutError('invalid_transition', 'Invalid status transition: the cashout is above the approval threshold and waits for two operators to release it');
  }
  const now = ctx.now();
  const rejection = to === 'REJECTED' ? (o.rejection ?? (c.status === 'COMPLETED' ? '809' : '808')) : null;
  const stamp = ({ DELIVERED: 'delivered_at', COMPLETED: 'completed_at', REJECTED: 'rejected_at', CANCELLED: 'cancelled_at' } as Record<string, string>)[to];
  const { rows } = await q.query<CashoutRow>(
    `UPDATE cashouts SET status = $2, updated_at = $3${stamp ? `, ${stamp} = $3` : ''},
       rejection_code = COALESCE($4, rejection_code), rejection_reason = COALESCE($5, rejection_reason),
       bank_reference_id = COALESCE($6, bank_reference_id),
       -- Releasing from hold restarts the bank's wait, so a release is never picked up at once.
       pickup_at = CASE WHEN $2 = 'PENDING' THEN $7::timestamptz ELSE pickup_at END,
       outcome_at = COALESCE($8, outcome_at),
       return_at = CASE WHEN $2 = 'COMPLETED' THEN $9::timestamptz ELSE NULL END,
       awaiting_approval = awaiting_approval AND $2 = 'ON_HOLD'
     WHERE id = $1 RETURNING *`,
    [
      c.id, to, now, rejection, rejection ? REJECTIONS[rejection] : null, o.bankReference ?? null,
      new Date(now.getTime() + ctx.config.cashoutDelaySeconds * 1000), o.outcomeAt ?? null, o.returnAt ?? null,
    ],
  );
  const updated = rows[0]!;
  await moveMoney(q, updated, c.status, to, now);
  await q.query(
    'INSERT INTO cashout_status_changes (cashout_id, from_status, to_status, cause, actor, created_at) VALUES ($1, $2, $3, $4, $5, $6)',
    [c.id, c.status, to, o.cause, o.actor, now],
  );
  await recordEvent(q, {
    merchantId: c.merchant_id,
    type: 'cashout.status_changed',
    subjectType: 'cashout',
    subjectId: c.id,
    data: {
      cashout_id: c.id, external_id: c.external_id, status: to, previous_status: c.status, cause: o.cause, actor: o.actor, at: now.toISOString(),
      ...(rejection ? { rejection_code: rejection } : {}),
    },
    notifications: await cashoutNotifications(q, ctx, updated),
  });
  if (o.audit) await recordAudit(q, o.audit, updated);
  return updated;
}

/** The ledger side of a transition: the reservation made at creation is voided, posted or returned. */
async function moveMoney(q: Queryable, c: CashoutRow, from: CashoutStatus, to: CashoutStatus, at: Date): Promise<void> {
  if (to !== 'CANCELLED' && to !== 'COMPLETED' && to !== 'REJECTED') return;
  const reservation = await findReservation(q, 'cashout.reserve', 'cashout', c.id);
  if (!reservation) throw new Error(`cashout ${c.id} has no reservation`);
  if (to === 'COMPLETED') await post(q, reservation, 'cashout.post', undefined, at);
  else if (from === 'COMPLETED') {
    // The beneficiary bank sent the money back after it was paid: it returns to available.
    await transfer(q, {
      merchantId: c.merchant_id, kind: 'cashout.return', subjectType: 'cashout', subjectId: c.id, at,
      description: c.rejection_reason ?? undefined,
      postings: [cajaAccount(reservation.currency, 'settlement', neg(reservation.amount)),
        merchantAccount(c.merchant_id, reservation.currency, 'available', reservation.amount)],
    });
  } else await voidReservation(q, reservation, 'cashout.void', at);
}

export function transitionCashout(ctx: AppContext, id: number, trigger: CashoutTrigger, o: TransitionOptions): Promise<CashoutRow> {
  return ctx.db.tx((q) => transitionCashoutIn(q, ctx, id, trigger, o));
}
