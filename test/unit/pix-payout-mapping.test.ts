// The pure rules of Pix payouts (src/connectors/pix/payout-mapping.ts): the send body, what each
// answer of Efí's send API means, the reason → code table, and what makes a send found not the
// cashout's.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { documentField, maskedDocumentAgrees, newIdEnvio, parseSendHints, reasonCode, sendBody, sendMismatch, sendResult, sendState, SPI_REASONS, tipoConta } from '../../src/connectors/pix/payout-mapping.ts';
import type { PayoutOrder } from '../../src/connectors/payout.ts';
import { capabilitiesOf } from '../../src/config/config.ts';
import { validateCashoutRequest } from '../../src/domain/cashout-request.ts';
import { cpf } from '../helpers/documents.ts';

const DOC = cpf('529982247');
const order = (over: Partial<PayoutOrder> = {}): PayoutOrder => ({
  cashoutId: 1, country: 'BR', amount: '20.00', currency: 'BRL', bankCode: '260', bankAccount: '12345-6', bankBranch: '0001', accountType: 'CHECKING',
  documentId: DOC, beneficiaryName: 'Maria Souza', pixKey: null, ownerCheck: false, ...over,
});
const payer = { key: 'pagador@example.com', info: 'Pagamento' };

test('idEnvio: random, [a-zA-Z0-9]{1,35}, never the same twice', () => {
  const ids = new Set(Array.from({ length: 1000 }, newIdEnvio));
  assert.equal(ids.size, 1000);
  for (const id of ids) assert.match(id, /^[a-zA-Z0-9]{1,35}$/);
});

test('send body by account: contaBanco with the ISPB from the bank registry, the agency without zeros, the account with its digit, the CPF', () => {
  const b = sendBody(order(), payer);
  assert.ok(b.ok);
  assert.equal(b.by, 'account');
  assert.deepEqual(b.body, {
    valor: '20.00', pagador: { chave: 'pagador@example.com', infoPagador: 'Pagamento' },
    favorecido: { contaBanco: { nome: 'Maria Souza', cpf: DOC, codigoBanco: '18236120', agencia: '1', conta: '123456', tipoConta: 'cacc' } },
  });
  assert.equal(tipoConta('S'), 'svgs');
  assert.equal(tipoConta('SAVING_SET'), 'svgs');
  assert.equal(tipoConta('V'), 'slry');
  assert.equal(tipoConta(null), 'cacc');
  assert.deepEqual(documentField('11.444.777/0001-61'), { cnpj: '11444777000161' });
});

test('send body by key: no document unless owner-checked; refusals before sending', () => {
  const plain = sendBody(order({ pixKey: 'maria@example.com' }), payer);
  assert.ok(plain.ok);
  assert.deepEqual(plain.body.favorecido, { chave: 'maria@example.com' });
  const owned = sendBody(order({ pixKey: 'maria@example.com', ownerCheck: true }), payer);
  assert.ok(owned.ok);
  assert.deepEqual(owned.body.favorecido, { chave: 'maria@example.com', cpf: DOC });
  assert.deepEqual(sendBody(order({ currency: 'USD' }), payer), { ok: false, code: '802', reason: 'a Pix is sent in BRL, not USD' });
  assert.equal((sendBody(order({ bankCode: null }), payer) as { code: string }).code, '803');
  assert.equal((sendBody(order({ bankBranch: null }), payer) as { code: string }).code, '804');
  assert.equal((sendBody(order({ documentId: 'X' }), payer) as { code: string }).code, '805');
});

test('the send\'s answers: accepted, exists, documented refusals with their codes, the operator\'s side and the PSP\'s trouble retried, unknown 808', () => {
  assert.deepEqual(sendResult(201, { e2eId: 'E1', status: 'EM_PROCESSAMENTO' }, 'account', null), { kind: 'accepted', providerId: 'E1' });
  assert.equal(sendResult(409, { nome: 'id_envio_duplicado' }, 'account', null).kind, 'exists');
  const code = (status: number, nome: string, by: 'key' | 'account' = 'key') => {
    const r = sendResult(status, { nome, mensagem: 'x' }, by, null);
    return r.kind === 'rejected' ? r.code : r.kind;
  };
  assert.equal(code(400, 'chave_nao_pertence_ao_documento'), '805');
  assert.equal(code(400, 'valor_invalido'), '802');
  assert.equal(code(422, 'pagamento_negado'), '808');
  assert.equal(code(400, 'chave_invalida', 'key'), '800');
  assert.equal(code(400, 'chave_invalida', 'account'), 'retry', 'then it is the payer key: the operator\'s');
  assert.equal(code(400, 'documento_bloqueado'), 'retry');
  assert.equal(code(400, 'saldo_insuficiente'), 'retry');
  assert.equal(code(403, 'acesso_negado'), 'retry');
  for (const status of [429, 500, 502, 503, 504]) assert.equal(code(status, 'erro_aplicacao'), 'retry', String(status));
  const r429 = sendResult(429, {}, 'key', '7');
  assert.ok(r429.kind === 'retry' && r429.error.includes('retry after 7 s'));
  const unknown = sendResult(400, { nome: 'novo_erro', mensagem: 'y' }, 'key', null);
  assert.equal(unknown.kind === 'rejected' && unknown.code, '808');
  assert.ok(unknown.unknownReason);
});

