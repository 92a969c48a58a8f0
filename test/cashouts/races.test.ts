// Races on PostgreSQL with truly concurrent requests, the ledger's invariants checked after
// each: cashouts racing for the last of a balance, a cancel or a hold racing the bank's pickup,
// and hundreds of partial refunds of one deposit racing each other.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { postgresUrl, startTestServer, type TestServer } from '../helpers/server.ts';
import { cashoutRequest, createMerchant, type Credentials, V3Client } from '../helpers/clients.ts';
import { cpf } from '../helpers/documents.ts';
import { creditBalance } from '../helpers/merchants.ts';
import { assertLedgerOk } from '../helpers/ledger.ts';
import { deliverDueCashouts } from '../../src/cashouts/worker.ts';
import { stagingBank } from '../../src/connectors/staging/bank.ts';

const BR = (over: Record<string, unknown>) => ({
  country: 'BR', currency: 'USD', document_id: cpf('529982247'), beneficiary_name: 'Maria', bank_code: '260', bank_account: '12345-6', bank_branch: '0001', ...over,
});

describe('cashout and refund races (pg)', { skip: postgresUrl() ? false : 'needs DATABASE_URL (PostgreSQL)' }, () => {
  let s: TestServer;
  let n = 0;
  const ext = () => `race-${++n}-${Date.now()}`;
  before(async () => {
    // 500 refunds of one deposit queue on its row lock, the last behind all the others: on a busy
    // machine longer than lock_timeout, which would answer it 503 (retry). The bounds are raised
    // so that this test counts refunds, not timeouts (test/ha/connection-loss.test.ts tests them).
    s = await startTestServer('pg', { CAJA_CASHOUT_DELAY_SECONDS: '0', CAJA_DB_LOCK_TIMEOUT_MS: '120000', CAJA_DB_STATEMENT_TIMEOUT_MS: '120000', CAJA_DB_QUERY_TIMEOUT_MS: '180000' });
  });
  after(() => s.close());

  const funded = async (amount: string): Promise<Credentials> => {
    const m = await createMerchant(s.url, `Racer ${++n}`);
    await creditBalance(s.url, m, amount, 'USD', 'race funding');
    return m;
  };
  const available = async (m: Credentials) => (await V3Client.deposits(s.url, m).get('/v3/balance')).body.balances[0];

  test('cashouts racing for the last of the balance: never more than it holds', async () => {
    const m = await funded('10.00');
    const results = await Promise.all(Array.from({ length: 20 }, () => cashoutRequest(s.url, m, 'POST', '/v3/cashout', BR({ external_id: ext(), amount: '6.00' }))));
    const codes = results.map((r) => (r.status === 200 ? 200 : r.body.code));
    assert.equal(codes.filter((c) => c === 200).length, 1, `exactly one wins: ${codes.join(',')}`);
    assert.ok(codes.every((c) => c === 200 || c === 514), codes.join(','));
    assert.deepEqual([(await available(m)).available, (await available(m)).reserved], [4, 6]);
    // The same external_id racing itself: one cashout.
    const same = ext();
    const twins = await Promise.all(Array.from({ length: 10 }, () => cashoutRequest(s.url, m, 'POST', '/v3/cashout', BR({ external_id: same, amount: '0.10' }))));
    assert.equal(twins.filter((r) => r.status === 200).length, 1);
    assert.ok(twins.every((r) => r.status === 200 || r.body.code === 511));
    await assertLedgerOk(s.ctx.db);
  });

  test('a cancel racing the bank pickup ends in exactly one outcome', async () => {
    const m = await funded('100.00');
    const outcomes = { cancelled: 0, delivered: 0 };
    for (let i = 0; i < 15; i++) {
      const external_id = ext();
      const { cashout_id } = (await cashoutRequest(s.url, m, 'POST', '/v3/cashout', BR({ external_id, amount: '1.00' }))).body;
      const [cancel] = await Promise.all([
        cashoutRequest(s.url, m, 'DELETE', '/v3/cashout/cancel', { cashout_id, external_id }),
        deliverDueCashouts(s.ctx, stagingBank),
      ]);
      const st = (await cashoutRequest(s.url, m, 'POST', '/v3/cashout/status', { cashout_id })).body.cashout_status;
      if (cancel.status === 200) {
        assert.equal(st, 2);
        outcomes.cancelled++;
      } else {
        assert.deepEqual([cancel.body.code, st], [510, 4], 'the bank had it: no cancel');
        outcomes.delivered++;
      }
      const history = (await s.ctx.db.query('SELECT to_status FROM cashout_status_changes WHERE cashout_id = $1 ORDER BY id', [cashout_id])).rows.map((r) => r.to_status);
      assert.equal(history.length, 2, history.join(','));
    }
    assert.equal(outcomes.cancelled + outcomes.delivered, 15);
    const b = await available(m);
    assert.equal(Math.round((b.available + b.reserved) * 100), 10000 - 0, 'nothing completed yet: every cent is available or reserved');
    assert.equal(Math.round(b.reserved * 100), outcomes.delivered * 100);
    await assertLedgerOk(s.ctx.db);
  });

  test('a hold racing the bank pickup leaves one consistent state', async () => {
    const m = await funded('100.00');
    for (let i = 0; i < 15; i++) {
      const { cashout_id } = (await cashoutRequest(s.url, m, 'POST', '/v3/cashout', BR({ external_id: ext(), amount: '1.00' }))).body;
      const [hold] = await Promise.all([
        cashoutRequest(s.url, m, 'PUT', '/v3/cashout/status', { cashout_id, status: 'ON_HOLD' }),
        deliverDueCashouts(s.ctx, stagingBank),
      ]);
      const st = (await cashoutRequest(s.url, m, 'POST', '/v3/cashout/status', { cashout_id })).body.cashout_status;
      assert.equal(st, hold.status === 200 ? 5 : 4, `hold ${hold.status} ${hold.text}`);
      if (hold.status !== 200) assert.equal(hold.body.code, 510);
    }
    // Held ones are never picked up.
    await deliverDueCashouts(s.ctx, stagingBank);
    const { rows } = await s.ctx.db.query(`SELECT status, count(*)::int AS n FROM cashouts WHERE merchant_id = $1 GROUP BY status`, [m.merchant_id]);
    assert.equal(rows.reduce((t, r) => t + r.n, 0), 15);
    assert.ok(rows.every((r) => r.status === 'ON_HOLD' || r.status === 'DELIVERED'), JSON.stringify(rows));
    await assertLedgerOk(s.ctx.db);
  });

  test('500 concurrent partial refunds of one deposit never exceed it, and take the balance once each', async () => {
    const m = await createMerchant(s.url, 'Refund racer');
    const v3 = V3Client.deposits(s.url, m);
    const dep = await v3.post('/v3/deposits', {
      country: 'BR', amount: '500.00', currency: 'USD', payment_method: 'IX',
      payer: { document: cpf('111444777'), first_name: 'Maria', last_name: 'Souza', email: 'maria@example.com' },
    });
    assert.equal(dep.status, 200, dep.text);
    assert.equal((await v3.post(`/v3/sandbox/deposits/${dep.body.deposit_id}/approve`, '')).status, 200);
    const credited = await available(m);
    const account = { beneficiary: 'Maria Souza', bank_code: '260', branch: '0001', account_number: '12345-6', account_type: 'CHECKING' };
    // 500 different requests: identical signed copies would be one request replayed.
    const results = await Promise.all(Array.from({ length: 500 }, (_, i) => v3.post('/v3/refunds', { deposit_id: dep.body.deposit_id, amount: '1.50', bank_account: account, comments: `race ${i}` })));
    const ok = results.filter((r) => r.status === 200).length;
    assert.equal(ok, 333, 'floor(500 / 1.50) refunds fit');
    assert.ok(results.every((r) => r.status === 200 || r.body.code === 802), [...new Set(results.map((r) => r.text))].slice(0, 3).join(' | '));
    const { rows } = await s.ctx.db.query(`SELECT sum(amount)::text AS total, count(*)::int AS n FROM refunds WHERE deposit_id = $1`, [dep.body.deposit_id]);
    assert.deepEqual(rows[0], { total: '499.50', n: 333 });
    const b = await available(m);
    assert.equal(Math.round((b.available + b.reserved) * 100), Math.round(credited.available * 100), 'pending refunds only reserve');
    assert.ok(b.available >= 0);
    await assertLedgerOk(s.ctx.db);
  });
});
