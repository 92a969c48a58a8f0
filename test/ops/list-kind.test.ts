// Issue 39 §1: the console's list form is the kind's, not a page of its own. A kind from the test
// folder whose configuration is a list of rows (kind.ts `settings.list`), registered here, gets
// the connectors page's link, its rows as a table with a remove button each, and a form that adds
// or replaces the row its key names, checked by its validator, audited, in the page's language.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { ConnectorKind } from '../../src/connectors/kind.ts';
import { confirmedOutsideProvider } from '../../src/connectors/payin.ts';
import { registerKind } from '../../src/connectors/providers.ts';
import { connectorView } from '../../src/connectors/store.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { makeOperator, signedIn } from './helpers.ts';

type Branch = { city: string; street: string; note?: string };

const rowsOf = (settings: Record<string, string>): Branch[] => JSON.parse(settings.branches ?? '[]') as Branch[];

/** A list of branches, one per city: a configuration only (it collects nothing). */
const branchesKind: ConnectorKind = {
  name: 'fake_branches',
  label: 'fake branches',
  serves: [],
  build: () => ({ ...confirmedOutsideProvider, name: 'fake_branches', simulated: false, createCharge: async () => ({ paymentInfo: null, reference: null }), health: async () => ({ ok: true }) }),
  settings: {
    list: {
      fields: [{ name: 'city', key: true }, { name: 'street' }, { name: 'note', optional: true }],
      path: 'branches',
      rows: (stored) => rowsOf(stored.settings),
      audit: { action: 'connector.fake_branch', row: 'branch' },
      words: {
        en: { title: 'Branches', hint: 'Where customers pay in cash.', set: 'Add or replace the branch of a city', labels: { city: 'City' }, hints: { note: 'Anything the cashier should know.' } },
        es: { title: 'Sucursales', hint: 'Donde los clientes pagan en efectivo.', set: 'Agregar o reemplazar la sucursal de una ciudad', labels: { city: 'Ciudad' } },
      },
    },
    validate(body) {
      const list = (body as { branches?: unknown }).branches;
      if (!Array.isArray(list) || list.length === 0) return { ok: false, details: ['branches: must be a non-empty array'] };
      const details: string[] = [];
      const branches = list.map((raw, i) => {
        const b = raw as Record<string, string | undefined>;
        const city = (b.city ?? '').trim().toUpperCase();
        if (!/^[A-Z]{2,20}$/.test(city)) details.push(`branches[${i}].city: 2-20 letters`);
        if (!b.street?.trim()) details.push(`branches[${i}].street: is required`);
        return { city, street: (b.street ?? '').trim(), ...(b.note ? { note: b.note.trim() } : {}) };
      });
      return details.length ? { ok: false, details } : { ok: true, settings: { branches: JSON.stringify(branches) }, secrets: {} };
    },
    view: async (ctx) => {
      const v = await connectorView(ctx, 'fake_branches');
      return v ? { branches: rowsOf(v.settings) } : null;
    },
  },
};

registerKind(branchesKind);

describe('a list-shaped kind from the test folder, on the console (pglite)', () => {
  let s: TestServer;
  before(async () => {
    s = await startTestServer('pglite');
  });
  after(async () => {
    await s.close();
  });

  test('linked by its title; rows set, replaced and removed one at a time, checked and audited', async () => {
    const a = await signedIn(s, await makeOperator(s, 'admin'));
    assert.match((await a.get('/ops/connectors')).html, /href="\/ops\/connectors\/fake_branches">Configure Branches</);
    const empty = await a.get('/ops/connectors/fake_branches');
    assert.equal(empty.status, 200);
    assert.match(empty.html, /<h1>Branches<\/h1>/);
    assert.match(empty.html, /<label for="f-city">City<\/label>/);
    assert.match(empty.html, /id="f-note-hint">Anything the cashier should know\./);

    // The validator's details of the new row land on its boxes.
    const bad = await a.submit('/ops/connectors/fake_branches', '/ops/connectors/fake_branches', { city: 'lima', street: '' });
    assert.equal(bad.status, 400);
    assert.match(bad.html, /id="f-street-err">is required/);
    assert.equal(await connectorView(s.ctx, 'fake_branches'), null, 'nothing saved');

    const lima = await a.submit('/ops/connectors/fake_branches', '/ops/connectors/fake_branches', { city: 'lima', street: 'Av. Arequipa 100' });
    assert.equal(lima.url, '/ops/connectors/fake_branches?done=saved', lima.html.slice(0, 500));
    const cusco = await a.submit('/ops/connectors/fake_branches', '/ops/connectors/fake_branches', { city: 'Cusco', street: 'Plaza de Armas 1', note: 'mornings' });
    assert.equal(cusco.url, '/ops/connectors/fake_branches?done=saved');
    // The same key replaces its row.
    const moved = await a.submit('/ops/connectors/fake_branches', '/ops/connectors/fake_branches', { city: ' LIMA ', street: 'Jr. de la Unión 5' });
    assert.equal(moved.url, '/ops/connectors/fake_branches?done=saved');
    assert.deepEqual(rowsOf((await connectorView(s.ctx, 'fake_branches'))!.settings), [
      { city: 'CUSCO', street: 'Plaza de Armas 1', note: 'mornings' }, { city: 'LIMA', street: 'Jr. de la Unión 5' },
    ]);
    assert.match(moved.html, /Jr\. de la Unión 5/);
    assert.match(moved.html, /Remove CUSCO/);

    const csrf = /name="csrf" value="([^"]+)"/.exec(moved.html)![1]!;
    const removed = await a.request('POST', '/ops/connectors/fake_branches/remove', new URLSearchParams({ csrf, city: 'CUSCO' }));
    assert.equal(removed.url, '/ops/connectors/fake_branches?done=saved');
    // The last row stays: the list is never emptied from the console.
    const last = await a.request('POST', '/ops/connectors/fake_branches/remove', new URLSearchParams({ csrf, city: 'LIMA' }));
    assert.equal(last.status, 400);
    assert.deepEqual(rowsOf((await connectorView(s.ctx, 'fake_branches'))!.settings), [{ city: 'LIMA', street: 'Jr. de la Unión 5' }]);

    const audit = async (action: string) =>
      (await s.ctx.db.query<{ detail: unknown }>('SELECT detail FROM operator_audit WHERE action = $1 AND subject = $2 ORDER BY id', [action, 'connector:fake_branches'])).rows.map((r) => r.detail);
    assert.deepEqual(await audit('connector.fake_branch_set'), [
      { branch: { city: 'LIMA', street: 'Av. Arequipa 100' } },
      { branch: { city: 'CUSCO', street: 'Plaza de Armas 1', note: 'mornings' } },
      { branch: { city: 'LIMA', street: 'Jr. de la Unión 5' } },
    ]);
    assert.deepEqual(await audit('connector.fake_branch_removed'), [{ city: 'CUSCO' }]);

    // In the page's language where the kind has words for it, else English.
    assert.match((await a.get('/ops/connectors/fake_branches?lang=es')).html, /<h1>Sucursales<\/h1>/);
    assert.match((await a.get('/ops/connectors/fake_branches?lang=pt')).html, /<h1>Branches<\/h1>/);
  });
});
