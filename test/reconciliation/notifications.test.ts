// camt.054 notifications during the day, then the day's camt.053: each entry is stored once, and
// the statement's balance agrees with the ledger and the open exceptions.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { backends, ADMIN_TOKEN, startTestServer, type TestServer } from '../helpers/server.ts';
import { assertLedgerOk } from '../helpers/ledger.ts';
import { camt053, camt054, type Day } from '../helpers/statements.ts';
import { parseStatement } from '../../src/reconciliation/formats.ts';
import { checkAgainstStatement } from '../../src/reconciliation/check.ts';

const post = async (url: string, body: string, query = '') => {
  const r = await fetch(`${url}/admin/reconciliation/statements${query}`, { method: 'POST', headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/xml' }, body });
  return { status: r.status, body: await r.json() };
};

for (const backend of backends()) {
  describe(`camt.054 then camt.053 (${backend})`, () => {
    let s: TestServer;
    before(async () => {
      s = await startTestServer(backend);
    });
    after(async () => {
      await assertLedgerOk(s.ctx.db);
      await s.close();
    });

    test('entries notified first are not imported again with the statement', async () => {
      const base = { account: { iban: 'DE89370400440532013000' }, currency: 'EUR', date: '2026-11-25', opening: '500.00' };
      const m = (i: number, amount: string, direction: 'credit' | 'debit' = 'credit') => ({ amount, direction, date: '2026-11-25', bankId: `ACC-${i}` });
      const n = await post(s.url, camt054({ ...base, statementId: 'NTF-1', movements: [m(1, '10.00'), m(2, '2.50', 'debit')] }), '?format=camt054');
      assert.equal(n.status, 201);
      assert.deepEqual({ ...n.body, statement_id: 0 }, { statement_id: 0, entries: 2, matched: 0, exceptions: 2, repeated: 0 });
      const day: Day = { ...base, statementId: 'STMT-1', movements: [m(1, '10.00'), m(2, '2.50', 'debit'), m(3, '7.25')] };
      const st = await post(s.url, camt053(day));
      assert.equal(st.status, 201);
      assert.deepEqual({ ...st.body, statement_id: 0 }, { statement_id: 0, entries: 3, matched: 0, exceptions: 1, repeated: 2 });
      const { rows } = await s.ctx.db.query<{ n: number }>('SELECT count(*)::int AS n FROM bank_entries');
      assert.equal(rows[0]!.n, 3);
      const c = await checkAgainstStatement(s.ctx.db, parseStatement('camt', camt053(day)));
      assert.deepEqual([c.bank_balance, c.ledger_balance, c.explained_by_exceptions, c.open_exceptions, c.unexplained, c.ok], ['514.75', '500.00', '14.75', 3, '0.00', true]);
    });
  });
}
