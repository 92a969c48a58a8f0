// The Adyen connector: cards (with 3-D Secure 2) on Adyen's hosted checkout, boleto
// (boletobancario, BR) and OXXO (MX) vouchers, through Adyen's Checkout API v71.
//
//   card      POST /sessions (mode hosted): the customer is redirected to Adyen's page, where the
//             card number and CVC are typed (never on caja's servers) and 3-D Secure runs; back on
//             the return leg the result is read server-to-server (GET /sessions/{id}?sessionResult)
//             and the AUTHORISATION notification confirms it (src/deposits/acquirer-events.ts)
//   voucher   POST /payments {paymentMethod: boletobancario | oxxo}: Adyen's voucher action is
//             the payment_info the pages show; AUTHORISATION completes it days later, OFFER_CLOSED
//             (expired) cancels it
//   refund    POST /payments/{pspReference}/refunds (cards; Adyen refunds no boleto or OXXO),
//             settled by REFUND / REFUND_FAILED
// Every POST carries an Idempotency-Key (the charge's random merchantReference, the refund's
// reference), so a request whose answer was lost is sent again as the same one. docs/connectors.md.
import type { AppContext } from '../../config/context.ts';
import { fromDb, toDb } from '../../domain/money.ts';
import { ConnectorError, type PayinConnector, type ProviderPayment, type RefundOutcome, returnPath } from '../payin.ts';
import { recordHealth, type StoredConnector } from '../store.ts';
import { AdyenClient } from './client.ts';
import { adyenType, minorUnits, newMerchantReference, paymentInfoFromVoucher, refundBody, sessionBody, sessionResult, voucherBody } from './mapping.ts';
import { parseNotifications, type ParsedBatch } from './notifications.ts';

export const ADYEN_CONNECTOR = 'adyen';

/** What PUT /admin/connectors/adyen stores: settings shown back, secrets sealed. */
export interface AdyenSettings {
  merchant_account: string;
  endpoint: string;
  api_url: string;
  live_prefix?: string;
  /** JSON of {country: [method codes]}. */
  methods: string;
  /** '2' while a second HMAC key is set (rotation). */
  hmac_keys: string;
  ca?: string;
}

export interface AdyenSecrets {
  api_key: string;
  hmac_key: string;
  hmac_key_next?: string;
}

export interface AdyenConnector extends PayinConnector {
  readonly merchantAccount: string;
  /** A notification batch, verified against the configured HMAC key(s) and merchant account. */
  verify(body: unknown): ParsedBatch;
}

/** The (country, method) pairs a stored configuration serves. */
export function servedPairs(stored: Pick<StoredConnector, 'settings'>): { country: string; method: string }[] {
  let methods: Record<string, string[]> = {};
  try {
    methods = JSON.parse(stored.settings.methods ?? '{}') as Record<string, string[]>;
  } catch {
    return [];
  }
  return Object.entries(methods).flatMap(([country, codes]) => (Array.isArray(codes) ? codes.filter((c) => adyenType(country, c)).map((method) => ({ country, method })) : []));
}

