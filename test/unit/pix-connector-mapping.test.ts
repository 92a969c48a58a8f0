// The API Pix connector's pure rules: random txids and devolução ids, a devolução that is not the refund's, amounts, the cob body,
// the webhook hint, the matching rule and the devolução outcomes; the client's token margin; the
// configuration check.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { findMethod } from '../../src/domain/catalog.ts';
import { dec } from '../../src/domain/money.ts';
import {
  cobBody, devedorOf, devolucaoMismatch, devolucaoOutcome, expiracaoSeconds, formatValor, matchPayment, newDevolucaoId, newTxid, parsePixHint, parseValor,
  pixToPayment, sameKey, TXID,
} from '../../src/connectors/pix/mapping.ts';
import { tokenMarginSeconds } from '../../src/connectors/pix/client.ts';
import { validatePixConfig } from '../../src/connectors/pix/settings.ts';
import type { ChargeOrder, ProviderPayment } from '../../src/connectors/payin.ts';

test('txid: 32 random letters and digits, never derived from the deposit id or the installation key', () => {
  const seen = new Set<string>();
  for (let i = 0; i < 1000; i++) {
    const a = newTxid();
    assert.match(a, TXID);
    assert.equal(a.length, 32);
    assert.ok(a.startsWith('caja'));
    seen.add(a);
  }
  assert.equal(seen.size, 1000, 'two charges never share a txid, whatever was restored');
});

test('devolução id: random letters and digits, at most 35; a devolução of another valor is not the refund\'s', () => {
  const a = newDevolucaoId();
  assert.match(a, /^cajadev[a-zA-Z0-9]{25}$/);
  assert.notEqual(a, newDevolucaoId());
  assert.equal(devolucaoMismatch({ valor: '10.50' }, dec('10.5')), null);
  assert.equal(devolucaoMismatch({ valor: '10.51' }, dec('10.5')), "valor 10.51 (the refund's is 10.50)");
  assert.match(devolucaoMismatch({}, dec('1'))!, /^valor \(none\)/);
});

test('amounts: two decimals out, exact decimals in', () => {
  assert.equal(formatValor(dec('10')), '10.00');
  assert.equal(formatValor(dec('10.5')), '10.50');
  assert.equal(formatValor(dec('1234567.89')), '1234567.89');
  assert.deepEqual(parseValor('10.50'), dec('10.50'));
  assert.equal(parseValor('10.501'), null);
  assert.equal(parseValor('-1.00'), null);
  assert.equal(parseValor('abc'), null);
});

const ix = findMethod('BR', 'IX')!;
const order = (over: Partial<ChargeOrder> = {}): ChargeOrder => ({
  depositId: 9, token: 't', method: ix, amount: dec('100.5'), createdAt: new Date('2026-11-26T10:00:00Z'),
  expiresAt: new Date('2026-11-26T11:00:00Z'), payer: { document: '529.982.247-25', name: 'Ana  Silva' }, description: 'Order\n42', publicBaseUrl: 'https://x',
  ...over,
});

test('cob body: expiry in seconds from now, BRL with 2 decimals, key, devedor, solicitacaoPagador', () => {
  assert.deepEqual(cobBody(order(), 'pix@caja.example'), {
    calendario: { expiracao: 3600 },
    valor: { original: '100.50' },
    chave: 'pix@caja.example',
    devedor: { cpf: '52998224725', nome: 'Ana Silva' },
    solicitacaoPagador: 'Order 42',
  });
  assert.equal((cobBody(order(), 'k', new Date('2026-11-26T10:59:30Z')).calendario as { expiracao: number }).expiracao, 30);
  assert.equal(expiracaoSeconds(new Date(10_000), new Date(5_000)), 1);
  const noDesc = cobBody(order({ description: null, payer: {} }), 'k');
  assert.ok(!('devedor' in noDesc) && !('solicitacaoPagador' in noDesc));
  assert.equal((cobBody(order({ description: 'x'.repeat(300) }), 'k').solicitacaoPagador as string).length, 140);
});

test('devedor: cpf or cnpj with nome, else none', () => {
  assert.deepEqual(devedorOf({ document: '11.222.333/0001-81', name: 'Acme' }), { cnpj: '11222333000181', nome: 'Acme' });
  assert.equal(devedorOf({ document: '52998224725', name: '' }), null);
  assert.equal(devedorOf({ document: '123', name: 'A' }), null);
});

test('webhook hint: the end-to-end ids of {pix: [...]}, nothing else', () => {
  const e2e = 'E12345678202611261000abcdefghijk';
  assert.deepEqual(parsePixHint({ pix: [{ endToEndId: e2e, valor: '1.00' }, { endToEndId: e2e }, { endToEndId: 'bad id' }, null, 7] }), [{ kind: 'payment', id: e2e }]);
  for (const junk of [null, 'x', { pix: 'x' }, { other: [] }, []]) assert.deepEqual(parsePixHint(junk), []);
  assert.equal(parsePixHint({ pix: Array.from({ length: 500 }, (_, i) => ({ endToEndId: `E${String(i).padStart(31, '0')}` })) }).length, 200);
});

