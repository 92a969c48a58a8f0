// The panel home's kept figures (migration 025, src/panel/services/stats.ts): deposits created, completed
// and cancelled concurrently while several folds run at once, a HOSTED deposit whose method is
// chosen later, refunds: what the home reads equals the same figures aggregated over the rows.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { foldAllDayFigures, foldDayFigures, homeStats, VACUUM_AFTER_DELTAS, type HomeStats } from '../../src/panel/services/stats.ts';
import { backends, startTestServer, type TestServer } from '../helpers/server.ts';
import { createMerchant, V3Client } from '../helpers/clients.ts';
import { cpf } from '../helpers/documents.ts';

const PAYER = { document: cpf('529982247'), first_name: 'Ana', last_name: 'Silva', email: 'ana@example.com' };
const ACCOUNT = { beneficiary: 'Ana Silva', bank_code: '341', branch: '0001', account_number: '12345-4', account_type: 'CHECKING' };

/** The home's figures computed straight from the rows, as the home did before it kept them. */
async function fromRows(s: TestServer, merchantId: number): Promise<Pick<HomeStats, 'byCountry' | 'byMethod'> & { days: [string, number, number, string, number][] }> {
  const group = async (column: string) =>
    (await s.ctx.db.query<{ key: string; created: number; completed: number; volumeUsd: string }>(
      `SELECT coalesce(${column}, '-') AS key, count(*)::int AS created, count(*) FILTER (WHERE status = 'COMPLETED')::int AS completed,
              coalesce(sum(usd_amount) FILTER (WHERE status = 'COMPLETED'), 0)::text AS "volumeUsd"
       FROM deposits WHERE merchant_id = $1 GROUP BY 1 ORDER BY 2 DESC, 1`,
      [merchantId],
    )).rows;
  const days = (await s.ctx.db.query<{ day: string; created: number; completed: number; volume: string; refunds: number }>(
    `SELECT to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD') AS day, count(*)::int AS created,
            count(*) FILTER (WHERE status = 'COMPLETED')::int AS completed, coalesce(sum(usd_amount) FILTER (WHERE status = 'COMPLETED'), 0)::text AS volume,
            (SELECT count(*)::int FROM refunds r WHERE r.merchant_id = $1) AS refunds
     FROM deposits WHERE merchant_id = $1 GROUP BY 1`,
    [merchantId],
  )).rows;
  return { byCountry: await group('country'), byMethod: await group('payment_method'), days: days.map((d) => [d.day, d.created, d.completed, d.volume, d.refunds]) };
}

const money = (v: string) => Number(v).toFixed(2);

for (const backend of backends()) {
  describe(`panel home figures (${backend})`, () => {
    let s: TestServer;
    before(async () => {
      s = await startTestServer(backend);
    });
    after(() => s.close());

    test('concurrent creations, completions, refunds and folds leave the kept figures equal to the rows', async () => {
      const m = await createMerchant(s.url, 'Figures');
      const v3 = V3Client.deposits(s.url, m);
      const create = (i: number) =>
        i % 4 === 0
          // HOSTED: no method until the customer picks one (approve with a method below).
          ? v3.post('/v3/deposits', { country: 'MX', currency: 'MXN', amount: '250.00', invoice_id: `fig-${i}`, payer: { ...PAYER, document: 'GODE561231GR8' } })
          : v3.post('/v3/deposits', { country: 'BR', currency: 'BRL', amount: '100.00', payment_method: 'IX', invoice_id: `fig-${i}`, payer: PAYER });
      let folding = true;
      const folds = Array.from({ length: 3 }, async () => {
        while (folding) {
          await foldDayFigures(s.ctx.db);
          await new Promise((r) => setTimeout(r, 5));
        }
      });
      try {
        const created = await Promise.all(Array.from({ length: 24 }, (_, i) => create(i)));
        for (const r of created) assert.equal(r.status, 200, r.text);
        const ids = created.map((r) => r.body.deposit_id as number);
        // Every other one paid (HOSTED ones with a method chosen now), every fifth cancelled.
        const moves = await Promise.all(ids.map((id, i) =>
          i % 2 === 0
            ? v3.post(`/v3/sandbox/deposits/${id}/approve`, i % 4 === 0 ? { payment_method: 'SE' } : '')
            : i % 5 === 0 ? v3.post(`/v3/sandbox/deposits/${id}/cancel`, '') : Promise.resolve({ status: 200, text: '' })));
        for (const r of moves) assert.equal(r.status, 200, r.text);
        const refunds = await Promise.all([2, 6].map((i) => v3.post('/v3/refunds', { deposit_id: ids[i], amount: '10.00', bank_account: ACCOUNT })));
        for (const r of refunds) assert.equal(r.status, 200, r.text);
      } finally {
        folding = false;
        await Promise.all(folds);
      }
      const expected = await fromRows(s, m.merchant_id);
      const seen = async () => {
        const h = await homeStats(s.ctx.db, m.merchant_id, new Date());
        const norm = (g: HomeStats['byCountry']) => g.map((x) => ({ ...x, volumeUsd: money(x.volumeUsd) }));
        return {
          byCountry: norm(h.byCountry),
          byMethod: norm(h.byMethod),
          days: h.days.filter((d) => d.created > 0).map((d) => [d.day, d.created, d.completed, money(d.volumeUsd), d.refunds]),
        };
      };
      const want = {
        byCountry: expected.byCountry.map((x) => ({ ...x, volumeUsd: money(x.volumeUsd) })),
        byMethod: expected.byMethod.map((x) => ({ ...x, volumeUsd: money(x.volumeUsd) })),
        days: expected.days.map(([day, c, done, v, r]) => [day, c, done, money(v), r]),
      };
      // Exact with deltas still unfolded, and after the last fold.
      assert.deepEqual(await seen(), want);
      await foldDayFigures(s.ctx.db);
      assert.equal((await s.ctx.db.query('SELECT count(*)::int AS n FROM panel_day_deltas')).rows[0].n, 0);
      assert.deepEqual(await seen(), want);
      assert.ok(want.byMethod.some((g) => g.key === 'SE'), 'a HOSTED deposit moved to the method chosen');
    });
  });
}

