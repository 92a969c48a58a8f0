// The Adyen connector's pure rules: the notification HMAC (the documented signed string, a hex
// key, constant-time, two keys while rotating, one bad item refuses the batch), the operator's
// configuration checked field by field, amounts in minor units, and the voucher action as
// payment_info (a boleto's bar code only from a line whose check digits hold).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { hmacOf, parseNotifications, signedString } from '../../src/connectors/adyen/notifications.ts';
import { validateAdyenConfig, liveApiUrl } from '../../src/connectors/adyen/settings.ts';
import { minorUnits, paymentInfoFromVoucher, sessionResult } from '../../src/connectors/adyen/mapping.ts';
import { dec, toDb } from '../../src/domain/money.ts';
import { approvalDetail, storedCardRefusal } from '../../src/domain/cards.ts';
import { CHARGEBACK_FEE_USD, effectiveSchedule, validateFeeOverrides } from '../../src/domain/fees.ts';
import { usdFeeIn } from '../../src/domain/settlement.ts';
import { buildBoleto } from '../../src/domain/vouchers.ts';
import { findMethod } from '../../src/domain/catalog.ts';

const KEY = '44782DEF547AAA06C910C43932B1EB0C71FC68D9D0C057550C48EC2ACF6BA056';
const OTHER = 'AB'.repeat(32);
const item = (extra: Record<string, unknown> = {}) => ({
  pspReference: '7914073381342284', merchantAccountCode: 'TestMerchant', merchantReference: 'TestPayment-1407325143704',
  amount: { value: 1130, currency: 'EUR' }, eventCode: 'AUTHORISATION', success: 'true', ...extra,
});
const signed = (i: Record<string, any>, key = KEY) => ({ ...i, additionalData: { ...(i.additionalData ?? {}), hmacSignature: hmacOf(i, key) } });
const batch = (...items: unknown[]) => ({ live: 'false', notificationItems: items.map((NotificationRequestItem) => ({ NotificationRequestItem })) });

test('the signed string is the eight documented fields joined by ":" (empty for an absent one); the signature HMAC-SHA256 under the hex key, base64', () => {
  assert.equal(signedString(item()), '7914073381342284::TestMerchant:TestPayment-1407325143704:1130:EUR:AUTHORISATION:true');
  const expected = createHmac('sha256', Buffer.from(KEY, 'hex')).update('7914073381342284::TestMerchant:TestPayment-1407325143704:1130:EUR:AUTHORISATION:true').digest('base64');
  assert.equal(hmacOf(item(), KEY), expected);
});

test('a batch verifies under either configured key; a tampered amount, an unsigned item or another merchant account refuses the whole batch', () => {
  assert.equal(parseNotifications(batch(signed(item())), [KEY], 'TestMerchant').ok, true);
  assert.equal(parseNotifications(batch(signed(item(), OTHER)), [KEY, OTHER], 'TestMerchant').ok, true);
  assert.equal(parseNotifications(batch(signed(item(), OTHER)), [KEY], 'TestMerchant').ok, false);
  const tampered = { ...signed(item()), amount: { value: 999999, currency: 'EUR' } };
  const r = parseNotifications(batch(signed(item({ pspReference: '1' })), tampered), [KEY], 'TestMerchant');
  assert.deepEqual(r, { ok: false, reason: 'an item\'s hmacSignature does not verify' });
  assert.equal(parseNotifications(batch(item()), [KEY], 'TestMerchant').ok, false);
  assert.match((parseNotifications(batch(signed(item({ merchantAccountCode: 'Else' }))), [KEY], 'TestMerchant') as any).reason, /another merchant account/);
  for (const junk of [null, 'x', {}, { notificationItems: [] }, { notificationItems: [1] }]) assert.equal(parseNotifications(junk, [KEY], 'TestMerchant').ok, false);
  const ok = parseNotifications(batch(signed(item({ originalReference: '123', reason: 'x', additionalData: { cardSummary: '1142' } }))), [KEY], 'TestMerchant');
  assert.ok(ok.ok);
  assert.equal(ok.items[0]!.success, true);
  assert.equal(ok.items[0]!.value, 1130);
  assert.deepEqual(ok.items[0]!.additionalData, { cardSummary: '1142' }, 'the signature is not kept');
});