test('a Pix read from the PSP becomes a payment; an unreadable one is none', () => {
  const p = pixToPayment({ endToEndId: 'E12345678202611261000abcdefghijk', txid: 'tx', valor: '10.00', chave: 'k', horario: '2026-11-26T10:00:00Z' })!;
  assert.deepEqual([p.id, p.chargeReference, p.receiver, p.paidAt.toISOString()], ['E12345678202611261000abcdefghijk', 'tx', 'k', '2026-11-26T10:00:00.000Z']);
  assert.equal(pixToPayment({ endToEndId: 'E1', valor: '10.00', horario: 'x' }), null);
  assert.equal(pixToPayment({ endToEndId: 'E12345678202611261000abcdefghijk', valor: 'x', horario: '2026-11-26T10:00:00Z' }), null);
});

test('matching rule: same txid, same amount to the cent, the configured key, a PENDING deposit', () => {
  const key = '11.222.333/0001-81';
  const pay = (over: Partial<ProviderPayment> = {}): ProviderPayment => ({
    id: 'E1', chargeReference: 'tx1', amount: dec('100.50'), currency: 'BRL', receiver: '11222333000181', paidAt: new Date(), ...over,
  });
  const dep = { status: 'PENDING', payerAmount: dec('100.5'), txid: 'tx1' };
  assert.deepEqual(matchPayment(pay(), dep, key), { ok: true });
  assert.equal(matchPayment(pay({ chargeReference: null }), dep, key).ok, false);
  assert.equal(matchPayment(pay({ chargeReference: 'tx2' }), dep, key).ok, false);
  assert.equal(matchPayment(pay(), null, key).ok, false);
  assert.equal(matchPayment(pay({ amount: dec('100.49') }), dep, key).ok, false);
  assert.equal(matchPayment(pay({ amount: dec('100.51') }), dep, key).ok, false);
  assert.equal(matchPayment(pay({ receiver: 'other@example.com' }), dep, key).ok, false);
  assert.equal(matchPayment(pay({ receiver: null }), dep, key).ok, false);
  for (const status of ['CANCELLED', 'COMPLETED']) {
    const r = matchPayment(pay(), { ...dep, status }, key);
    assert.ok(!r.ok && r.reason.includes(status));
  }
  assert.ok(sameKey('Pix@Caja.Example', 'pix@caja.example'));
  // Paid before the expiry (a minute's clock difference allowed), not after.
  const expiresAt = new Date('2026-11-26T11:00:00Z');
  assert.deepEqual(matchPayment(pay({ paidAt: new Date('2026-11-26T10:59:59Z') }), { ...dep, expiresAt }, key), { ok: true });
  assert.deepEqual(matchPayment(pay({ paidAt: new Date('2026-11-26T11:00:59Z') }), { ...dep, expiresAt }, key), { ok: true });
  const late = matchPayment(pay({ paidAt: new Date('2026-11-26T11:01:01Z') }), { ...dep, expiresAt }, key);
  assert.ok(!late.ok && /after the deposit expired/.test(late.reason));
});

test('devolução outcomes', () => {
  assert.deepEqual(devolucaoOutcome({ id: 'd1', status: 'EM_PROCESSAMENTO' }), { status: 'PENDING', reference: 'd1' });
  assert.deepEqual(devolucaoOutcome({ id: 'd1', status: 'DEVOLVIDO' }), { status: 'COMPLETED', reference: 'd1' });
  const refused = devolucaoOutcome({ id: 'd1', status: 'NAO_REALIZADO', motivo: 'Conta encerrada' })!;
  assert.deepEqual([refused.status, refused.reasonCode], ['REJECTED', 'NAO_REALIZADO']);
  assert.match(refused.reason!, /Conta encerrada/);
  assert.equal(devolucaoOutcome({ status: 'WHAT' }), null);
});

test('token margin: a fifth of the lifetime, at most 30 s', () => {
  assert.equal(tokenMarginSeconds(3600), 30);
  assert.equal(tokenMarginSeconds(10), 2);
  assert.equal(tokenMarginSeconds(0), 0);
});

test('configuration: every problem at once', () => {
  const r = validatePixConfig({ api_url: 'http://x', token_url: 'https://u:p@x/token', certificate: 'x', private_key: 'y', ca: 'z', pix_key: 'not a key' });
  assert.ok(!r.ok);
  const text = r.details.join('\n');
  for (const f of ['api_url', 'token_url', 'client_id', 'client_secret', 'certificate', 'private_key', 'ca', 'pix_key']) assert.match(text, new RegExp(`^${f}:`, 'm'));
  assert.ok(!validatePixConfig(null).ok);
});
