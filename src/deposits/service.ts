// The deposit service, shared by every face (v3 JSON, streamline form, admin, sandbox, workers).
//
//   prepareDepositRequest(ctx, body, opts?)   validate a v3-shaped body (loads the exchange rates
//                                             it needs); streamline maps its form fields onto it.
//        opts.merchantId        also reads the merchant's limit rules in the same round trip
//        opts.invoiceMaxLength  125 for streamline's x_invoice (v3: 128)
//   createDeposit(ctx, merchant, input, opts) store a validated request as a PENDING deposit
//        opts.source        'v3' | 'streamline': picks the notification format of later changes
//        opts.idempotency   {key, fingerprint}: same key + same fingerprint replays the first
//                           deposit (replayed: true); another fingerprint is error 104
//        opts.confirmationUrl / returnUrl / bankCode / extra / userId: streamline columns
//     Errors (DepositError, ./errors.ts): invoice_used, user_limit, idempotency_key_used,
//     provider_unavailable / provider_refused; each face answers them from its table in http/.
//   getDepositStatus(ctx, merchantId, id)     only what its status view shows (the hot GET)
//   transitionDeposit(ctx, id, to, cause, {actor, merchantId?, note?})
//                                             one status change: checked against the state
//                                             machine, recorded with time and cause, balance
//                                             credit when it completes (balances/), event and
//                                             notification in the same transaction, shared
//                                             with concurrent changes (./transitions.ts).
//   transitionDepositIn(q, ctx, ...)          the same inside a caller's transaction (connectors).
//
// Creation writes the deposit, its first history row, its creation event and its idempotency key
// in one statement (atomic by itself), shared by concurrent creations. Under a daily or monthly
// customer limit that statement runs in a short transaction that first locks the batch's
// customers and checks their usage. Anything that fails rolls all of it back, so no half deposit
// exists.
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import type { AppContext } from '../config/context.ts';
import { type Queryable, violatesConstraint } from '../db/db.ts';
import type { PaymentType } from '../domain/catalog.ts';
import { getCountry } from '../domain/countries.ts';
import { type DepositRequest, validateDepositRequest, type ValidationResult } from '../domain/deposit-request.ts';
import { sandboxOutcome } from '../domain/deposit-sandbox.ts';
import { cryptoColumn } from '../domain/crypto.ts';
import { chargeOrder, depositCharges } from './charges.ts';
import { toDb } from '../domain/money.ts';
import { payinConnectorFor, servedMethods, servesEveryMethod } from '../connectors/registry.ts';
import { offeredMethods } from '../domain/offered-methods.ts';
import { type Charge, ConnectorError } from '../connectors/payin.ts';
import { DepositError, providerFailure } from './errors.ts';
import { withdrawCharge } from '../connectors/charges.ts';
import type { Merchant } from '../merchants/merchants.ts';
import { type KnownRate, resolveUsdRates, staleRate, staleRateText } from '../lookups/exchange-rates.ts';
import { type LimitKind, type LimitRule, needsUsage } from '../domain/limits.ts';
import { toJson } from './json.ts';
import { storedPaymentInfo } from './stored-payment-info.ts';
import { Batcher, batcherPerDatabase } from '../db/batcher.ts';
import { applicableRule, checkAmountOnly, checkCustomerLimits, firstOfEachCustomer, type LimitRow, loadLimitRules, type RuleCheck, rulesFromRows } from './limits.ts';
import { STATUS_VIEW_COLUMNS, type StatusViewRow } from './views.ts';
import { CREATED_COLUMNS, type CreatedDeposit, findDeposit } from './store.ts';

export { CREATED_COLUMNS, type CreatedDeposit } from './store.ts';

export type DepositSource = 'v3' | 'streamline';

/** How long a HOSTED deposit without a chosen method waits for the customer. */
export const HOSTED_EXPIRY_MINUTES = 1440;

export { DepositError, depositNotFound } from './errors.ts';

interface PreloadRow {
  rates: [string, string, string][] | null;
  limits: LimitRow[] | null;
}

