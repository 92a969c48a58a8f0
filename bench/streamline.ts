// Streamline (form-encoded) benchmark against PostgreSQL, one server process, every figure beside
// a baseline measured in the same run (the machine is shared and noisy, so only ratios compare
// across runs):
//   POST /api_curl/streamline/NewInvoice, BR Pix as docs/streamline.md's example (x_version 1.1,
//     type=json), each form with its own x_invoice and its control signed as clients sign it
//                                      vs  pgbench running the same writes: bench/deposits.ts's
//     script rebuilt from a deposit this NewInvoice run wrote (deposit, history row, event, and
//     the nextval round trip a ONE_SHOT deposit takes first), with as many connections as the
//     server's pool
//   POST /apd/webpaystatus (web-status credentials, x_invoice round-robin over the invoices
//     written)                         vs  GET /health on the same server
//   p50/p99 of each.
// Alone: `node --import tsx bench/streamline.ts` (DATABASE_URL or postgres://postgres@127.0.0.1:5432/postgres).
import { createHmac } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { ADMIN_TOKEN, CONNECTIONS, DURATION, freshDatabase, pgbench, pgbenchScript, runHttp, startServer, stopServer, summary, WARMUP } from './deposits.ts';

/** The server's pg pool size per process (src/db/db.ts); pgbench gets as many connections. */
const POOL = 20;
const FORM = { 'content-type': 'application/x-www-form-urlencoded' };

interface Creds {
  merchant_id: number;
  deposits: { login: string; trans_key: string; secret_key: string };
  web_status: { login: string; trans_key: string };
}

const ratio = (a: number, b: number) => (b > 0 ? Math.round((a / b) * 100) / 100 : null);

/** The NewInvoice control, from docs/streamline.md's table: upper-case hex HMAC-SHA256. */
function invoiceControl(secret: string, f: Record<string, string>): string {
  const v = (k: string) => f[k] ?? '';
  const message = `${v('x_invoice')}V${v('x_amount')}I${v('x_iduser')}2${v('x_bank')}1${v('x_cpf')}H${v('x_bdate')}G${v('x_email')}Y${v('x_zip')}A${v('x_address')}P${v('x_city')}S${v('x_state')}P`;
  return createHmac('sha256', secret).update(message, 'utf8').digest('hex').toUpperCase();
}

/** NewInvoice forms as a client sends them: every one its own x_invoice and control. */
function newInvoiceRequests(c: Creds, tag: string) {
  let n = 0;
  return [{
    method: 'POST',
    path: '/api_curl/streamline/NewInvoice',
    setupRequest: (req: Record<string, unknown>) => {
      const i = ++n;
      const f: Record<string, string> = {
        x_login: c.deposits.login,
        x_trans_key: c.deposits.trans_key,
        x_invoice: `bench-sl-${tag}-${i}`,
        x_amount: '100.00',
        x_currency: 'BRL',
        x_country: 'BR',
        x_bank: 'IX',
        x_iduser: String(i % 5000),
        x_cpf: '52998224725',
        x_name: 'João da Silva',
        x_email: 'joao@example.com',
        x_address: 'Rua Augusta 1500',
        x_zip: '01304-001',
        x_city: 'São Paulo',
        x_state: 'SP',
        x_return: 'https://shop.example/return',
        x_version: '1.1',
        type: 'json',
      };
      f.control = invoiceControl(c.deposits.secret_key, f);
      return { ...req, body: new URLSearchParams(f).toString(), headers: FORM };
    },
  }];
}

/** webpaystatus forms, round-robin over invoices that exist. */
function statusRequests(c: Creds, invoices: string[]) {
  let n = 0;
  return [{
    method: 'POST',
    path: '/apd/webpaystatus',
    setupRequest: (req: Record<string, unknown>) => {
      const body = new URLSearchParams({ x_login: c.web_status.login, x_trans_key: c.web_status.trans_key, x_invoice: invoices[n++ % invoices.length]! }).toString();
      return { ...req, body, headers: FORM };
    },
  }];
}

