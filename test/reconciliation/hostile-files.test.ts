// Statement files built to stop or mislead the server: exponential backtracking in the OFX reader,
// deep nesting and unclosed constructs in camt, huge numbers and long tags in every format. Each
// one answers a StatementFormatError naming the problem (a 400 at the API) within a bounded time,
// never an internal error; and a fuzz pass over mutated and random files in every format holds to
// the same. The API-level checks (400s, the deadline of the parse worker) are in
// test/reconciliation/hostile-upload.test.ts.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { parseStatement } from '../../src/reconciliation/formats.ts';
import { StatementFormatError, type StatementFormat } from '../../src/reconciliation/statement.ts';
import { camt053, camt054, cnab240, type Day, ofx } from '../helpers/statements.ts';

const day: Day = {
  statementId: 'STMT-2026-11-25', account: { iban: 'BR1800360305000010009795493C1' }, currency: 'BRL', date: '2026-11-25', opening: '1000.00',
  movements: [
    { amount: '10.00', direction: 'credit', date: '2026-11-25', bankId: 'B1', endToEndId: 'E18236120202611251200s0123456789', counterparty: { name: 'Maria Souza & Filhos', document: '52998224725' } },
    { amount: '0.10', direction: 'debit', date: '2026-11-25', bankId: 'B2', reference: '700000000421' },
  ],
};
const ofxDay = { ...day, bankId: '341', branch: '4417', accountId: '13009218-7' };

/**
 * Parses within `ms`, and either succeeds or throws a StatementFormatError; the error otherwise.
 * The default separates a parse of these small files (about 10 ms quiet) from a hang or
 * backtracking (seconds and more).
 */
function boundedOutcome(format: StatementFormat | 'camt', text: string, ms = 2000): 'parsed' | StatementFormatError {
  const t0 = performance.now();
  try {
    parseStatement(format, text);
    return 'parsed';
  } catch (err) {
    if (!(err instanceof StatementFormatError)) throw new Error(`${format}: not a StatementFormatError: ${(err as Error)?.stack ?? String(err)}\ninput: ${JSON.stringify(text.slice(0, 200))}`);
    return err;
  } finally {
    const took = performance.now() - t0;
    assert.ok(took < ms, `${format}: ${Math.round(took)} ms for ${text.length} characters (${JSON.stringify(text.slice(0, 80))})`);
  }
}

test('OFX: inputs that made the old reader backtrack exponentially are refused in linear time', () => {
  // 48 bytes (26 A) blocked the process 2.4 s with ofx-js 1.1.1, doubling with each character
  // more: 30 A, over 30 s.
  const short = `OFXHEADER:100\n<OFX><${'A'.repeat(30)}>x`;
  const long = `OFXHEADER:100\n<OFX><SIGNONMSGSRSV1><${'A'.repeat(5_000)}>value</SIGNONMSGSRSV1></OFX>`;
  for (const text of [short, long, `OFXHEADER:100\n<OFX>${'<A>x'.repeat(20_000)}`]) {
    // Separates a linear refusal (about 50 ms quiet for the longest) from the old reader's backtracking (over 30 s).
    const out = boundedOutcome('ofx', text, 3000);
    assert.ok(out instanceof StatementFormatError);
  }
  // A realistic file: 2,000 transactions (207 KB) read in under a tenth of a second quiet.
  const many = { ...ofxDay, movements: Array.from({ length: 2000 }, (_, i) => ({ amount: `${i + 1}.00`, direction: 'credit' as const, date: '2026-11-25', bankId: `F${i}`, reference: `7${i}` })) };
  // Separates a linear read (about 0.1 s quiet) from a reader super-linear in the file's size (minutes on 207 KB).
  assert.equal(boundedOutcome('ofx', ofx(many), 5000), 'parsed');
});

test('OFX: errors name the problem (long tag, deep nesting, unclosed element, stray close)', () => {
  const base = ofx(ofxDay);
  const cases: [string, RegExp][] = [
    [base.replace('<STMTRS>', `<${'X'.repeat(100)}><STMTRS>`), /tag name longer than/],
    [base.replace('<STMTRS>', `${'<AG>'.repeat(200)}<STMTRS>`), /nested deeper than/],
    [base.replace('</OFX>', ''), /ends inside <OFX>/],
    [base.replace('</BANKTRANLIST>', '</NOTOPEN></BANKTRANLIST>'), /<\/NOTOPEN> closes no open element/],
    [base.replace('<STMTRS>', '<STMTRS><!-- unclosed'), /unclosed comment/],
    [base.replace('<OFX>', '<OFX><?pi'), /unclosed processing instruction/],
    [base.replace('<STMTRS>', '<STMTRS><FOO'), /unclosed tag/],
  ];
  for (const [text, problem] of cases) {
    const out = boundedOutcome('ofx', text);
    assert.ok(out instanceof StatementFormatError, String(problem));
    assert.match(out.problem, problem);
    assert.match(out.at, /line \d+/);
  }
  // An empty SGML leaf does not swallow the elements after it.
  const empty = parseStatement('ofx', base.replace('<NAME>Maria Souza &amp; Filhos', '<MEMO>\n<NAME>Maria Souza &amp; Filhos'));
  assert.equal(empty.entries[0]!.counterparty.name, 'Maria Souza & Filhos');
  assert.equal(empty.entries[0]!.key, 'B1');
  // Still the same entries from the SGML and XML forms, entities decoded.
  assert.deepEqual(parseStatement('ofx', ofx(ofxDay)), parseStatement('ofx', ofx(ofxDay, true)));
  assert.equal(parseStatement('ofx', ofx(ofxDay, true)).entries[0]!.counterparty.name, 'Maria Souza & Filhos');
});

