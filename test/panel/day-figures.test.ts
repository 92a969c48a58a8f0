// The panel home's kept figures (migration 025, src/panel/services/stats.ts): deposits created, completed
// and cancelled concurrently while several folds run at once, a HOSTED deposit whose method is
// chosen later, refunds: what the home reads equals the same figures aggregated over the rows.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { foldDayFigures, homeStats, type HomeStats } from '../../src/panel/services/stats.ts';
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
