// Writes src/ops/openapi-examples.json: the request and answers of every JSON operation, recorded
// from a walk against a real caja (test/helpers/api-tour.ts), which the OpenAPI document shows
// as its examples. Run after changing an operation: node --import tsx scripts/openapi-examples.ts
import { writeFileSync } from 'node:fs';
import { startTestServer } from '../test/helpers/server.ts';
import { apiTour } from '../test/helpers/api-tour.ts';

/** Long lists (every bank of Brazil) are cut to their first three items: an example, not a dump. */
function short(v: unknown): unknown {
  if (Array.isArray(v)) return v.slice(0, 3).map(short);
  if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, short(x)]));
  return v;
}

const server = await startTestServer('pglite', { PUBLIC_BASE_URL: 'https://caja.example', CAJA_CASHOUT_DELAY_SECONDS: '3600' });
try {
  const examples: Record<string, { request?: unknown; responses: Record<string, unknown> }> = {};
  for (const r of await apiTour(server.url)) {
    const e = (examples[r.key] ??= { responses: {} });
    if (e.request === undefined && r.request !== undefined && r.status < 300) e.request = short(r.request);
    if (!(r.status in e.responses) && r.response !== undefined) e.responses[r.status] = short(r.response);
  }
  const sorted = Object.fromEntries(Object.entries(examples).sort(([a], [b]) => a.localeCompare(b)));
  writeFileSync(new URL('../src/ops/openapi-examples.json', import.meta.url), `${JSON.stringify(sorted, null, 2)}\n`);
  console.log(`${Object.keys(sorted).length} operations recorded`);
} finally {
  await server.close();
}