/** Checks that a request of each kind succeeds (a 200 with an error body would be measured as a success). */
async function check(url: string, c: Creds): Promise<string> {
  const [inv] = newInvoiceRequests(c, 'check');
  const r = inv!.setupRequest({});
  const created = await (await fetch(url + inv!.path, { method: 'POST', headers: FORM, body: r.body as string })).json() as Record<string, string>;
  if (created.status !== '0' || !created.x_document) throw new Error(`NewInvoice failed: ${JSON.stringify(created)}`);
  const [st] = statusRequests(c, ['bench-sl-check-1']);
  const s = st!.setupRequest({});
  const status = await (await fetch(url + st!.path, { method: 'POST', headers: FORM, body: s.body as string })).text();
  if (!status.startsWith('7|')) throw new Error(`webpaystatus failed: ${status}`);
  return created.x_document;
}

export async function benchStreamline(): Promise<Record<string, unknown>> {
  const db = await freshDatabase();
  try {
    const { url, child } = await startServer(db.url, { CAJA_PROCESSES: '1' });
    let creds: Creds;
    let result: Record<string, any>;
    let sample: number;
    try {
      const res = await fetch(`${url}/admin/merchants`, {
        method: 'POST',
        headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
        body: JSON.stringify({ name: 'Bench Streamline' }),
      });
      creds = (await res.json()) as Creds;
      await check(url, creds);
      // Warm up the JIT, the pool and the plan caches.
      await runHttp(url, WARMUP, newInvoiceRequests(creds, 'warm'));
      await runHttp(url, WARMUP, statusRequests(creds, ['bench-sl-check-1']));

      const health = summary(await runHttp(`${url}/health`, DURATION));
      const newInvoice = summary(await runHttp(url, DURATION, newInvoiceRequests(creds, 'run')));
      const client = new pg.Client({ connectionString: db.url });
      await client.connect();
      const rows = (await client.query<{ id: number; invoice_id: string }>(
        `SELECT id, invoice_id FROM deposits WHERE merchant_id = $1 AND source = 'streamline' AND invoice_id LIKE 'bench-sl-run-%' ORDER BY id DESC LIMIT 5000`,
        [creds.merchant_id],
      )).rows;
      await client.end();
      if (rows.length === 0) throw new Error('the NewInvoice run wrote no deposit');
      sample = Number(rows[0]!.id);
      const status = summary(await runHttp(url, DURATION, statusRequests(creds, rows.map((r) => r.invoice_id))));
      result = { processes: 1, health, new_invoice: newInvoice, webpaystatus: status };
    } finally {
      await stopServer(child);
    }
    // The baseline runs with the server stopped, so that the database has the machine to itself
    // as the server had. A NewInvoice with x_bank and a complete payer is ONE_SHOT: its id is taken
    // from the sequence before the insert, as the 'pix' script does.
    const script = await pgbenchScript(db.url, sample, 'pix');
    const base = pgbench(db.url, script, POOL, DURATION);
    result.pgbench_same_writes = base;
    result.ratios = {
      new_invoice_vs_pgbench: ratio(result.new_invoice.rps, base.tps),
      webpaystatus_vs_health: ratio(result.webpaystatus.rps, result.health.rps),
    };
    const line = (name: string, s: ReturnType<typeof summary>) => `${name} ${s.rps}/s (p50 ${s.p50_ms} ms, p99 ${s.p99_ms} ms, ${s.errors} errors)`;
    console.log(`${line('NewInvoice (BR Pix, ONE_SHOT)', result.new_invoice)} vs pgbench same writes ${base.tps} tx/s with ${POOL} connections: ratio ${result.ratios.new_invoice_vs_pgbench}`);
    console.log(`${line('webpaystatus', result.webpaystatus)} vs ${line('GET /health', result.health)}: ratio ${result.ratios.webpaystatus_vs_health}`);
    return { http_connections: CONNECTIONS, seconds: DURATION, pool: POOL, ...result };
  } finally {
    await db.drop();
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const r = await benchStreamline();
  console.log(JSON.stringify(r, null, 2));
  process.exit(0);
}
