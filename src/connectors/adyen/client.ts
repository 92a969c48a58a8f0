// The Adyen Checkout API client: JSON over https with the operator's API key (X-API-Key), an
// Idempotency-Key on every POST (Adyen answers a replay with the first answer, so a request
// whose answer was lost is sent again under the same key, never as a second payment), and a
// deadline. Failures become ConnectorError kinds (src/connectors/payin.ts):
//   no answer, timeout, reset, 5xx, 429      unavailable   (safe to retry under the same key)
//   401, 403                                 auth
//   404                                      not_found
//   other 4xx (Adyen's 422 validation)       refused, with Adyen's errorCode and message
//   2xx that is not JSON                     invalid_response
import https from 'node:https';
import { ConnectorError } from '../payin.ts';

export interface AdyenClientOptions {
  /** The Checkout API's base, ending in /v71 (https://checkout-test.adyen.com/v71, or the live prefix's). */
  apiUrl: string;
  apiKey: string;
  /** PEM of the API's certificate authority when not a public one (tests: the simulator's). */
  ca?: string;
  timeoutMs?: number;
}

const MAX_ANSWER_BYTES = 1024 * 1024;

export class AdyenClient {
  private readonly agent: https.Agent;
  private readonly timeoutMs: number;

  constructor(private readonly opts: AdyenClientOptions) {
    this.agent = new https.Agent({ ...(opts.ca ? { ca: opts.ca } : {}), keepAlive: true, maxSockets: 16 });
    this.timeoutMs = opts.timeoutMs ?? 10_000;
  }

  close(): void {
    this.agent.destroy();
  }

  /** One call. `idempotencyKey` for POSTs (Adyen keeps it 7 days at least). */
  call<T = Record<string, unknown>>(method: 'GET' | 'POST', path: string, body?: unknown, idempotencyKey?: string): Promise<T> {
    const url = new URL(this.opts.apiUrl.replace(/\/+$/, '') + path);
    const payload = body === undefined ? undefined : Buffer.from(JSON.stringify(body), 'utf8');
    return new Promise<T>((resolve, reject) => {
      const req = https.request(url, {
        method, agent: this.agent, timeout: this.timeoutMs,
        headers: {
          accept: 'application/json', 'x-api-key': this.opts.apiKey,
          ...(payload ? { 'content-type': 'application/json', 'content-length': String(payload.length) } : {}),
          ...(idempotencyKey ? { 'idempotency-key': idempotencyKey } : {}),
        },
      }, (res) => {
        const chunks: Buffer[] = [];
        let size = 0;
        res.on('data', (c: Buffer) => {
          size += c.length;
          if (size > MAX_ANSWER_BYTES) {
            req.destroy();
            reject(new ConnectorError('invalid_response', `${method} ${path}: answer larger than ${MAX_ANSWER_BYTES} bytes`));
          } else chunks.push(c);
        });
        res.on('end', () => {
          const status = res.statusCode ?? 0;
          const text = Buffer.concat(chunks).toString('utf8');
          let json: unknown = null;
          try {
            json = text ? JSON.parse(text) : null;
          } catch {
            json = null;
          }
          const problem = (json && typeof json === 'object' ? json : {}) as { errorCode?: unknown; message?: unknown; errorType?: unknown };
          const provider = { status, type: typeof problem.errorCode === 'string' ? problem.errorCode : undefined, title: typeof problem.errorType === 'string' ? problem.errorType : undefined, detail: typeof problem.message === 'string' ? problem.message : undefined };
          const said = `${method} ${path}: ${status}${provider.detail ? ` ${provider.detail}` : ''}`;
          if (status >= 500 || status === 429 || status === 408) return reject(new ConnectorError('unavailable', said, provider));
          if (status === 401 || status === 403) return reject(new ConnectorError('auth', said, provider));
          if (status === 404) return reject(new ConnectorError('not_found', said, provider));
          if (status >= 400) return reject(new ConnectorError('refused', said, provider));
          if (json === null || typeof json !== 'object') return reject(new ConnectorError('invalid_response', `${method} ${path}: the answer is not JSON`));
          resolve(json as T);
        });
        res.on('error', (e) => reject(new ConnectorError('unavailable', `${method} ${path}: ${e.message}`)));
      });
      req.on('timeout', () => req.destroy(new Error(`no answer within ${this.timeoutMs} ms`)));
      req.on('error', (e) => reject(e instanceof ConnectorError ? e : new ConnectorError('unavailable', `${method} ${path}: ${e.message}`)));
      req.end(payload);
    });
  }
}
