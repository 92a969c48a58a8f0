// The hosted checkout's service: what a customer may do with a HOSTED deposit through its token.
//
//   allowedMethods(ctx, d)             the methods of the deposit's country the request allows
//                                      (payment_method, payment_type(s)) that fit the amount
//   neededPayerFields(d, method)       the payer fields that method still needs (never one the
//                                      merchant already sent valid)
//   chooseMethod(ctx, token, code, fields)
//                                      sets the method and payer data: fees, expiry and
//                                      payment_info as a ONE_SHOT creation would have them
//   startCharge(ctx, token)            the next action of a method paid on the provider's side
//                                      (a card): its connector's redirect or challenge, stored
//   cancelByCustomer(ctx, token)       the customer gives up: PENDING to CANCELLED
//   assignMethodIn(q, ctx, id, code)   staging: the merchant names the method in a sandbox
//                                      approve of a deposit whose customer never chose one
//
// The payer fields go through the API's own payer rules (validatePayerInput), and the amounts
// through the same fee, bounds and payment-info code as creation, so a deposit completed here
// cannot differ from one the merchant completed in one request.
import type { AppContext } from '../config/context.ts';
import type { Queryable } from '../db/db.ts';
import type { CardDetail } from '../domain/cards.ts';
import { type NextAction, storedNextAction } from '../domain/next-action.ts';
import { findMethod, type PayerField, type PaymentMethod } from '../domain/catalog.ts';
import { type Payer, payerHas, validatePayerInput } from '../domain/deposit-request.ts';
import { chargeOrder, depositCharges } from './charges.ts';
import type { Charges } from '../domain/fees.ts';
import { frameOriginsInEffect } from '../domain/frame-origins.ts';
import { type Decimal, fromDb, toDb } from '../domain/money.ts';
import { DepositError, depositNotFound } from './errors.ts';
import { recordEvent } from '../notifications/outbox.ts';
import { toJson } from './json.ts';
import { storedPaymentInfo } from './stored-payment-info.ts';
import { type Serving, serving } from '../connectors/registry.ts';
import { offeredMethods } from '../domain/offered-methods.ts';
import { type Charge, type ChargeOrder, ConnectorError } from '../connectors/payin.ts';
import { withdrawCharge } from '../connectors/charges.ts';
import { transitionDepositIn } from './service.ts';
import { type DepositRow, findDeposit, findDepositByToken } from './store.ts';

/** Why the checkout cannot go on; the pages say it in the customer's language. */
export type CheckoutProblem = 'not_found' | 'not_payable' | 'method_unavailable' | 'already_chosen' | 'provider_unavailable';

export class CheckoutError extends Error {
  constructor(readonly problem: CheckoutProblem) {
    super(`checkout: ${problem}`);
  }
}

/** Whether the customer can still act on the deposit (the expiry worker may not have run yet). */
export function isPayable(d: DepositRow, now: Date): boolean {
  return d.status === 'PENDING' && d.expires_at.getTime() > now.getTime();
}

/** The methods the customer may pick (src/domain/offered-methods.ts), of those served here. */
export async function allowedMethods(ctx: AppContext, d: DepositRow): Promise<PaymentMethod[]> {
  return allowedOf(await serving(ctx), d);
}

function allowedOf(s: Serving, d: DepositRow): PaymentMethod[] {
  const served = s.methods(d.country);
  const scope = { country: d.country, paymentMethod: d.payment_method, paymentTypes: d.payment_types, paymentType: d.payment_type, localAmount: fromDb(d.local_amount) };
  return offeredMethods(scope, (code) => served.has(code));
}

export function neededPayerFields(d: Pick<DepositRow, 'payer'>, method: PaymentMethod): PayerField[] {
  return method.requiredPayerFields.filter((f) => !payerHas(d.payer, f));
}

/** The method was chosen and every field it needs is there: the next step is payment. */
export function methodSettled(d: DepositRow): boolean {
  const m = d.payment_method ? findMethod(d.country, d.payment_method) : undefined;
  return !!m && neededPayerFields(d, m).length === 0 && (m.kind === 'card' || d.payment_info !== null);
}

/** Reads one field path of a flat form (`payer.address.city`) into the payer body shape. */
function payerBodyOf(fields: PayerField[], form: Record<string, string | undefined>): Record<string, unknown> {
  const body: Record<string, unknown> = {};
  const address: Record<string, unknown> = {};
  for (const f of fields) {
    const value = form[f];
    if (value === undefined || value.trim() === '') continue;
    const [, a, b] = f.split('.');
    if (b) address[b] = value;
    else body[a!] = value;
  }
  if (Object.keys(address).length > 0) body.address = address;
  return body;
}

