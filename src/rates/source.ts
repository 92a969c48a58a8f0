// A rates source: where the reference rate of one currency comes from. The core (service.ts)
// never knows which source it holds; each source maps its provider's wire format to one
// PublishedRate. Sources are read-only HTTP clients of public APIs, tested against a local
// stand-in server (test/rates/).
import type { Decimal } from '../domain/money.ts';

export interface PublishedRate {
  /** Units of the currency per 1 USD, as the source published it (before the operator's markup). */
  rate: Decimal;
  /** When the source published it (its own reference time, in UTC). */
  at: Date;
}

export interface RatesSource {
  /** Stored with each rate: 'bcb-ptax', 'banxico-fix', 'banxico:SF…'. */
  readonly name: string;
  readonly currency: string;
  /** The latest published rate; throws RateSourceError when the source fails or answers nonsense. */
  latest(now: Date): Promise<PublishedRate>;
}

/** The source did not answer, refused, or answered something that is not a rate. */
export class RateSourceError extends Error {
  constructor(
    readonly source: string,
    message: string,
  ) {
    super(`${source}: ${message}`);
    this.name = 'RateSourceError';
  }
}

/** The largest answer read from a rates source (a day's rates are a few KB). */
export const RATES_MAX_ANSWER_BYTES = 1024 * 1024;

/** The body as text, read no further than RATES_MAX_ANSWER_BYTES. */
async function boundedText(source: string, res: Response): Promise<string> {
  if (Number(res.headers.get('content-length') ?? 0) > RATES_MAX_ANSWER_BYTES) {
    await res.body?.cancel().catch(() => undefined);
    throw new RateSourceError(source, `answered more than ${RATES_MAX_ANSWER_BYTES} bytes`);
  }
  if (!res.body) return '';
  const chunks: Uint8Array[] = [];
  let size = 0;
  const reader = res.body.getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      size += value.byteLength;
      if (size > RATES_MAX_ANSWER_BYTES) {
        await reader.cancel().catch(() => undefined);
        throw new RateSourceError(source, `answered more than ${RATES_MAX_ANSWER_BYTES} bytes`);
      }
      chunks.push(value);
    }
  } catch (err) {
    if (err instanceof RateSourceError) throw err;
    throw new RateSourceError(source, `not answering (${(err as Error).message})`);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** GET a JSON document with a deadline; any transport or status problem is a RateSourceError. */
export async function getJson(source: string, url: string, headers: Record<string, string>, timeoutMs: number): Promise<unknown> {
  let res: Response;
  try {
    res = await fetch(url, { headers: { accept: 'application/json', ...headers }, signal: AbortSignal.timeout(timeoutMs), redirect: 'error' });
  } catch (err) {
    throw new RateSourceError(source, `not answering (${(err as Error).name === 'TimeoutError' ? `no answer in ${timeoutMs} ms` : (err as Error).message})`);
  }
  if (!res.ok) {
    await res.body?.cancel().catch(() => undefined);
    throw new RateSourceError(source, `answered HTTP ${res.status}`);
  }
  const text = await boundedText(source, res);
  try {
    return JSON.parse(text);
  } catch {
    throw new RateSourceError(source, 'answered something that is not JSON');
  }
}
