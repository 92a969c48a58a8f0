// The pieces of a deflate stream (RFC 1951) that src/domain/qr.ts writes by hand: a bit writer,
// canonical Huffman codes from code lengths, the length and distance codes of a match, and the
// header of a block with its own ("dynamic") codes. Only encoding, and only what a caller that
// already knows its matches needs: there is no match search here.

/** Writes bit fields least significant bit first, as deflate packs them. */
export class BitWriter {
  private bits = 0;
  private count = 0;

  constructor(
    readonly out: Uint8Array,
    public pos: number,
  ) {}

  /** Appends the `n` low bits of `value` (n ≤ 16). */
  write(value: number, n: number): void {
    this.bits |= value << this.count;
    this.count += n;
    while (this.count >= 8) {
      this.out[this.pos++] = this.bits & 0xff;
      this.bits >>>= 8;
      this.count -= 8;
    }
  }

  /** Copies bits another writer wrote (its `written()`) into this one, at a byte boundary. */
  append(prefix: WrittenBits): void {
    if (this.count !== 0) throw new Error('append needs a byte boundary');
    this.out.set(prefix.bytes, this.pos);
    this.pos += prefix.bytes.length;
    this.write(prefix.tail, prefix.tailCount);
  }

  /** The bits written so far by a writer that began at offset 0: whole bytes, then those of an unfinished byte. */
  written(): WrittenBits {
    return { bytes: this.out.slice(0, this.pos), tail: this.bits, tailCount: this.count };
  }

  /** Pads the last byte with zero bits; returns the offset after it. */
  flush(): number {
    if (this.count > 0) this.out[this.pos++] = this.bits & 0xff;
    this.bits = 0;
    this.count = 0;
    return this.pos;
  }
}

export interface WrittenBits {
  bytes: Uint8Array;
  tail: number;
  tailCount: number;
}

/** A Huffman code: per symbol its code, bit-reversed so BitWriter.write emits it first bit first, and its length. */
export interface HuffmanCode {
  codes: Uint16Array;
  lengths: Uint8Array;
}

/**
 * The canonical code of a set of code lengths (RFC 1951 §3.2.2). Throws unless the lengths make a
 * complete prefix code: zlib's inflater rejects an incomplete or over-full one, so a wrong table
 * fails when the module loads, not in a customer's banking app.
 */
export function canonicalCode(lengths: ArrayLike<number>): HuffmanCode {
  const maxLength = 15;
  const perLength = new Array<number>(maxLength + 1).fill(0);
  let kraft = 0;
  for (let s = 0; s < lengths.length; s++) {
    const l = lengths[s]!;
    if (l > maxLength) throw new Error(`code length ${l} over ${maxLength}`);
    if (l > 0) {
      perLength[l]!++;
      kraft += 2 ** -l;
    }
  }
  if (kraft !== 1) throw new Error(`code lengths are not a complete prefix code (Kraft sum ${kraft})`);
  const next = new Array<number>(maxLength + 2).fill(0);
  for (let l = 1, code = 0; l <= maxLength; l++) {
    code = (code + perLength[l - 1]!) << 1;
    next[l] = code;
  }
  const codes = new Uint16Array(lengths.length);
  for (let s = 0; s < lengths.length; s++) {
    const l = lengths[s]!;
    if (l > 0) codes[s] = reverseBits(next[l]!++, l);
  }
  return { codes, lengths: Uint8Array.from(lengths) };
}

function reverseBits(value: number, n: number): number {
  let r = 0;
  for (let i = 0; i < n; i++) r = (r << 1) | ((value >>> i) & 1);
  return r;
}

const LENGTH_BASE = [3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 15, 17, 19, 23, 27, 31, 35, 43, 51, 59, 67, 83, 99, 115, 131, 163, 195, 227, 258];
const LENGTH_EXTRA = [0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0];
const DISTANCE_BASE = [1, 2, 3, 4, 5, 7, 9, 13, 17, 25, 33, 49, 65, 97, 129, 193, 257, 385, 513, 769, 1025, 1537, 2049, 3073, 4097, 6145, 8193, 12289, 16385, 24577];
const DISTANCE_EXTRA = [0, 0, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13, 13];

export const END_OF_BLOCK = 256;
export const MAX_MATCH = 258;
const FIRST_LENGTH_SYMBOL = 257;
/** Literal/length symbols 0..285 and distance symbols 0..29: every symbol deflate defines. */
export const LITERAL_LENGTH_SYMBOLS = 286;
export const DISTANCE_SYMBOLS = 30;

