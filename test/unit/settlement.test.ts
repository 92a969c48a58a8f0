// The pure money rules of balances: what a deposit credits, what a refund takes back, the one
// rounding rule, ISO 4217 minor units, and balanced transfers.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { minorUnits, roundToMinor } from '../../src/domain/currencies.ts';
import { type Decimal, dec, toDb, toFixed } from '../../src/domain/money.ts';
import { depositCredit, type DepositFigures, fromUsd, payoutFigures, refundDebit } from '../../src/domain/settlement.ts';
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

test('payoutFigures: a conversion never rounds in the merchant\'s favour, and a payout too small to reserve is refused', () => {
  const brl = dec('5.4321');
  const figures = (amount: string, currency: string, settlement: string, rates: { local: Decimal; settlement?: Decimal } = { local: brl }) => {
    const r = payoutFigures(dec(amount), currency, 'BRL', settlement, rates);
    return r.ok ? [toFixed(r.value.local, 2), toFixed(r.value.usd, 2), toFixed(r.value.settlement, r.value.settlement.scale)] : r.reason;
  };
  // BRL 0.08 = USD 0.0147: the USD-settled merchant reserves 0.02 (half-up gave 0.01).
  assert.deepEqual(figures('0.08', 'BRL', 'USD'), ['0.08', '0.02', '0.02']);
  // BRL 0.01 = USD 0.0018: no whole cent to reserve; refused, naming amount (was a 500).
  assert.match(String(figures('0.01', 'BRL', 'USD')), /^amount: 0\.01 BRL is worth less than/);
  // BRL 0.06 = USD 0.011: one cent is there, the reservation rounds up to 0.02.
  assert.deepEqual(figures('0.06', 'BRL', 'USD'), ['0.06', '0.02', '0.02']);
  // USD 0.02 = BRL 0.108642: the beneficiary receives 0.10, never 0.11.
  assert.deepEqual(figures('0.02', 'USD', 'USD'), ['0.10', '0.02', '0.02']);
  // Settled in the local currency: the reservation is exactly what the beneficiary receives.
  assert.deepEqual(figures('0.02', 'USD', 'BRL'), ['0.10', '0.02', '0.10']);
  assert.deepEqual(figures('10.00', 'BRL', 'BRL'), ['10.00', '1.85', '10.00']);
  // A third settlement currency, in one rounding from the request: BRL 10.00 → EUR 10 × 0.92 / 5.4321 = 1.6936…
  assert.deepEqual(figures('10.00', 'BRL', 'EUR', { local: brl, settlement: dec('0.92') }), ['10.00', '1.85', '1.70']);
  assert.deepEqual(figures('1.00', 'USD', 'EUR', { local: brl, settlement: dec('0.925') }), ['5.43', '1.00', '0.93']);
  // Zero-decimal settlement (CLP 950 per USD): BRL 0.01 is CLP 1.7… → reserves CLP 2.
  assert.deepEqual(figures('0.01', 'BRL', 'CLP', { local: brl, settlement: dec('950') }), ['0.01', '0.01', '2']);
  // Exact conversions are not moved: MXN 182.50 at 18.25 is USD 10.00.
  const mx = payoutFigures(dec('182.50'), 'MXN', 'MXN', 'USD', { local: dec('18.25') });
  assert.ok(mx.ok && toFixed(mx.value.settlement, 2) === '10.00' && toFixed(mx.value.usd, 2) === '10.00');
});

test('payoutFigures: over many amounts, the reservation is never worth less than what the beneficiary receives', () => {
  const rate = dec('5.4321');
  for (let cents = 1; cents <= 3000; cents += 7) {
    const amount = { units: BigInt(cents), scale: 2 };
    for (const currency of ['USD', 'BRL']) {
      const r = payoutFigures(amount, currency, 'BRL', 'USD', { local: rate });
      if (!r.ok) {
        assert.ok(currency === 'BRL' && cents * 1 < 5.4321, `${cents} ${currency} refused`);
        continue;
      }
      // settlement (USD) × rate ≥ local (BRL), compared exactly in integers (10^-6).
      const reserveInLocal = r.value.settlement.units * 54321n; // USD cents × rate×10^4 → BRL 10^-6
      const paid = r.value.local.units * 10000n;
      assert.ok(reserveInLocal >= paid, `${cents} ${currency}: reserve ${toFixed(r.value.settlement, 2)} USD for ${toFixed(r.value.local, 2)} BRL`);
    }
  }
});
