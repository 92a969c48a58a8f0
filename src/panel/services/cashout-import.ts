// A batch of cashouts from an uploaded CSV. Every row is checked with the API's own rules
// (validateCashoutRequest) before anything is created; a file with any rejected row creates
// nothing and answers the rejected rows (line, external_id, reasons) for a report. A clean file
// creates each cashout through createCashout, which reserves its funds as an API cashout does;
// a row the service refuses then (funds run out, external_id already used) is reported too.
// A file is known by its SHA-256: uploading the same file again creates nothing. Each cashout's
// audit row (cashout.created, naming the file) is written in that cashout's transaction; the
// file's summary (cashouts.imported) with the file's count, once every row is done.
import { createHash } from 'node:crypto';
import type { AppContext } from '../../config/context.ts';
import { CashoutError, createCashout } from '../../cashouts/service.ts';
import { validateCashoutRequest, type CashoutRequest } from '../../domain/cashout-request.ts';
import type { Merchant } from '../../merchants/merchants.ts';
import { type Actor, audit, entry } from './audit.ts';
import { parseCsv } from './csv.ts';

export const IMPORT_COLUMNS = [
  'external_id', 'country', 'currency', 'amount', 'document_id', 'document_type', 'beneficiary_name', 'beneficiary_lastname',
  'bank_code', 'bank_account', 'bank_branch', 'account_type', 'email', 'phone', 'address', 'notification_url', 'comments', 'on_hold',
] as const;
export const MAX_ROWS = 1000;

export interface RejectedRow {
  line: number;
  external_id: string;
  reasons: string[];
}

export type ImportResult =
  | { kind: 'unreadable'; reason: string }
  | { kind: 'rejected'; rows: number; rejected: RejectedRow[] }
  | { kind: 'duplicate'; at: Date; created: number }
  | { kind: 'created'; created: { id: number; external_id: string }[]; rejected: RejectedRow[] };

const FAILURE_TEXT: Record<string, string> = {
  external_id_used: 'external_id already used',
  insufficient_funds: 'insufficient funds',
  no_rate: 'no exchange rate for the currency',
  not_served: 'no payout provider pays cashouts to this country',
  rate_stale: 'the exchange rate is older than allowed; try again once a fresh rate is in',
};

export async function importCashouts(ctx: AppContext, a: Actor, merchant: Merchant, file: Buffer): Promise<ImportResult> {
  let table: string[][];
  try {
    table = parseCsv(file.toString('utf8'));
  } catch (err) {
    return { kind: 'unreadable', reason: (err as Error).message };
  }
  const header = (table.shift() ?? []).map((h) => h.trim().toLowerCase());
  const unknown = header.filter((h) => !(IMPORT_COLUMNS as readonly string[]).includes(h));
  if (!header.includes('external_id')) return { kind: 'unreadable', reason: 'the first line must name the columns, external_id among them' };
  if (unknown.length) return { kind: 'unreadable', reason: `unknown columns: ${unknown.join(', ')}` };
  if (table.length === 0) return { kind: 'unreadable', reason: 'the file has no rows' };
  if (table.length > MAX_ROWS) return { kind: 'unreadable', reason: `at most ${MAX_ROWS} rows per file` };

  const valid: CashoutRequest[] = [];
  const rejected: RejectedRow[] = [];
  const seen = new Set<string>();
  table.forEach((cells, i) => {
    const line = i + 2;
    const body: Record<string, unknown> = {};
    header.forEach((h, j) => {
      if (cells[j] !== undefined && cells[j]!.trim() !== '') body[h] = cells[j]!.trim();
    });
    const reasons: string[] = [];
    if (cells.length !== header.length) reasons.push(`has ${cells.length} fields, the header ${header.length}`);
    const v = validateCashoutRequest(body, ctx.config);
    if (!v.ok) reasons.push(...v.details);
    const ext = String(body.external_id ?? '');
    if (ext && seen.has(ext)) reasons.push('external_id: repeated in this file');
    seen.add(ext);
    if (reasons.length || !v.ok) rejected.push({ line, external_id: ext, reasons });
    else valid.push(v.value);
  });
  if (rejected.length) return { kind: 'rejected', rows: table.length, rejected };

  const hash = createHash('sha256').update(file).digest('hex');
  const claimed = await ctx.db.query<{ created_at: Date }>(
    `INSERT INTO panel_cashout_imports (merchant_id, file_hash, user_id, created_count, created_at) VALUES ($1, $2, $3, 0, $4)
     ON CONFLICT (merchant_id, file_hash) DO NOTHING RETURNING created_at`,
    [a.merchantId, hash, a.userId, ctx.now()],
  );
  if (!claimed.rows[0]) {
    const { rows } = await ctx.db.query<{ created_at: Date; created_count: number }>(
      'SELECT created_at, created_count FROM panel_cashout_imports WHERE merchant_id = $1 AND file_hash = $2',
      [a.merchantId, hash],
    );
    return { kind: 'duplicate', at: rows[0]!.created_at, created: rows[0]!.created_count };
  }
  const created: { id: number; external_id: string }[] = [];
  for (const [i, req] of valid.entries()) {
    try {
      const c = await createCashout(ctx, merchant, req, (x) =>
        entry(a, 'cashout.created', `cashout:${x.id}`, { external_id: x.external_id, amount: x.amount, currency: x.currency, file: hash.slice(0, 12) }, ctx.now()));
      created.push({ id: c.id, external_id: c.external_id });
    } catch (err) {
      if (!(err instanceof CashoutError)) throw err;
      rejected.push({ line: i + 2, external_id: req.externalId, reasons: [FAILURE_TEXT[err.kind] ?? err.message] });
    }
  }
  await ctx.db.tx(async (q) => {
    await q.query('UPDATE panel_cashout_imports SET created_count = $3 WHERE merchant_id = $1 AND file_hash = $2', [a.merchantId, hash, created.length]);
    await audit(q, a, 'cashouts.imported', `file:${hash.slice(0, 12)}`, { created: created.map((c) => c.id), rejected: rejected.length }, ctx.now());
  });
  return { kind: 'created', created, rejected };
}
