// Completions share transactions and statements (src/deposits/transitions.ts): concurrent
// approvals through the HTTP API, many at once, some of the same deposit twice, some of another
// merchant's deposit, one of no deposit. Each deposit completes exactly once, with one history
// row, one credit, one event and one notification; a duplicate is answered 409 as when it comes
// alone, another merchant's deposit 404, and the ledger check stays clean. On PostgreSQL the
// requests truly run at once; on PGlite they still meet in the batcher.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { backends, startTestServer, type TestServer } from '../helpers/server.ts';
import { createMerchant, type Credentials, V3Client } from '../helpers/clients.ts';
import { cpf } from '../helpers/documents.ts';
import { assertLedgerOk } from '../helpers/ledger.ts';
import { checkLedger } from '../../src/ledger/check.ts';
import { transitionRounds } from '../../src/deposits/transitions.ts';

const PAYER = { document: cpf('111444777'), first_name: 'Maria', last_name: 'Souza', email: 'maria@example.com' };

test('rounds: the k-th request of each deposit goes in round k, in the order given', () => {
  assert.deepEqual(transitionRounds([]), []);
  assert.deepEqual(transitionRounds([7, 8, 9]), [[0, 1, 2]]);
  assert.deepEqual(transitionRounds([7, 8, 7, 9, 7, 8]), [[0, 1, 3], [2, 5], [4]]);
});

