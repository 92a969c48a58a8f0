// What a bank entry does to the deposit or cashout it names, for every status: the rules and the
// operator's match read it from the same two functions, which follow the domain's state machines.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { DEPOSIT_STATUSES } from '../../src/domain/deposit-states.ts';
import { CASHOUT_STATUSES } from '../../src/domain/cashout-states.ts';
import { cashoutEntryEffect, depositCreditEffect } from '../../src/reconciliation/matching.ts';

test('a bank credit completes a PENDING deposit, confirms a COMPLETED one; only an operator completes a CANCELLED one late', () => {
  const byRule = Object.fromEntries(DEPOSIT_STATUSES.map((s) => [s, depositCreditEffect(s, false)]));
  const byOperator = Object.fromEntries(DEPOSIT_STATUSES.map((s) => [s, depositCreditEffect(s, true)]));
  assert.deepEqual(byRule, { PENDING: 'complete', APPROVED: null, COMPLETED: 'confirm', CANCELLED: null });
  assert.deepEqual(byOperator, { PENDING: 'complete', APPROVED: null, COMPLETED: 'confirm', CANCELLED: 'late_payment' });
});

test('a debit completes a DELIVERED cashout and confirms a COMPLETED one; a returned credit rejects either', () => {
  const debit = Object.fromEntries(CASHOUT_STATUSES.map((s) => [s, cashoutEntryEffect(s, 'debit')]));
  const credit = Object.fromEntries(CASHOUT_STATUSES.map((s) => [s, cashoutEntryEffect(s, 'credit')]));
  assert.deepEqual(debit, { PENDING: null, ON_HOLD: null, CANCELLED: null, DELIVERED: 'complete', COMPLETED: 'confirm', REJECTED: null });
  assert.deepEqual(credit, { PENDING: null, ON_HOLD: null, CANCELLED: null, DELIVERED: 'return', COMPLETED: 'return', REJECTED: null });
});
