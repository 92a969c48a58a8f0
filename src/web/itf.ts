// Interleaved 2 of 5 (ITF, ISO/IEC 16390), the symbology of Brazilian boletos (FEBRABAN): bank
// scanners read a boleto's 44 digits from ITF, not from Code 128. Digits go in pairs, the first
// in the bars and the second in the spaces, each as five elements of which two are wide.
import { barsSvg, type BarsSvgOptions } from './bars-svg.ts';
import type { SafeHtml } from './html.ts';

/** N narrow, W wide, for digits 0–9. */
const DIGITS = ['NNWWN', 'WNNNW', 'NWNNW', 'WWNNN', 'NNWNW', 'WNWNN', 'NWWNN', 'NNNWW', 'WNNWN', 'NWNWN'];
/** Wide elements are three modules: the top of the 2:1–3:1 range, the easiest to scan. */
const WIDE = 3;
const START = [1, 1, 1, 1];
const STOP = [WIDE, 1, 1];
/** At least ten narrow elements of quiet zone on each side. */
export const ITF_QUIET_ZONE = 10;

/** Element widths in modules: start, digit pairs, stop. Throws on an odd count or non-digits. */
export function itfWidths(digits: string): number[] {
  if (!/^(\d\d)+$/.test(digits)) throw new Error('ITF encodes an even number of digits');
  const w = (e: string) => (e === 'W' ? WIDE : 1);
  const out = [...START];
  for (let i = 0; i < digits.length; i += 2) {
    const bars = DIGITS[Number(digits[i])]!;
    const spaces = DIGITS[Number(digits[i + 1])]!;
    for (let k = 0; k < 5; k++) out.push(w(bars[k]!), w(spaces[k]!));
  }
  return [...out, ...STOP];
}

/** Reads element widths back into digits (the inverse of itfWidths); null when they are not ITF. */
export function decodeItfWidths(widths: number[]): string | null {
  const body = widths.slice(START.length, widths.length - STOP.length);
  if (widths.slice(0, 4).join() !== START.join() || widths.slice(-3).join() !== STOP.join() || body.length % 10 !== 0) return null;
  const digit = (elements: number[]) => DIGITS.indexOf(elements.map((e) => (e === WIDE ? 'W' : e === 1 ? 'N' : '?')).join(''));
  let out = '';
  for (let i = 0; i < body.length; i += 10) {
    const chunk = body.slice(i, i + 10);
    const a = digit(chunk.filter((_, k) => k % 2 === 0));
    const b = digit(chunk.filter((_, k) => k % 2 === 1));
    if (a < 0 || b < 0) return null;
    out += `${a}${b}`;
  }
  return out;
}

export function itfSvg(digits: string, opts: BarsSvgOptions = {}): SafeHtml {
  return barsSvg(itfWidths(digits), ITF_QUIET_ZONE, digits, opts);
}