/** Per value, the index of the last base ≤ it: the code of a length or distance, looked up. */
function buckets(bases: readonly number[], values: number): Uint8Array {
  const table = new Uint8Array(values);
  for (let v = 0, i = 0; v < values; v++) {
    while (i + 1 < bases.length && bases[i + 1]! <= v) i++;
    table[v] = i;
  }
  return table;
}
const LENGTH_CODE = buckets(LENGTH_BASE, MAX_MATCH + 1);
const MAX_DISTANCE = 32768;
const DISTANCE_CODE = buckets(DISTANCE_BASE, MAX_DISTANCE + 1);

/** Writes a match: copy `length` (3..258) bytes from `distance` (1..32768) bytes back. */
export function writeMatch(w: BitWriter, literals: HuffmanCode, distances: HuffmanCode, length: number, distance: number): void {
  const l = LENGTH_CODE[length]!;
  const symbol = FIRST_LENGTH_SYMBOL + l;
  w.write(literals.codes[symbol]!, literals.lengths[symbol]!);
  if (LENGTH_EXTRA[l]) w.write(length - LENGTH_BASE[l]!, LENGTH_EXTRA[l]!);
  const d = DISTANCE_CODE[distance]!;
  w.write(distances.codes[d]!, distances.lengths[d]!);
  if (DISTANCE_EXTRA[d]) w.write(distance - DISTANCE_BASE[d]!, DISTANCE_EXTRA[d]!);
}

/** The order in which a dynamic block lists the code lengths of the code-length alphabet. */
const CODE_LENGTH_ORDER = [16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15];
const REPEAT_PREVIOUS = 16; // 3-6 copies of the previous length, 2 extra bits
const REPEAT_ZERO_SHORT = 17; // 3-10 zeros, 3 extra bits
const REPEAT_ZERO_LONG = 18; // 11-138 zeros, 7 extra bits

/** Run-length encodes code lengths into code-length symbols with their extra bits. */
function runLengths(lengths: readonly number[]): Array<[symbol: number, extra: number, extraBits: number]> {
  const out: Array<[number, number, number]> = [];
  for (let i = 0; i < lengths.length; ) {
    const l = lengths[i]!;
    let run = 1;
    while (i + run < lengths.length && lengths[i + run] === l) run++;
    i += run;
    if (l === 0) {
      while (run >= 11) {
        const n = Math.min(run, 138);
        out.push([REPEAT_ZERO_LONG, n - 11, 7]);
        run -= n;
      }
      if (run >= 3) {
        out.push([REPEAT_ZERO_SHORT, run - 3, 3]);
        run = 0;
      }
    } else {
      out.push([l, 0, 0]);
      run--;
      while (run >= 3) {
        const n = Math.min(run, 6);
        out.push([REPEAT_PREVIOUS, n - 3, 2]);
        run -= n;
      }
    }
    for (; run > 0; run--) out.push([l, 0, 0]);
  }
  return out;
}

/**
 * The header of a final block with its own codes: BFINAL, BTYPE = 2, the counts, the code-length
 * code and the code lengths, run-length encoded. `codeLengthLengths` gives the code-length code
 * (symbols 0..18) and must cover every symbol the run-length encoding uses.
 */
export function writeDynamicHeader(w: BitWriter, literalLengths: readonly number[], distanceLengths: readonly number[], codeLengthLengths: readonly number[]): void {
  const codeLengths = canonicalCode(codeLengthLengths);
  const runs = runLengths([...literalLengths, ...distanceLengths]);
  for (const [symbol] of runs) {
    if (!codeLengths.lengths[symbol]) throw new Error(`code-length symbol ${symbol} has no code`);
  }
  w.write(1, 1); // BFINAL: the only block
  w.write(2, 2); // BTYPE: dynamic Huffman codes
  w.write(literalLengths.length - 257, 5);
  w.write(distanceLengths.length - 1, 5);
  w.write(CODE_LENGTH_ORDER.length - 4, 4);
  for (const s of CODE_LENGTH_ORDER) w.write(codeLengthLengths[s] ?? 0, 3);
  for (const [symbol, extra, extraBits] of runs) {
    w.write(codeLengths.codes[symbol]!, codeLengths.lengths[symbol]!);
    if (extraBits) w.write(extra, extraBits);
  }
}
