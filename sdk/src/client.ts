// A thin client for caja's v3, v5 and cashout endpoints. Each call signs its request the way
// its face expects, retries what is safe to retry (transport errors and 5xx, with exponential
// backoff), and throws a CajaApiError subclass for an error answer. Request and response types
// come from the OpenAPI document (src/openapi.ts, `npm run generate`).
import { randomUUID } from 'node:crypto';
import type { paths } from './openapi.ts';
import { apiError, CajaConnectionError, CajaConflictError, type CajaApiError } from './errors.ts';
import { payloadSignature, v3AuthHeaders } from './signatures.ts';

type Op<P extends keyof paths, M extends string> = M extends keyof paths[P] ? NonNullable<paths[P][M]> : never;
type JsonOf<T> = T extends { content: { 'application/json': infer B } } ? B : never;
/** The JSON request body of an operation. */
export type RequestBody<P extends keyof paths, M extends string> = Op<P, M> extends { requestBody?: infer R } ? JsonOf<NonNullable<R>> : never;
/** The JSON body of an operation's success answer (200 or 201). */
export type ResponseBody<P extends keyof paths, M extends string> = Op<P, M> extends { responses: infer R }
  ? R extends { 200: infer A } ? JsonOf<A> : R extends { 201: infer A } ? JsonOf<A> : R extends { 202: infer A } ? JsonOf<A> : never
  : never;
export type Query<P extends keyof paths, M extends string> = Op<P, M> extends { parameters: { query?: infer Q } } ? NonNullable<Q> : never;

/** Cashout bodies: the client adds login and pass. */
type WithoutCredentials<T> = Omit<T, 'login' | 'pass'>;

export type DepositRequest = RequestBody<'/v3/deposits', 'post'>;
export type Deposit = ResponseBody<'/v3/deposits', 'post'>;
export type DepositStatus = ResponseBody<'/v3/deposits/{id}', 'get'>;
export type RefundRequest = RequestBody<'/v3/refunds', 'post'>;
export type Refund = ResponseBody<'/v3/refunds', 'post'>;
export type RefundStatus = ResponseBody<'/v3/refunds/{id}', 'get'>;
export type EventPage = ResponseBody<'/v3/events', 'get'>;
export type CajaEvent = EventPage['events'] extends (infer E)[] | undefined ? E : never;
export type CashoutRequest = WithoutCredentials<RequestBody<'/v3/cashout', 'post'>>;
export type CashoutStatus = ResponseBody<'/v3/cashout/status', 'post'>;
export type AccountValidationRequest = RequestBody<'/v5/account/validate', 'post'>;

export interface CajaOptions {
  /** e.g. https://caja.example or http://127.0.0.1:8080 */
  baseUrl: string;
  /** deposits.login and deposits.secret_key: v3 calls, sandbox, events. */
  deposits?: { login: string; secretKey: string };
  /** cashouts.login, .pass and .secret_key: cashouts and v5 validation. */
  cashouts?: { login: string; pass: string; secretKey: string };
  /** read_only_key: banks, payment methods, states, exchange rates. */
  readOnlyKey?: string;
  /** Retries after the first attempt, for transport errors and 5xx (default 2). */
  maxRetries?: number;
  /** First backoff in ms, doubled each retry with ±25 % jitter (default 250). */
  retryBaseMs?: number;
  /** Per-attempt timeout in ms (default 30000). */
  timeoutMs?: number;
  /**
   * v3/v5 signature scheme: 'SVC2' (default) also covers the method and the path with its query;
   * 'SVC' is the spec's, for a caja older than SVC2 or a provider without it.
   */
  signature?: 'SVC2' | 'SVC';
  fetch?: typeof fetch;
}

export interface CallOptions {
  /** Sent as X-Idempotency-Key; generated when absent and reused by every retry of this call. */
  idempotencyKey?: string;
}

/** Answer metadata, attached to results under the `lastResponse` property of the client. */
export interface ResponseInfo {
  status: number;
  requestId: string | undefined;
  idempotentReplayed: boolean;
  idempotencyKey: string | undefined;
}

interface Send {
  method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  path: string;
  query?: Record<string, string | number | undefined>;
  body?: unknown;
  auth: 'deposits' | 'cashouts-v5' | 'cashouts-body' | 'read-only';
  /** Only requests that cannot act twice are retried. */
  retry: boolean;
  idempotencyKey?: string;
}

export class Caja {
  readonly deposits;
  readonly refunds;
  readonly cashouts;
  readonly sandbox;
  readonly events;
  readonly notifications;
  readonly balance;
  readonly lookups;
  readonly validation;
  /** What the last answered request returned: status, X-Request-Id, Idempotent-Replayed. */
  lastResponse: ResponseInfo | undefined;
  private readonly fetchFn: typeof fetch;

