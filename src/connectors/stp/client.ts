// The STP client: signs every request with the operator's RSA key (the key registered with STP,
// RSA-SHA256 over the "cadena original", base64 in `firma`) and calls STP's SPEI API over https
// with a deadline. STP answers HTTP 200 with {"resultado": …} for most outcomes, errors included;
// the transport's failures become ConnectorError kinds (src/connectors/payin.ts):
//   no answer, timeout, reset, 5xx, 408, 429      unavailable   (safe to retry)
//   401, 403                                       auth
//   other 4xx                                      refused
//   2xx that is not JSON                           invalid_response
import { createPrivateKey, createSign, type KeyObject } from 'node:crypto';
import https from 'node:https';
import { ConnectorError } from '../payin.ts';
import { cadenaOriginal, consultaCadena, type Orden, registraJson, registraResult, type RegistraResult, STP_INSTITUTION } from './mapping.ts';

export interface StpClientOptions {
  apiUrl: string;
  empresa: string;
  privateKey: string;
  passphrase: string;
  /** PEM of STP's certificate authority, when not a public one (tests: the simulator's). */
  ca?: string;
  timeoutMs?: number;
  /** The largest answer read (a day's received orders of a busy account fit); beyond it, ConnectorError. */
  maxAnswerBytes?: number;
}

/** 16 MB: about 40,000 orders of a day. */
export const STP_MAX_ANSWER_BYTES = 16 * 1024 * 1024;

/** RSA-SHA256 of the string, base64: STP's `firma`. */
export function firmar(key: KeyObject, cadena: string): string {
  return createSign('RSA-SHA256').update(cadena, 'utf8').sign(key, 'base64');
}

export class StpClient {
  private readonly agent: https.Agent;
  private readonly key: KeyObject;
  private readonly timeoutMs: number;
  private readonly maxAnswerBytes: number;

  constructor(private readonly opts: StpClientOptions) {
    this.key = createPrivateKey({ key: opts.privateKey, passphrase: opts.passphrase });
    this.agent = new https.Agent({ ...(opts.ca ? { ca: opts.ca } : {}), keepAlive: true, maxSockets: 16 });
    this.timeoutMs = opts.timeoutMs ?? 10_000;
    this.maxAnswerBytes = opts.maxAnswerBytes ?? STP_MAX_ANSWER_BYTES;
  }

  close(): void {
    this.agent.destroy();
  }

  /** PUT ordenPago/registra: the signed order, and what STP answered. */
  async registra(orden: Orden): Promise<RegistraResult> {
    const body = registraJson(orden, firmar(this.key, cadenaOriginal(orden)));
    return registraResult(await this.call('PUT', '/ordenPago/registra', body));
  }

  /**
   * POST ordenPago/consOrdEnvRastreo: the order caja sent with this claveRastreo, or null when
   * STP has none. fechaOperacion is left out for the current day (STP's documented usage).
   */
  async sentOrder(claveRastreo: string, fecha?: string): Promise<Record<string, unknown> | null> {
    const consulta = { empresa: this.opts.empresa, claveRastreo, institucionOperante: STP_INSTITUTION, ...(fecha ? { fechaOperacion: fecha } : {}) };
    const answer = await this.call('POST', '/ordenPago/consOrdEnvRastreo', { ...consulta, firma: firmar(this.key, consultaCadena(consulta)) });
    const r = resultado(answer);
    if (r.ordenPago && typeof r.ordenPago === 'object') return r.ordenPago as Record<string, unknown>;
    if (notFound(r)) return null;
    throw failure('consOrdEnvRastreo', r);
  }

  /** POST ordenPago/consOrdenesFech: the day's received ('R') or sent ('E') orders. */
  async ordersOfDay(estado: 'R' | 'E', fecha?: string): Promise<Record<string, unknown>[]> {
    const consulta = { empresa: this.opts.empresa, estado, ...(fecha ? { fechaOperacion: fecha } : {}) };
    const answer = await this.call('POST', '/ordenPago/consOrdenesFech', { ...consulta, firma: firmar(this.key, consultaCadena(consulta)) });
    const r = resultado(answer);
    if (Array.isArray(r.lst)) return r.lst.filter((o): o is Record<string, unknown> => !!o && typeof o === 'object');
    if (notFound(r)) return [];
    throw failure('consOrdenesFech', r);
  }