test('camt: deep nesting and unclosed constructs are format errors naming the problem, never a crash', () => {
  const xml = camt053(day);
  const deep = xml.replace('<Stmt>', `<Stmt>${'<X>'.repeat(1000)}${'</X>'.repeat(1000)}`);
  const cases: [string, RegExp][] = [
    [deep, /nested deeper than/],
    [xml.replace('<Stmt>', '<Stmt><?'), /processing instruction|not well-formed/],
    [`${xml}<?`, /processing instruction|not well-formed/],
    ['<?', /processing instruction|not well-formed/],
    [xml.replace('<Stmt>', '<Stmt><!--'), /comment|not well-formed/],
    [xml.replace('<Stmt>', '<Stmt><![CDATA['), /CDATA|not well-formed/],
    [xml.replace('<Stmt>', `<Stmt><${'L'.repeat(10_000)}>`), /not well-formed|name/],
  ];
  for (const [text, problem] of cases) {
    const out = boundedOutcome('camt', text);
    assert.ok(out instanceof StatementFormatError, `${problem}`);
    assert.match(out.problem, problem);
  }
  // Amounts stay exact: 10.00 is not read as 10, a 20-digit amount is refused, not rounded.
  assert.equal(parseStatement('camt', xml).entries[0]!.amount, '10.00');
  const huge = boundedOutcome('camt', xml.replace('>10.00<', '>123456789012345678901.00<'));
  assert.ok(huge instanceof StatementFormatError);
  assert.match(huge.problem, /not an ISO 20022 amount/);
});

/** Mutations of a valid file: a character dropped, duplicated, replaced, a slice repeated or cut. */
function mutate(text: string, ops: { kind: number; at: number; len: number; ch: string; times: number }[]): string {
  let t = text;
  for (const o of ops) {
    const at = t.length ? o.at % t.length : 0;
    const len = Math.min(o.len, t.length - at);
    if (o.kind === 0) t = t.slice(0, at) + t.slice(at + len);
    else if (o.kind === 1) t = t.slice(0, at) + t.slice(at, at + len).repeat(o.times) + t.slice(at);
    else if (o.kind === 2) t = t.slice(0, at) + o.ch + t.slice(at + 1);
    else t = t.slice(0, at);
  }
  return t;
}

const op = fc.record({
  kind: fc.integer({ min: 0, max: 3 }), at: fc.nat(), len: fc.integer({ min: 1, max: 40 }),
  ch: fc.constantFrom('<', '>', '/', '?', '!', '&', '"', '-', '9', '.', ',', '\n', '\0', '\uFFFD', '<?', '<!--', '<![CDATA[', '&#0;', '&#x110000;', '99999999999999999999'),
  times: fc.integer({ min: 2, max: 300 }),
});

test('fuzz: mutated and random files in every format parse or are refused with a format error, in bounded time', () => {
  const seeds: [StatementFormat | 'camt', string][] = [
    ['camt', camt053(day)], ['camt054', camt054(day)], ['ofx', ofx(ofxDay)], ['ofx', ofx(ofxDay, true)],
    ['cnab240', cnab240({ ...day, bank: '341', agency: '4417', account: '13009218', digit: '7', nsa: 42, boletos: [{ nossoNumero: '421', amount: '50.00', fee: '1.50', payerDocument: '52998224725', payerName: 'MARIA SOUZA', date: '2026-11-25' }] })],
  ];
  for (const [format, seed] of seeds) {
    fc.assert(fc.property(fc.array(op, { minLength: 1, maxLength: 4 }), (ops) => {
      boundedOutcome(format, mutate(seed, ops));
    }), { numRuns: 150, seed: 38 });
    fc.assert(fc.property(fc.string({ maxLength: 400 }), (junk) => {
      boundedOutcome(format, junk);
      boundedOutcome(format, seed.slice(0, seed.length >> 1) + junk);
    }), { numRuns: 100, seed: 39 });
  }
});
