import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { capabilitiesOf, ConfigError, loadConfig } from '../../src/config/config.ts';
import { DEFAULT_PASSWORD_COST, dummyPasswordHash, hashPassword, secretBox, setPasswordCost, verifyPassword } from '../../src/domain/secrets.ts';
import fc from 'fast-check';
import { parse as parseLossless } from 'lossless-json';
import { dropNulls, parseForm, parseJsonLossless } from '../../src/http/body-parsers.ts';
import { parseXDate } from '../../src/api/auth/v3-headers.ts';
import { checkCallbackUrl } from '../../src/domain/urls.ts';
import * as sig from '../../src/domain/signatures.ts';

const base = { CAJA_MASTER_KEY: randomBytes(32).toString('base64'), CAJA_ADMIN_TOKEN: 'a-long-enough-admin-token' };

describe('config', () => {
  test('defaults', () => {
    const c = loadConfig({ ...base, DATA_DIR: '/tmp/caja-cfg' });
    assert.equal(c.port, 8080);
    assert.equal(c.env, 'staging');
    assert.equal(c.publicBaseUrl, 'http://localhost:8080');
    assert.equal(c.xDateToleranceSeconds, 300);
  });
  test('bad values give a clear message naming the variable', () => {
    const cases: [Record<string, string>, RegExp][] = [
      [{ PORT: 'eighty' }, /PORT must be a whole number/],
      [{ PORT: '70000' }, /PORT must be between/],
      [{ CAJA_ENV: 'prod' }, /CAJA_ENV must be 'staging' or 'production'/],
      [{ DATABASE_URL: 'mysql://x' }, /DATABASE_URL must start with postgres/],
      [{ PUBLIC_BASE_URL: 'ftp://x' }, /PUBLIC_BASE_URL/],
      [{ CAJA_MASTER_KEY: 'c2hvcnQ=' }, /CAJA_MASTER_KEY must be 32 bytes/],
      [{ CAJA_ADMIN_TOKEN: 'short' }, /at least 16/],
      [{ LOG_LEVEL: 'loud' }, /LOG_LEVEL/],
      [{ CAJA_WORKERS: 'maybe' }, /CAJA_WORKERS must be true or false/],
      [{ CAJA_NOTIFY_RETRY_SECONDS: '1,x' }, /CAJA_NOTIFY_RETRY_SECONDS/],
    ];
    for (const [env, message] of cases) assert.throws(() => loadConfig({ ...base, DATA_DIR: '/tmp/caja-cfg', ...env }), (e: Error) => e instanceof ConfigError && message.test(e.message));
  });
  test('production requires the master key and admin token from the environment', () => {
    assert.throws(() => loadConfig({ CAJA_ENV: 'production', DATA_DIR: `/tmp/caja-cfg-${Date.now()}` }), /CAJA_MASTER_KEY is required in production/);
  });
});