/**
 * One round trip for what validation and the limit check read: the exchange rates of the two
 * currencies involved (operator rows first; staging falls back to the shipped sample rates, as
 * lookups/exchange-rates does) and the customer-limit rules of the merchant and country.
 */
async function preload(q: Queryable, ctx: AppContext, currencies: string[], merchantId: number | null, country: string) {
  const wanted = [...new Set(currencies.filter((c) => /^[A-Z]{3}$/.test(c) && c !== 'USD'))].sort();
  // Rates and rules change rarely and only through the admin API (which clears the cache).
  return ctx.cache.of<Preloaded>('deposit-preload').get(`${merchantId ?? ''}|${country}|${wanted.join(',')}`, () => loadPreload(q, ctx, wanted, merchantId, country));
}

type Preloaded = { rates: Map<string, KnownRate>; rules: LimitRule[] | null };

async function loadPreload(q: Queryable, ctx: AppContext, wanted: string[], merchantId: number | null, country: string): Promise<Preloaded> {
  const { rows } = await q.query<PreloadRow>(
    `SELECT (SELECT json_agg(json_build_array(currency, usd_rate::text, rate_at)) FROM exchange_rates WHERE currency = ANY($1)) AS rates,
            (SELECT json_agg(l) FROM (
               SELECT merchant_id, country, payment_method, per_transaction::text, daily::text, monthly::text
               FROM customer_limits WHERE $2::integer IS NOT NULL AND merchant_id IN (0, $2) AND country IN ('*', $3)) l) AS limits`,
    [wanted, merchantId, country],
    { name: 'caja_deposit_preload' },
  );
  const rates = resolveUsdRates(ctx.config, wanted, rows[0]?.rates ?? []);
  return { rates, rules: merchantId === null ? null : rulesFromRows(rows[0]?.limits ?? []) };
}

/** Limit rules read together with the rates, handed from prepareDepositRequest to createDeposit. */
const preloadedRules = new WeakMap<DepositRequest, { merchantId: number; rules: LimitRule[] }>();

/**
 * Validates a v3-shaped body, loading the exchange rates it may need first. With merchantId, the
 * merchant's customer-limit rules are read in the same round trip and reused by createDeposit.
 */
export async function prepareDepositRequest(
  ctx: AppContext,
  body: unknown,
  opts: { invoiceMaxLength?: number; merchantId?: number } = {},
): Promise<ValidationResult> {
  const b = (typeof body === 'object' && body !== null ? body : {}) as Record<string, unknown>;
  const currency = typeof b.currency === 'string' ? b.currency.trim().toUpperCase() : 'USD';
  const country = typeof b.country === 'string' ? getCountry(b.country.trim()) : undefined;
  const pre = await preload(ctx.db, ctx, [currency, country?.currency ?? ''], opts.merchantId ?? null, country?.code ?? '');
  const result = validateDepositRequest(body, { checks: ctx.config, rateOf: (c) => pre.rates.get(c)?.rate ?? null, invoiceMaxLength: opts.invoiceMaxLength });
  if (result.ok) {
    // A rate its source published too long ago is refused, never used (docs/exchange-rates.md).
    const stale = staleRate(pre.rates, [result.value.currency, result.value.localCurrency], ctx.config.rates.maxAgeHours, ctx.now());
    if (stale) throw new DepositError('rate_stale', staleRateText(stale), { rate: stale });
  }
  if (result.ok && !servesEveryMethod(ctx)) {
    const problem = servingProblem(result.value, await servedMethods(ctx, result.value.country));
    if (problem) return { ok: false, details: [problem] };
  }
  if (result.ok && pre.rules && opts.merchantId !== undefined) preloadedRules.set(result.value, { merchantId: opts.merchantId, rules: pre.rules });
  return result;
}

/**
 * Production offers only what some connector really collects (src/connectors/registry.ts): a
 * method none serves is refused by name, and so is a HOSTED deposit whose customer could be
 * offered nothing. The amount bounds are checked by validation and the checkout, as in staging.
 */