test('NAO_REALIZADO reasons: the SPI codes map to 800–808; anything else 808, unknown', () => {
  assert.deepEqual(reasonCode('AC03 conta inexistente'), { code: '800', known: true });
  assert.deepEqual(reasonCode('AC07: conta encerrada'), { code: '801', known: true });
  assert.deepEqual(reasonCode('Negado por timeout'), { code: '808', known: false });
  assert.deepEqual(reasonCode(undefined), { code: '808', known: false });
  for (const c of Object.values(SPI_REASONS)) assert.match(c, /^80[0-8]$/);
});

test('a send read back: states, a full return, a partial return kept paid, a mismatch never adopted', () => {
  const want = { amount: '20.00', payerKey: 'pagador@example.com', pixKey: null, bankAccount: '12345-6', bankBranch: '0001', documentId: DOC };
  const base = {
    endToEndId: 'E1', idEnvio: 'x', valor: '20.00', chave: 'pagador@example.com', horario: {},
    favorecido: { contaBanco: { nome: 'Maria', cpf: `***.${DOC.slice(3, 6)}.${DOC.slice(6, 9)}-**`, agencia: '1', conta: '123456', tipoConta: 'cacc' } },
  };
  assert.equal(sendState({ ...base, status: 'EM_PROCESSAMENTO' }, want)?.kind, 'processing');
  const paid = sendState({ ...base, status: 'REALIZADO' }, want);
  assert.deepEqual([paid?.kind, paid?.providerId, paid?.mismatch], ['paid', 'E1', undefined]);
  const back = sendState({ ...base, status: 'REALIZADO', devolucoes: [{ valor: '20.00', status: 'DEVOLVIDO', motivo: 'MD06' }] }, want);
  assert.equal(back?.kind, 'returned');
  const partly = sendState({ ...base, status: 'REALIZADO', devolucoes: [{ valor: '5.00', status: 'DEVOLVIDO' }, { valor: '15.00', status: 'EM_PROCESSAMENTO' }] }, want);
  assert.equal(partly?.kind, 'paid');
  const notMade = sendState({ ...base, status: 'NAO_REALIZADO', motivo: 'AC06 conta bloqueada' }, want);
  assert.deepEqual(notMade?.kind === 'rejected' && notMade.code, '807');
  assert.equal(sendState({ ...base, status: 'OUTRO' }, want), null);

  assert.match(sendMismatch({ ...base, valor: '20.01' }, want)!, /amount 20\.01 is not 20\.00/);
  assert.match(sendMismatch({ ...base, favorecido: { contaBanco: { ...base.favorecido.contaBanco, conta: '999' } } }, want)!, /account 999/);
  assert.match(sendMismatch({ ...base, favorecido: { contaBanco: { ...base.favorecido.contaBanco, cpf: '***.999.999-**' } } }, want)!, /document/);
  assert.match(sendMismatch({ ...base, favorecido: { chave: 'a@b.com' } }, want)!, /not to the cashout's account/);
  assert.match(sendMismatch(base, { ...want, pixKey: 'maria@example.com' })!, /beneficiary key/);
  assert.match(sendMismatch({ ...base, chave: 'outro@example.com' }, want)!, /payer key/);
  assert.equal(maskedDocumentAgrees('***.456.789-**', '12345678909'), true);
  assert.equal(maskedDocumentAgrees('***.456.780-**', '12345678909'), false);
});

test('webhook: only entries naming an idEnvio are send hints; bounded', () => {
  assert.deepEqual(parseSendHints({ pix: [{ endToEndId: 'E99999008202611290000ABCDEFGHIJK', gnExtras: { idEnvio: 'abc' } }, { endToEndId: 'E2', txid: 't' }, { gnExtras: { idEnvio: 'bad id!' } }] }),
    [{ idEnvio: 'abc', e2eId: 'E99999008202611290000ABCDEFGHIJK' }]);
  assert.deepEqual(parseSendHints('nope'), []);
  assert.equal(parseSendHints({ pix: Array.from({ length: 500 }, (_, i) => ({ gnExtras: { idEnvio: `a${i}` } })) }).length, 200);
});

test('cashout request: pix_key (caja\'s extension) on BR only, validated and normalized like v5', () => {
  const body = { external_id: 'x1', country: 'BR', currency: 'BRL', amount: '10.00', document_id: DOC, beneficiary_name: 'Maria', bank_code: '260', bank_account: '12345-6', bank_branch: '0001' };
  const ok = validateCashoutRequest({ ...body, pix_key: 'Maria@Example.com' }, capabilitiesOf('production'));
  assert.ok(ok.ok);
  assert.equal(ok.value.pixKey, 'maria@example.com');
  const none = validateCashoutRequest(body, capabilitiesOf('production'));
  assert.ok(none.ok && none.value.pixKey === null);
  const bad = validateCashoutRequest({ ...body, pix_key: '+5511333334444' }, capabilitiesOf('production'));
  assert.ok(!bad.ok && bad.details.some((d) => d.startsWith('pix_key:')));
  const mx = validateCashoutRequest({ ...body, country: 'MX', currency: 'MXN', pix_key: 'maria@example.com' }, capabilitiesOf('production'));
  assert.ok(!mx.ok && mx.details.includes('pix_key: is accepted for BR cashouts only'));
});
