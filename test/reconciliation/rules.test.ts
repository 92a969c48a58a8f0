// The matching rules alone (pure): which rule decides, what the match does, and every way an
// entry becomes an exception instead of a guess.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { decide, depositIdOfReference, type Knowledge, type KnownCashout, type KnownDeposit, operatorDecision, speiRemainderOf } from '../../src/reconciliation/matching.ts';
import type { StatementEntry } from '../../src/reconciliation/statement.ts';
import { indexKnowledge } from '../../src/reconciliation/knowledge.ts';
import { depositReference, speiReference } from '../../src/domain/payment-info.ts';
import { clabeCheckDigit } from '../../src/domain/clabe.ts';

const NOW = new Date('2026-11-25T10:00:00Z');
const dep = (id: number, o: Partial<KnownDeposit> = {}): KnownDeposit => ({
  id, status: 'PENDING', connector: 'own_accounts', amount: '100.00', currency: 'BRL', country: 'BR', payerDocument: '52998224725', createdAt: NOW, matched: false, ...o,
});
const co = (id: number, o: Partial<KnownCashout> = {}): KnownCashout => ({
  id, status: 'DELIVERED', amount: '30.00', currency: 'BRL', bankAccount: '12345-6', bankReference: `SB${id}`, document: '52998224725', createdAt: NOW, matched: false, returned: false, ...o,
});

// Indexed by production's own function, so a key that an import computes differently from the
// rules' look-up fails here too.
const knowledge = (deposits: KnownDeposit[], cashouts: KnownCashout[] = [], payments: [string, number][] = []): Knowledge => indexKnowledge(deposits, cashouts, payments);
const entry = (o: Partial<StatementEntry>): StatementEntry => ({
  key: 'k', bookingDate: '2026-11-25', valueDate: null, amount: '100.00', currency: 'BRL', direction: 'credit', reversal: false, refs: {}, counterparty: {}, ...o,
});
const kind = (d: ReturnType<typeof decide>) => (d.kind === 'match' ? `${d.rule}:${d.parts.map((p) => `${p.target.type}${p.target.id}:${p.effect}`).join(',')}` : `exception:${d.reason}`);

test('references: caja\'s deposit references are Luhn-checked; a typo names nothing', () => {
  assert.equal(depositIdOfReference(depositReference(421)), 421);
  const typo = depositReference(421).slice(0, 11) + ((Number(depositReference(421)[11]) + 1) % 10);
  assert.equal(depositIdOfReference(typo), null);
  assert.equal(speiRemainderOf(speiReference(1_000_421)), 421);
});

test('rule 1, reference: completes a pending own-accounts deposit, confirms a provider-completed one', () => {
  const k = knowledge([dep(1), dep(2, { status: 'COMPLETED', connector: 'pix' })], [], [['E123', 2]]);
  assert.equal(kind(decide(k, entry({ refs: { depositReference: depositReference(1) } }), new Set())), 'reference:deposit1:complete');
  assert.equal(kind(decide(k, entry({ refs: { endToEndId: 'E123' } }), new Set())), 'reference:deposit2:confirm');
});

test('rule 1, mismatches are exceptions: amount, already completed, unknown, matched twice in one statement', () => {
  const k = knowledge([dep(1), dep(2, { status: 'COMPLETED' }), dep(3, { status: 'CANCELLED' }), dep(4, { connector: 'pix' })]);
  const used = new Set<string>();
  assert.equal(kind(decide(k, entry({ amount: '99.99', refs: { depositReference: depositReference(1) } }), used)), 'exception:amount_differs');
  assert.equal(kind(decide(k, entry({ refs: { depositReference: depositReference(2) } }), used)), 'exception:already_completed');
  assert.equal(kind(decide(k, entry({ refs: { depositReference: depositReference(3) } }), used)), 'exception:not_completable');
  assert.equal(kind(decide(k, entry({ refs: { depositReference: depositReference(4) } }), used)), 'exception:not_completable');
  assert.equal(kind(decide(k, entry({ refs: { depositReference: depositReference(77) } }), used)), 'exception:unknown_reference');
  assert.equal(kind(decide(k, entry({ refs: { depositReference: depositReference(1) } }), used)), 'reference:deposit1:complete');
  assert.equal(kind(decide(k, entry({ key: 'k2', refs: { depositReference: depositReference(1) } }), used)), 'exception:already_matched');
  assert.equal(kind(decide(k, entry({ direction: 'debit', refs: { depositReference: depositReference(1) } }), new Set())), 'exception:not_completable');
});