function mergePayer(stored: Payer, entered: Payer): Payer {
  const address = { ...stored.address, ...entered.address };
  return { ...stored, ...entered, ...(Object.keys(address).length > 0 ? { address } : {}) };
}

async function lockByToken(q: Queryable, token: string): Promise<DepositRow> {
  const found = await findDepositByToken(q, token);
  const d = found && (await findDeposit(q, found.id, true));
  if (!d || d.checkout_type !== 'HOSTED') throw new CheckoutError('not_found');
  return d;
}

export type ChooseResult = { ok: true; deposit: DepositRow } | { ok: false; errors: Partial<Record<PayerField, string>> };

/**
 * Sets the deposit's method and the payer fields the customer typed (only those the method still
 * needs are read). Field errors come back per field; a deposit that can no longer be paid or a
 * method the request does not allow throws CheckoutError.
 *
 * A method a real connector serves (Pix through a PSP) has its charge created at the provider
 * between two transactions: the first checks the choice, the charge is asked for with no lock
 * held, the second checks again and writes. A provider that refuses or does not answer leaves the
 * deposit as it was (CheckoutError 'provider_unavailable'): the customer may try again.
 */
export async function chooseMethod(ctx: AppContext, token: string, code: string, form: Record<string, string | undefined>): Promise<ChooseResult> {
  // Read before the transactions, never inside one (registry.ts, Serving).
  const served = await serving(ctx);
  const planned = await ctx.db.tx((q) => planChoice(q, ctx, served, token, code, form));
  if (!planned.ok) return planned.result;
  const { d, method } = planned;
  const connector = method.kind === 'card' ? null : served.payinConnector(d.country, method.code);
  let charge: Charge | null = null;
  if (connector && !connector.simulated) {
    try {
      charge = await connector.createCharge(orderOf(ctx, { ...planned, payerAmount: planned.local.payerAmount }));
    } catch (err) {
      if (!(err instanceof ConnectorError)) throw err;
      ctx.log.warn({ err, depositId: d.id, connector: connector.name }, 'checkout: the provider did not create the charge');
      throw new CheckoutError('provider_unavailable');
    }
  }
  return ctx.db.tx(async (q) => {
    const again = await planChoice(q, ctx, served, token, code, form);
    if (!again.ok) return again.result;
    const order = orderOf(ctx, { ...again, payerAmount: again.local.payerAmount });
    // Staging's simulator builds its charge here, in memory; a card has none (its page is the payment).
    if (method.kind !== 'card' && !connector) throw new CheckoutError('method_unavailable');
    const info = method.kind === 'card' ? null : charge ? charge.paymentInfo : (await connector!.createCharge(order)).paymentInfo;
    const { payer, local, usd, expiresAt, now } = again;
    const payerName = [payer.first_name, payer.last_name].filter(Boolean).join(' ') || null;
    const { rows } = await q.query<DepositRow>(
      `UPDATE deposits SET payment_method = $2, payment_type = $3, fee_local = $4, surcharge_local = $5, payer_amount = $6,
         fee_usd = $7, merchant_usd = $8, payer = $9, payer_document = $10, payer_document_type = $11, payer_name = $12,
         payer_email = $13, missing_fields = '{}', invalid_fields = '{}', payment_info = $14, expires_at = $15, updated_at = $16,
         connector = $17, connector_reference = $18
       WHERE id = $1 RETURNING *`,
      [
        d.id, method.code, method.type, toDb(local.fee), toDb(local.surcharge), toDb(local.payerAmount), toDb(usd.fee),
        toDb(usd.merchantAmount), JSON.stringify(payer), payer.document ?? null, payer.document_type ?? null, payerName,
        payer.email ?? null, info ? storedPaymentInfo(toJson(info)) : null, charge ? planned.expiresAt : expiresAt, now,
        info ? (charge ? connector!.name : connector?.name ?? null) : null, charge?.reference ?? null,
      ],
    );
    await methodChosenEvent(q, rows[0]!, 'customer', now);
    return { ok: true, deposit: rows[0]! };
  });
}

interface PlannedChoice {
  ok: true;
  d: DepositRow;
  method: PaymentMethod;
  payer: Payer;
  local: Charges;
  usd: Charges;
  expiresAt: Date;
  now: Date;
}