// Issue 43: the fold keeps what a view reads bounded. Folded deltas leave dead rows the home's
// index scan walks past until the table is vacuumed (PGlite never vacuums by itself); the fold
// vacuums once VACUUM_AFTER_DELTAS have been folded, and the figures stay exact throughout.
for (const backend of backends()) {
  describe(`panel home figures with a large backlog (${backend})`, () => {
    let s: TestServer;
    before(async () => {
      s = await startTestServer(backend);
    });
    after(() => s.close());

    test('a backlog folds in batches while deposits keep arriving, the figures stay exact and the folded deltas are vacuumed away', async () => {
      const m = await createMerchant(s.url, 'Backlog');
      const v3 = V3Client.deposits(s.url, m);
      const first = await v3.post('/v3/deposits', { country: 'MX', currency: 'MXN', amount: '250.00', invoice_id: 'backlog-0', payer: { ...PAYER, document: 'GODE561231GR8' } });
      assert.equal(first.status, 200, first.text);
      // A backlog past the vacuum's threshold, as a burst of creations leaves it: copies of that
      // deposit by SQL, the triggers on (they append the deltas), spread over ten days.
      const n = VACUUM_AFTER_DELTAS + 500;
      const cols = (await s.ctx.db.query<{ c: string }>(
        `SELECT column_name AS c FROM information_schema.columns WHERE table_name = 'deposits' AND table_schema = current_schema()
         AND column_name NOT IN ('id', 'token', 'invoice_id', 'status', 'created_at', 'updated_at') ORDER BY ordinal_position`,
      )).rows.map((r) => `"${r.c}"`);
      await s.ctx.db.query(
        `INSERT INTO deposits (${cols.join(', ')}, token, invoice_id, status, created_at, updated_at)
         SELECT ${cols.map((c) => `d.${c}`).join(', ')}, md5('backlog' || g), 'backlog-gen-' || g, CASE WHEN g % 3 = 0 THEN 'COMPLETED' ELSE 'CANCELLED' END,
                now() - (g % 10) * interval '1 day', now() - (g % 10) * interval '1 day'
         FROM (SELECT * FROM deposits WHERE id = $1) d, generate_series(1, $2::int) g`,
        [first.body.deposit_id, n],
      );
      const deltas = async () => (await s.ctx.db.query<{ n: number }>('SELECT count(*)::int AS n FROM panel_day_deltas')).rows[0]!.n;
      assert.ok((await deltas()) >= n);
      const exact = async () => {
        const expected = await fromRows(s, m.merchant_id);
        const h = await homeStats(s.ctx.db, m.merchant_id, new Date());
        assert.deepEqual(
          h.byCountry.map((x) => [x.key, x.created, x.completed, money(x.volumeUsd)]),
          expected.byCountry.map((x) => [x.key, x.created, x.completed, money(x.volumeUsd)]),
        );
        assert.deepEqual(
          h.days.filter((d) => d.created > 0).map((d) => [d.day, d.created, d.completed, money(d.volumeUsd)]),
          expected.days.map(([day, c, done, v]) => [day, c, done, money(v)]).sort((a, b) => (a[0]! < b[0]! ? -1 : 1)),
        );
      };
      await exact();
      // Folded (and vacuumed) while deposits keep arriving through the API.
      let i = 0;
      const arriving = (async () => {
        for (; i < 20; i++) {
          const r = await v3.post('/v3/deposits', { country: 'BR', currency: 'BRL', amount: '100.00', payment_method: 'IX', invoice_id: `backlog-${i + 1}`, payer: PAYER });
          assert.equal(r.status, 200, r.text);
        }
      })();
      const folded = await foldAllDayFigures(s.ctx.db);
      await arriving;
      assert.ok(folded >= n, `folded ${folded}`);
      await exact();
      if (backend === 'pg') {
        // The folded deltas' dead rows are gone: the fold vacuumed the table.
        const [st] = (await s.ctx.db.query<{ vacuums: number }>(`SELECT pg_stat_get_vacuum_count('panel_day_deltas'::regclass)::int AS vacuums`)).rows;
        assert.ok(st!.vacuums >= 1, 'the deltas table was vacuumed');
      }
      await foldAllDayFigures(s.ctx.db);
      assert.equal(await deltas(), 0);
      await exact();
    });
  });
}