test('configuration: every problem at once; test and live endpoints; methods only those Adyen serves here; secrets apart', () => {
  const bad = validateAdyenConfig({ hmac_key: 'xyz', endpoint: 'prod', methods: { BR: ['IX', 'VI'], AR: ['VI'] } });
  assert.equal(bad.ok, false);
  const text = (bad as { details: string[] }).details.join('\n');
  for (const f of ['api_key', 'merchant_account', 'hmac_key', 'endpoint', 'methods.BR: IX', 'methods.AR']) assert.ok(text.includes(f), f);
  const live = validateAdyenConfig({ api_key: 'k', merchant_account: 'Caja_ECOM', hmac_key: KEY, endpoint: 'live', live_prefix: '1797a841fbb37ca7-AdyenDemo', methods: { br: ['vi', 'BL'] } });
  assert.ok(live.ok);
  assert.equal(live.settings.api_url, liveApiUrl('1797a841fbb37ca7-AdyenDemo'));
  assert.equal(live.settings.methods, JSON.stringify({ BR: ['BL', 'VI'] }));
  assert.deepEqual(Object.keys(live.secrets).sort(), ['api_key', 'hmac_key']);
  assert.ok(!JSON.stringify(live.settings).includes(KEY));
  const both = validateAdyenConfig({ api_key: 'k', merchant_account: 'm', hmac_key: KEY, endpoint: 'test', api_url: 'https://evil.example/v71', methods: { MX: ['OX'] } });
  assert.equal(both.ok, false);
  const agree = validateAdyenConfig({ api_key: 'k', merchant_account: 'm', hmac_key: KEY, endpoint: 'test', api_url: 'https://checkout-test.adyen.com/v71', methods: '{"MX":["OX"]}' });
  assert.ok(agree.ok, JSON.stringify(agree));
  assert.equal(validateAdyenConfig({ api_key: 'k', merchant_account: 'm', hmac_key: KEY, api_url: 'http://x/v71', methods: { MX: ['OX'] } }).ok, false);
});

test('amounts in minor units, exactly; more than 2 decimals is refused', () => {
  assert.deepEqual(minorUnits(dec('120.5'), 'BRL'), { value: 12050, currency: 'BRL' });
  assert.deepEqual(minorUnits(dec('99999999.99'), 'MXN'), { value: 9999999999, currency: 'MXN' });
  assert.throws(() => minorUnits(dec('1.005'), 'BRL'));
});

test('the voucher action as payment_info: a boleto\'s bar code from a valid line only; the OXXO reference as it is', () => {
  const method = findMethod('BR', 'BL')!;
  const order = { depositId: 42, token: 't', method, amount: dec('250.00'), createdAt: new Date('2026-11-29T00:00:00Z'), expiresAt: new Date('2026-12-02T00:00:00Z'), publicBaseUrl: 'https://caja.example', payer: {} };
  const b = buildBoleto({ bankCode: '341', dueDate: '2026-12-02', amount: '250.00', freeField25: '1'.repeat(25) });
  const info = paymentInfoFromVoucher(order, '881', { type: 'voucher', paymentMethodType: 'boletobancario', reference: b.digitableLineFormatted, expiresAt: '2026-12-02T03:00:00Z', downloadUrl: 'https://adyen.example/v.pdf' });
  assert.equal(info.metadata!.bar_code, b.barCode);
  assert.equal(info.metadata!.digitable_line, b.digitableLineFormatted);
  assert.equal(info.metadata!.receipt_url, 'https://adyen.example/v.pdf');
  assert.equal(info.expiration_date, '2026-12-02 03:00:00');
  const broken = b.digitableLine.slice(0, 46) + ((Number(b.digitableLine[46]) + 1) % 10);
  assert.equal(paymentInfoFromVoucher(order, '881', { type: 'voucher', paymentMethodType: 'boletobancario', reference: broken }).metadata!.bar_code, undefined, 'no bar code made from a bad line');
  assert.throws(() => paymentInfoFromVoucher(order, '881', { type: 'redirect', url: 'x' }));
});

test('a session result: paid only when completed with an Authorised payment of this charge and amount', () => {
  const ok = { id: 'CS1', status: 'completed', reference: 'CJ1', payments: [{ pspReference: '99', resultCode: 'Authorised', amount: { value: 12000, currency: 'BRL' }, paymentMethod: { brand: 'mc' } }], additionalData: { cardSummary: '1115' } };
  const r = sessionResult(ok, 'CJ1', { value: 12000, currency: 'BRL' }, 'M');
  assert.equal(r.status, 'paid');
  assert.deepEqual((r as any).card, { card_holder: '', masked_card: '************1115', brand: 'MASTERCARD', expiration: '' });
  assert.equal((r as any).payment.id, '99');
  assert.equal(sessionResult(ok, 'CJ2', { value: 12000, currency: 'BRL' }, 'M').status, 'failed', 'another charge\'s session');
  assert.equal(sessionResult(ok, 'CJ1', { value: 12001, currency: 'BRL' }, 'M').status, 'failed', 'another amount');
  assert.equal(sessionResult({ ...ok, status: 'paymentPending' }, 'CJ1', { value: 12000, currency: 'BRL' }, 'M').status, 'pending');
  assert.equal(sessionResult({ ...ok, status: 'refused' }, 'CJ1', { value: 12000, currency: 'BRL' }, 'M').status, 'failed');
});

