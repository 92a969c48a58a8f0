// The panel's pure pieces: TOTP against RFC 6238's published vectors, base32, and CSV in and out.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { base32Decode, base32Encode, totpCode, totpMatchStep, verifyTotp } from '../../src/backoffice/totp.ts';
import { csvCell, csvLine, parseCsv } from '../../src/panel/services/csv.ts';
import { ACTIONS, can, ROLES, rotateAction } from '../../src/panel/services/roles.ts';

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
  // The step a code belongs to, which the sign-in remembers so that a code works once.
  assert.equal(totpMatchStep(secret, '005924', at), Math.floor(1234567890 / 30));
  assert.equal(totpMatchStep(secret, totpCode(secret, new Date(at.getTime() + 30_000)), at), Math.floor(1234567890 / 30) + 1);
  assert.equal(totpMatchStep(secret, '12345', at), null);
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

test('roles: one table decides every action, role by role', () => {
  // Written out in full: a change to the table has to change this too.
  const expected: Record<string, string[]> = {
    owner: ['view', 'money', 'sandbox', 'api.view', 'settings.edit', 'notifications', 'rotate:deposits', 'rotate:web_status', 'rotate:cashouts', 'rotate:read_only', 'rotate:panel', 'team', 'audit'],
    admin: ['view', 'money', 'sandbox', 'api.view', 'settings.edit', 'notifications', 'rotate:deposits', 'rotate:web_status', 'rotate:cashouts', 'rotate:read_only', 'team', 'audit'],
    // Sees every login, the read-only key and the settings; never a secret that moves money.
    developer: ['view', 'sandbox', 'api.view', 'settings.edit', 'notifications', 'rotate:read_only'],
    finance: ['view', 'money', 'sandbox'],
    support: ['view'],
  };
  assert.deepEqual(Object.keys(expected), [...ROLES]);
  for (const role of ROLES) assert.deepEqual(ACTIONS.filter((a) => can(role, a)), expected[role], role);
  // Rotation (the only way secrets are shown) of the sets that move money: owner and admin only.
  for (const set of ['deposits', 'cashouts'] as const) assert.deepEqual(ROLES.filter((r) => can(r, rotateAction(set))), ['owner', 'admin'], set);
  assert.deepEqual(ROLES.filter((r) => can(r, rotateAction('panel'))), ['owner']);
});
