// Banco Central do Brasil PTAX: the official BRL per USD reference rate, published on business
// days (several bulletins a day, the last one closing the day) by the BCB's public OData API:
//   GET {base}/CotacaoDolarPeriodo(dataInicial=@dataInicial,dataFinalCotacao=@dataFinalCotacao)
//       ?@dataInicial='MM-DD-YYYY'&@dataFinalCotacao='MM-DD-YYYY'&$format=json
//   → {"value": [{"cotacaoCompra": 5.3159, "cotacaoVenda": 5.3165, "dataHoraCotacao": "2026-11-25 13:04:29.183"}]}
// dataHoraCotacao is Brasília time (UTC−03:00, no daylight saving since 2019). A week is asked
// so that weekends and holidays (no bulletin) still find the last one; the selling rate
// (cotacaoVenda) is the reference, as PTAX contracts use it.
import { parseAmount } from '../domain/money.ts';
import { getJson, type PublishedRate, RateSourceError, type RatesSource } from './source.ts';

const NAME = 'bcb-ptax';
const LOOKBACK_DAYS = 7;

const mdy = (d: Date) => `${String(d.getUTCMonth() + 1).padStart(2, '0')}-${String(d.getUTCDate()).padStart(2, '0')}-${d.getUTCFullYear()}`;

export function ptaxUrl(base: string, now: Date): string {
  const from = new Date(now.getTime() - LOOKBACK_DAYS * 86_400_000);
  // Brasília's date can be a day behind UTC's late at night; the window covers it.
  return `${base}/CotacaoDolarPeriodo(dataInicial=@dataInicial,dataFinalCotacao=@dataFinalCotacao)?@dataInicial='${mdy(from)}'&@dataFinalCotacao='${mdy(now)}'&$format=json`;
}

/** The latest bulletin of a PTAX answer. Pure, so the wire format is tested on its own. */
export function parsePtax(body: unknown): PublishedRate {
  const value = (body as { value?: unknown })?.value;
  if (!Array.isArray(value)) throw new RateSourceError(NAME, 'the answer has no "value" list');
  let best: PublishedRate | null = null;
  for (const item of value as Record<string, unknown>[]) {
    const when = typeof item?.dataHoraCotacao === 'string' ? /^(\d{4}-\d{2}-\d{2}) (\d{2}:\d{2}:\d{2})(\.\d{1,3})?$/.exec(item.dataHoraCotacao) : null;
    // JSON numbers of up to 15 significant digits print back exactly as sent (PTAX has 4 decimals).
    const sell = typeof item?.cotacaoVenda === 'number' ? parseAmount(item.cotacaoVenda, { maxDecimals: 8, maxIntegerDigits: 16 }) : null;
    if (!when || !sell?.ok || sell.value.units <= 0n) throw new RateSourceError(NAME, `a bulletin is not a rate: ${JSON.stringify(item).slice(0, 200)}`);
    const at = new Date(`${when[1]}T${when[2]}${when[3] ?? ''}-03:00`);
    if (Number.isNaN(at.getTime())) throw new RateSourceError(NAME, `bad dataHoraCotacao ${String(item.dataHoraCotacao)}`);
    if (!best || at > best.at) best = { rate: sell.value, at };
  }
  if (!best) throw new RateSourceError(NAME, `no bulletin in the last ${LOOKBACK_DAYS} days`);
  return best;
}

export function bcbPtax(base: string, timeoutMs: number): RatesSource {
  return {
    name: NAME,
    currency: 'BRL',
    async latest(now) {
      return parsePtax(await getJson(NAME, ptaxUrl(base, now), {}, timeoutMs));
    },
  };
}