function servingProblem(req: DepositRequest, served: Set<string>): string | null {
  const available = `available in ${req.country}: ${[...served].join(', ') || 'none'}`;
  const m = req.paymentMethod;
  if (m) return served.has(m.code) ? null : `payment_method: '${m.code}' (${m.name}) is not available: no payment provider collects it here; ${available}`;
  const scope = { country: req.country, paymentMethod: null, paymentTypes: req.paymentTypes, paymentType: req.paymentType, localAmount: null };
  if (offeredMethods(scope, (code) => served.has(code)).length > 0) return null;
  return `payment_method: no payment method of the requested types is available: no payment provider collects one here; ${available}`;
}


/**
 * The id of a ONE_SHOT deposit, needed before its insert (its payment info names it). Ids come
 * from the table's sequence, not from a block per process: they then follow creation order across
 * every process sharing the database, which merchants sort and reconcile by (issue 14).
 * Concurrent creations share one round trip for theirs.
 */
const depositIds = batcherPerDatabase<null, number>((ctx) => new Batcher(async (items) => {
  const { rows } = await ctx.db.query<{ id: number }>(
    `SELECT nextval(pg_get_serial_sequence('deposits', 'id'))::integer AS id FROM generate_series(1, $1::integer)`,
    [items.length],
    { name: 'caja_deposit_ids' },
  );
  return rows.map((r) => r.id);
}, { maxBatch: 64, maxInFlight: 2 }));

function nextDepositId(ctx: AppContext): Promise<number> {
  return depositIds(ctx).submit(null);
}

export interface CreateOptions {
  source: DepositSource;
  idempotency?: { key: string; fingerprint: string };
  /** Streamline: x_confirmation, x_return, x_bank when not a catalog method, other form fields. */
  confirmationUrl?: string | null;
  returnUrl?: string | null;
  bankCode?: string | null;
  extra?: Record<string, unknown>;
  /** Who created it, for the history row; defaults to 'merchant'. */
  actor?: string;
}

export interface CreateResult {
  deposit: CreatedDeposit;
  /** True when an idempotency key matched an earlier request: `deposit` is that one's. */
  replayed: boolean;
}

/** SHA-256 hex of a request body, the fingerprint idempotency keys are compared by. */
export function fingerprint(raw: Buffer | string): string {
  return createHash('sha256').update(raw).digest('hex');
}

const COLUMNS = [
  'id', 'merchant_id', 'source', 'invoice_id', 'user_id', 'country', 'amount', 'currency', 'local_amount', 'local_currency',
  'usd_amount', 'fee_local', 'surcharge_local', 'payer_amount', 'fee_usd', 'merchant_usd', 'fee_on_payer', 'surcharge_on_payer', 'fee_schedule',
  'payment_method', 'payment_type', 'payment_types', 'bank_code', 'checkout_type', 'token', 'status', 'test', 'payer',
  'payer_document', 'payer_document_type', 'payer_name', 'payer_email', 'missing_fields', 'invalid_fields', 'description',
  'notification_url', 'confirmation_url', 'return_url', 'back_url', 'success_url', 'error_url', 'logo', 'language', 'client_ip',
  'device_id', 'mobile', 'early_release', 'bonus_amount', 'bonus_relative', 'strikethrough_price', 'reported_info',
  'bank_account', 'crypto', 'extra', 'payment_info', 'connector', 'connector_reference', 'sandbox_outcome', 'sandbox_due_at', 'expires_at', 'created_at', 'updated_at',
] as const;