  constructor(readonly options: CajaOptions) {
    this.fetchFn = options.fetch ?? fetch;
    const id = (v: number | string) => encodeURIComponent(String(v));
    this.deposits = {
      create: (body: DepositRequest, o: CallOptions = {}) =>
        this.send<Deposit>({ method: 'POST', path: '/v3/deposits', body, auth: 'deposits', retry: true, idempotencyKey: o.idempotencyKey ?? randomUUID() }),
      get: (depositId: number | string) => this.send<DepositStatus>({ method: 'GET', path: `/v3/deposits/${id(depositId)}`, auth: 'deposits', retry: true }),
      /** Newest first; pass next_before as `before` for the next page. */
      list: (q: Query<'/v3/deposits', 'get'> = {}) =>
        this.send<ResponseBody<'/v3/deposits', 'get'>>({ method: 'GET', path: '/v3/deposits', query: q as Send['query'], auth: 'deposits', retry: true }),
    };
    this.refunds = {
      create: (body: RefundRequest, o: CallOptions = {}) =>
        this.send<Refund>({ method: 'POST', path: '/v3/refunds', body, auth: 'deposits', retry: true, idempotencyKey: o.idempotencyKey ?? randomUUID() }),
      get: (refundId: number | string) => this.send<RefundStatus>({ method: 'GET', path: `/v3/refunds/${id(refundId)}`, auth: 'deposits', retry: true }),
    };
    this.cashouts = {
      /**
       * external_id is the idempotency key of a cashout: a retry that meets 511 (already used)
       * after a lost answer reads the cashout created by the first attempt instead of failing.
       */
      create: async (body: CashoutRequest): Promise<{ cashout_id: number }> => {
        let attempted = false;
        try {
          return await this.send<{ cashout_id: number }>({ method: 'POST', path: '/v3/cashout', body, auth: 'cashouts-body', retry: true }, () => (attempted = true));
        } catch (err) {
          if (attempted && err instanceof CajaConflictError && err.code === 511) {
            const status = await this.cashouts.status({ external_id: String((body as { external_id: unknown }).external_id) });
            return { cashout_id: status.cashout_id as number };
          }
          throw err;
        }
      },
      status: (ids: { cashout_id?: number; external_id?: string }) =>
        this.send<CashoutStatus>({ method: 'POST', path: '/v3/cashout/status', body: ids, auth: 'cashouts-body', retry: true }),
      /** PENDING → ON_HOLD. */
      hold: (cashoutId: number) =>
        this.send<CashoutStatus>({ method: 'PUT', path: '/v3/cashout/status', body: { cashout_id: cashoutId, status: 'ON_HOLD' }, auth: 'cashouts-body', retry: false }),
      /** ON_HOLD → PENDING. */
      release: (cashoutId: number) =>
        this.send<CashoutStatus>({ method: 'PUT', path: '/v3/cashout/status', body: { cashout_id: cashoutId, status: 'PENDING' }, auth: 'cashouts-body', retry: false }),
      cancel: (cashoutId: number, externalId: string) =>
        this.send<CashoutStatus>({ method: 'DELETE', path: '/v3/cashout/cancel', body: { cashout_id: cashoutId, external_id: externalId }, auth: 'cashouts-body', retry: false }),
    };
    const sandbox = (kind: string, action: string) => (objectId: number | string, body: Record<string, unknown> = {}) =>
      this.send<Record<string, unknown>>({ method: 'POST', path: `/v3/sandbox/${kind}/${id(objectId)}/${action}`, body, auth: 'deposits', retry: false });
    this.sandbox = {
      deposits: { approve: sandbox('deposits', 'approve'), cancel: sandbox('deposits', 'cancel'), expire: sandbox('deposits', 'expire') },
      refunds: { complete: sandbox('refunds', 'complete'), reject: sandbox('refunds', 'reject') },
      cashouts: { deliver: sandbox('cashouts', 'deliver'), complete: sandbox('cashouts', 'complete'), reject: sandbox('cashouts', 'reject') },
    };
    this.events = {
      /** Events after a cursor, oldest first; pass next_cursor as `after` next time. */
      list: (q: { after?: string; limit?: number } = {}) => this.send<EventPage>({ method: 'GET', path: '/v3/events', query: q, auth: 'deposits', retry: true }),
    };
    this.notifications = {
      list: (q: Query<'/v3/notifications', 'get'> = {}) =>
        this.send<ResponseBody<'/v3/notifications', 'get'>>({ method: 'GET', path: '/v3/notifications', query: q as Send['query'], auth: 'deposits', retry: true }),
      get: (notificationId: number) => this.send<ResponseBody<'/v3/notifications/{id}', 'get'>>({ method: 'GET', path: `/v3/notifications/${id(notificationId)}`, auth: 'deposits', retry: true }),
      resend: (notificationId: number) => this.send<Record<string, unknown>>({ method: 'POST', path: `/v3/notifications/${id(notificationId)}/resend`, auth: 'deposits', retry: false }),
    };
    this.balance = {
      get: () => this.send<ResponseBody<'/v3/balance', 'get'>>({ method: 'GET', path: '/v3/balance', auth: 'deposits', retry: true }),
      transactions: (q: Query<'/v3/balance/transactions', 'get'> = {}) =>
        this.send<ResponseBody<'/v3/balance/transactions', 'get'>>({ method: 'GET', path: '/v3/balance/transactions', query: q as Send['query'], auth: 'deposits', retry: true }),
    };
    const lookup = <T>(path: string) => (q: Record<string, string | number | undefined>) => this.send<T>({ method: 'GET', path, query: q, auth: 'read-only', retry: true });
    this.lookups = {
      banks: lookup<ResponseBody<'/v3/banks', 'get'>>('/v3/banks'),
      paymentMethods: lookup<ResponseBody<'/v3/payment_methods', 'get'>>('/v3/payment_methods'),
      states: lookup<ResponseBody<'/v3/states', 'get'>>('/v3/states'),
      exchangeRates: lookup<ResponseBody<'/v3/exchange_rates', 'get'>>('/v3/exchange_rates'),
    };
    this.validation = {
      /** Resolves when every check passes (204); a failing check throws 300 or 302. */
      account: (body: AccountValidationRequest) => this.send<void>({ method: 'POST', path: '/v5/account/validate', body, auth: 'cashouts-v5', retry: true }),
      pixKeys: (keys: string[]) =>
        this.send<{ pix: string; valid: boolean }[]>({ method: 'POST', path: '/v5/account/pix_key/validate', body: keys.map((pix) => ({ pix })), auth: 'cashouts-v5', retry: true }),
    };
  }