/** Checks a choice against the locked deposit and works out what it sets (writes nothing). */
async function planChoice(
  q: Queryable,
  ctx: AppContext,
  served: Serving,
  token: string,
  code: string,
  form: Record<string, string | undefined>,
): Promise<PlannedChoice | { ok: false; result: ChooseResult }> {
  const d = await lockByToken(q, token);
  const now = ctx.now();
  if (!isPayable(d, now)) throw new CheckoutError('not_payable');
  if (methodSettled(d)) throw new CheckoutError('already_chosen');
  const method = allowedOf(served, d).find((m) => m.code === code.trim().toUpperCase());
  if (!method) throw new CheckoutError('method_unavailable');

  const needed = neededPayerFields(d, method);
  const { payer: entered, errors } = validatePayerInput(d.country, payerBodyOf(needed, form));
  for (const f of needed) if (!errors[f] && !payerHas(entered, f)) errors[f] = 'is required';
  if (Object.keys(errors).length > 0) return { ok: false, result: { ok: false, errors } };

  const payer = mergePayer(d.payer, entered);
  const { local, usd } = chargesFor(d, method);
  const expiresAt = new Date(now.getTime() + method.expiryMinutes * 60_000);
  return { ok: true, d, method, payer, local, usd, expiresAt, now };
}

const orderOf = (ctx: AppContext, p: { d: DepositRow; method: PaymentMethod; payer: Payer; payerAmount: Decimal; expiresAt: Date }): ChargeOrder =>
  chargeOrder(ctx.config.publicBaseUrl, { depositId: p.d.id, token: p.d.token, method: p.method, payerAmount: p.payerAmount, createdAt: p.d.created_at, expiresAt: p.expiresAt, description: p.d.description, payer: p.payer });

/** In the merchant's event feed (not a notification: the status did not change). */
function methodChosenEvent(q: Queryable, d: DepositRow, actor: 'customer' | 'sandbox', at: Date) {
  return recordEvent(q, {
    merchantId: d.merchant_id, type: 'deposit.method_chosen', subjectType: 'deposit', subjectId: d.id,
    data: { deposit_id: d.id, invoice_id: d.invoice_id, payment_method: d.payment_method, payment_type: d.payment_type, actor, at: at.toISOString() },
  });
}

/** Fee and surcharge of the method's type, as creation computes them for a method sent at once (by the schedule the deposit was created under). */
function chargesFor(d: DepositRow, method: PaymentMethod) {
  return depositCharges({ local: fromDb(d.local_amount), localCurrency: d.local_currency, usd: fromDb(d.usd_amount) }, method.type,
    { feeOnPayer: d.fee_on_payer, surchargeOnPayer: d.surcharge_on_payer }, d.fee_schedule);
}

/**
 * Staging's sandbox approve of a HOSTED deposit whose customer never chose a method: the merchant
 * names one (`{"payment_method": "IX"}`), which must be one the checkout would have offered. The
 * method, its type and its fees are set as a choice on the page sets them, so the completed
 * deposit is never without a method. Inside the approving transaction: staging's serving reads
 * nothing (registry.ts, Serving), so nothing here waits on another connection.
 */
export async function assignMethodIn(q: Queryable, ctx: AppContext, depositId: number, code: string): Promise<DepositRow> {
  const d = await findDeposit(q, depositId, true);
  if (!d) throw depositNotFound();
  const allowed = await allowedMethods(ctx, d);
  const method = allowed.find((m) => m.code === code.trim().toUpperCase());
  if (!method) {
    const offered = allowed.map((m) => m.code).join(', ') || 'none';
    throw new DepositError('validation', 'Invalid request fields', { details: [`payment_method: '${code}' is not offered for this deposit; offered: ${offered}`] });
  }
  const { local, usd } = chargesFor(d, method);
  const { rows } = await q.query<DepositRow>(
    `UPDATE deposits SET payment_method = $2, payment_type = $3, fee_local = $4, surcharge_local = $5, payer_amount = $6, fee_usd = $7,
       merchant_usd = $8, updated_at = $9 WHERE id = $1 RETURNING *`,
    [d.id, method.code, method.type, toDb(local.fee), toDb(local.surcharge), toDb(local.payerAmount), toDb(usd.fee), toDb(usd.merchantAmount), ctx.now()],
  );
  await methodChosenEvent(q, rows[0]!, 'sandbox', ctx.now());
  return rows[0]!;
}

/**
 * The next action of a deposit whose chosen method has no payment_info to show (a card): the one
 * stored with it, else its connector's charge is created now (staging: the staging card kind's
 * redirect to its card page) and its connector, reference and next action are stored, so a
 * reload goes to the same place. Null when no connector serves the method here (production
 * without a card connector): the page says the method cannot be set up. The charge is asked for
 * with no lock held, as chooseMethod does; a provider that refuses or does not answer throws
 * CheckoutError 'provider_unavailable' and leaves the deposit as it was.
 */