test('x_approval_detail of a card deposit: Approved; while pending after a refusal, its reason; cancelled, Not approved with the last reason', () => {
  const refusal = storedCardRefusal({ reason: 'CVC Declined', reason_code: '24', refused_at: '2026-11-29T04:00:00.000Z', attempts: 3, other: 'never shown' })!;
  assert.deepEqual(refusal, { reason: 'CVC Declined', reason_code: '24', refused_at: '2026-11-29T04:00:00.000Z', attempts: 3 });
  assert.equal(storedCardRefusal(null), null);
  assert.equal(storedCardRefusal({ reason: 5 }), null);
  assert.equal(approvalDetail('COMPLETED', refusal), 'Approved');
  assert.equal(approvalDetail('PENDING', null), 'Pending');
  assert.equal(approvalDetail('PENDING', refusal), 'Refused: CVC Declined');
  assert.equal(approvalDetail('CANCELLED', refusal), 'Not approved: CVC Declined');
  assert.equal(approvalDetail('CANCELLED', null), 'Not approved');
});

test('a session result refused, cancelled or expired ends the charge (final): the checkout opens a new session', () => {
  for (const status of ['refused', 'canceled', 'expired']) {
    const r = sessionResult({ status, reference: 'CJREF' }, 'CJREF', { value: 100, currency: 'BRL' }, 'Acct');
    assert.equal(r.status, 'failed');
    assert.equal((r as { final?: boolean }).final, true, status);
  }
  assert.deepEqual(sessionResult({ status: 'active', reference: 'CJREF' }, 'CJREF', { value: 100, currency: 'BRL' }, 'Acct'), { status: 'pending' });
});

test('the chargeback fee: a USD amount per merchant (global 15.00), checked like the other fees; valued in the settlement currency as the deposit was', () => {
  assert.equal(effectiveSchedule(null).chargeback, CHARGEBACK_FEE_USD);
  assert.equal(CHARGEBACK_FEE_USD, '15.00');
  assert.equal(effectiveSchedule({ chargeback: '0.00' }).chargeback, '0.00');
  assert.deepEqual(validateFeeOverrides({ chargeback: '20' }), { ok: true, value: { chargeback: '20.00' } });
  assert.deepEqual(validateFeeOverrides({ chargeback: 12.5 }), { ok: true, value: { chargeback: '12.50' } });
  assert.deepEqual(validateFeeOverrides({ chargeback: '' }), { ok: true, value: {} });
  for (const bad of ['-1', '1.234', '1000000', 'abc', true]) {
    const v = validateFeeOverrides({ chargeback: bad });
    assert.equal(v.ok, false, String(bad));
    assert.match((v as { details: string[] }).details[0]!, /^chargeback: /);
  }
  const d = { usd_amount: '30.00', local_amount: '150.00', local_currency: 'BRL' };
  assert.equal(toDb(usdFeeIn(dec('15.00'), 'USD', d)), '15.00');
  // In the deposit's own currency at its own rate (150 / 30 = 5 BRL per USD).
  assert.equal(toDb(usdFeeIn(dec('15.00'), 'BRL', d)), '75.00');
  // A third currency at the rate given, half-up to its minor unit (CLP: none).
  assert.equal(toDb(usdFeeIn(dec('15.00'), 'CLP', d, dec('941.37'))), '14121');
  assert.throws(() => usdFeeIn(dec('15.00'), 'CLP', d));
});

test('of a notification\'s additionalData only the keys caja reads are kept (never a holder\'s name or a BIN)', () => {
  const it = signed(item({ additionalData: { cardSummary: '1142', cardHolderName: 'Ana Silva', cardBin: '411111', refusalReasonCode: '12' } }));
  const p = parseNotifications(batch(it), [KEY], 'TestMerchant');
  assert.ok(p.ok);
  assert.deepEqual(p.items[0]!.additionalData, { cardSummary: '1142', refusalReasonCode: '12' });
});