  /** One exchange; whatever fails underneath (a request that could not even be made) is a ConnectorError. */
  private async call(method: 'PUT' | 'POST', path: string, body: unknown): Promise<unknown> {
    try {
      return await this.exchange(method, path, body);
    } catch (err) {
      if (err instanceof ConnectorError) throw err;
      throw new ConnectorError('unavailable', `${method} ${path}: ${err instanceof Error ? err.message : String(err)}`);
    }
  }

  private exchange(method: 'PUT' | 'POST', path: string, body: unknown): Promise<unknown> {
    const url = new URL(this.opts.apiUrl + path);
    const payload = JSON.stringify(body);
    return new Promise((resolve, reject) => {
      const req = https.request(url, {
        method,
        agent: this.agent,
        headers: { 'content-type': 'application/json', accept: 'application/json', 'content-length': Buffer.byteLength(payload) },
        timeout: this.timeoutMs,
      });
      const deadline = setTimeout(() => req.destroy(new Error(`no answer within ${this.timeoutMs} ms`)), this.timeoutMs);
      req.on('timeout', () => req.destroy(new Error(`no answer within ${this.timeoutMs} ms`)));
      req.on('error', (err) => {
        clearTimeout(deadline);
        reject(new ConnectorError('unavailable', `${method} ${path}: ${err.message}`));
      });
      req.on('response', (res) => {
        const chunks: Buffer[] = [];
        let size = 0;
        // An answer past the limit is not read further (STP's whole-day lists have no paging).
        const tooLarge = () => {
          clearTimeout(deadline);
          res.destroy();
          req.destroy();
          reject(new ConnectorError('invalid_response', `${method} ${path}: answer larger than ${this.maxAnswerBytes} bytes`));
        };
        if (Number(res.headers['content-length'] ?? 0) > this.maxAnswerBytes) return tooLarge();
        res.on('data', (c: Buffer) => {
          size += c.length;
          if (size > this.maxAnswerBytes) tooLarge();
          else chunks.push(c);
        });
        res.on('error', (err) => {
          clearTimeout(deadline);
          reject(new ConnectorError('unavailable', `${method} ${path}: ${err.message}`));
        });
        res.on('end', () => {
          clearTimeout(deadline);
          const status = res.statusCode ?? 0;
          const text = Buffer.concat(chunks).toString('utf8');
          const provider = { status, detail: text.slice(0, 300) };
          if (status >= 500 || status === 408 || status === 429) return reject(new ConnectorError('unavailable', `${method} ${path}: HTTP ${status}`, provider));
          if (status === 401 || status === 403) return reject(new ConnectorError('auth', `${method} ${path}: HTTP ${status}`, provider));
          if (status >= 400) return reject(new ConnectorError('refused', `${method} ${path}: HTTP ${status}`, provider));
          try {
            resolve(JSON.parse(text));
          } catch {
            reject(new ConnectorError('invalid_response', `${method} ${path}: the answer is not JSON`, provider));
          }
        });
      });
      req.end(payload);
    });
  }
}

type Resultado = { id?: unknown; descripcionError?: unknown; ordenPago?: unknown; lst?: unknown };

function resultado(answer: unknown): Resultado {
  const r = (answer as { resultado?: unknown } | null)?.resultado ?? answer;
  if (!r || typeof r !== 'object') throw new ConnectorError('invalid_response', 'the answer has no resultado');
  return r as Resultado;
}

/** STP's "nothing found" (resultado.id -100 or 0 with "No se encontr…"). */
function notFound(r: Resultado): boolean {
  return typeof r.descripcionError === 'string' && /no se encontr/i.test(r.descripcionError);
}

/** A consultation STP could not serve: its signature check failing is the operator's key (auth). */
function failure(what: string, r: Resultado): ConnectorError {
  const auth = typeof r.descripcionError === 'string' && /firma/i.test(r.descripcionError);
  return new ConnectorError(auth ? 'auth' : 'invalid_response', `${what}: ${describe(r)}`);
}

function describe(r: Resultado): string {
  return `resultado.id ${String(r.id)}${typeof r.descripcionError === 'string' ? `: ${r.descripcionError}` : ''}`;
}