describe('secret box', () => {
  const box = secretBox(randomBytes(32));
  test('encrypts with a fresh nonce and decrypts', () => {
    const a = box.encrypt('secret-value');
    assert.notEqual(a, box.encrypt('secret-value'));
    assert.ok(!a.includes('secret-value'));
    assert.equal(box.decrypt(a), 'secret-value');
  });
  test('tampering or another key is detected', () => {
    const sealed = box.encrypt('x');
    const parts = sealed.split('.');
    parts[2] = Buffer.from('y').toString('base64url');
    assert.throws(() => box.decrypt(parts.join('.')));
    assert.throws(() => secretBox(randomBytes(32)).decrypt(sealed));
  });
  test('keyed hashes verify only the same value', () => {
    const h = box.hash('trans-key');
    assert.ok(box.verifyHash('trans-key', h));
    assert.ok(!box.verifyHash('trans-kez', h));
    assert.notEqual(secretBox(randomBytes(32)).hash('trans-key'), h);
  });
  test('passwords use a salted slow hash', () => {
    const h = hashPassword('pw');
    assert.notEqual(h, hashPassword('pw'));
    assert.ok(verifyPassword('pw', h));
    assert.ok(!verifyPassword('pw2', h));
  });
  test('a password hash names its work factor; one made at another factor still verifies; a bad factor never does', () => {
    const at14 = hashPassword('pw');
    assert.match(at14, /^scrypt\.[\w-]{22}\.[\w-]{43}$/, 'factor 14 keeps the scheme hashes had before factors were named');
    setPasswordCost(10);
    try {
      const at10 = hashPassword('pw');
      assert.match(at10, /^scrypt10\.[\w-]{22}\.[\w-]{43}$/);
      assert.ok(verifyPassword('pw', at10) && verifyPassword('pw', at14));
      assert.ok(!verifyPassword('px', at10));
      // A stored value naming a factor out of range (memory, time) is refused, not computed.
      assert.ok(!verifyPassword('pw', at10.replace(/^scrypt10/, 'scrypt30')));
      assert.ok(!verifyPassword('pw', at10.replace(/^scrypt10/, 'scrypt09')));
      assert.throws(() => setPasswordCost(9), RangeError);
    } finally {
      setPasswordCost(DEFAULT_PASSWORD_COST);
    }
  });
  test('the hash an unknown e-mail is checked against is made at the current factor, so it costs what a real one does', () => {
    const shape = (x: string) => x.split('.').map((p, i) => (i === 0 ? p : Buffer.from(p, 'base64url').length));
    assert.deepEqual(shape(dummyPasswordHash()), shape(hashPassword('pw')));
    setPasswordCost(11);
    try {
      assert.deepEqual(shape(dummyPasswordHash()), shape(hashPassword('pw')));
      assert.equal(dummyPasswordHash(), dummyPasswordHash(), 'made once per factor');
      assert.ok(!verifyPassword('', dummyPasswordHash()));
    } finally {
      setPasswordCost(DEFAULT_PASSWORD_COST);
    }
  });
  test('CAJA_PASSWORD_HASH_COST: 14 by default, lower only in staging, bounded', () => {
    const key = randomBytes(32).toString('base64');
    const base = { DATA_DIR: '/nonexistent', CAJA_MASTER_KEY: key, CAJA_ADMIN_TOKEN: 'x'.repeat(20) };
    assert.equal(loadConfig({ ...base, CAJA_ENV: 'staging' }).passwordHashCost, 14);
    assert.equal(loadConfig({ ...base, CAJA_ENV: 'staging', CAJA_PASSWORD_HASH_COST: '10' }).passwordHashCost, 10);
    assert.throws(() => loadConfig({ ...base, CAJA_ENV: 'staging', CAJA_PASSWORD_HASH_COST: '18' }), ConfigError);
    assert.throws(() => loadConfig({ ...base, CAJA_ENV: 'production', CAJA_PASSWORD_HASH_COST: '12' }), /at least 14 in production/);
  });
});

describe('body parsing', () => {
  test('JSON numbers keep every digit; nulls mean absent', () => {
    const b = parseJsonLossless(Buffer.from('{"amount":123456789012345678.12,"small":10.5,"keep":"10.50","payer":null,"n":{"x":null,"y":1},"list":[1,null]}')) as any;
    assert.equal(b.amount, '123456789012345678.12');
    assert.equal(b.small, 10.5);
    assert.equal(b.keep, '10.50');
    assert.ok(!('payer' in b));
    assert.deepEqual(b.n, { y: 1 });
    assert.deepEqual(b.list, [1, null]);
  });
  test('JSON number text that a double cannot hold exactly stays text', () => {
    const b = parseJsonLossless(Buffer.from('{"a":10.50,"b":9007199254740993,"c":1e2}')) as any;
    assert.deepEqual([b.a, b.b, b.c], ['10.50', '9007199254740993', '1e2']);
  });
  test('a key sent twice with two values is refused; with one value, read once', () => {
    assert.throws(() => parseJsonLossless(Buffer.from('{"a":1,"b":{"c":"x","c":"y"}}')), /Duplicate key 'c'/);
    assert.deepEqual(parseJsonLossless(Buffer.from('{"a":1,"a":1}')), { a: 1 });
  });
  test('the native parse gives what the lossless parser gives, whatever the JSON', () => {
    // Bodies with only plain numbers and no repeated key are read by JSON.parse (the fast way):
    // the value must be the lossless parser's, nulls dropped, for every JSON text.
    const reference = (text: string) => {
      try {
        return { value: dropNulls(parseLossless(text, undefined, (t) => (String(Number(t)) === t ? Number(t) : t))) };
      } catch (err) {
        return { error: (err as Error).message };
      }
    };
    const ours = (text: string) => {
      try {
        return { value: parseJsonLossless(Buffer.from(text)) };
      } catch (err) {
        return { error: (err as Error).message };
      }
    };
    const texts = fc.oneof(
      fc.json({ maxDepth: 4 }),
      fc.jsonValue({ maxDepth: 3 }).map((v) => JSON.stringify({ v, list: [v, null], n: null, amount: 10.5, t: '10.50' })),
      fc.tuple(fc.constantFrom('a', 'b', '__proto__'), fc.jsonValue({ maxDepth: 2 }), fc.jsonValue({ maxDepth: 2 }))
        .map(([k, x, y]) => `{"${k}":${JSON.stringify(x)},"z":1,"${k}":${JSON.stringify(y)}}`),
      fc.constantFrom('{"a":10.50}', '{"a":-0}', '{"a":1e400}', '{"a":01}', '{"a":1.}', '{"a":}', '[1,,2]', '{"a":"\u0000"}', ' { "a" : [ 1 , 2 ] } '),
    );
    fc.assert(fc.property(texts, (text) => assert.deepEqual(ours(text), reference(text))), { numRuns: 2000 });
  });
  test('__proto__ keys do not pollute prototypes', () => {
    const b = parseJsonLossless(Buffer.from('{"__proto__":{"polluted":true}}')) as any;
    assert.equal(({} as any).polluted, undefined);
    assert.equal(Object.getPrototypeOf(b), Object.prototype);
  });
  test('forms: UTF-8, raw spaces, plus signs, first value wins', () => {
    const f = parseForm(Buffer.from('x_city=São Paulo&x_name=Jo%C3%A3o+Silva&x_a=1&x_a=2&x_email=a%2Bb@x.com'));
    assert.deepEqual({ ...f }, { x_city: 'São Paulo', x_name: 'João Silva', x_a: '1', x_email: 'a+b@x.com' });
  });
});

