// The API Pix client: every call over mutual TLS (the client certificate the PSP issued), with an
// OAuth2 client-credentials bearer token obtained at token_url (HTTP Basic with the client id and
// secret, also over mTLS). The token is kept until shortly before its expires_in and shared by
// concurrent calls; a 401 renews it once and retries. Every call has a deadline. The PSP's
// answers are turned into ConnectorError kinds (src/connectors/payin.ts):
//   no answer, timeout, reset, 5xx      unavailable      (safe to retry)
//   401 after one renewal, 403          auth
//   404                                 not_found
//   other 4xx (problem JSON, RFC 7807)  refused          (title, detail and violacoes kept)
//   2xx that is not JSON                invalid_response
import https from 'node:https';
import { ConnectorError } from '../payin.ts';

export interface PixClientOptions {
  apiUrl: string;
  tokenUrl: string;
  clientId: string;
  clientSecret: string;
  certificate: string;
  privateKey: string;
  ca?: string;
  /** Deadline of each call, connection included. */
  timeoutMs?: number;
  /** Told when a token is obtained (health). */
  onToken?: () => void;
  now?: () => number;
}

export interface PixResponse<T = unknown> {
  status: number;
  body: T;
}

interface RawResponse {
  status: number;
  text: string;
  contentType: string;
  /** The Retry-After header (a 429's or 503's wait), when the PSP gave one. */
  retryAfter?: string;
}

/** An answer whatever its status (PixClient.exchange). */
export interface PixExchange {
  status: number;
  /** Parsed JSON; the text when it is not JSON; null when empty. */
  body: unknown;
  retryAfter: string | null;
}

/** Seconds before expires_in at which a token is renewed: a fifth of its life, at most 30 s. */
export function tokenMarginSeconds(expiresIn: number): number {
  return Math.min(30, Math.max(0, expiresIn / 5));
}

export class PixClient {
  private readonly agent: https.Agent;
  private token: { value: string; until: number } | null = null;
  private fetching: Promise<string> | null = null;
  private readonly timeoutMs: number;
  private readonly now: () => number;

  constructor(private readonly opts: PixClientOptions) {
    this.agent = new https.Agent({
      cert: opts.certificate,
      key: opts.privateKey,
      ...(opts.ca ? { ca: opts.ca } : {}),
      keepAlive: true,
      maxSockets: 16,
    });
    this.timeoutMs = opts.timeoutMs ?? 10_000;
    this.now = opts.now ?? Date.now;
  }

  close(): void {
    this.agent.destroy();
  }

  /** Forgets the token (the next call obtains a new one). */
  dropToken(): void {
    this.token = null;
  }

  /** A valid bearer token, obtained when none is kept or it is about to expire. */
  async bearer(): Promise<string> {
    if (this.token && this.token.until > this.now()) return this.token.value;
    if (!this.fetching) {
      this.fetching = this.fetchToken().finally(() => {
        this.fetching = null;
      });
    }
    return this.fetching;
  }

  private async fetchToken(): Promise<string> {
    const basic = Buffer.from(`${encodeURIComponent(this.opts.clientId)}:${encodeURIComponent(this.opts.clientSecret)}`).toString('base64');
    const res = await this.send('POST', new URL(this.opts.tokenUrl), {
      authorization: `Basic ${basic}`,
      'content-type': 'application/x-www-form-urlencoded',
    }, 'grant_type=client_credentials');
    if (res.status === 401 || res.status === 403) throw new ConnectorError('auth', `token endpoint refused the client credentials (${res.status})`, problemOf(res));
    failUnlessOk(res, 'token');
    const body = parseJson(res, 'token') as { access_token?: unknown; expires_in?: unknown };
    if (typeof body.access_token !== 'string' || body.access_token === '') throw new ConnectorError('invalid_response', 'token answer has no access_token');
    const expiresIn = typeof body.expires_in === 'number' && body.expires_in > 0 ? body.expires_in : 60;
    this.token = { value: body.access_token, until: this.now() + (expiresIn - tokenMarginSeconds(expiresIn)) * 1000 };
    this.opts.onToken?.();
    return body.access_token;
  }

  /**
   * One API call: `path` is appended to api_url (`/cob/abc`), `query` becomes its search string.
   * Answers 2xx bodies parsed; throws ConnectorError otherwise.
   */
  async call<T = unknown>(method: string, path: string, body?: unknown, query?: Record<string, string>): Promise<PixResponse<T>> {
    const r = await this.authorised(method, path, body, query);
    if (r.status === 401 || r.status === 403) throw new ConnectorError('auth', `${method} ${path}: the PSP refused our token (${r.status})`, problemOf(r));
    failUnlessOk(r, `${method} ${path}`);
    return { status: r.status, body: (r.text === '' ? null : parseJson(r, `${method} ${path}`)) as T };
  }

  /** The request with our bearer token; a 401 renews the token once (expired early, revoked) and retries. */
  private async authorised(method: string, path: string, body?: unknown, query?: Record<string, string>): Promise<RawResponse> {
    const url = new URL(this.opts.apiUrl.replace(/\/+$/, '') + path);
    if (query) for (const [k, v] of Object.entries(query)) url.searchParams.set(k, v);
    const payload = body === undefined ? undefined : JSON.stringify(body);
    let res: RawResponse | null = null;
    for (let attempt = 0; attempt < 2; attempt++) {
      const token = await this.bearer();
      res = await this.send(method, url, {
        authorization: `Bearer ${token}`,
        accept: 'application/json',
        ...(payload === undefined ? {} : { 'content-type': 'application/json' }),
      }, payload);
      if (res.status !== 401) break;
      if (this.token?.value === token) this.token = null;
    }
    return res!;
  }