test('cashouts: a debit completes a sent one and confirms a paid one; a credit naming one is its return', () => {
  const k = knowledge([], [co(1), co(2, { status: 'COMPLETED' }), co(3, { status: 'PENDING' }), co(4, { status: 'COMPLETED', returned: true })]);
  const used = new Set<string>();
  assert.equal(kind(decide(k, entry({ amount: '30.00', direction: 'debit', refs: { endToEndId: 'SB1' } }), used)), 'reference:cashout1:complete');
  assert.equal(kind(decide(k, entry({ amount: '30.00', direction: 'debit', refs: { claveRastreo: 'SB2' } }), used)), 'reference:cashout2:confirm');
  assert.equal(kind(decide(k, entry({ amount: '30.00', direction: 'credit', reversal: true, refs: { bankReference: 'SB2' } }), used)), 'reference:cashout2:return');
  assert.equal(kind(decide(k, entry({ amount: '30.00', direction: 'debit', refs: { endToEndId: 'SB3' } }), used)), 'exception:not_completable');
  assert.equal(kind(decide(k, entry({ amount: '30.00', direction: 'credit', refs: { endToEndId: 'SB4' } }), used)), 'exception:already_matched');
  assert.equal(kind(decide(k, entry({ amount: '31.00', direction: 'debit', refs: { endToEndId: 'SB1' } }), new Set())), 'exception:amount_differs');
});

test('cashout returns: only a reversal named by the bank\'s references; payer text and unflagged credits never decide a cashout', () => {
  const k = knowledge([], [co(1, { status: 'COMPLETED' }), co(2, { status: 'COMPLETED' })]);
  // The payer's remittance text carrying a paid cashout's reference: names no cashout.
  const free = decide(k, entry({ amount: '30.00', direction: 'credit', reversal: true, refs: { depositReference: 'SB1' } }), new Set());
  assert.equal(free.kind, 'exception');
  assert.ok(!(free.kind === 'exception' && free.candidates.some((c) => c.type === 'cashout')), JSON.stringify(free));
  // Named by the clearing reference but not marked a return by the bank: the operator decides.
  assert.equal(kind(decide(k, entry({ amount: '30.00', direction: 'credit', refs: { claveRastreo: 'SB1' } }), new Set())), 'exception:not_completable');
  // The bank's reversal naming it: its return.
  assert.equal(kind(decide(k, entry({ amount: '30.00', direction: 'credit', reversal: true, refs: { claveRastreo: 'SB2' } }), new Set())), 'reference:cashout2:return');
  // A debit still names its cashout by caja's own text.
  assert.equal(kind(decide(k, entry({ amount: '30.00', direction: 'debit', refs: { depositReference: 'SB1' } }), new Set())), 'reference:cashout1:confirm');
});

test('CLABE: one sent cashout of that amount to that CLABE matches; two are ambiguous, so neither', () => {
  const clabe = (n: string) => `012180${n}${clabeCheckDigit(`012180${n}`)}`;
  const a = clabe('00000000001');
  const one = knowledge([], [co(1, { bankAccount: a, bankReference: null, currency: 'MXN' })]);
  assert.equal(kind(decide(one, entry({ amount: '30.00', currency: 'MXN', direction: 'debit', refs: { clabe: a } }), new Set())), 'reference:cashout1:complete');
  const two = knowledge([], [co(1, { bankAccount: a, bankReference: null, currency: 'MXN' }), co(2, { bankAccount: a, bankReference: null, currency: 'MXN' })]);
  assert.equal(kind(decide(two, entry({ amount: '30.00', currency: 'MXN', direction: 'debit', refs: { clabe: a } }), new Set())), 'exception:no_match');
});

test('SPEI numeric reference: the pending MX own-accounts deposit of that remainder', () => {
  const k = knowledge([dep(1_000_421, { country: 'MX', currency: 'MXN' })]);
  assert.equal(kind(decide(k, entry({ currency: 'MXN', refs: { depositReference: speiReference(1_000_421) } }), new Set())), 'reference:deposit1000421:complete');
});

test('rule 2: amount, window and document; two candidates are ambiguous; none is no_match', () => {
  const k = knowledge([dep(1), dep(2, { payerDocument: '11144477735' }), dep(3, { payerDocument: '11144477735' }), dep(4, { payerDocument: '39053344705', createdAt: new Date('2026-11-01T00:00:00Z') })]);
  assert.equal(kind(decide(k, entry({ counterparty: { document: '52998224725' } }), new Set())), 'amount_date_document:deposit1:complete');
  assert.equal(kind(decide(k, entry({ counterparty: { document: '11144477735' } }), new Set())), 'exception:ambiguous');
  assert.equal(kind(decide(k, entry({ counterparty: { document: '39053344705' } }), new Set())), 'exception:no_match');
  const none = decide(k, entry({}), new Set());
  assert.equal(kind(none), 'exception:no_match');
  assert.ok(none.kind === 'exception' && none.candidates.length === 3, 'candidates of that amount in the window are offered');
  // The statement writes the amount as it likes ("70.5"), the database as numeric ("70.50"): one amount.
  const written = knowledge([dep(5, { amount: '70.50', payerDocument: '11144477735' })], [co(6, { amount: '12.30', bankReference: null })]);
  assert.equal(kind(decide(written, entry({ amount: '70.5', counterparty: { document: '11144477735' } }), new Set())), 'amount_date_document:deposit5:complete');
  assert.equal(kind(decide(written, entry({ amount: '12.3', direction: 'debit', counterparty: { document: '52998224725' } }), new Set())), 'amount_date_document:cashout6:complete');
});