// One statement writes a batch of deposits (src/db/batcher.ts: concurrent creations share it),
// each with its first history row, its creation event and its idempotency key: atomic by itself,
// so a creation that needs no limit check is a single round trip; inside a transaction it keeps the locks short. The rows come as one JSON array read into
// the table's own row type, so the statement text is the same for any batch size (prepared once
// per connection).
//   A row is left out when its idempotency key is already taken (the caller then answers from the
// key) or when its invoice id is already used; invoice ids of rows still being written wait for
// those to commit first. Nothing else makes two creations one: two identical requests (even the
// same signed bytes) are two deposits (docs/security.md, Replay). A key taken by a
// creation still running when this one read the keys fails the statement (unique violation of
// idempotency_keys) and so writes nothing of it: the caller answers from the key once that one
// has committed, and the batcher writes the other rows of the batch again without it.
const INSERT_SQL = `
WITH i AS MATERIALIZED (
  SELECT COALESCE(r.id, nextval(pg_get_serial_sequence('deposits', 'id'))::integer) AS new_id, r.*,
         j->>'actor' AS actor, j->>'at' AS at,
         j->>'idempotency_key' AS idempotency_key, j->>'idempotency_fingerprint' AS idempotency_fingerprint
  FROM jsonb_array_elements($1::jsonb) AS x(j), LATERAL jsonb_populate_record(NULL::deposits, j) AS r
), fresh AS (
  -- LATERAL with LIMIT: one index probe per row (NOT EXISTS under an OR was planned as a hash of
  -- the whole table, read again by every statement).
  SELECT i.* FROM i LEFT JOIN LATERAL (
    SELECT 1 AS taken FROM idempotency_keys k
    WHERE i.idempotency_key IS NOT NULL AND k.merchant_id = i.merchant_id AND k.scope = 'deposits' AND k.key = i.idempotency_key LIMIT 1
  ) t ON true
  WHERE t.taken IS NULL
), d AS (
  INSERT INTO deposits (${COLUMNS.join(', ')})
  SELECT new_id, ${COLUMNS.slice(1).join(', ')} FROM fresh
  ON CONFLICT (merchant_id, invoice_id) DO NOTHING
  RETURNING ${CREATED_COLUMNS.join(', ')}
), h AS (
  INSERT INTO deposit_status_changes (deposit_id, from_status, to_status, cause, actor, created_at)
  SELECT d.id, NULL, 'PENDING', 'created', i.actor, d.created_at FROM d JOIN i ON i.new_id = d.id
), e AS (
  -- The creation event (as recordEvent writes it; creation notifies nobody).
  INSERT INTO events (merchant_id, type, subject_type, subject_id, data)
  SELECT d.merchant_id, 'deposit.created', 'deposit', d.id, json_build_object(
    'deposit_id', d.id, 'invoice_id', d.invoice_id, 'status', d.status, 'source', d.source, 'checkout_type', d.checkout_type, 'at', i.at)
  FROM d JOIN i ON i.new_id = d.id
), k AS (
  INSERT INTO idempotency_keys (merchant_id, scope, key, fingerprint, deposit_id)
  SELECT d.merchant_id, 'deposits', i.idempotency_key, i.idempotency_fingerprint, d.id
  FROM d JOIN i ON i.new_id = d.id WHERE i.idempotency_key IS NOT NULL
)
SELECT * FROM d`;

/**
 * One deposit to write: its columns as JSON values (amounts as exact decimal strings, jsonb
 * columns as plain objects, dates as ISO strings) and the extras, so that the whole batch is
 * written by the native JSON.stringify.
 */
type NewDepositRow = Record<(typeof COLUMNS)[number], unknown> & {
  actor: string;
  at: string;
  idempotency_key: string | null;
  idempotency_fingerprint: string | null;
};

/** Writes deposits in one statement; each gets its row, or null when it was left out (above). */
async function writeDeposits(q: Queryable, rows: NewDepositRow[]): Promise<(CreatedDeposit | null)[]> {
  // Rows keep payment_info without its QR image (stored-payment-info.ts); the answer has it.
  const stored = rows.map((r) => (r.payment_info ? { ...r, payment_info: storedPaymentInfo(r.payment_info as string) } : r));
  // Committed with its answer lost (a failover, src/db/db.ts): the rows are read back by their
  // tokens (a deposit left out has none of them).
  const tokens = rows.map((r) => r.token as string);
  const reread = () => q.query<CreatedDeposit>(`SELECT ${CREATED_COLUMNS.join(', ')} FROM deposits WHERE token = ANY($1::text[])`, [tokens]);
  const { rows: written } = await q.query<CreatedDeposit>(INSERT_SQL, [JSON.stringify(stored)], { name: 'caja_deposit_insert', reread });
  // Tokens are random per deposit: they say which row is whose.
  const byToken = new Map(written.map((r) => [r.token, r]));
  return rows.map((r) => {
    const w = byToken.get(r.token as string);
    if (w) w.payment_info = r.payment_info as string | null;
    return w ?? null;
  });
}

