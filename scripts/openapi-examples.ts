// Writes src/ops/openapi-examples.json: the request and answers of every JSON operation, recorded
// from a walk against a real caja (test/helpers/api-tour.ts), which the OpenAPI document shows
// as its examples. Run after changing an operation: node --import tsx scripts/openapi-examples.ts
import { writeFileSync } from 'node:fs';
import { startTestServer } from '../test/helpers/server.ts';
import { apiTour } from '../test/helpers/api-tour.ts';
import { generateDueReports } from '../src/settlements/service.ts';
import { createMerchant, formPost, hmac, V3Client } from '../test/helpers/clients.ts';

/**
 * The six form-encoded (streamline) operations, as docs/streamline.md walks them: a deposit,
 * its status, a refund of it once approved, the refund's status, and the two lookups. The
 * request is the form's fields (credentials shown as placeholders: the recorded ones are a
 * throwaway merchant's); the answer the JSON one (`type=json`).
 */
async function streamlineTour(base: string): Promise<Record<string, { request: Record<string, string>; responses: Record<string, unknown> }>> {
  const m = await createMerchant(base, 'Acme');
  const sign = (msg: string) => hmac(m.deposits.secret_key, msg).toUpperCase();
  const dep = { x_login: m.deposits.login, x_trans_key: m.deposits.trans_key };
  const ws = { x_login: m.web_status.login, x_trans_key: m.web_status.trans_key };
  const shown = (f: Record<string, string>) => ({ ...f, x_login: f.x_login === ws.x_login ? 'web_status.login' : 'deposits.login', x_trans_key: f.x_trans_key === ws.x_trans_key ? 'web_status.trans_key' : 'deposits.trans_key' });
  const out: Record<string, { request: Record<string, string>; responses: Record<string, unknown> }> = {};
  const call = async (path: string, fields: Record<string, string>) => {
    const r = await formPost(base, path, fields);
    if (r.status !== 200 || typeof r.body !== 'object') throw new Error(`${path}: ${r.status} ${r.text}`);
    out[`post ${path}`] = { request: shown(fields), responses: { 200: short(r.body) } };
    return r.body;
  };
  const inv = { x_invoice: 'order-1001', x_amount: '100.00', x_iduser: '4411', x_bank: 'IX', x_cpf: '52998224725', x_email: 'joao@example.com', x_zip: '01304-001', x_address: 'Rua Augusta 1500', x_city: 'São Paulo', x_state: 'SP' };
  const control = sign(`${inv.x_invoice}V${inv.x_amount}I${inv.x_iduser}2${inv.x_bank}1${inv.x_cpf}HG${inv.x_email}Y${inv.x_zip}A${inv.x_address}P${inv.x_city}S${inv.x_state}P`);
  const created = await call('/api_curl/streamline/NewInvoice', { ...dep, ...inv, x_currency: 'BRL', x_country: 'BR', x_name: 'João da Silva', x_return: 'https://shop.example/return', x_version: '1.1', type: 'json', control });
  await call('/apd/webpaystatus', { ...ws, x_invoice: inv.x_invoice, type: 'json' });
  const doc = String(created.x_document);
  const approved = await V3Client.deposits(base, m).post(`/v3/sandbox/deposits/${doc}/approve`, undefined);
  if (approved.status !== 200) throw new Error(`approve: ${approved.status} ${approved.text}`);
  const refund = { x_invoice: inv.x_invoice, x_document: doc, x_amount: '40.00', x_bank_beneficiary: 'João da Silva', x_bank: 'Itaú', x_bank_code: '341', x_bank_account: '12345-4', x_account_type: 'C', x_bank_branch: '0001' };
  const x_control = sign(`A${refund.x_invoice}${refund.x_document}${refund.x_amount}${refund.x_bank_beneficiary}${refund.x_bank}${refund.x_bank_account}${refund.x_account_type}${refund.x_bank_branch}`);
  const refunded = await call('/api_curl/apd/refund', { ...dep, ...refund, x_control });
  await call('/api_curl/query/refundstatus', { ...ws, x_refund: String(refunded.x_refund) });
  await call('/api_curl/apd/get_banks_by_country', { ...dep, country_code: 'BR', type: 'json' });
  await call('/apd/webcurrencyexchange', { ...ws, x_country: 'BR', x_amount: '100' });
  return out;
}

/** Long lists (every bank of Brazil) are cut to their first three items: an example, not a dump. */
function short(v: unknown): unknown {
  if (Array.isArray(v)) return v.slice(0, 3).map(short);
  if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, short(x)]));
  return v;
}

const server = await startTestServer('pglite', { PUBLIC_BASE_URL: 'https://caja.example', CAJA_CASHOUT_DELAY_SECONDS: '3600' });
try {
  const examples: Record<string, { request?: unknown; responses: Record<string, unknown> }> = {};
  for (const r of await apiTour(server.url, { settle: () => generateDueReports(server.ctx, { now: new Date(Date.now() + 2 * 86_400_000), delayMinutes: 0 }) })) {
    const e = (examples[r.key] ??= { responses: {} });
    if (e.request === undefined && r.request !== undefined && r.status < 300) e.request = short(r.request);
    if (!(r.status in e.responses) && r.response !== undefined) e.responses[r.status] = short(r.response);
  }
  Object.assign(examples, await streamlineTour(server.url));
  const sorted = Object.fromEntries(Object.entries(examples).sort(([a], [b]) => a.localeCompare(b)));
  writeFileSync(new URL('../src/ops/openapi-examples.json', import.meta.url), `${JSON.stringify(sorted, null, 2)}\n`);
  console.log(`${Object.keys(sorted).length} operations recorded`);
} finally {
  await server.close();
}
