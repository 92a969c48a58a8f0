// The pure money rules of balances: what a deposit credits, what a refund takes back, the one
// rounding rule, ISO 4217 minor units, and balanced transfers.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { minorUnits, roundToMinor } from '../../src/domain/currencies.ts';
import { dec, toDb } from '../../src/domain/money.ts';
import { depositCredit, type DepositFigures, fromUsd, refundDebit } from '../../src/domain/settlement.ts';
import { checkBalanced, UnbalancedTransfer } from '../../src/ledger/ledger.ts';

const deposit = (over: Partial<DepositFigures> = {}): DepositFigures => ({
  amount: '543.21', usd_amount: '100.00', merchant_usd: '98.50', fee_usd: '1.50', local_amount: '543.21', local_currency: 'BRL',
  fee_local: '8.15', surcharge_local: '0', fee_on_payer: false, surcharge_on_payer: true, ...over,
});
const show = (c: ReturnType<typeof depositCredit>) => [c.currency, toDb(c.gross), toDb(c.merchantFees), toDb(c.net), toDb(c.payerFee)];

describe('currencies', () => {
  test('minor units come from ISO 4217', () => {
    assert.deepEqual(['USD', 'BRL', 'CLP', 'PYG', 'XAF', 'UGX', 'VND', 'KWD', 'JPY'].map(minorUnits), [2, 2, 0, 0, 0, 0, 0, 3, 0]);
  });
  test('one rounding rule: half-up to the minor unit, once', () => {
    assert.deepEqual([roundToMinor(dec('12571.5'), 'CLP'), roundToMinor(dec('12571.49'), 'CLP'), roundToMinor(dec('1.005'), 'USD'), roundToMinor(dec('-1.005'), 'USD')].map(toDb), ['12572', '12571', '1.01', '-1.01']);
  });
});

describe('deposit credit', () => {
  test('USD settlement: the USD value fixed at creation, minus what the merchant pays', () => {
    assert.deepEqual(show(depositCredit(deposit(), 'USD')), ['USD', '100.00', '1.50', '98.50', '0.00']);
  });
  test('fee_on_payer: the merchant gets the whole value; the payer-paid fee is caja revenue', () => {
    assert.deepEqual(show(depositCredit(deposit({ merchant_usd: '100.00', fee_on_payer: true }), 'USD')), ['USD', '100.00', '0.00', '100.00', '1.50']);
  });
  test('local settlement: the local amounts, fee and surcharge the merchant pays, in minor units', () => {
    assert.deepEqual(show(depositCredit(deposit({ surcharge_local: '2.72', surcharge_on_payer: false }), 'BRL')), ['BRL', '543.21', '10.87', '532.34', '0.00']);
    const clp = depositCredit(deposit({ local_currency: 'CLP', local_amount: '9402.50', fee_local: '141.04' }), 'CLP');
    assert.deepEqual(show(clp), ['CLP', '9403', '141', '9262', '0']);
  });
  test('another settlement currency converts the USD figures at the given rate', () => {
    assert.deepEqual(show(depositCredit(deposit(), 'MXN', dec('18.25'))), ['MXN', '1825.00', '27.38', '1797.62', '0.00']);
    assert.throws(() => depositCredit(deposit(), 'MXN'), /rate/);
  });
});

describe('refund debit', () => {
  const net = dec('98.50');
  test('a partial refund takes its share, rounded down', () => {
    assert.equal(toDb(refundDebit(dec('10.00'), dec('100.00'), net, dec('0'), dec('0'))), '9.85');
    assert.equal(toDb(refundDebit(dec('0.03'), dec('100.00'), net, dec('0'), dec('0'))), '0.02');
  });
  test('the refund that completes the deposit takes exactly what is left', () => {
    // Three thirds rounded down would leave a cent behind; the last takes it.
    const third = refundDebit(dec('33.33'), dec('100.00'), net, dec('0'), dec('0'));
    assert.equal(toDb(third), '32.83');
    assert.equal(toDb(refundDebit(dec('33.34'), dec('100.00'), net, dec('66.66'), dec('65.66'))), '32.84');
  });
  test('never more than the credit, whatever came before', () => {
    assert.equal(toDb(refundDebit(dec('1.00'), dec('100.00'), net, dec('99.00'), dec('99.00'))), '0.00');
  });
});

describe('conversion and transfers', () => {
  test('from USD, rounded once to the target currency\'s minor unit', () => {
    assert.equal(toDb(fromUsd(dec('18.41'), dec('18.25'), 'MXN')), '335.98');
    assert.equal(toDb(fromUsd(dec('13.37'), dec('940.25'), 'CLP')), '12571');
  });
  test('a transfer must balance in each currency; zero postings are dropped', () => {
    const p = (currency: string, amount: string) => ({ merchantId: 1, currency, kind: 'available' as const, amount: dec(amount) });
    assert.equal(checkBalanced([p('USD', '-1.00'), p('USD', '1.00'), p('USD', '0')]).length, 2);
    assert.throws(() => checkBalanced([p('USD', '-1.00'), p('USD', '0.99')]), UnbalancedTransfer);
    assert.throws(() => checkBalanced([p('USD', '-1.00'), p('BRL', '1.00')]), UnbalancedTransfer);
  });
});