// By default up to 64 deposits a statement, one statement at a time per process. Measured on two
// cores against 2 and 4 at a time: concurrent statements of one merchant's deposits each lock
// the merchant's row for their foreign keys (shared locks that become multixacts) and come in
// smaller batches; one at a time cost PostgreSQL 96 µs a HOSTED creation instead of 143, the
// server 125 µs instead of 146, and gave 5,540/s instead of 4,722/s, with a lower p99 at 70 %.
const depositBatchOptions = (ctx: AppContext) => ({ ...ctx.config.depositBatch, onBatch: (n: number) => ctx.metrics.depositBatchSize.observe(n) });

/** A creation batcher whose queue the caja_deposit_batch_waiting gauge reads when scraped. */
function watched<I, O>(ctx: AppContext, b: Batcher<I, O>): Batcher<I, O> {
  ctx.metrics.depositQueues.push(() => b.waiting);
  return b;
}

const batchedWriter = batcherPerDatabase<NewDepositRow, CreatedDeposit | null>(
  (ctx) => watched(ctx, new Batcher((rows) => writeDeposits(ctx.db, rows), depositBatchOptions(ctx))),
);

/** A deposit under a daily or monthly customer limit, with what its check needs. */
interface CheckedRow extends RuleCheck {
  row: NewDepositRow;
}

type CheckedOutcome = { exceeded: LimitKind } | { written: CreatedDeposit | null };

/**
 * Deposits under daily or monthly customer limits, grouped too: one transaction locks the
 * customers of a batch, reads their usage, and writes the deposits that pass in the shared
 * statement (five round trips for the batch; a deposit alone took as many). A second deposit of
 * a customer already in the batch is checked in a second round of the same transaction, whose
 * usage counts the first; so is a third, and so on, in the order they came.
 */
const checkedWriter = batcherPerDatabase<CheckedRow, CheckedOutcome>((ctx) => watched(ctx, new Batcher((items) => ctx.db.tx(async (q) => {
  const outcomes = new Array<CheckedOutcome>(items.length);
  let pending = items.map((item, at) => ({ item, at }));
  while (pending.length > 0) {
    const first = firstOfEachCustomer(pending.map((p) => p.item.check));
    const round = pending.filter((_, k) => first[k]);
    pending = pending.filter((_, k) => !first[k]);
    const exceeded = await checkCustomerLimits(q, round.map((p) => p.item));
    const passing = round.filter((_, k) => !exceeded[k]);
    const written = passing.length > 0 ? await writeDeposits(q, passing.map((p) => p.item.row)) : [];
    // writeDeposits answers in the order of `passing`, which keeps the round's order.
    let next = 0;
    round.forEach((p, k) => {
      const kind = exceeded[k];
      outcomes[p.at] = kind ? { exceeded: kind } : { written: written[next++] ?? null };
    });
  }
  return outcomes;
}), depositBatchOptions(ctx))));

async function writeChecked(ctx: AppContext, item: CheckedRow): Promise<CreatedDeposit | null> {
  const outcome = await checkedWriter(ctx).submit(item);
  if ('exceeded' in outcome) throw new DepositError('user_limit', `User limit exceeded: ${outcome.exceeded}`, { limit: outcome.exceeded });
  return outcome.written;
}

// Tokens are cut from a block of random bytes filled once per 256 of them: a crypto call per
// token (randomBytes(16)) was 3 % of a HOSTED creation's CPU. Each byte is used once.
const TOKEN_BYTES = 16;
let tokenBlock = Buffer.alloc(0);
let tokenAt = 0;

