// The next action of a charge, per method: what the pay page shows is read from the charge's
// payment_info by the method's kind (a QR code, bank details, a voucher, or nothing for the
// wallets and crypto whose own page drives the payment), for every method of the catalog; a card's
// is the redirect its kind answers, stored and read back as it was written.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { methodsForCountry } from '../../src/domain/catalog.ts';
import { ACCEPTED_COUNTRY_CODES } from '../../src/domain/countries.ts';
import { dec } from '../../src/domain/money.ts';
import { nextActionOf, type PaymentInfoText, storedNextAction } from '../../src/domain/next-action.ts';
import { stagingSimulator } from '../../src/connectors/staging/simulator.ts';
import { stagingCard } from '../../src/connectors/staging/card.ts';
import { toJson } from '../../src/deposits/json.ts';
import type { AppContext } from '../../src/config/context.ts';
import type { PaymentMethod } from '../../src/domain/catalog.ts';

const BASE = 'https://caja.example';
const TOKEN = 'AbCdEfGhIjKlMnOpQrStUv';

function order(method: PaymentMethod, depositId = 4242) {
  return {
    depositId, token: TOKEN, method, amount: dec('150.00'), createdAt: new Date('2026-11-28T12:00:00Z'), expiresAt: new Date('2026-12-01T12:00:00Z'),
    payer: { document: '52998224725', documentType: 'CPF' }, publicBaseUrl: BASE,
  };
}

/** payment_info as the pages read it back from the stored JSON: every value text. */
function asStored(info: unknown): PaymentInfoText {
  const raw = JSON.parse(toJson(info)) as Record<string, unknown>;
  const strMap = (v: unknown) => (v && typeof v === 'object' ? Object.fromEntries(Object.entries(v).map(([k, x]) => [k, String(x)])) : undefined);
  return { expiration_date: raw.expiration_date as string, metadata: strMap(raw.metadata), secondary_metadata: strMap(raw.secondary_metadata) };
}

test('every method of the catalog: its charge\'s payment_info gives the next action of its kind, with its values', async () => {
  const seen = new Set<string>();
  for (const country of ACCEPTED_COUNTRY_CODES) {
    for (const method of methodsForCountry(country)) {
      if (method.kind === 'card') continue;
      const charge = await stagingSimulator.createCharge(order(method));
      const info = asStored(charge.paymentInfo);
      const md = info.metadata ?? {};
      const a = nextActionOf(method.kind, info, country);
      const at = `${country} ${method.code} (${method.kind})`;
      seen.add(a.type);
      switch (method.kind) {
        case 'pix':
          assert.equal(a.type, 'qr_code', at);
          if (a.type !== 'qr_code') break;
          assert.equal(a.code, info.secondary_metadata!.digitable_line, at);
          assert.match(a.code, /^000201/, `${at}: a BR Code`);
          assert.equal(a.image, info.secondary_metadata!.qr_code, at);
          assert.equal(a.beneficiaryName, md.beneficiary_name);
          assert.equal(a.beneficiaryDocument, md.CNPJ);
          break;
        case 'bank_transfer':
        case 'bank_deposit':
          assert.equal(a.type, 'bank_details', at);
          if (a.type !== 'bank_details') break;
          assert.equal(a.deposit, method.kind === 'bank_deposit', at);
          assert.equal(a.account, md.account, at);
          assert.equal(a.agency, md.agency ?? null, at);
          assert.equal(a.beneficiaryName, md.beneficiary_name, at);
          assert.equal(a.clabe, country === 'MX', `${at}: a CLABE in Mexico only`);
          break;
        case 'voucher':
          assert.equal(a.type, 'voucher', at);
          if (a.type !== 'voucher') break;
          assert.equal(a.barCode, md.bar_code, at);
          assert.ok(a.barCode, at);
          assert.equal(a.digitableLine, md.digitable_line, at);
          assert.equal(a.url, `${BASE}/vouchers/${TOKEN}`, at);
          assert.equal(a.expiresAt, info.expiration_date, at);
          break;
        default:
          assert.deepEqual(a, { type: 'none' }, `${at}: its own page drives the payment`);
      }
    }
  }
  assert.deepEqual([...seen].sort(), ['bank_details', 'none', 'qr_code', 'voucher']);
});

test('a SPEI CLABE is bank details with a CLABE; a Brazilian bank transfer carries agency, CNPJ and the payer\'s document', async () => {
  const spei = methodsForCountry('MX').find((m) => m.code === 'SE')!;
  const a = nextActionOf(spei.kind, asStored((await stagingSimulator.createCharge(order(spei, 7))).paymentInfo), 'MX');
  assert.equal(a.type, 'bank_details');
  if (a.type === 'bank_details') assert.match(a.account!, /^646180\d{12}$/);
  const bb = methodsForCountry('BR').find((m) => m.code === 'BB')!;
  const b = nextActionOf(bb.kind, asStored((await stagingSimulator.createCharge(order(bb))).paymentInfo), 'BR');
  assert.deepEqual(b, {
    type: 'bank_details', deposit: false, beneficiaryName: 'Caja Pagamentos Ltda', agency: '3064', account: '48732-9', clabe: false,
    document: '11222333000181', payerDocument: '52998224725',
  });
});

test('no payment_info: nothing to show; a Pix charge without a BR Code shows no QR code', () => {
  assert.deepEqual(nextActionOf('card', null, 'BR'), { type: 'none' });
  assert.deepEqual(nextActionOf('pix', { metadata: {}, secondary_metadata: { qr_code: 'AAAA' } }, 'BR'), { type: 'none' });
  assert.equal(nextActionOf(undefined, null, 'BR').type, 'none');
});

test('cards: the staging card kind answers a redirect to its card page, stored and read back as written', async () => {
  const ctx = { db: {} } as unknown as AppContext;
  const visa = methodsForCountry('BR').find((m) => m.code === 'VI')!;
  const charge = await stagingCard(ctx).createCharge(order(visa));
  assert.equal(charge.paymentInfo, null, 'card data is entered on the provider\'s page');
  assert.match(charge.reference!, /^sc_[A-Za-z0-9_-]{22}$/);
  assert.deepEqual(charge.nextAction, { type: 'redirect', url: `${BASE}/checkout/${TOKEN}/card`, method: 'GET' });
  const other = await stagingCard(ctx).createCharge(order(visa));
  assert.notEqual(other.reference, charge.reference, 'each charge its own reference');
  assert.deepEqual(storedNextAction(JSON.parse(JSON.stringify(charge.nextAction))), charge.nextAction);
  const challenge = { type: 'challenge', url: 'https://acquirer.example/3ds', method: 'POST', data: { creq: 'x' } };
  assert.deepEqual(storedNextAction(challenge), challenge);
  // Anything else stored is no action: the page falls back to what payment_info shows.
  for (const bad of [null, 'redirect', { type: 'redirect' }, { type: 'redirect', url: 1, method: 'GET' }, { type: 'redirect', url: 'x', method: 'PUT' }, { type: 'qr_code', code: 'x' }]) {
    assert.equal(storedNextAction(bad), null, JSON.stringify(bad));
  }
});