test('rule 3: a batch of completed deposits, the fee is the difference; a part that does not fit makes it an exception', () => {
  const k = knowledge([dep(1, { status: 'COMPLETED', connector: 'staging', amount: '30.00' }), dep(2, { status: 'COMPLETED', connector: 'staging', amount: '20.00' }), dep(3, { amount: '20.00' })]);
  const batch = (amount: string, parts: [string, number][]) => entry({ amount, batch: parts.map(([a, id]) => ({ amount: a, refs: { depositReference: depositReference(id) } })) });
  const d = decide(k, batch('48.50', [['30.00', 1], ['20.00', 2]]), new Set());
  assert.equal(kind(d), 'settlement_batch:deposit1:confirm,deposit2:confirm');
  assert.equal(d.kind === 'match' && d.fee, '1.50');
  assert.equal(kind(decide(k, batch('50.01', [['30.00', 1], ['20.00', 2]]), new Set())), 'exception:amount_differs');
  assert.equal(kind(decide(k, batch('48.50', [['30.00', 1], ['20.00', 3]]), new Set())), 'exception:amount_differs');
  assert.equal(kind(decide(k, batch('48.50', [['30.00', 1], ['20.00', 99]]), new Set())), 'exception:unknown_reference');
});

test('an operator match: same amount and currency; a cancelled deposit completes as a late payment', () => {
  const k = knowledge([dep(1, { status: 'CANCELLED' }), dep(2, { status: 'COMPLETED' }), dep(3, { matched: true })]);
  assert.deepEqual(operatorDecision(k, entry({}), { type: 'deposit', id: 1 }), { ok: true, effect: 'late_payment' });
  assert.deepEqual(operatorDecision(k, entry({}), { type: 'deposit', id: 2 }), { ok: true, effect: 'confirm' });
  assert.deepEqual(operatorDecision(k, entry({}), { type: 'deposit', id: 3 }), { ok: false, reason: 'deposit 3 is already matched to another bank entry' });
  assert.deepEqual(operatorDecision(k, entry({ amount: '1.00' }), { type: 'deposit', id: 1 }), { ok: false, reason: 'deposit 1 is 100.00 BRL, the entry 1.00 BRL: book the difference instead' });
  assert.deepEqual(operatorDecision(k, entry({}), { type: 'deposit', id: 9 }), { ok: false, reason: 'deposit 9 does not exist' });
});

test('SPEI: an abono\'s clave de rastreo names the deposit caja applied it to, the CLABE must be one it names', () => {
  const stp = dep(5, { status: 'COMPLETED', connector: 'stp', currency: 'MXN', country: 'MX', amount: '250.00' });
  const other = dep(6, { status: 'COMPLETED', connector: 'stp', currency: 'MXN', country: 'MX', amount: '250.00' });
  const k = indexKnowledge([stp, other], [], [], {
    abonos: [['RASTREO1', { depositId: 5, clabes: ['646180157000000004', '002180700000000018'] }], ['RASTREO2', { depositId: 6, clabes: ['646180157000000017'] }],
      ['RASTREO2', { depositId: 5, clabes: ['646180157000000004'] }]],
  });
  const mx = (refs: StatementEntry['refs']) => entry({ amount: '250.00', currency: 'MXN', refs });
  assert.equal(kind(decide(k, mx({ claveRastreo: 'RASTREO1' }), new Set())), 'reference:deposit5:confirm');
  assert.equal(kind(decide(k, mx({ claveRastreo: 'RASTREO1', clabe: '002180700000000018' }), new Set())), 'reference:deposit5:confirm');
  // The clave of an abono, but another account: not that abono (nothing is guessed).
  assert.equal(kind(decide(k, mx({ claveRastreo: 'RASTREO1', clabe: '012180000000000008' }), new Set())), 'exception:unknown_reference');
  // One clave, two abonos (two sending banks): the CLABE tells them apart, else ambiguous.
  assert.equal(kind(decide(k, mx({ claveRastreo: 'RASTREO2' }), new Set())), 'exception:ambiguous');
  assert.equal(kind(decide(k, mx({ claveRastreo: 'RASTREO2', clabe: '646180157000000017' }), new Set())), 'reference:deposit6:confirm');
  // A debit never names an abono by its clave.
  assert.equal(kind(decide(k, { ...mx({ claveRastreo: 'RASTREO1' }), direction: 'debit' }, new Set())), 'exception:no_match');
});

