// The pure rules of a refund of an SPEI deposit as an STP order: where it goes (the abono's
// ordering account), its claveRastreo (random), the order's fields, and which order found at STP
// under its claveRastreo is this refund's.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { dec } from '../../src/domain/money.ts';
import { buildClabe } from '../../src/domain/clabe.ts';
import { orderIsRefund, refundClaveRastreo, refundOrderBody, returnClaveRastreo, returnOrderBody, speiRefundDestination } from '../../src/connectors/stp/refund-mapping.ts';
import { refundDestination, refundReference, refundsThroughConnector } from '../../src/connectors/refund-routes.ts';

const PAYER = buildClabe('012', '180', '00456789123');
const abono = { cuentaOrdenante: PAYER, institucionOrdenante: 40012, nombreOrdenante: 'JUAN PÉREZ LÓPEZ', rfcCurpOrdenante: 'PELJ800101AB1', tipoCuentaOrdenante: 40 };

test('the destination is the abono\'s ordering account, bank, name and RFC (a received order names the bank institucionContraparte)', () => {
  assert.deepEqual(speiRefundDestination(abono), { ok: true, destination: { account: PAYER, institution: '40012', name: 'JUAN PÉREZ LÓPEZ', document: 'PELJ800101AB1' } });
  const received = { ...abono, institucionOrdenante: undefined, institucionContraparte: '40012', rfcCurpOrdenante: undefined };
  assert.deepEqual(speiRefundDestination(received), { ok: true, destination: { account: PAYER, institution: '40012', name: 'JUAN PÉREZ LÓPEZ', document: 'ND' } });
});

test('a payment that names no account an order can go to has no destination, with the reason', () => {
  for (const raw of [null, {}, { ...abono, cuentaOrdenante: '' }, { ...abono, cuentaOrdenante: `${PAYER.slice(0, 17)}${(Number(PAYER[17]) + 1) % 10}` }, { ...abono, cuentaOrdenante: '12345' }]) {
    const d = speiRefundDestination(raw);
    assert.equal(d.ok, false, JSON.stringify(raw));
  }
  assert.equal(speiRefundDestination({ ...abono, institucionOrdenante: 'x' }).ok, false);
  assert.equal(refundDestination('stp', {}).ok, false);
  assert.deepEqual(refundDestination('pix', {}), { ok: true, destination: null });
});

test('claveRastreos are random, alphanumeric, within STP\'s 30 characters; card and Pix references too', () => {
  const seen = new Set(Array.from({ length: 1000 }, () => refundClaveRastreo()));
  assert.equal(seen.size, 1000);
  for (const c of seen) assert.match(c, /^[A-Za-z0-9]{1,30}$/);
  assert.notEqual(refundReference('stp'), refundReference('stp'));
  assert.match(refundReference('card'), /^[A-Za-z0-9]{24}$/);
  assert.notEqual(refundReference('pix'), refundReference('pix'));
  assert.match(refundReference('pix'), /^[a-zA-Z0-9]{1,35}$/);
  assert.deepEqual(['pix', 'stp', 'own_accounts', 'staging'].map(refundsThroughConnector), [true, true, false, false]);
});

test('the order goes from the concentrating account to the payer, for the refund\'s amount', () => {
  const d = speiRefundDestination(abono);
  assert.ok(d.ok);
  const body = refundOrderBody({ empresa: 'CAJA', claveRastreo: 'CAJARabc', refundId: 42, amount: dec('120.5'), destination: d.destination, orderingClabe: '646180123400000007', orderingName: 'Operadora', orderingRfc: 'OCA200101AB1' });
  assert.ok(body.ok);
  assert.equal(body.orden.monto, '120.50');
  assert.equal(body.orden.cuentaBeneficiario, PAYER);
  assert.equal(body.orden.institucionContraparte, '40012');
  assert.equal(body.orden.nombreBeneficiario, 'JUAN PEREZ LOPEZ');
  assert.equal(body.orden.rfcCurpBeneficiario, 'PELJ800101AB1');
  assert.equal(body.orden.cuentaOrdenante, '646180123400000007');
  assert.equal(body.orden.claveRastreo, 'CAJARabc');
  assert.equal(body.orden.conceptoPago, 'Devolucion 42');
});

test('an order found under the claveRastreo is the refund\'s only with its amount, account and beneficiary', () => {
  const d = speiRefundDestination(abono);
  assert.ok(d.ok);
  const body = refundOrderBody({ empresa: 'CAJA', claveRastreo: 'CAJARabc', refundId: 42, amount: dec('120.50'), destination: d.destination, orderingClabe: '646180123400000007', orderingName: 'Operadora', orderingRfc: 'OCA200101AB1' });
  assert.ok(body.ok);
  const found = { monto: 120.5, cuentaBeneficiario: PAYER, nombreBeneficiario: 'JUAN PEREZ LOPEZ', estado: 'LQ' };
  assert.deepEqual(orderIsRefund(found, body.orden), { ok: true });
  assert.deepEqual(orderIsRefund({ ...found, monto: '120.50' }, body.orden), { ok: true });
  for (const other of [{ monto: 120.51 }, { monto: 'x' }, { cuentaBeneficiario: buildClabe('012', '180', '00123456789') }, { nombreBeneficiario: 'OTRA PERSONA' }]) {
    const r = orderIsRefund({ ...found, ...other }, body.orden);
    assert.equal(r.ok, false, JSON.stringify(other));
  }
});

test('a refused abono sent back: an order of its full amount to its ordering account, concept naming the abono, claveRastreo CAJAD…; none without an account', () => {
  const clave = returnClaveRastreo();
  assert.match(clave, /^CAJAD[A-Z0-9]{15}$/);
  assert.notEqual(returnClaveRastreo(), clave);
  const input = { empresa: 'CAJA', claveRastreo: clave, abonoClave: 'MBAN000000000042', amount: dec('100.5'), raw: abono, orderingClabe: buildClabe('646', '180', '00000000001'), orderingName: 'Operadora Caja', orderingRfc: 'OCA200101AB1' };
  const body = returnOrderBody(input);
  assert.ok(body.ok);
  assert.equal(body.orden.cuentaBeneficiario, PAYER);
  assert.equal(body.orden.monto, '100.50');
  assert.equal(body.orden.claveRastreo, clave);
  assert.equal(body.orden.institucionContraparte, '40012');
  assert.equal(body.orden.rfcCurpBeneficiario, 'PELJ800101AB1');
  assert.match(String(body.orden.conceptoPago), /^Devolucion MBAN000000000042/);
  const none = returnOrderBody({ ...input, raw: { nombreOrdenante: 'X' } });
  assert.equal(none.ok, false);
});
