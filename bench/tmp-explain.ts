// temporary profiling script (not committed)
import { startTestServer } from '../test/helpers/server.ts';
import { createMerchant, V3Client } from '../test/helpers/clients.ts';
import { cpf } from '../test/helpers/documents.ts';
import { transitionDepositsIn } from '../src/deposits/transitions.ts';
const PAYER = { document: cpf('111444777'), first_name: 'Maria', last_name: 'Souza', email: 'maria@example.com' };
const s = await startTestServer('pg');
const m = await createMerchant(s.url, 'X');
const v = V3Client.deposits(s.url, m);
const ids: number[] = [];
for (let i = 0; i < 400; i++) ids.push((await v.post('/v3/deposits', { country: 'BR', amount: '100.00', currency: 'BRL', payment_method: 'IX', payer: PAYER })).body.deposit_id);
await s.ctx.db.query('CHECKPOINT');
const orig = s.ctx.db.tx.bind(s.ctx.db);
for (const size of [1, 32]) {
  const batch = ids.splice(0, size * 5);
  const times: Record<string, number> = {};
  for (let b = 0; b < 5; b++) {
    await orig(async (q) => {
      const wrapped = { ...q, query: async (sql: string, params?: unknown[], opts?: any) => {
        const key = sql.trim().slice(0, 40).replace(/\s+/g, ' ');
        const t = process.hrtime.bigint();
        const r = await q.query(sql, params, opts);
        times[key] = (times[key] ?? 0) + Number(process.hrtime.bigint() - t) / 1e3;
        return r;
      } } as any;
      await transitionDepositsIn(wrapped, s.ctx, batch.slice(b * size, (b + 1) * size).map((id) => ({ depositId: id, to: 'COMPLETED', cause: 'payment', opts: { actor: 'sandbox', merchantId: m.merchant_id } })));
    });
  }
  console.log(`batch ${size}: µs per item per statement`);
  for (const [k, t] of Object.entries(times)) console.log(`  ${(t / (5 * size)).toFixed(0).padStart(6)}  ${k}`);
}
await s.close();
