// Statement import benchmark: one camt.053 of 100,000 entries (BENCH_ENTRIES) posted to
// POST /admin/reconciliation/statements of a real server (the compiled build) on PostgreSQL,
// the way an operator's end-of-day job sends it. The statement's credits name pending
// own-accounts deposits (BENCH_MATCHED of them, each completed through the deposit service with
// its ledger credit, event and notification; staging's magic amounts complete or cancel a few of
// them first, which makes those exceptions) and the rest name nothing caja knows (the exceptions
// queue). Figures: entries/s for the whole import, with two baselines from the same
// run: parsing alone (in-process), and a second post of the same file (recognised, nothing done).
// Alone: `node --import tsx bench/reconciliation.ts` (DATABASE_URL or postgres://postgres@127.0.0.1:5432/postgres).
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { depositReference } from '../src/domain/payment-info.ts';
import { parseStatement } from '../src/reconciliation/formats.ts';
import { camt053, type Movement } from '../test/helpers/statements.ts';
import { type Credentials, V3Client } from '../test/helpers/clients.ts';
import { ADMIN_TOKEN, freshDatabase, startServer, stopServer } from './deposits.ts';

const ENTRIES = Number(process.env.BENCH_ENTRIES ?? 100_000);
const MATCHED = Number(process.env.BENCH_MATCHED ?? 1_000);

const admin = (url: string, method: string, path: string, body?: unknown) =>
  fetch(url + path, { method, headers: { authorization: `Bearer ${ADMIN_TOKEN}`, ...(body ? { 'content-type': 'application/json' } : {}) }, body: body ? JSON.stringify(body) : undefined });

export async function benchReconciliation(): Promise<Record<string, unknown>> {
  const db = await freshDatabase();
  const { url, child } = await startServer(db.url);
  try {
    const own = { accounts: [{ country: 'BR', method: 'SB', beneficiary_name: 'Operadora Pagamentos Ltda', agency: '4417', account: '13009218-7', document: '11444777000161' }] };
    if (!(await admin(url, 'PUT', '/admin/connectors/own_accounts', own)).ok) throw new Error('own accounts');
    const created = await admin(url, 'POST', '/admin/merchants', { name: 'Bench' });
    if (created.status !== 201) throw new Error(`merchant: ${await created.text()}`);
    const m = (await created.json()) as Credentials;
    const v3 = V3Client.deposits(url, m);
    const deposits: { id: number; amount: string }[] = [];
    for (let i = 0; i < MATCHED; i++) {
      const amount = `${100 + (i % 900)}.${String(i % 100).padStart(2, '0')}`;
      const r = await v3.post('/v3/deposits', { country: 'BR', amount, currency: 'BRL', payment_method: 'SB', invoice_id: `bench-${i}`, payer: { document: '529.982.247-25', first_name: 'Ana', last_name: 'Silva', email: 'ana@example.com' } });
      if (r.status !== 200) throw new Error(`deposit: ${r.text}`);
      deposits.push({ id: r.body.deposit_id, amount });
    }
    const today = new Date().toISOString().slice(0, 10);
    const movements: Movement[] = [];
    for (let i = 0; i < ENTRIES; i++) {
      const d = deposits[i];
      movements.push(d
        ? { amount: d.amount, direction: 'credit', date: today, bankId: `N${i}`, reference: depositReference(d.id), counterparty: { name: 'Ana Silva', document: '52998224725' } }
        : { amount: `${1 + (i % 5000)}.${String(i % 100).padStart(2, '0')}`, direction: i % 3 === 0 ? 'debit' : 'credit', date: today, bankId: `N${i}`, info: 'MOVIMENTO' });
    }
    const file = camt053({ statementId: `BENCH-${today}`, account: { other: 'bench-account' }, currency: 'BRL', date: today, opening: '1000000.00', movements });
    const mb = Math.round(Buffer.byteLength(file) / 1e5) / 10;

    let t = performance.now();
    const parsed = parseStatement('camt', file);
    const parseMs = performance.now() - t;

    const post = () => fetch(`${url}/admin/reconciliation/statements`, { method: 'POST', headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/xml' }, body: file });
    t = performance.now();
    const first = await post();
    const importMs = performance.now() - t;
    const figures = await first.json() as Record<string, number>;
    if (first.status !== 201) throw new Error(`import: ${first.status} ${JSON.stringify(figures)}`);
    t = performance.now();
    const again = await post();
    const againMs = performance.now() - t;
    if (again.status !== 200) throw new Error(`second import: ${again.status}`);
    const client = new pg.Client({ connectionString: db.url });
    await client.connect();
    const reasons = await client.query<{ reason: string; n: number }>('SELECT reason, count(*)::int AS n FROM reconciliation_exceptions GROUP BY reason ORDER BY reason');
    const rules = await client.query<{ rule: string; n: number }>('SELECT rule, count(DISTINCT entry_id)::int AS n FROM reconciliation_matches GROUP BY rule ORDER BY rule');
    await client.end();
    const result = {
      matched_per_rule: Object.fromEntries(rules.rows.map((r) => [r.rule, r.n])),
      exceptions_per_reason: Object.fromEntries(reasons.rows.map((r) => [r.reason, r.n])),
      entries: ENTRIES, file_mb: mb, matched: figures.matched, exceptions: figures.exceptions,
      import_seconds: Math.round(importMs) / 1000, import_entries_per_s: Math.round(ENTRIES / (importMs / 1000)),
      parse_only_seconds: Math.round(parseMs) / 1000, parse_entries_per_s: Math.round(parsed.entries.length / (parseMs / 1000)),
      duplicate_post_seconds: Math.round(againMs) / 1000,
    };
    console.log(result);
    return result;
  } finally {
    await stopServer(child);
    await db.drop();
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  await benchReconciliation();
  process.exit(0);
}