  /** GET /v3/me: the quickest check that the deposits credentials sign correctly. */
  me() {
    return this.send<ResponseBody<'/v3/me', 'get'>>({ method: 'GET', path: '/v3/me', auth: 'deposits', retry: true });
  }

  private async send<T>(req: Send, onAttempt?: () => void): Promise<T> {
    const o = this.options;
    const url = new URL(req.path, o.baseUrl.replace(/\/*$/, '/'));
    for (const [k, v] of Object.entries(req.query ?? {})) if (v !== undefined) url.searchParams.set(k, String(v));
    // The body is serialised once, so every retry signs and sends the same bytes.
    let raw = '';
    if (req.auth === 'cashouts-body') {
      const c = this.need('cashouts', o.cashouts);
      raw = JSON.stringify({ login: c.login, pass: c.pass, ...(req.body as object) });
    } else if (req.body !== undefined) {
      raw = JSON.stringify(req.body);
    }
    const maxRetries = req.retry ? (o.maxRetries ?? 2) : 0;
    for (let attempt = 0; ; attempt++) {
      // Headers are built per attempt: a retry needs a fresh X-Date inside the tolerance.
      const headers: Record<string, string> = { Accept: 'application/json', 'User-Agent': 'caja-sdk-ts/0.1.0' };
      if (raw) headers['Content-Type'] = 'application/json';
      if (req.idempotencyKey) headers['X-Idempotency-Key'] = req.idempotencyKey;
      const signed = o.signature === 'SVC' ? undefined : { method: req.method, pathWithQuery: url.pathname + url.search };
      if (req.auth === 'deposits') {
        const d = this.need('deposits', o.deposits);
        Object.assign(headers, v3AuthHeaders(d.login, d.secretKey, raw, undefined, signed));
      } else if (req.auth === 'cashouts-v5') {
        const c = this.need('cashouts', o.cashouts);
        Object.assign(headers, v3AuthHeaders(c.login, c.secretKey, raw, undefined, signed));
      } else if (req.auth === 'cashouts-body') {
        headers['Payload-Signature'] = payloadSignature(o.cashouts!.secretKey, raw);
      } else {
        headers.Authorization = `Bearer ${this.need('readOnlyKey', o.readOnlyKey)}`;
      }
      onAttempt?.();
      let res: Response;
      try {
        res = await this.fetchFn(url, { method: req.method, headers, body: raw || undefined, signal: AbortSignal.timeout(o.timeoutMs ?? 30000) });
      } catch (err) {
        if (attempt < maxRetries) {
          await this.backoff(attempt);
          continue;
        }
        throw new CajaConnectionError(`${req.method} ${url.pathname}: ${(err as Error).message}`, err);
      }
      if (res.status >= 500 && attempt < maxRetries) {
        await res.body?.cancel();
        await this.backoff(attempt);
        continue;
      }
      const text = await res.text();
      this.lastResponse = {
        status: res.status,
        requestId: res.headers.get('x-request-id') ?? undefined,
        idempotentReplayed: res.headers.get('idempotent-replayed') === 'true',
        idempotencyKey: req.idempotencyKey,
      };
      let body: unknown;
      try {
        body = text ? JSON.parse(text) : undefined;
      } catch {
        body = { description: text.slice(0, 200) };
      }
      if (res.status >= 400) {
        throw apiError(res.status, (body && typeof body === 'object' ? body : {}) as Record<string, unknown>, this.lastResponse.requestId, req.auth === 'cashouts-body' ? 'cashout' : 'v3') satisfies CajaApiError;
      }
      return body as T;
    }
  }

  private backoff(attempt: number): Promise<void> {
    const base = (this.options.retryBaseMs ?? 250) * 2 ** attempt;
    return new Promise((r) => setTimeout(r, base * (0.75 + Math.random() * 0.5)));
  }

  private need<T>(name: string, value: T | undefined): T {
    if (value === undefined) throw new TypeError(`caja client: this call needs the '${name}' option`);
    return value;
  }
}