/** 16 random bytes, base64url: the deposit's unguessable name in checkout URLs. */
function depositToken(): string {
  if (tokenAt + TOKEN_BYTES > tokenBlock.length) {
    tokenBlock = randomBytes(256 * TOKEN_BYTES);
    tokenAt = 0;
  }
  tokenAt += TOKEN_BYTES;
  return tokenBlock.toString('base64url', tokenAt - TOKEN_BYTES, tokenAt);
}

export async function createDeposit(ctx: AppContext, merchant: Merchant, input: DepositRequest, opts: CreateOptions): Promise<CreateResult> {
  const now = ctx.now();
  const method = input.paymentMethod;
  const type = (method?.type ?? (input.paymentType && input.paymentType !== 'ALL' ? input.paymentType : null)) as PaymentType | null;
  const chargeOpts = { feeOnPayer: input.feeOnPayer, surchargeOnPayer: input.surchargeOnPayer };
  // By the merchant's own fee schedule when it has one; the deposit keeps it (fee_schedule below).
  const schedule = merchant.fee_schedule;
  // Fees in each currency's minor unit: whole pesos on a CLP deposit.
  const { local, usd } = depositCharges({ local: input.localAmount, localCurrency: input.localCurrency, usd: input.usdAmount }, type, chargeOpts, schedule);
  const token = depositToken();
  const expiresAt = new Date(now.getTime() + (method?.expiryMinutes ?? HOSTED_EXPIRY_MINUTES) * 60_000);
  const userId = input.payer.id ?? randomUUID();
  const invoiceId = input.invoiceId ?? randomUUID();
  const outcome = ctx.config.sandbox ? sandboxOutcome(input.payer.email, input.amount) : null;

  // The customer limits, read before a charge is made at a provider: a refused deposit (304)
  // leaves no live charge behind (a Pix QR code the customer could still pay).
  const limitCheck = {
    merchantId: merchant.id, country: input.country, paymentMethod: method?.code ?? null, userId,
    document: input.payer.document, amountUsd: input.usdAmount, now,
  };
  const pre = preloadedRules.get(input);
  const rules = pre && pre.merchantId === merchant.id ? pre.rules : await loadLimitRules(ctx.db, merchant.id, input.country);
  const rule = applicableRule(rules, limitCheck);
  // A cap on one deposit is checked on its own and the deposit joins the shared statement like
  // any other; a daily or monthly ceiling reads the customer's usage under a per-customer lock,
  // in the transaction of a batch of such deposits (checkedWriter).
  const lockedRule = rule && needsUsage(rule) ? rule : null;
  const amountOnly = rule && !lockedRule ? checkAmountOnly(rule, limitCheck) : null;
  const refuseOverCap = () => {
    if (amountOnly) throw new DepositError('user_limit', `User limit exceeded: ${amountOnly}`, { limit: amountOnly });
  };

  // ONE_SHOT payment info is built before the insert (a Pix QR image is ≈0.1 ms of CPU that no
  // statement should wait for), so its id is taken from the sequence up front.
  // The charge comes from the method's connector (src/connectors/registry.ts): staging's
  // simulator builds it in memory; a real one (Pix) asks its provider, and a provider that
  // refuses or does not answer fails the creation before anything is written.
  let id: number | null = null;
  let paymentInfo: string | null = null;
  let connectorName: string | null = null;
  let connectorReference: string | null = null;
  if (input.checkoutType === 'ONE_SHOT' && method) {
    const connector = await payinConnectorFor(ctx, input.country, method.code);
    // prepareDepositRequest refused a method no connector serves; one gone since is as good as down.
    if (!connector) throw providerFailure(new ConnectorError('not_configured', `no connector serves ${method.code} any more`), `The ${method.name} provider`);
    id = await nextDepositId(ctx);
    const order = chargeOrder(ctx.config.publicBaseUrl, { depositId: id, token, method, payerAmount: local.payerAmount, createdAt: now, expiresAt, description: input.description, payer: input.payer });
    // A real provider's charge outlives a creation that is then left out: an idempotent
    // replay or a used invoice id is answered before the provider is asked (and answered
    // even while the provider is down).
    if (!connector.simulated) {
      const prior = await answerBeforeCharge(ctx, merchant.id, invoiceId, opts);
      if (prior) return prior;
    }
    // Before the charge (after a replay is answered, as it was before limits could change):
    // the cap on one deposit, and under a daily or monthly ceiling the customer's usage, read
    // again under the lock when the deposit is written (a concurrent deposit that takes the room
    // meanwhile has this charge withdrawn below).
    refuseOverCap();
    if (lockedRule && !connector.simulated) {
      const [exceeded] = await ctx.db.tx((q) => checkCustomerLimits(q, [{ rule: lockedRule, check: limitCheck }]));
      if (exceeded) throw new DepositError('user_limit', `User limit exceeded: ${exceeded}`, { limit: exceeded });
    }
    let charge: Charge;
    try {
      charge = await connector.createCharge(order);
    } catch (err) {
      throw err instanceof ConnectorError ? providerFailure(err, `The ${method.name} provider`) : err;
    }
    paymentInfo = charge.paymentInfo ? toJson(charge.paymentInfo) : null;
    connectorName = connector.name;
    connectorReference = charge.reference;
  }

  const payerName = [input.payer.first_name, input.payer.last_name].filter(Boolean).join(' ') || null;
  const crypto = cryptoColumn(method, input.crypto, usd.payerAmount, token);
  const row: NewDepositRow = {
    id, merchant_id: merchant.id, source: opts.source, invoice_id: invoiceId, user_id: userId, country: input.country,
    amount: toDb(input.amount), currency: input.currency, local_amount: toDb(input.localAmount), local_currency: input.localCurrency,
    usd_amount: toDb(input.usdAmount), fee_local: toDb(local.fee), surcharge_local: toDb(local.surcharge),
    payer_amount: toDb(local.payerAmount), fee_usd: toDb(usd.fee), merchant_usd: toDb(usd.merchantAmount),
    fee_on_payer: input.feeOnPayer, surcharge_on_payer: input.surchargeOnPayer, fee_schedule: schedule,
    payment_method: method?.code ?? null, payment_type: type, payment_types: input.paymentTypes, bank_code: opts.bankCode ?? null,
    checkout_type: input.checkoutType, token, status: 'PENDING', test: input.test,
    payer: input.payer, payer_document: input.payer.document ?? null, payer_document_type: input.payer.document_type ?? null,
    payer_name: payerName, payer_email: input.payer.email ?? null, missing_fields: input.missingPayerFields, invalid_fields: input.invalidPayerFields,
    description: input.description, notification_url: input.notificationUrl, confirmation_url: opts.confirmationUrl ?? null,
    return_url: opts.returnUrl ?? null, back_url: input.backUrl, success_url: input.successUrl, error_url: input.errorUrl,
    logo: input.logo, language: input.language, client_ip: input.clientIp, device_id: input.deviceId, mobile: input.mobile,
    early_release: input.earlyRelease, bonus_amount: input.bonusAmount ? toDb(input.bonusAmount) : null, bonus_relative: input.bonusRelative,
    strikethrough_price: input.strikethroughPrice ? toDb(input.strikethroughPrice) : null,
    reported_info: input.reportedInfo ?? null, bank_account: input.bankAccount ?? null,
    crypto: crypto === null ? null : JSON.parse(crypto), extra: opts.extra ?? {},
    payment_info: paymentInfo, connector: connectorName, connector_reference: connectorReference, sandbox_outcome: outcome,
    sandbox_due_at: outcome ? new Date(now.getTime() + ctx.config.sandboxAutoSeconds * 1000) : null,
    expires_at: expiresAt, created_at: now, updated_at: now,
    actor: opts.actor ?? 'merchant', at: now.toISOString(),
    idempotency_key: opts.idempotency?.key ?? null, idempotency_fingerprint: opts.idempotency?.fingerprint ?? null,
  };
  refuseOverCap();
  let written: CreatedDeposit | null = null;
  try {
    written = lockedRule ? await writeChecked(ctx, { row, rule: lockedRule, check: limitCheck }) : await batchedWriter(ctx).submit(row);
  } catch (err) {
    // A concurrent deposit of the same customer used the room the check before the charge saw:
    // the charge made for this one is withdrawn, so that it can never be paid.
    if (err instanceof DepositError && err.kind === 'user_limit' && id !== null) await withdrawCharge(ctx, { id, connector: connectorName, connector_reference: connectorReference });
    if (!isIdempotencyKeyTaken(err)) throw err;
  }
  if (written) return { deposit: written, replayed: false };
  return leftOutAnswer(ctx, merchant.id, opts);
}