  /**
   * One API call answered as it is, whatever its status: for the PSP's own APIs whose refusals
   * are not problem documents (Efí's send API: `{nome, mensagem}`), read by the caller. A 401
   * renews the token once. Throws ConnectorError 'unavailable' only when no answer came (timeout,
   * reset, no connection), and 'auth' when no token can be obtained.
   */
  async exchange(method: string, path: string, body?: unknown): Promise<PixExchange> {
    const r = await this.authorised(method, path, body);
    let parsed: unknown = null;
    if (r.text !== '') {
      try {
        parsed = JSON.parse(r.text);
      } catch {
        parsed = r.text;
      }
    }
    return { status: r.status, body: parsed, retryAfter: r.retryAfter ?? null };
  }

  /**
   * One HTTP exchange. A kept-alive connection the PSP closed while idle fails at once
   * (ECONNRESET on a reused socket, before any answer): that request is sent again once on a new
   * connection, as Node's documentation advises; every call caja makes is idempotent at the PSP
   * (PUTs name their resource). When the retry meets a closed connection too (the PSP resetting
   * every connection, or its process gone), or anything else fails underneath, the call fails as
   * a ConnectorError 'unavailable' (safe to retry): never a raw Error.
   */
  private async send(method: string, url: URL, headers: Record<string, string>, body?: string): Promise<RawResponse> {
    try {
      return await this.sendOnce(method, url, headers, body);
    } catch (err) {
      if (!(err instanceof StaleSocket)) throw asConnectorError(err, method, url);
    }
    try {
      return await this.sendOnce(method, url, headers, body);
    } catch (err) {
      throw asConnectorError(err, method, url);
    }
  }

  private sendOnce(method: string, url: URL, headers: Record<string, string>, body?: string): Promise<RawResponse> {
    return new Promise((resolve, reject) => {
      let settled = false;
      const fail = (err: ConnectorError) => {
        if (settled) return;
        settled = true;
        clearTimeout(deadline);
        req.destroy();
        reject(err);
      };
      const req = https.request(url, {
        method,
        agent: this.agent,
        headers: { ...headers, ...(body === undefined ? {} : { 'content-length': String(Buffer.byteLength(body)) }) },
      }, (res) => {
        const chunks: Buffer[] = [];
        let size = 0;
        res.on('data', (c: Buffer) => {
          size += c.length;
          if (size > 8 * 1024 * 1024) fail(new ConnectorError('invalid_response', `${method} ${url.pathname}: answer too large`));
          else chunks.push(c);
        });
        res.on('end', () => {
          if (settled) return;
          settled = true;
          clearTimeout(deadline);
          const retryAfter = res.headers['retry-after'];
          resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8'), contentType: String(res.headers['content-type'] ?? ''), ...(typeof retryAfter === 'string' ? { retryAfter } : {}) });
        });
        res.on('error', (err) => fail(new ConnectorError('unavailable', `${method} ${url.pathname}: ${err.message}`)));
      });
      const deadline = setTimeout(() => fail(new ConnectorError('unavailable', `${method} ${url.pathname}: no answer within ${this.timeoutMs} ms`)), this.timeoutMs);
      req.on('error', (err: NodeJS.ErrnoException) => {
        if (req.reusedSocket && (err.code === 'ECONNRESET' || err.code === 'EPIPE') && !settled) {
          settled = true;
          clearTimeout(deadline);
          reject(new StaleSocket());
          return;
        }
        fail(new ConnectorError('unavailable', `${method} ${url.host}${url.pathname}: ${err.message}`));
      });
      req.end(body);
    });
  }
}

/** A reused keep-alive connection was found closed before anything was answered. */
class StaleSocket extends Error {}

/** A failure of the exchange itself (a closed connection, a request that could not be made): unavailable. */
function asConnectorError(err: unknown, method: string, url: URL): ConnectorError {
  if (err instanceof ConnectorError) return err;
  const why = err instanceof StaleSocket ? 'the connection was reset before any answer' : err instanceof Error ? err.message : String(err);
  return new ConnectorError('unavailable', `${method} ${url.host}${url.pathname}: ${why}`);
}

function problemOf(res: RawResponse): ConnectorError['provider'] {
  let p: Record<string, unknown> = {};
  try {
    p = JSON.parse(res.text) as Record<string, unknown>;
  } catch {
    // Not a problem document: only the status is known.
  }
  const str = (v: unknown) => (typeof v === 'string' ? v : undefined);
  const violations = Array.isArray(p.violacoes)
    ? p.violacoes.map((v: Record<string, unknown>) => [str(v?.propriedade), str(v?.razao)].filter(Boolean).join(': ')).filter(Boolean)
    : [];
  const detail = [str(p.detail), ...violations].filter(Boolean).join('; ') || undefined;
  return { status: res.status, type: str(p.type), title: str(p.title), detail };
}

function failUnlessOk(res: RawResponse, what: string): void {
  if (res.status >= 200 && res.status < 300) return;
  const provider = problemOf(res);
  if (res.status >= 500 || res.status === 429 || res.status === 408) throw new ConnectorError('unavailable', `${what}: the PSP answered ${res.status}`, provider);
  if (res.status === 404) throw new ConnectorError('not_found', `${what}: not found at the PSP`, provider);
  throw new ConnectorError('refused', `${what}: the PSP refused it (${res.status}${provider?.title ? ` ${provider.title}` : ''})`, provider);
}

function parseJson(res: RawResponse, what: string): unknown {
  try {
    return JSON.parse(res.text);
  } catch {
    throw new ConnectorError('invalid_response', `${what}: the PSP's answer is not JSON`);
  }
}
