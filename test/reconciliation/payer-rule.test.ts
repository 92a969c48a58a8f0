// The payer rule (a merchant's payer_must_match) on a bank statement's counterparty document, pure:
// a credit that would complete an own-accounts deposit, or confirm one a connector completed
// without reporting the payer, from another payer's document is the payer_mismatch exception; the
// same payer spelt either way (CPF punctuation, RFC case) matches; a statement without the document
// does not pretend; the rule off compares nothing. docs/connectors.md, "The payer rule".
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { decide, type KnownDeposit, operatorDecision, statementPayerCheck } from '../../src/reconciliation/matching.ts';
import type { StatementEntry } from '../../src/reconciliation/statement.ts';
import { indexKnowledge } from '../../src/reconciliation/knowledge.ts';
import { depositReference } from '../../src/domain/payment-info.ts';
import { parseCamt } from '../../src/reconciliation/camt.ts';
import { camt053 } from '../../src/reconciliation/camt-writer.ts';

const NOW = new Date('2026-11-25T10:00:00Z');
const dep = (id: number, o: Partial<KnownDeposit> = {}): KnownDeposit => ({
  id, status: 'PENDING', connector: 'own_accounts', amount: '100.00', currency: 'MXN', country: 'MX', payerDocument: 'GODE561231GR8', createdAt: NOW,
  matched: false, payerMustMatch: true, payerChecked: null, ...o,
});
const entry = (o: Partial<StatementEntry>): StatementEntry => ({
  key: 'k', bookingDate: '2026-11-25', valueDate: null, amount: '100.00', currency: 'MXN', direction: 'credit', reversal: false, refs: {}, counterparty: {}, ...o,
});
const outcome = (d: ReturnType<typeof decide>) => (d.kind === 'match' ? `${d.rule}:${d.parts.map((p) => `${p.target.type}${p.target.id}:${p.effect}`).join(',')}` : `exception:${d.reason}`);

test('statementPayerCheck: match, mismatch, not reported, rule off, already checked by the connector', () => {
  assert.equal(statementPayerCheck(dep(1), 'gode561231gr8'), 'match');
  assert.equal(statementPayerCheck(dep(1), 'PELJ800101AB1'), 'mismatch');
  assert.equal(statementPayerCheck(dep(1), undefined), 'not_reported');
  assert.equal(statementPayerCheck(dep(1, { payerMustMatch: false }), 'PELJ800101AB1'), null);
  assert.equal(statementPayerCheck(dep(1, { status: 'COMPLETED', connector: 'stp', payerChecked: true }), 'PELJ800101AB1'), null);
  assert.equal(statementPayerCheck(dep(1, { status: 'COMPLETED', connector: 'pix', payerChecked: false }), 'PELJ800101AB1'), 'mismatch');
  assert.equal(statementPayerCheck(dep(1, { payerDocument: '11144477735' }), '111.444.777-35'), 'match');
  assert.equal(statementPayerCheck(dep(1, { payerDocument: null }), '11144477735'), 'mismatch');
});

test('rule 1 on an own-accounts deposit: another payer is payer_mismatch (nothing completed); the payer, or no document, completes', () => {
  const k = indexKnowledge([dep(1), dep(2, { payerMustMatch: false })], []);
  const ref = (id: number) => ({ depositReference: depositReference(id) });
  assert.equal(outcome(decide(k, entry({ refs: ref(1), counterparty: { document: 'PELJ800101AB1' } }), new Set())), 'exception:payer_mismatch');
  assert.equal(outcome(decide(k, entry({ refs: ref(1), counterparty: { document: 'GODE561231GR8' } }), new Set())), 'reference:deposit1:complete');
  assert.equal(outcome(decide(k, entry({ refs: ref(1) }), new Set())), 'reference:deposit1:complete');
  assert.equal(outcome(decide(k, entry({ refs: ref(2), counterparty: { document: 'PELJ800101AB1' } }), new Set())), 'reference:deposit2:complete');
  const x = decide(k, entry({ refs: ref(1), counterparty: { document: 'PELJ800101AB1' } }), new Set());
  assert.ok(x.kind === 'exception' && x.candidates[0]!.id === 1 && /PELJ800101AB1/.test(x.detail));
});

test('a connector\'s deposit completed without the payer reported: the statement\'s other payer is payer_mismatch; its own payer confirms', () => {
  const k = indexKnowledge([dep(3, { status: 'COMPLETED', connector: 'pix', currency: 'BRL', payerDocument: '11144477735', payerChecked: false }),
    dep(4, { status: 'COMPLETED', connector: 'pix', currency: 'BRL', payerDocument: '11144477735', payerChecked: true })], [], [['E3', 3], ['E4', 4]]);
  const br = (o: Partial<StatementEntry>) => entry({ currency: 'BRL', ...o });
  assert.equal(outcome(decide(k, br({ refs: { endToEndId: 'E3' }, counterparty: { document: '52998224725' } }), new Set())), 'exception:payer_mismatch');
  assert.equal(outcome(decide(k, br({ refs: { endToEndId: 'E3' }, counterparty: { document: '11144477735' } }), new Set())), 'reference:deposit3:confirm');
  // The connector checked the payer already (payer_checked true): the statement changes nothing.
  assert.equal(outcome(decide(k, br({ refs: { endToEndId: 'E4' }, counterparty: { document: '52998224725' } }), new Set())), 'reference:deposit4:confirm');
});

test('an operator cannot match another payer\'s credit to the deposit: the reason says send it back', () => {
  const k = indexKnowledge([dep(1)], []);
  const fit = operatorDecision(k, entry({ counterparty: { document: 'PELJ800101AB1' } }), { type: 'deposit', id: 1 });
  assert.equal(fit.ok, false);
  assert.match((fit as { reason: string }).reason, /payer mismatch.*send it back/);
  assert.deepEqual(operatorDecision(k, entry({ counterparty: { document: 'GODE561231GR8' } }), { type: 'deposit', id: 1 }), { ok: true, effect: 'complete' });
});

test('camt RltdPties/Dbtr/Id: an RFC keeps its letters (upper-cased), a CPF its digits', () => {
  const xml = camt053({
    statementId: 'S1', account: { other: '646180000000000000' }, currency: 'MXN', date: '2026-11-25', opening: '0.00',
    movements: [
      { amount: '100.00', direction: 'credit', date: '2026-11-25', bankId: 'A1', counterparty: { document: 'pelj800101ab1', name: 'X' } },
      { amount: '100.00', direction: 'credit', date: '2026-11-25', bankId: 'A2', counterparty: { document: '111.444.777-35', name: 'Y' } },
    ],
  });
  const s = parseCamt(xml);
  assert.deepEqual(s.entries.map((e) => e.counterparty.document), ['PELJ800101AB1', '11144477735']);
});