/**
 * The answer to a creation whose row was left out (INSERT_SQL): the deposit its idempotency key
 * names (replayed; another body is 104), else its invoice id is used.
 */
async function leftOutAnswer(ctx: AppContext, merchantId: number, opts: CreateOptions): Promise<CreateResult> {
  if (opts.idempotency) {
    const { rows } = await ctx.db.query<{ fingerprint: string; deposit_id: number | null }>(
      `SELECT fingerprint, deposit_id FROM idempotency_keys WHERE merchant_id = $1 AND scope = 'deposits' AND key = $2`,
      [merchantId, opts.idempotency.key],
    );
    const prior = rows[0];
    if (prior) {
      const deposit = prior.fingerprint === opts.idempotency.fingerprint && prior.deposit_id !== null ? await findDeposit(ctx.db, prior.deposit_id) : null;
      if (!deposit) throw new DepositError('idempotency_key_used', 'The idempotency key was already used with a different request');
      return { deposit, replayed: true };
    }
  }
  throw new DepositError('invoice_used', 'invoice_id already used');
}

/**
 * For a charge made at a provider: the answer when the request's idempotency key or invoice id
 * already names a deposit (as leftOutAnswer would give after the insert), or null.
 */
async function answerBeforeCharge(ctx: AppContext, merchantId: number, invoiceId: string, opts: CreateOptions): Promise<CreateResult | null> {
  const { rows } = await ctx.db.query<{ key: boolean; invoice: boolean }>(
    `SELECT EXISTS (SELECT 1 FROM idempotency_keys WHERE merchant_id = $1 AND scope = 'deposits' AND key = $2) AS key,
            EXISTS (SELECT 1 FROM deposits WHERE merchant_id = $1 AND invoice_id = $3) AS invoice`,
    [merchantId, opts.idempotency?.key ?? null, invoiceId],
  );
  const r = rows[0]!;
  if (r.key || r.invoice) return leftOutAnswer(ctx, merchantId, { ...opts, idempotency: r.key ? opts.idempotency : undefined });
  return null;
}

