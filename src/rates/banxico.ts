// Banco de México's SIE API: series SF43718 is the FIX, the MXN per USD rate Banxico determines
// at 12:00 Mexico City time on business days. Any other SIE series of units per USD can be
// configured the same way (CUR=banxico:SERIES).
//   GET {base}/series/{series}/datos/oportuno   header Bmx-Token: <token>
//   → {"bmx": {"series": [{"idSerie": "SF43718", "titulo": "…", "datos": [{"fecha": "25/11/2026", "dato": "18.4512"}]}]}}
// "dato" is text ("N/E" when there is no figure); "fecha" is dd/mm/yyyy. Mexico City keeps
// UTC−06:00 all year (no daylight saving since 2022), so a FIX is stamped 18:00 UTC of its date.
import { parseAmount } from '../domain/money.ts';
import { getJson, type PublishedRate, RateSourceError, type RatesSource } from './source.ts';

export const FIX_SERIES = 'SF43718';

/** The one figure of an "oportuno" answer for `series`. Pure, so the wire format is tested on its own. */
export function parseBanxico(name: string, series: string, body: unknown): PublishedRate {
  const list = (body as { bmx?: { series?: unknown } })?.bmx?.series;
  const s = Array.isArray(list) ? (list as { idSerie?: unknown; datos?: unknown }[]).find((x) => x?.idSerie === series) : undefined;
  if (!s) throw new RateSourceError(name, `the answer has no series ${series}`);
  const datos = Array.isArray(s.datos) ? (s.datos as { fecha?: unknown; dato?: unknown }[]) : [];
  const last = datos[datos.length - 1];
  if (!last) throw new RateSourceError(name, `series ${series} has no figure`);
  const date = typeof last.fecha === 'string' ? /^(\d{2})\/(\d{2})\/(\d{4})$/.exec(last.fecha) : null;
  const text = typeof last.dato === 'string' ? last.dato.replace(/,/g, '') : '';
  const rate = parseAmount(text, { maxDecimals: 8, maxIntegerDigits: 16 });
  if (!date || !rate.ok || rate.value.units <= 0n) throw new RateSourceError(name, `series ${series} figure is not a rate: ${JSON.stringify(last).slice(0, 200)}`);
  const at = new Date(`${date[3]}-${date[2]}-${date[1]}T12:00:00-06:00`);
  if (Number.isNaN(at.getTime())) throw new RateSourceError(name, `bad fecha ${String(last.fecha)}`);
  return { rate: rate.value, at };
}

export function banxico(base: string, token: string, currency: string, series: string, timeoutMs: number): RatesSource {
  const name = series === FIX_SERIES ? 'banxico-fix' : `banxico:${series}`;
  return {
    name,
    currency,
    async latest() {
      return parseBanxico(name, series, await getJson(name, `${base}/series/${series}/datos/oportuno`, { 'bmx-token': token }, timeoutMs));
    },
  };
}