test('outgoing money: a refund\'s debit confirms a COMPLETED refund; pending, credit, other amount or twice is an exception', () => {
  const refunds = [
    { id: 1, status: 'COMPLETED', amount: '40.00', currency: 'BRL', matched: false },
    { id: 2, status: 'PENDING', amount: '40.00', currency: 'BRL', matched: false },
    { id: 3, status: 'COMPLETED', amount: '40.00', currency: 'BRL', matched: true },
  ];
  const k = indexKnowledge([], [], [], { refunds, refundReferences: [['D12345678202611251000abcdefghijk', 1], ['devol-1', 1], ['devol-2', 2], ['CAJAREFUND3', 3]] });
  const debit = (refs: StatementEntry['refs'], amount = '40.00') => entry({ direction: 'debit', amount, refs });
  assert.equal(kind(decide(k, debit({ endToEndId: 'D12345678202611251000abcdefghijk' }), new Set())), 'reference:refund1:confirm');
  assert.equal(kind(decide(k, debit({ bankReference: 'devol-1' }), new Set())), 'reference:refund1:confirm');
  assert.equal(kind(decide(k, debit({ endToEndId: 'devol-2' }), new Set())), 'exception:not_completable');
  assert.equal(kind(decide(k, debit({ claveRastreo: 'CAJAREFUND3' }), new Set())), 'exception:already_matched');
  assert.equal(kind(decide(k, debit({ endToEndId: 'devol-1' }, '41.00'), new Set())), 'exception:amount_differs');
  const used = new Set<string>();
  assert.equal(kind(decide(k, debit({ endToEndId: 'devol-1' }), used)), 'reference:refund1:confirm');
  assert.equal(kind(decide(k, { ...debit({ endToEndId: 'D12345678202611251000abcdefghijk' }), key: 'k2' }, used)), 'exception:already_matched');
  // A credit quoting a refund's id is the payer's text, not the refund.
  assert.equal(kind(decide(k, entry({ amount: '40.00', refs: { endToEndId: 'devol-1' } }), new Set())), 'exception:no_match');
  // The operator may match a debit to a refund by hand, by the same checks.
  assert.deepEqual(operatorDecision(k, debit({}), { type: 'refund', id: 1 }), { ok: true, effect: 'confirm' });
  assert.equal(operatorDecision(k, debit({}), { type: 'refund', id: 2 }).ok, false);
});

test('outgoing money: an STP payout\'s debit names its cashout by the clave caja sent it under', () => {
  const payout = co(9, { status: 'COMPLETED', currency: 'MXN', amount: '75.00', bankReference: null, bankAccount: '012180000000000008' });
  const k = indexKnowledge([], [payout], [], { payouts: [['CAJAPAYOUT9', 9]] });
  const debit = entry({ direction: 'debit', currency: 'MXN', amount: '75.00', refs: { claveRastreo: 'CAJAPAYOUT9', clabe: '012180000000000008' } });
  assert.equal(kind(decide(k, debit, new Set())), 'reference:cashout9:confirm');
  // Its return (the bank marks it a reversal) names it by the same clave.
  assert.equal(kind(decide(k, { ...debit, direction: 'credit', reversal: true }, new Set())), 'reference:cashout9:return');
});

test('each kind\'s matchKey decides: a charge_reference kind\'s deposit is completed by the statement, any other\'s only confirmed', async () => {
  const { connectorKinds } = await import('../../src/connectors/providers.ts');
  const byKey = (key: string) => connectorKinds().filter((k) => k.matchKey === key).map((k) => k.name);
  assert.ok(byKey('charge_reference').length > 0 && byKey('payment_id').length > 0, 'the registry has both');
  for (const kd of connectorKinds()) {
    const k = knowledge([dep(1, { connector: kd.name })]);
    const pending = kind(decide(k, entry({ refs: { depositReference: depositReference(1) } }), new Set()));
    const done = kind(decide(knowledge([dep(1, { connector: kd.name, status: 'COMPLETED' })]), entry({ refs: { depositReference: depositReference(1) } }), new Set()));
    if (kd.matchKey === 'charge_reference') {
      assert.equal(pending, 'reference:deposit1:complete', kd.name);
      assert.equal(done, 'exception:already_completed', kd.name);
    } else {
      assert.equal(pending, 'exception:not_completable', kd.name);
      assert.equal(done, 'reference:deposit1:confirm', kd.name);
    }
  }
});
