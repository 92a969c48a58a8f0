// Code 128 (ISO/IEC 15417) for the printable voucher: subsets B and C only, which cover every
// character a voucher bar code can hold (printable ASCII), with the subset choice of the
// standard's Annex E so that digit runs are packed two per symbol like real vouchers print.
// Rendered as an SVG of plain rectangles: it scales without blurring and prints sharp.
import { barsSvg, type BarsSvgOptions } from './bars-svg.ts';
import type { SafeHtml } from './html.ts';

/**
 * Bar/space widths (in modules, bar first) of symbol values 0..106: 103-105 are Start A/B/C and
 * 106 is Stop (with its trailing 2-module bar). Checked against ISO/IEC 15417 Table 1.
 */
export const PATTERNS: readonly string[] = [
  '212222', '222122', '222221', '121223', '121322', '131222', '122213', '122312', '132212', '221213',
  '221312', '231212', '112232', '122132', '122231', '113222', '123122', '123221', '223211', '221132',
  '221231', '213212', '223112', '312131', '311222', '321122', '321221', '312212', '322112', '322211',
  '212123', '212321', '232121', '111323', '131123', '131321', '112313', '132113', '132311', '211313',
  '231113', '231311', '112133', '112331', '132131', '113123', '113321', '133121', '313121', '211331',
  '231131', '213113', '213311', '213131', '311123', '311321', '331121', '312113', '312311', '332111',
  '314111', '221411', '431111', '111224', '111422', '121124', '121421', '141122', '141221', '112214',
  '112412', '122114', '122411', '142112', '142211', '241211', '221114', '413111', '241112', '134111',
  '111242', '121142', '121241', '114212', '124112', '124211', '411212', '421112', '421211', '212141',
  '214121', '412121', '111143', '111341', '131141', '114113', '114311', '411113', '411311', '113141',
  '114131', '311141', '411131', '211412', '211214', '211232', '2331112',
];

export const START_B = 104;
export const START_C = 105;
export const CODE_B = 100;
export const CODE_C = 99;
export const STOP = 106;

/** Quiet zone each side, in modules: the standard's minimum of 10. */
export const QUIET_ZONE = 10;

const isDigit = (c: string | undefined) => c !== undefined && c >= '0' && c <= '9';

function digitRun(text: string, from: number): number {
  let n = 0;
  while (isDigit(text[from + n])) n++;
  return n;
}

/** (start + Σ value × position) mod 103, positions counted from 1 after the start symbol. */
export function checksum(values: readonly number[]): number {
  let sum = values[0]!;
  for (let i = 1; i < values.length; i++) sum += values[i]! * i;
  return sum % 103;
}

/**
 * Symbol values for `text`, from the start symbol through the check symbol and Stop.
 * Annex E: start in C for exactly two digits or four or more leading digits; in B, switch to C
 * for a run of four or more digits (after its first digit when the run is odd); leave C for B
 * when fewer than two digits remain in the run.
 */
export function encodeValues(text: string): number[] {
  if (text.length === 0) throw new Error('Code 128: nothing to encode');
  for (const c of text) {
    const code = c.charCodeAt(0);
    if (c.length !== 1 || code < 32 || code > 126) throw new Error('Code 128: only printable ASCII is supported');
  }
  const lead = digitRun(text, 0);
  let set: 'B' | 'C' = (lead === 2 && text.length === 2) || lead >= 4 ? 'C' : 'B';
  const values = [set === 'C' ? START_C : START_B];
  let i = 0;
  while (i < text.length) {
    const run = digitRun(text, i);
    if (set === 'C') {
      if (run >= 2) {
        values.push(Number(text.slice(i, i + 2)));
        i += 2;
      } else {
        values.push(CODE_B);
        set = 'B';
      }
      continue;
    }
    if (run >= 4) {
      if (run % 2 === 1) values.push(text.charCodeAt(i++) - 32);
      values.push(CODE_C);
      set = 'C';
      continue;
    }
    values.push(text.charCodeAt(i++) - 32);
  }
  values.push(checksum(values), STOP);
  return values;
}

/** Bar and space widths in modules, bar first, without quiet zones. */
export function encodeWidths(text: string): number[] {
  return encodeValues(text).flatMap((v) => [...PATTERNS[v]!].map(Number));
}

/** The symbol as a string of modules, 1 for bar and 0 for space (the form ISO's examples use). */
export function encodeModules(text: string): string {
  return encodeWidths(text)
    .map((w, i) => (i % 2 === 0 ? '1' : '0').repeat(w))
    .join('');
}

/** An SVG of the Code 128 symbol (see bars-svg.ts); `label` is its accessible name. */
export function code128Svg(text: string, opts: BarsSvgOptions = {}): SafeHtml {
  return barsSvg(encodeWidths(text), QUIET_ZONE, text, opts);
}
