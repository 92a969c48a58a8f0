// The STP connector's pure rules (src/connectors/stp/mapping.ts): the signed strings, account
// types and institutions, claveRastreo, operation days, what makes a found order the cashout's, CLABEs of the range, STP's answers and states, the abono rules.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createPrivateKey, createPublicKey, createVerify, generateKeyPairSync } from 'node:crypto';
import { isValidClabe } from '../../src/domain/clabe.ts';
import { speiReference } from '../../src/domain/payment-info.ts';
import { dec } from '../../src/domain/money.ts';
import { firmar } from '../../src/connectors/stp/client.ts';
import {
  abonoAnswer, cadenaOriginal, checkAbono, clabeInRange, consultaCadena, depositRemaindersNamed, fechaOperacion, newClaveRastreo, operationDays, orderBody, orderMismatch, orderOutcome,
  parseEstadoHint, receivedToPayment, registraResult, speiInstitution, tipoCuenta,
} from '../../src/connectors/stp/mapping.ts';

const ORDER = {
  empresa: 'CAJA1234', claveRastreo: 'CAJA0000000042ABCDEF0123', amount: dec('1500.5'), beneficiaryAccount: '012180001234567899',
  beneficiaryName: 'Eva Gómez Núñez', beneficiaryDocument: 'GODE561231GR8', bankCode: '12', orderingClabe: '646180123400000007',
  orderingName: 'Operadora Caja', orderingRfc: 'OCA200101AB1', cashoutId: 42,
};

test('cadena original: the documented field order, empty fields kept, monto with two decimals', () => {
  const body = orderBody(ORDER);
  assert.ok(body.ok);
  const cadena = cadenaOriginal(body.orden);
  assert.equal(cadena,
    '||40012|CAJA1234|||CAJA0000000042ABCDEF0123|90646|1500.50|1|40|Operadora Caja|646180123400000007|OCA200101AB1|40|Eva Gomez Nunez|012180001234567899|GODE561231GR8||||||Pago 42||||||43||||||||');
  assert.equal(cadena.split('|').length - 4, 34, 'one slot per documented field');
  assert.equal(consultaCadena({ empresa: 'CAJA1234', claveRastreo: 'X1', institucionOperante: '90646' }), `|||CAJA1234|||X1|90646${'|'.repeat(30)}`);
});

test('firma: RSA-SHA256 of the cadena with the passphrase-protected key, verifiable with the public key', () => {
  const { privateKey, publicKey } = generateKeyPairSync('rsa', {
    modulusLength: 2048, privateKeyEncoding: { type: 'pkcs8', format: 'pem', cipher: 'aes-256-cbc', passphrase: 'pw' }, publicKeyEncoding: { type: 'spki', format: 'pem' },
  });
  const firma = firmar(createPrivateKey({ key: privateKey, passphrase: 'pw' }), '||a|b||');
  assert.ok(createVerify('RSA-SHA256').update('||a|b||').verify(createPublicKey(publicKey), firma, 'base64'));
  assert.ok(!createVerify('RSA-SHA256').update('||a|c||').verify(createPublicKey(publicKey), firma, 'base64'));
});

test('account types and institutions: CLABE 40, card 3, phone 10; SPEI keys 37/40/90', () => {
  assert.deepEqual(['012180001234567899', '4152313412341234', '5512345678', '123'].map(tipoCuenta), [40, 3, 10, null]);
  assert.deepEqual(['012', '646', '006', '40072', 'x'].map(speiInstitution), ['40012', '90646', '37006', '40072', null]);
  const bad = orderBody({ ...ORDER, beneficiaryAccount: '012180001234567890' });
  assert.deepEqual(bad, { ok: false, code: '800', reason: 'the CLABE check digit does not match' });
  const card = orderBody({ ...ORDER, beneficiaryAccount: '4152313412341234', bankCode: '72' });
  assert.ok(card.ok && card.orden.tipoCuentaBeneficiario === 3 && card.orden.institucionContraparte === '40072');
});

test('claveRastreo: random (never derived from the cashout id or the master key), at most 30 characters of [A-Z0-9]', () => {
  const seen = new Set<string>();
  for (let i = 0; i < 1000; i++) {
    const a = newClaveRastreo();
    assert.match(a, /^CAJA[A-Z0-9]{20}$/);
    seen.add(a);
  }
  assert.equal(seen.size, 1000);
});