export async function startCharge(ctx: AppContext, token: string): Promise<NextAction | null> {
  const served = await serving(ctx);
  const found = await ctx.db.tx(async (q) => {
    const d = await lockByToken(q, token);
    if (!isPayable(d, ctx.now())) throw new CheckoutError('not_payable');
    if (!methodSettled(d) || d.payment_info !== null) throw new CheckoutError('method_unavailable');
    return d;
  });
  const stored = storedNextAction(found.next_action);
  if (stored) return stored;
  const method = findMethod(found.country, found.payment_method!)!;
  const connector = served.payinConnector(found.country, method.code);
  if (!connector) return null;
  let charge: Charge;
  try {
    charge = await connector.createCharge(orderOf(ctx, { d: found, method, payer: found.payer, payerAmount: fromDb(found.payer_amount), expiresAt: found.expires_at }));
  } catch (err) {
    if (!(err instanceof ConnectorError)) throw err;
    ctx.log.warn({ err, depositId: found.id, connector: connector.name }, 'checkout: the provider did not create the charge');
    throw new CheckoutError('provider_unavailable');
  }
  const action = charge.nextAction ?? null;
  // A method without payment_info is paid on the provider's side: its charge must say where.
  if (!action || (action.type !== 'redirect' && action.type !== 'challenge')) throw new CheckoutError('method_unavailable');
  const written = await ctx.db.tx(async (q) => {
    const d = await lockByToken(q, token);
    if (!isPayable(d, ctx.now())) throw new CheckoutError('not_payable');
    // Another request of the same customer stored its charge first: that one stands.
    const first = storedNextAction(d.next_action);
    if (first) return first;
    await q.query('UPDATE deposits SET connector = $2, connector_reference = $3, next_action = $4, updated_at = $5 WHERE id = $1', [
      d.id, connector.name, charge.reference, JSON.stringify(action), ctx.now(),
    ]);
    return null;
  });
  if (written) {
    await withdrawCharge(ctx, { id: found.id, connector: connector.name, connector_reference: charge.reference });
    return written;
  }
  return action;
}

/** The customer cancels on the hosted checkout: the merchant is told, as for any cancellation. */
export async function cancelByCustomer(ctx: AppContext, token: string): Promise<DepositRow> {
  const cancelled = await ctx.db.tx(async (q) => {
    const d = await lockByToken(q, token);
    if (!isPayable(d, ctx.now())) throw new CheckoutError('not_payable');
    return transitionDepositIn(q, ctx, d.id, 'CANCELLED', 'cancel', { actor: 'customer' });
  });
  await withdrawCharge(ctx, cancelled);
  return cancelled;
}

/** What the customer pages show of a deposit, read in one query. */
export interface CustomerDeposit {
  d: DepositRow;
  merchantName: string;
  /** The deposit's `logo`, else the merchant's setting. */
  merchantLogo: string | null;
  merchantReturnUrl: string | null;
  /** For a CANCELLED deposit: 'expiry' or 'cancel', so the page says which one it was. */
  cancelCause: string | null;
  /** The card a card deposit was paid with (deposits.card_detail), masked. */
  cardDetail: CardDetail | null;
  /** Origins that may frame its pages opened with iframe_view=1 (domain/frame-origins.ts); empty: none. */
  frameOrigins: string[];
}

export async function customerDeposit(ctx: AppContext, token: string): Promise<CustomerDeposit | null> {
  if (!/^[A-Za-z0-9_-]{22}$/.test(token)) return null;
  const { rows } = await ctx.db.query<DepositRow & {
    merchant_name: string; merchant_logo: string | null; merchant_return_url: string | null; merchant_notification_url: string | null;
    merchant_frame_origins: string[] | null; cancel_cause: string | null; card_detail: CardDetail | null;
  }>(
    `SELECT d.*, m.logo_url AS merchant_logo, m.name AS merchant_name, m.return_url AS merchant_return_url,
            m.notification_url AS merchant_notification_url, m.frame_origins AS merchant_frame_origins,
            (SELECT cause FROM deposit_status_changes c WHERE c.deposit_id = d.id AND c.to_status = 'CANCELLED' ORDER BY c.id DESC LIMIT 1) AS cancel_cause
     FROM deposits d JOIN merchants m ON m.id = d.merchant_id WHERE d.token = $1`,
    [token],
  );
  const row = rows[0];
  if (!row) return null;
  const { merchant_name, merchant_logo, merchant_return_url, merchant_notification_url, merchant_frame_origins, cancel_cause, card_detail, ...d } = row;
  const frameOrigins = frameOriginsInEffect({ frame_origins: merchant_frame_origins, notification_url: merchant_notification_url, return_url: merchant_return_url }, ctx.config);
  return {
    d: d as DepositRow, merchantName: merchant_name, merchantLogo: d.logo ?? merchant_logo, merchantReturnUrl: merchant_return_url, cancelCause: cancel_cause,
    cardDetail: card_detail, frameOrigins,
  };
}
