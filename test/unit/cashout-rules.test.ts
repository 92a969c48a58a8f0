// Cashout rules: the state table, the status numbers, request validation and the staging bank's
// magic values.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { capabilitiesOf } from '../../src/config/config.ts';
import { CASHOUT_STATUS_CODE, CASHOUT_STATUSES, type CashoutTrigger, nextCashoutStatus } from '../../src/domain/cashout-states.ts';
import { validateCashoutRequest } from '../../src/domain/cashout-request.ts';
import { buildClabe } from '../../src/domain/clabe.ts';
import { toDb } from '../../src/domain/money.ts';
import { stagingOutcome } from '../../src/connectors/staging/bank.ts';

describe('cashout states', () => {
  test('every allowed transition, and nothing else', () => {
    const allowed: string[] = [];
    for (const from of CASHOUT_STATUSES) {
      for (const t of ['hold', 'release', 'cancel', 'deliver', 'complete', 'reject'] as CashoutTrigger[]) {
        const to = nextCashoutStatus(from, t);
        if (to) allowed.push(`${from} ${t} ${to}`);
      }
    }
    assert.deepEqual(allowed.sort(), [
      'COMPLETED reject REJECTED', 'DELIVERED complete COMPLETED', 'DELIVERED reject REJECTED', 'ON_HOLD cancel CANCELLED',
      'ON_HOLD release PENDING', 'PENDING cancel CANCELLED', 'PENDING deliver DELIVERED', 'PENDING hold ON_HOLD',
    ]);
  });
  test('status numbers of DESIGN.md', () => {
    assert.deepEqual(CASHOUT_STATUS_CODE, { PENDING: 0, COMPLETED: 1, CANCELLED: 2, REJECTED: 3, DELIVERED: 4, ON_HOLD: 5 });
  });
});

describe('cashout request', () => {
  const mx = {
    external_id: 'p-1', country: 'MX', currency: 'MXN', amount: 1825, document_id: 'GODE561231GR8', beneficiary_name: 'Eva',
    bank_code: 40012, bank_account: buildClabe('012', '180', '00123456789'), account_type: 'S', on_hold: 'true',
  };
  test('numbers and booleans as strings or numbers; the bank named from the registry', () => {
    const r = validateCashoutRequest(mx, capabilitiesOf('staging'));
    assert.ok(r.ok, r.ok ? '' : r.details.join('; '));
    assert.deepEqual([toDb(r.value.amount), r.value.currency, r.value.bankCode, r.value.bankName, r.value.accountType, r.value.onHold], ['1825.00', 'MXN', '40012', 'BBVA Bancomer', 'SAVING', true]);
  });
  test('every failing field at once', () => {
    const r = validateCashoutRequest({ ...mx, external_id: 'has space', currency: 'EUR', amount: '1.234', document_id: 'X', bank_code: '999', notification_url: 'http://shop.example', on_hold: 'maybe', email: 'nope', phone: '123' }, capabilitiesOf('staging'));
    assert.ok(!r.ok);
    assert.deepEqual(r.details.map((d) => d.split(':')[0]), ['external_id', 'currency', 'amount', 'document_id', 'bank_code', 'email', 'phone', 'notification_url', 'on_hold']);
  });
  test('zero-decimal currencies take no cents; USD still takes two', () => {
    const cl = { external_id: 'c', country: 'CL', currency: 'CLP', document_id: '11.111.111-1', beneficiary_name: 'Ana', bank_code: '1', bank_account: '12345678' };
    assert.ok(validateCashoutRequest({ ...cl, amount: '10000' }, capabilitiesOf('staging')).ok);
    assert.ok(!validateCashoutRequest({ ...cl, amount: '10000.50' }, capabilitiesOf('staging')).ok);
    assert.ok(validateCashoutRequest({ ...cl, currency: 'USD', amount: '10.50' }, capabilitiesOf('staging')).ok);
  });
});

describe('staging bank', () => {
  test('magic values of the beneficiary account', () => {
    assert.deepEqual(stagingOutcome('12345-6'), { status: 'completed' });
    assert.deepEqual(stagingOutcome('99901-1'), { status: 'rejected', code: '801' });
    assert.deepEqual(stagingOutcome('012180000999010006'), { status: 'rejected', code: '801' });
    assert.deepEqual(stagingOutcome('9990-8'), { status: 'rejected', code: '808' }, 'the digits count, not the dashes');
    assert.deepEqual(stagingOutcome('99909'), { status: 'completed' });
    assert.deepEqual(stagingOutcome('1-99977-0'), { status: 'completed', returnsWith: '809' });
  });
});