describe('X-Date', () => {
  test('accepted forms', () => {
    assert.equal(parseXDate('2026-01-31T12:00:00Z')?.toISOString(), '2026-01-31T12:00:00.000Z');
    assert.equal(parseXDate('2026-01-31T09:00:00-0300')?.toISOString(), '2026-01-31T12:00:00.000Z');
    assert.equal(parseXDate('2026-01-31T09:00:00.123-03:00')?.toISOString(), '2026-01-31T12:00:00.123Z');
  });
  test('rejected forms', () => {
    for (const v of ['2026-01-31T12:00:00', '2026-01-31 12:00:00Z', '31/01/2026', '2026-02-30T12:00:00Z', '']) assert.equal(parseXDate(v), null, v);
  });
});

describe('callback URLs', () => {
  test('https everywhere; http only on loopback in staging', () => {
    assert.equal(checkCallbackUrl('https://shop.example/hook', capabilitiesOf('production')), null);
    assert.equal(checkCallbackUrl('http://localhost:3000/x', capabilitiesOf('staging')), null);
    assert.equal(checkCallbackUrl('http://[::1]:3000/x', capabilitiesOf('staging')), null);
    assert.match(checkCallbackUrl('http://localhost:3000/x', capabilitiesOf('production'))!, /HTTPS/);
    assert.match(checkCallbackUrl('http://shop.example/x', capabilitiesOf('staging'))!, /HTTPS/);
    assert.match(checkCallbackUrl('not a url', capabilitiesOf('staging'))!, /valid URL/);
    assert.match(checkCallbackUrl(`https://x.example/${'a'.repeat(2048)}`, capabilitiesOf('staging'))!, /2048/);
  });
});

describe('signature messages (spec table)', () => {
  test('NewInvoice control message order and letters', () => {
    const m = sig.newInvoiceControlMessage({ x_invoice: 'INV1', x_amount: '10.00', x_iduser: '7', x_bank: 'IX', x_cpf: '123', x_bdate: '', x_email: 'a@b.c', x_zip: '01000', x_address: 'Rua 1', x_city: 'São Paulo', x_state: 'SP' });
    assert.equal(m, 'INV1V10.00I72IX1123HGa@b.cY01000ARua 1PSão PauloSSPP');
  });
  test('refund request and response messages', () => {
    assert.equal(sig.refundRequestMessage({ x_invoice: 'I', x_document: 'D', x_amount: '1.00', x_bank_beneficiary: 'B', x_bank: 'K', x_bank_account: 'A', x_account_type: 'C', x_bank_branch: 'R' }), 'AID1.00BKACR');
    assert.equal(sig.refundResponseMessage('1', '1.00', 'BRL', 'I', 'D', '9'), '11.00BRLID9');
  });
  test('upper-case hex HMAC over UTF-8, verified in either case', () => {
    const h = sig.hmacHexUpper('key', 'São');
    assert.match(h, /^[0-9A-F]{64}$/);
    assert.ok(sig.verifyHmacHex('key', 'São', h));
    assert.ok(sig.verifyHmacHex('key', 'São', h.toLowerCase()));
    assert.ok(!sig.verifyHmacHex('key', 'Sao', h));
    assert.ok(!sig.verifyHmacHex('key', 'São', 'zz'));
  });
  test('cashout notification control and caja signature header', () => {
    assert.equal(sig.cashoutNotificationMessage('EXT-1'), 'Be4EXT-1Bo7');
    assert.equal(sig.cajaSignatureHeader('k', 1700000000, '{}'), `t=1700000000,v1=${sig.hmacHex('k', '1700000000.{}')}`);
  });
});