for (const backend of backends()) {
  describe(`batched completions (${backend})`, () => {
    let s: TestServer;
    let n = 0;
    before(async () => {
      s = await startTestServer(backend);
    });
    after(() => s.close());

    const pending = async (m: Credentials) => {
      const r = await V3Client.deposits(s.url, m).post('/v3/deposits', { country: 'BR', amount: '100.00', currency: 'USD', payment_method: 'IX', payer: PAYER });
      assert.equal(r.status, 200, r.text);
      return r.body.deposit_id as number;
    };
    // A body makes a second approval of a deposit a different request: two identical ones in the
    // same millisecond are one request to the replay store (the copy gets the first's answer).
    const approve = (m: Credentials, id: number, body = '') => V3Client.deposits(s.url, m).post(`/v3/sandbox/deposits/${id}/approve`, body);
    const count = async (sql: string, ids: number[]) => (await s.ctx.db.query<{ n: number }>(sql, [ids])).rows[0]!.n;

    test('many approvals at once: each deposit completed exactly once, duplicates and strangers answered as alone', async () => {
      const a = await createMerchant(s.url, `Batch A ${++n}`, { notification_url: 'https://a.example.com/hook' });
      const b = await createMerchant(s.url, `Batch B ${n}`, { notification_url: 'https://b.example.com/hook' });
      const mine: number[] = [];
      for (let i = 0; i < 30; i++) mine.push(await pending(a));
      const theirs: number[] = [];
      for (let i = 0; i < 8; i++) theirs.push(await pending(b));
      // The answer to a duplicate when it comes alone, for comparison.
      const alone = await pending(a);
      assert.equal((await approve(a, alone)).status, 200);
      const aloneDuplicate = await approve(a, alone);
      assert.equal(aloneDuplicate.status, 409, aloneDuplicate.text);

      const requests: { who: Credentials; id: number; kind: 'first' | 'again' | 'stranger' | 'owner' | 'missing' }[] = [
        ...mine.map((id) => ({ who: a, id, kind: 'first' as const })),
        ...mine.slice(0, 12).map((id) => ({ who: a, id, kind: 'again' as const })),
        ...theirs.slice(0, 4).map((id) => ({ who: a, id, kind: 'stranger' as const })),
        ...theirs.map((id) => ({ who: b, id, kind: 'owner' as const })),
        { who: a, id: 2_000_000_000, kind: 'missing' as const },
      ];
      // Interleaved, all at once.
      const shuffled = requests.map((r, k) => ({ r, key: (k * 7919) % requests.length })).sort((x, y) => x.key - y.key).map((x) => x.r);
      const answers = await Promise.all(shuffled.map(async (r) => ({ r, res: await approve(r.who, r.id, r.kind === 'again' ? '{}' : '') })));

      for (const { r, res } of answers) {
        if (r.kind === 'stranger' || r.kind === 'missing') {
          assert.equal(res.status, 404, res.text);
          assert.equal(res.body.code, (await approve(a, 2_000_000_001)).body.code, 'the same error as a deposit that does not exist');
        } else if (r.kind === 'owner') {
          assert.equal(res.status, 200, res.text);
          assert.equal(res.body.status, 'COMPLETED');
        }
      }
      // Of each deposit approved twice, one answer completed it and the other is the lone duplicate's.
      for (const id of mine) {
        const got = answers.filter((x) => x.r.who === a && x.r.id === id).map((x) => x.res);
        const ok = got.filter((res) => res.status === 200);
        assert.equal(ok.length, 1, `deposit ${id}: ${got.map((res) => res.text).join(' | ')}`);
        assert.equal(ok[0]!.body.status, 'COMPLETED');
        for (const dup of got.filter((res) => res.status !== 200)) {
          assert.equal(dup.status, 409, dup.text);
          assert.deepEqual({ ...dup.body, description: dup.body.description?.replace(String(id), 'N') },
            { ...aloneDuplicate.body, description: aloneDuplicate.body.description?.replace(String(alone), 'N') });
        }
      }

      const completed = [...mine, ...theirs];
      assert.equal(await count(`SELECT count(*)::int AS n FROM deposits WHERE id = ANY($1) AND status = 'COMPLETED' AND completed_at IS NOT NULL`, completed), completed.length);
      assert.equal(await count(`SELECT count(*)::int AS n FROM deposit_status_changes WHERE deposit_id = ANY($1) AND to_status = 'COMPLETED'
                                 AND from_status = 'PENDING' AND cause = 'payment' AND actor = 'sandbox'`, completed), completed.length, 'one history row each');
      assert.equal(await count(`SELECT count(*)::int AS n FROM ledger_transfers WHERE subject_type = 'deposit' AND kind = 'deposit.credit' AND subject_id = ANY($1)`, completed), completed.length, 'one credit each');
      assert.equal(await count(`SELECT count(*)::int AS n FROM ledger_entries e JOIN ledger_transfers t ON t.id = e.transfer_id
                                 WHERE t.subject_type = 'deposit' AND t.subject_id = ANY($1)`, completed), completed.length * 3, 'settlement, available and fees');
      const events = await s.ctx.db.query<{ subject_id: number; merchant_id: number; data: any }>(
        `SELECT subject_id, merchant_id, data FROM events WHERE type = 'deposit.status_changed' AND subject_type = 'deposit' AND subject_id = ANY($1)`, [completed],
      );
      assert.equal(events.rows.length, completed.length, 'one event each');
      for (const e of events.rows) {
        assert.deepEqual([e.data.deposit_id, e.data.status, e.data.previous_status, e.data.cause, e.data.actor], [e.subject_id, 'COMPLETED', 'PENDING', 'payment', 'sandbox']);
        assert.equal(e.merchant_id, mine.includes(e.subject_id) ? a.merchant_id : b.merchant_id);
      }
      const notes = await s.ctx.db.query<{ subject_key: string; url: string; body: string; event_id: number }>(
        `SELECT n.subject_key, n.url, n.body, n.event_id FROM notifications n JOIN events e ON e.id = n.event_id
         WHERE e.type = 'deposit.status_changed' AND e.subject_id = ANY($1)`, [completed],
      );
      assert.equal(notes.rows.length, completed.length, 'one notification each');
      for (const note of notes.rows) {
        const id = JSON.parse(note.body).deposit_id as number;
        assert.equal(note.subject_key, `deposit:${id}`);
        assert.equal(note.url, mine.includes(id) ? 'https://a.example.com/hook' : 'https://b.example.com/hook');
      }
      // Each notification hangs on its own deposit's event.
      const eventOf = new Map((await s.ctx.db.query<{ id: number; subject_id: number }>(`SELECT id, subject_id FROM events WHERE type = 'deposit.status_changed' AND subject_id = ANY($1)`, [completed])).rows.map((r) => [Number(r.id), r.subject_id]));
      for (const note of notes.rows) assert.equal(eventOf.get(Number(note.event_id)), JSON.parse(note.body).deposit_id);

      const balance = async (m: Credentials) => (await V3Client.deposits(s.url, m).get('/v3/balance')).body.balances.find((x: any) => x.currency === 'USD');
      assert.deepEqual([(await balance(a)).available, (await balance(a)).fees], [31 * 98.5, 31 * 1.5]);
      assert.deepEqual([(await balance(b)).available, (await balance(b)).fees], [8 * 98.5, 8 * 1.5]);
      await assertLedgerOk(s.ctx.db);
      assert.deepEqual((await checkLedger(s.ctx.db, { full: true })).problems, []);
    });

    test('three approvals of a crypto deposit at once: APPROVED, then COMPLETED, then 409, as one after another', async () => {
      const m = await createMerchant(s.url, `Crypto ${++n}`);
      const r = await V3Client.deposits(s.url, m).post('/v3/deposits', { country: 'BR', amount: '100.00', currency: 'USD', payment_method: 'CR', payer: PAYER });
      assert.equal(r.status, 200, r.text);
      const id = r.body.deposit_id as number;
      // Three different requests (identical ones in one second are one request: the replay store).
      const answers = await Promise.all(['', '{}', '{"note": 1}'].map((body) => approve(m, id, body)));
      assert.deepEqual(answers.map((a) => (a.status === 200 ? a.body.status : a.status)).sort(), [409, 'APPROVED', 'COMPLETED'].sort(), answers.map((a) => a.text).join(' | '));
      const history = await s.ctx.db.query<{ to_status: string }>(`SELECT to_status FROM deposit_status_changes WHERE deposit_id = $1 AND from_status IS NOT NULL ORDER BY id`, [id]);
      assert.deepEqual(history.rows.map((h) => h.to_status), ['APPROVED', 'COMPLETED']);
    });

    test('approvals and cancellations of the same deposits at once: each ends once, one way', async () => {
      const m = await createMerchant(s.url, `Either ${++n}`);
      const ids: number[] = [];
      for (let i = 0; i < 12; i++) ids.push(await pending(m));
      const v3 = V3Client.deposits(s.url, m);
      const answers = await Promise.all(ids.flatMap((id) => [approve(m, id), v3.post(`/v3/sandbox/deposits/${id}/cancel`, '')].map(async (p) => ({ id, res: await p }))));
      for (const id of ids) {
        const got = answers.filter((x) => x.id === id).map((x) => x.res);
        assert.deepEqual(got.map((r) => r.status).sort(), [200, 409], got.map((r) => r.text).join(' | '));
        const won = got.find((r) => r.status === 200)!.body.status;
        const history = await s.ctx.db.query<{ to_status: string }>(`SELECT to_status FROM deposit_status_changes WHERE deposit_id = $1 AND from_status IS NOT NULL`, [id]);
        assert.deepEqual(history.rows.map((r) => r.to_status), [won]);
        const credits = await count(`SELECT count(*)::int AS n FROM ledger_transfers WHERE kind = 'deposit.credit' AND subject_id = ANY($1)`, [id]);
        assert.equal(credits, won === 'COMPLETED' ? 1 : 0);
      }
      await assertLedgerOk(s.ctx.db);
    });
  });
}