export function buildAdyenConnector(ctx: AppContext, stored: StoredConnector): AdyenConnector {
  const settings = stored.settings as unknown as AdyenSettings;
  const secrets = stored.secrets as unknown as AdyenSecrets;
  const client = new AdyenClient({ apiUrl: settings.api_url, apiKey: secrets.api_key, ca: settings.ca || undefined, timeoutMs: ctx.config.connectors.timeoutMs });
  const merchantAccount = settings.merchant_account;
  const keys = [secrets.hmac_key, ...(secrets.hmac_key_next ? [secrets.hmac_key_next] : [])];

  async function guarded<T>(what: string, run: () => Promise<T>): Promise<T> {
    try {
      return await run();
    } catch (err) {
      if (err instanceof ConnectorError && err.kind !== 'not_found') await recordHealth(ctx, ADYEN_CONNECTOR, { kind: 'error', message: `${what}: ${err.message}` });
      throw err;
    }
  }

  async function charge(reference: string) {
    const { rows } = await ctx.db.query<{ method: string; amount: string; currency: string; session_id: string | null; psp_reference: string | null }>(
      'SELECT method, amount::text, currency, session_id, psp_reference FROM adyen_charges WHERE merchant_reference = $1', [reference]);
    return rows[0] ?? null;
  }

  /** An AUTHORISATION notification stored for a payment, as the payment it confirms. */
  const paymentOf = (r: { psp_reference: string; merchant_reference: string; amount: string; currency: string; event_date: Date | null; received_at: Date; payment_method: string | null }): ProviderPayment => ({
    id: r.psp_reference, chargeReference: r.merchant_reference, amount: fromDb(r.amount), currency: r.currency, receiver: merchantAccount,
    paidAt: r.event_date ?? r.received_at, raw: { paymentMethod: r.payment_method },
  });
  const EVENT_COLUMNS = 'psp_reference, merchant_reference, amount::text, currency, event_date, received_at, payment_method';

  return {
    name: ADYEN_CONNECTOR,
    simulated: false,
    merchantAccount,

    verify: (body) => parseNotifications(body, keys, merchantAccount),

    async createCharge(order) {
      const type = adyenType(order.method.country, order.method.code);
      if (!type) throw new ConnectorError('refused', `Adyen does not serve ${order.method.country} ${order.method.code}`);
      const reference = newMerchantReference();
      const amount = minorUnits(order.amount, order.method.currency);
      const returnUrl = `${order.publicBaseUrl}${returnPath(ADYEN_CONNECTOR, order.token)}`;
      // Stored before the request: the charge is known by its reference whatever happens next.
      await ctx.db.query('INSERT INTO adyen_charges (merchant_reference, method, amount, currency) VALUES ($1, $2, $3, $4)', [reference, type, toDb(order.amount), amount.currency]);
      // One resend under the same Idempotency-Key after an answer that did not come: Adyen
      // answers the first request's result, never a second payment.
      const send = async <T>(path: string, body: unknown): Promise<T> => {
        try {
          return await guarded(path, () => client.call<T>('POST', path, body, reference));
        } catch (err) {
          if (!(err instanceof ConnectorError) || err.kind !== 'unavailable') throw err;
          return guarded(path, () => client.call<T>('POST', path, body, reference));
        }
      };
      if (type === 'scheme') {
        const s = await send<{ id?: unknown; url?: unknown }>('/sessions', sessionBody(order, merchantAccount, reference, returnUrl));
        if (typeof s.id !== 'string' || typeof s.url !== 'string' || !/^https:\/\//.test(s.url)) throw new ConnectorError('invalid_response', 'POST /sessions: the answer has no session id or hosted url');
        await ctx.db.query('UPDATE adyen_charges SET session_id = $2 WHERE merchant_reference = $1', [reference, s.id]);
        return { paymentInfo: null, reference, nextAction: { type: 'redirect', url: s.url, method: 'GET' } };
      }
      const p = await send<{ pspReference?: unknown; resultCode?: unknown; action?: unknown; refusalReason?: unknown }>('/payments', voucherBody(order, type, merchantAccount, reference, returnUrl));
      if (p.resultCode !== 'PresentToShopper' || typeof p.pspReference !== 'string') {
        throw new ConnectorError('refused', `POST /payments: ${String(p.resultCode)}${p.refusalReason ? ` (${String(p.refusalReason)})` : ''}`);
      }
      let paymentInfo;
      try {
        paymentInfo = paymentInfoFromVoucher(order, p.pspReference, p.action);
      } catch (err) {
        throw new ConnectorError('invalid_response', `POST /payments: ${(err as Error).message}`);
      }
      await ctx.db.query('UPDATE adyen_charges SET psp_reference = $2 WHERE merchant_reference = $1', [reference, p.pspReference]);
      return { paymentInfo, reference };
    },

    async readReturn(reference, params) {
      const c = await charge(reference);
      if (!c?.session_id) return { status: 'pending' };
      // What the browser brought is handed to Adyen, never believed: the session must be this
      // charge's, and Adyen answers its result.
      if (!params.sessionResult || (params.sessionId && params.sessionId !== c.session_id)) return { status: 'pending' };
      const body = await guarded('session result', () => client.call('GET', `/sessions/${encodeURIComponent(c.session_id!)}?sessionResult=${encodeURIComponent(params.sessionResult!)}`));
      const result = sessionResult(body, reference, minorUnits(fromDb(c.amount), c.currency), merchantAccount);
      return result;
    },

    async chargeStatus(reference) {
      const { rows } = await ctx.db.query<{ event_code: string; success: boolean; reason: string | null } & Parameters<typeof paymentOf>[0]>(
        `SELECT event_code, success, reason, ${EVENT_COLUMNS} FROM adyen_events WHERE merchant_reference = $1 AND event_code IN ('AUTHORISATION', 'OFFER_CLOSED')`, [reference]);
      const paid = rows.filter((r) => r.event_code === 'AUTHORISATION' && r.success);
      if (paid.length) return { status: 'paid', payments: paid.map(paymentOf) };
      const closed = rows.find((r) => r.event_code === 'OFFER_CLOSED' && r.success);
      return closed ? { status: 'cancelled', reason: 'OFFER_CLOSED' } : { status: 'pending' };
    },

    async readPayment(psp) {
      const { rows } = await ctx.db.query<Parameters<typeof paymentOf>[0]>(
        `SELECT ${EVENT_COLUMNS} FROM adyen_events WHERE psp_reference = $1 AND event_code = 'AUTHORISATION' AND success`, [psp]);
      return rows[0] ? paymentOf(rows[0]) : null;
    },

    // Notifications are verified and applied by src/deposits/acquirer-events.ts, not as hints.
    parseHint: () => [],

    checkPayment(payment, deposit) {
      if (deposit.status !== 'PENDING') return { ok: false, reason: `the deposit is ${deposit.status}` };
      if (payment.chargeReference !== deposit.reference) return { ok: false, reason: 'another charge' };
      if (toDb(payment.amount) !== toDb(deposit.payerAmount)) return { ok: false, reason: `paid ${toDb(payment.amount)}, the charge asked ${toDb(deposit.payerAmount)}` };
      return { ok: true };
    },

    async refund(order) {
      if (!order.paymentId) throw new ConnectorError('refused', 'the deposit has no Adyen payment to refund');
      const body = await guarded('refund', () => client.call<{ pspReference?: unknown; status?: unknown }>('POST', `/payments/${encodeURIComponent(order.paymentId!)}/refunds`, refundBody(merchantAccount, order.amount, order.currency, order.reference), order.reference));
      if (body.status !== 'received') throw new ConnectorError('invalid_response', `refund: status ${String(body.status)}`);
      return { status: 'PENDING', providerId: typeof body.pspReference === 'string' ? body.pspReference : undefined, providerState: 'received', reference: order.reference };
    },

    async refundStatus(order): Promise<RefundOutcome | null> {
      // Adyen has no refund look-up: its REFUND / REFUND_FAILED notification is the answer. Before
      // it, null: the refund is sent again under the same Idempotency-Key (Adyen answers the first).
      const { rows } = await ctx.db.query<{ psp_reference: string; event_code: string; success: boolean; reason: string | null; amount: string }>(
        `SELECT psp_reference, event_code, success, reason, amount::text FROM adyen_events WHERE merchant_reference = $1 AND event_code IN ('REFUND', 'REFUND_FAILED')
         ORDER BY received_at DESC`, [order.reference]);
      const failed = rows.find((r) => r.event_code === 'REFUND_FAILED' || !r.success);
      const done = rows.find((r) => r.event_code === 'REFUND' && r.success);
      if (done && fromDb(done.amount) && toDb(fromDb(done.amount)) !== toDb(order.amount)) return { status: 'MISMATCH', reason: `Adyen refunded ${done.amount} under this reference` };
      if (failed) return { status: 'REJECTED', providerId: failed.psp_reference, providerState: failed.event_code, reason: `Adyen could not refund: ${failed.reason ?? 'REFUND_FAILED'}`, reasonCode: 'REFUND_FAILED' };
      if (done) return { status: 'COMPLETED', providerId: done.psp_reference, providerState: 'REFUND', reference: order.reference };
      return null;
    },

    async cancelCharge(reference) {
      // A voucher withdrawn (its deposit cancelled): Adyen cancels the payment so it cannot be paid.
      const c = await charge(reference);
      if (!c?.psp_reference) return;
      await guarded('cancel', () => client.call('POST', `/payments/${encodeURIComponent(c.psp_reference!)}/cancels`, { merchantAccount, reference: `${reference}-cancel` }, `${reference}-cancel`));
    },

    close() {
      setTimeout(() => client.close(), 2 * ctx.config.connectors.timeoutMs).unref();
    },

    async health() {
      const h = await adyenHealth(ctx);
      return { ok: h.last_error === null || (h.last_notification_at !== null && h.last_error_at !== null && h.last_notification_at > h.last_error_at), ...h };
    },
  };
}

/** Health from what the connector recorded: last authorisation, last notification, failures. */
export async function adyenHealth(ctx: Pick<AppContext, 'db' | 'now'>) {
  const since = new Date(ctx.now().getTime() - 24 * 3600_000);
  const { rows } = await ctx.db.query<{ last_auth: Date | null; last_notification: Date | null; refused: string; refunds_failed: string }>(
    `SELECT max(received_at) FILTER (WHERE event_code = 'AUTHORISATION' AND success) AS last_auth, max(received_at) AS last_notification,
            count(*) FILTER (WHERE event_code = 'AUTHORISATION' AND NOT success AND received_at >= $1) AS refused,
            count(*) FILTER (WHERE event_code = 'REFUND_FAILED' AND received_at >= $1) AS refunds_failed
     FROM adyen_events`, [since]);
  const c = (await ctx.db.query<{ last_error: string | null; last_error_at: Date | null }>('SELECT last_error, last_error_at FROM connectors WHERE name = $1', [ADYEN_CONNECTOR])).rows[0];
  const r = rows[0]!;
  return {
    last_authorisation_at: r.last_auth, last_notification_at: r.last_notification,
    refused_last_24h: Number(r.refused), refunds_failed_last_24h: Number(r.refunds_failed),
    last_error: c?.last_error ?? null, last_error_at: c?.last_error_at ?? null,
  };
}
