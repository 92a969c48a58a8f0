// The panel's pure pieces: TOTP against RFC 6238's published vectors, base32, and CSV in and out.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { base32Decode, base32Encode, totpCode, verifyTotp } from '../../src/panel/totp.ts';
import { csvCell, csvLine, parseCsv } from '../../src/panel/csv.ts';
import { can, ROLES } from '../../src/panel/roles.ts';

test('TOTP: RFC 6238 SHA-1 vectors (last six digits), a step either side accepted, two steps not', () => {
  const secret = base32Encode(Buffer.from('12345678901234567890'));
  const vectors: [number, string][] = [[59, '287082'], [1111111109, '081804'], [1111111111, '050471'], [1234567890, '005924'], [2000000000, '279037']];
  for (const [t, code] of vectors) assert.equal(totpCode(secret, new Date(t * 1000)), code, `t=${t}`);
  const at = new Date(1234567890 * 1000);
  assert.ok(verifyTotp(secret, '005924', at));
  assert.ok(verifyTotp(secret, totpCode(secret, new Date(at.getTime() - 30_000)), at));
  assert.ok(!verifyTotp(secret, totpCode(secret, new Date(at.getTime() + 60_000)), at));
  assert.ok(!verifyTotp(secret, '12345', at));
  assert.ok(!verifyTotp(secret, 'abcdef', at));
});

test('base32 round trip', () => {
  for (const s of ['', 'f', 'fo', 'foo', 'foob', 'fooba', 'foobar']) assert.equal(base32Decode(base32Encode(Buffer.from(s))).toString(), s);
  assert.equal(base32Encode(Buffer.from('foobar')), 'MZXW6YTBOI');
});

test('CSV: quoted fields with commas, quotes and line breaks; BOM, CRLF and blank lines', () => {
  assert.deepEqual(parseCsv('\uFEFFa,b,c\r\n1,"x, y","say ""hi"""\r\n\r\n2,"two\nlines",\n'), [['a', 'b', 'c'], ['1', 'x, y', 'say "hi"'], ['2', 'two\nlines', '']]);
  assert.throws(() => parseCsv('a,"open'), /not closed/);
  assert.deepEqual(parseCsv(csvLine(['a,b', 'q"q', 'plain'])), [['a,b', 'q"q', 'plain']]);
});

test('CSV export: formulas neutralised, negative numbers kept', () => {
  assert.equal(csvCell('=HYPERLINK("x")'), `"'=HYPERLINK(""x"")"`);
  assert.equal(csvCell('@SUM(A1)'), "'@SUM(A1)");
  assert.equal(csvCell('+1 555'), "'+1 555");
  assert.equal(csvCell('-20.00'), '-20.00');
  assert.equal(csvCell(null), '');
});

test('roles: support reads only; only owner and admin manage the team', () => {
  assert.deepEqual(ROLES.filter((r) => can(r, 'money')), ['owner', 'admin', 'finance']);
  assert.deepEqual(ROLES.filter((r) => can(r, 'team')), ['owner', 'admin']);
  assert.deepEqual(ROLES.filter((r) => !can(r, 'view')), []);
  assert.deepEqual(['money', 'sandbox', 'api', 'team', 'audit'].filter((p) => can('support', p as never)), []);
});