/** A creation running at the same time took the key after this one's statement had read the keys. */
function isIdempotencyKeyTaken(err: unknown): boolean {
  return violatesConstraint(err, '23505', 'idempotency_keys_pkey');
}

const STATUS_SQL = `SELECT merchant_id, ${STATUS_VIEW_COLUMNS.join(', ')} FROM deposits WHERE id = ANY($1::integer[])`;

type StatusLookup = { merchantId: number; id: number };

const statusReader = batcherPerDatabase((ctx) => new Batcher<StatusLookup, StatusViewRow | null>(async (items) => {
  const { rows } = await ctx.db.query<StatusViewRow & { merchant_id: number }>(STATUS_SQL, [items.map((i) => i.id)], { name: 'caja_deposit_status' });
  const byId = new Map(rows.map((r) => [r.id, r]));
  // Another merchant's deposit is not found, exactly as a missing one.
  return items.map((i) => {
    const r = byId.get(i.id);
    return r && r.merchant_id === i.merchantId ? r : null;
  });
}, { maxBatch: 64, maxInFlight: 4 }));

/**
 * What GET /v3/deposits/{id} shows of a merchant's own deposit, or null. Concurrent look-ups
 * share one indexed read (src/db/batcher.ts), so a busy server sends one query for many.
 */
export function getDepositStatus(ctx: AppContext, merchantId: number, id: number): Promise<StatusViewRow | null> {
  return statusReader(ctx).submit({ merchantId, id });
}

export { isCrypto, transitionDeposit, transitionDepositIn, type TransitionOptions } from './transitions.ts';
