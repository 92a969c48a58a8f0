// Crypto deposit quotes: the coin/network choice, the deposit address formats and the rounding of
// the coin amount.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { base58check, cryptoColumn, depositWallet, quoteCrypto, readCryptoChoice } from '../../src/domain/crypto.ts';
import { findMethod } from '../../src/domain/catalog.ts';
import { dec } from '../../src/domain/money.ts';

test('base58check writes the Bitcoin wiki example address', () => {
  // Technical background of version 1 Bitcoin addresses: HASH160 010966776006953d5567439e5e39f86a0d273bee.
  assert.equal(base58check(0x00, Buffer.from('010966776006953d5567439e5e39f86a0d273bee', 'hex')), '16UwLL9Risc3QfPqBUvKofHmBQ7wMtjvM');
  // Leading zero bytes are kept as leading 1s.
  assert.match(base58check(0x00, Buffer.alloc(20)), /^1{21}/);
});

test('deposit addresses: one per deposit and network, in the network format, the same when recomputed', () => {
  const tron = depositWallet('tok-a', 'TRON');
  assert.match(tron, /^T[1-9A-HJ-NP-Za-km-z]{33}$/);
  assert.equal(depositWallet('tok-a', 'TRON'), tron);
  assert.notEqual(depositWallet('tok-b', 'TRON'), tron);
  assert.match(depositWallet('tok-a', 'BITCOIN'), /^1[1-9A-HJ-NP-Za-km-z]{25,33}$/);
  assert.match(depositWallet('tok-a', 'ETHEREUM'), /^0x[0-9a-f]{40}$/);
});

test('the choice: defaults, aliases, case, and every bad value named', () => {
  assert.deepEqual(readCryptoChoice(undefined), { ok: true, value: { currency: 'USDT', network: 'TRON' } });
  assert.deepEqual(readCryptoChoice({ currency: 'usdt', network: 'erc20', wallet: 'ignored' }), { ok: true, value: { currency: 'USDT', network: 'ETHEREUM' } });
  assert.deepEqual(readCryptoChoice({ currency: 'BTC', network: null }), { ok: true, value: { currency: 'BTC', network: 'BITCOIN' } });
  assert.deepEqual(readCryptoChoice({ currency: 'DOGE', network: 7 }), {
    ok: false,
    details: ['crypto.currency: must be one of BTC, USDT', 'crypto.network: USDT is paid on TRON or ETHEREUM'],
  });
  assert.deepEqual(readCryptoChoice({ currency: 'BTC', network: 'TRON' }), { ok: false, details: ['crypto.network: BTC is paid on BITCOIN'] });
});

test('the coin amount is rounded up to the coin decimals, so the amount shown is never short', () => {
  const q = quoteCrypto({ currency: 'BTC', network: 'BITCOIN' }, dec('100.00'), 'tok');
  assert.deepEqual([q.crypto_fx, q.crypto_amount], ['95000', '0.00105264']);
  assert.equal(quoteCrypto({ currency: 'USDT', network: 'TRON' }, dec('13.84'), 'tok').crypto_amount, '13.84');
});

test('the column: a quote for crypto methods, the object as sent for others', () => {
  const cr = findMethod('BR', 'CR')!;
  const stored = JSON.parse(cryptoColumn(cr, { currency: 'BTC' }, dec('9.50'), 'tok')!);
  assert.deepEqual(Object.keys(stored), ['currency', 'wallet', 'network', 'crypto_fx', 'crypto_amount']);
  assert.equal(stored.wallet, depositWallet('tok', 'BITCOIN'));
  assert.equal(cryptoColumn(findMethod('BR', 'IX')!, { currency: 'BTC' }, dec('9.50'), 'tok'), '{"currency":"BTC"}');
  assert.equal(cryptoColumn(null, null, dec('9.50'), 'tok'), null);
});