test('operation days of an order: the hand-over day and every day up to the second business day after it, none past the next business day', () => {
  const later = new Date('2026-12-10T18:00:00Z');
  // Wednesday 2026-11-25, 20:00 in Mexico City (02:00 UTC the next day).
  assert.deepEqual(operationDays(new Date('2026-11-26T02:00:00Z'), later), ['20261125', '20261126', '20261127']);
  // Friday evening: the weekend, then Monday and Tuesday.
  assert.deepEqual(operationDays(new Date('2026-11-27T23:00:00Z'), later), ['20261127', '20261128', '20261129', '20261130', '20261201']);
  // Saturday: Monday and Tuesday are the business days after it.
  assert.deepEqual(operationDays(new Date('2026-11-28T18:00:00Z'), later), ['20261128', '20261129', '20261130', '20261201']);
  // Asked the same Wednesday evening: up to Thursday, the next business day, not Friday yet.
  assert.deepEqual(operationDays(new Date('2026-11-26T02:00:00Z'), new Date('2026-11-26T02:30:00Z')), ['20261125', '20261126']);
  // Friday evening, asked at once: the weekend and Monday.
  assert.deepEqual(operationDays(new Date('2026-11-27T23:00:00Z'), new Date('2026-11-27T23:00:00Z')), ['20261127', '20261128', '20261129', '20261130']);
});

test('an order found at STP is the cashout\'s only with its amount, account and beneficiary', () => {
  const expected = { amount: dec('1500.50'), beneficiaryAccount: '012180001234567899', beneficiaryName: 'Eva Gómez Núñez' };
  const same = { monto: 1500.5, cuentaBeneficiario: '012180001234567899', nombreBeneficiario: 'EVA GOMEZ NUNEZ' };
  assert.equal(orderMismatch(same, expected), null);
  assert.match(orderMismatch({ ...same, monto: 1500.51 }, expected)!, /^amount 1500.51/);
  assert.match(orderMismatch({ ...same, cuentaBeneficiario: '012180001234567800' }, expected)!, /^account 012180001234567800/);
  assert.match(orderMismatch({ ...same, nombreBeneficiario: 'Juan Perez' }, expected)!, /^beneficiary JUAN PEREZ/);
  assert.match(orderMismatch({}, expected)!, /amount .*; account .*; beneficiary/);
});

test('CLABEs of the range: prefix + 7 digits + a valid check digit', () => {
  const clabe = clabeInRange('6461801234', 42);
  assert.equal(clabe.slice(0, 17), '64618012340000042');
  assert.ok(isValidClabe(clabe));
  assert.throws(() => clabeInRange('6461801234', 10_000_000));
});

test('registra answers: an id of more than 3 digits is accepted; errors rejected with their code or retried', () => {
  assert.deepEqual(registraResult({ resultado: { id: 4000123 } }), { kind: 'accepted', id: '4000123' });
  assert.deepEqual(registraResult({ resultado: { id: -1, descripcionError: 'La clave de rastreo X ya fue utilizada' } }), { kind: 'exists' });
  assert.equal((registraResult({ resultado: { id: -11, descripcionError: 'El tipo de cuenta 40 es invalido' } }) as { code: string }).code, '800');
  assert.equal((registraResult({ resultado: { id: -20, descripcionError: 'El monto {0} no es válido' } }) as { code: string }).code, '802');
  assert.equal((registraResult({ resultado: { id: -200, descripcionError: 'Se rechaza por PLD' } }) as { code: string }).code, '808');
  assert.equal(registraResult({ resultado: { id: 0, descripcionError: 'Error validando la firma' } }).kind, 'retry');
  assert.equal(registraResult({ resultado: { id: 0, descripcionError: 'No se recibió respuesta del servicio' } }).kind, 'retry');
  assert.equal(registraResult({ resultado: { id: 123 } }).kind, 'rejected');
  assert.equal(registraResult({ nada: 1 }).kind, 'unreadable');
});

test('order states: LQ paid, CN cancelled, D returned with its cause, others processing', () => {
  assert.equal(orderOutcome({ estado: 'LQ' })!.kind, 'liquidated');
  assert.equal(orderOutcome({ estado: 'CN' })!.kind, 'cancelled');
  assert.deepEqual(orderOutcome({ estado: 'D', causaDevolucion: 3 }), { kind: 'returned', estado: 'D', code: '801', cause: '3 Cuenta cancelada' });
  assert.equal(orderOutcome({ estado: 'A' })!.kind, 'processing');
  assert.equal(orderOutcome({}), null);
});

