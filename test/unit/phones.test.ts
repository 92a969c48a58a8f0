import { test } from 'node:test';
import assert from 'node:assert/strict';
import { validatePhone } from '../../src/domain/phones.ts';

test('valid local mobile numbers in several formats normalise to E.164', () => {
  assert.deepEqual(validatePhone('BR', '+55 (11) 91234-5678'), { ok: true, e164: '+5511912345678', country: 'BR' });
  assert.deepEqual(validatePhone('MX', '+52 55 1234 5678'), { ok: true, e164: '+525512345678', country: 'MX' });
  assert.deepEqual(validatePhone('CO', '+57 301 234 5678'), { ok: true, e164: '+573012345678', country: 'CO' });
  assert.deepEqual(validatePhone('AR', '+54 9 11 2345-6789'), { ok: true, e164: '+5491123456789', country: 'AR' });
  assert.deepEqual(validatePhone('KE', '+254 712 345678'), { ok: true, e164: '+254712345678', country: 'KE' });
  assert.deepEqual(validatePhone('NG', '+234 803 123 4567'), { ok: true, e164: '+2348031234567', country: 'NG' });
  assert.deepEqual(validatePhone('IN', '+91 98765 43210'), { ok: true, e164: '+919876543210', country: 'IN' });
});

test('a valid number from another country is accepted', () => {
  const r = validatePhone('BR', '+1 650 253 0000');
  assert.deepEqual(r, { ok: true, e164: '+16502530000', country: 'US' });
});

test('requires the international format', () => {
  const r = validatePhone('BR', '11 91234-5678');
  assert.equal(r.ok, false);
  assert.match(!r.ok ? r.reason : '', /leading \+/);
  assert.deepEqual(validatePhone('BR', ''), { ok: false, reason: 'phone is required' });
});

test('rejects wrong lengths, letters and numbers outside the numbering plan', () => {
  assert.deepEqual(validatePhone('BR', '+55 11 9123'), { ok: false, reason: 'phone number too short' });
  assert.deepEqual(validatePhone('BR', '+55 11 91234 5678 9999'), { ok: false, reason: 'phone number too long' });
  assert.equal(validatePhone('BR', '+55 11 FLOWERS').ok, false);
  // Brazilian mobile numbers have 9 digits starting with 9; area code 11 has no 0-prefixed numbers.
  const r = validatePhone('BR', '+55 11 01234 5678');
  assert.equal(r.ok, false);
});
