// A day reconciled from the statement the provider itself writes: the API Pix simulator answers
// its account's camt.053 of the day (received Pix, settled devoluções) at /control/statement,
// valid against the ISO 20022 schema; imported as an operator would upload it, every Pix
// caja applied is matched to its deposit and nothing is left for the operator.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ADMIN_TOKEN, startTestServer, type TestServer } from '../helpers/server.ts';
import { admin, createMerchant, V3Client } from '../helpers/clients.ts';
import { cpf } from '../helpers/documents.ts';
import { startPixSimulator, type PixSimulator } from '../helpers/pix-simulator.ts';
import { parseStatement } from '../../src/reconciliation/formats.ts';

const XSD = join(dirname(fileURLToPath(import.meta.url)), '..', 'fixtures', 'iso20022', 'camt.053.001.02.subset.xsd');
let s: TestServer;
let sim: PixSimulator;
before(async () => {
  sim = await startPixSimulator({ tokenTtl: 60 });
  s = await startTestServer('pglite', { CAJA_PIX_POLL_SECONDS: '3600', CAJA_CONNECTOR_TIMEOUT_MS: '3000' });
  assert.equal((await admin(s.url, 'PUT', '/admin/connectors/pix', sim.config)).status, 200);
});
after(async () => {
  await s?.close();
  await sim?.stop();
});

test('the PSP\'s statement of the day reconciles every Pix with 0 exceptions', async () => {
  const m = await createMerchant(s.url, 'Statement shop');
  const v3 = V3Client.deposits(s.url, m);
  const ids: number[] = [];
  for (const amount of ['10.00', '22.50', '7.35']) {
    const d = await v3.post('/v3/deposits', {
      country: 'BR', amount, currency: 'BRL', payment_method: 'IX', invoice_id: `stmt-${amount.replace(".", "-")}-${Date.now()}`,
      payer: { document: cpf('529982247'), first_name: 'Maria', last_name: 'Souza', email: 'maria@example.com' },
    });
    assert.equal(d.status, 200, d.text);
    ids.push(d.body.deposit_id);
    const { rows } = await s.ctx.db.query<{ connector_reference: string }>('SELECT connector_reference FROM deposits WHERE id = $1', [d.body.deposit_id]);
    await sim.control.pay(rows[0]!.connector_reference);
  }
  for (const id of ids) {
    for (let i = 0; i < 600 && (await v3.get(`/v3/deposits/${id}`)).body.status !== 'COMPLETED'; i++) await new Promise((r) => setTimeout(r, 50));
    assert.equal((await v3.get(`/v3/deposits/${id}`)).body.status, 'COMPLETED');
  }

  const xml = await sim.control.statement(undefined, '1000.00');
  const file = join(mkdtempSync(join(tmpdir(), 'psp-stmt-')), 'statement.xml');
  writeFileSync(file, xml);
  execFileSync('xmllint', ['--noout', '--schema', XSD, file], { stdio: 'pipe' });
  const parsed = parseStatement('camt', Buffer.from(xml));
  assert.equal(parsed.entries.length, 3);
  assert.equal(parsed.openingBalance, '1000.00');
  assert.equal(parsed.closingBalance, '1039.85', 'the closing balance is the opening plus the day, exact');

  const r = await fetch(`${s.url}/admin/reconciliation/statements`, { method: 'POST', headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/xml' }, body: xml });
  const imported = await r.json() as { matched: number; exceptions: number };
  assert.equal(r.status, 201, JSON.stringify(imported));
  assert.equal(imported.exceptions, 0, JSON.stringify(imported));
  assert.equal(imported.matched, 3);
  const matches = (await admin(s.url, 'GET', '/admin/reconciliation/matches?limit=10')).body.data as { target: { type: string; id: number }; effect: string; rule: string }[];
  assert.deepEqual(matches.map((x) => x.target.id).sort(), [...ids].sort());
  for (const x of matches) assert.deepEqual([x.target.type, x.effect, x.rule], ['deposit', 'confirmed', 'reference']);
  // The same day again is known: nothing twice.
  const again = await fetch(`${s.url}/admin/reconciliation/statements`, { method: 'POST', headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/xml' }, body: xml });
  assert.equal(again.status, 200);
});

test('the statement control refuses what is not a date or an amount', async () => {
  await assert.rejects(sim.control.statement('yesterday'), /400/);
  await assert.rejects(sim.control.statement(undefined, '10'), /400/);
});