test('abonos: the exact amount of a PENDING deposit in time completes it; every other case is returned with its cause', () => {
  const p = receivedToPayment({ claveRastreo: 'MBAN1', institucionOrdenante: 40012, fechaOperacion: 20261126, cuentaBeneficiario: '646180123400000007', monto: 100.5, tsLiquidacion: '1764158400000' })!;
  assert.equal(p.id, 'MBAN1:40012:20261126');
  const deposit: { status: string; payerAmount: ReturnType<typeof dec>; reference: string | null; expiresAt: Date } = { status: 'PENDING', payerAmount: dec('100.50'), reference: '646180123400000007', expiresAt: new Date(1764158400000 + 3600_000) };
  assert.deepEqual(checkAbono(p, deposit), { ok: true });
  const answer = (d: typeof deposit, pay = p) => {
    const c = checkAbono(pay, d);
    return abonoAnswer(c.ok ? { status: 'applied', reason: null } : { status: 'unmatched', reason: c.reason });
  };
  assert.deepEqual(answer(deposit), { mensaje: 'confirmar' });
  assert.deepEqual(answer({ ...deposit, payerAmount: dec('100.49') }), { mensaje: 'devolver', id: 13 });
  assert.deepEqual(answer({ ...deposit, payerAmount: dec('100.51') }), { mensaje: 'devolver', id: 13 });
  assert.deepEqual(answer({ ...deposit, status: 'NONE', reference: null }), { mensaje: 'devolver', id: 1 });
  assert.deepEqual(answer({ ...deposit, status: 'CANCELLED' }), { mensaje: 'devolver', id: 3 });
  assert.deepEqual(answer({ ...deposit, expiresAt: new Date(1764158400000 - 120_000) }), { mensaje: 'devolver', id: 3 });
  assert.equal(receivedToPayment({ claveRastreo: 'x|y', institucionOrdenante: 40012, fechaOperacion: 20261126, cuentaBeneficiario: '1', monto: 1 }), null);
  assert.equal(receivedToPayment({ claveRastreo: 'A1', institucionOrdenante: 40012, fechaOperacion: 20261126, cuentaBeneficiario: '646180123400000007', monto: 1.001 }), null);
});

test('state-change hints name an order by claveRastreo/folioOrigen or id; fechaOperacion is Mexico City\'s day', () => {
  assert.deepEqual(parseEstadoHint({ id: 4000001, folioOrigen: 'CAJA1', estado: 'LIQUIDACION' }), { claveRastreo: 'CAJA1', id: '4000001' });
  assert.equal(parseEstadoHint([]), null);
  assert.equal(parseEstadoHint({ estado: 'x' }), null);
  assert.equal(fechaOperacion(new Date('2026-11-27T03:00:00Z')), '20261126');
});

test('a transfer names a deposit by its 7-digit SPEI reference (numeric reference or concept, Luhn checked); own-account ones are confirmed', () => {
  const ref = speiReference(1_234_017);
  assert.deepEqual(depositRemaindersNamed({ referenciaNumerica: Number(ref) }), [234_017]);
  assert.deepEqual(depositRemaindersNamed({ referenciaNumerica: 1, conceptoPago: `PAGO REF ${ref} GRACIAS` }), [234_017]);
  const wrong = `${ref.slice(0, 6)}${(Number(ref[6]) + 1) % 10}`;
  assert.deepEqual(depositRemaindersNamed({ referenciaNumerica: Number(wrong), conceptoPago: `12${ref}` }), [], 'a typo, or digits inside a longer number, name nothing');
  assert.deepEqual(abonoAnswer({ status: 'unmatched', reason: 'own_account: paid into the operator\'s own account …' }), { mensaje: 'confirmar' });
});

test('a payment the payer rule refused: devolver 13 when its post refused it; confirmar when the poll refused it first (caja sends it back by an order)', () => {
  const refused = { status: 'refused', reason: 'payer_mismatch: payer document differs from the deposit payer (payer_must_match)' };
  assert.deepEqual(abonoAnswer(refused), { mensaje: 'devolver', id: 13 });
  assert.deepEqual(abonoAnswer({ ...refused, seen_via: 'webhook' }), { mensaje: 'devolver', id: 13 });
  assert.deepEqual(abonoAnswer({ ...refused, seen_via: 'poll' }), { mensaje: 'confirmar' });
  assert.deepEqual(abonoAnswer({ status: 'unmatched', reason: 'closed: the deposit is CANCELLED', seen_via: 'poll' }).mensaje, 'devolver');
});
