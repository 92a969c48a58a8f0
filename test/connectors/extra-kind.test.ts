// Issue 39 §1: a provider is one folder plus one registry line. A kind that lives in the test
// folder only (./kinds/fake-wallet.ts), registered here, is configured through the admin API, the
// CLI and the console, and collects a production deposit — without any file of src/ naming it.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, writeFileSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { registerKind } from '../../src/connectors/providers.ts';
import { connectorCommand, connectorUsage } from '../../src/cli/connectors.ts';
import { admin, bearer, createMerchant, type Credentials, V3Client } from '../helpers/clients.ts';
import { cpf } from '../helpers/documents.ts';
import { setRates } from '../helpers/four-eyes.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { makeOperator, signedIn } from '../ops/helpers.ts';
import { FAKE_WALLET, fakeWalletKind, startWalletService, type WalletService } from './kinds/fake-wallet.ts';

registerKind(fakeWalletKind);

const payer = { document: cpf('529982247'), first_name: 'Maria', last_name: 'Souza', email: 'maria@example.com' };

/** `caja connector …` run in this process (the registered kind is this process's), its stdout and stderr. */
async function cli(s: TestServer, ...args: string[]): Promise<{ out: string; err: string; failed?: Error }> {
  const [log, error] = [console.log, console.error];
  let out = '';
  let err = '';
  console.log = (x: unknown) => void (out += `${x}\n`);
  console.error = (x: unknown) => void (err += `${x}\n`);
  try {
    await connectorCommand(s.ctx.db, s.ctx.config, args[0], args.slice(1));
    return { out, err };
  } catch (e) {
    return { out, err, failed: e as Error };
  } finally {
    [console.log, console.error] = [log, error];
  }
}

describe('an extra connector kind from the test folder, through every face (pglite)', () => {
  let s: TestServer;
  let m: Credentials;
  let wallet: WalletService;
  let other: WalletService;

  before(async () => {
    wallet = await startWalletService('key-one');
    other = await startWalletService('key-two');
    s = await startTestServer('pglite', { CAJA_ENV: 'production', PUBLIC_BASE_URL: 'https://pay.example.com' });
    await setRates(s, { BRL: '5.00' });
    m = await createMerchant(s.url, 'Wallet shop');
  });
  after(async () => {
    await s.close();
    await wallet.stop();
    await other.stop();
  });

  test('no src/ file names the kind', () => {
    const files = readdirSync('src', { recursive: true, withFileTypes: true }).filter((e) => e.isFile() && e.name.endsWith('.ts'));
    const naming = files.map((e) => join(e.parentPath, e.name)).filter((f) => /fake.?wallet/i.test(readFileSync(f, 'utf8')));
    assert.deepEqual(naming, []);
  });

  test('not configured: production does not offer its method, and refuses a deposit of it', async () => {
    const r = await V3Client.deposits(s.url, m).post('/v3/deposits', { country: 'BR', amount: '10.00', currency: 'BRL', payment_method: 'PP', payer });
    assert.equal(r.status, 400, r.text);
    assert.equal(wallet.charges.length, 0);
  });

  test('admin API: PUT validated by the kind, GET answers its view (secret never answered), 404 before', async () => {
    const missing = await admin(s.url, 'GET', `/admin/connectors/${FAKE_WALLET}`);
    assert.equal(missing.status, 404, missing.text);
    assert.match(missing.text, /The Fake wallet connector is not configured/);
    const bad = await admin(s.url, 'PUT', `/admin/connectors/${FAKE_WALLET}`, { api_url: 'ftp://x', merchant: 'shop-1' });
    assert.equal(bad.status, 400, bad.text);
    assert.match(bad.text, /Invalid Fake wallet connector configuration/);
    assert.match(bad.text, /api_key: required/);
    assert.match(bad.text, /api_url: must be an http\(s\) URL/);
    const put = await admin(s.url, 'PUT', `/admin/connectors/${FAKE_WALLET}`, { api_url: other.url, merchant: 'shop-1', api_key: other.key });
    assert.equal(put.status, 200, put.text);
    assert.equal(put.body.api_url, other.url);
    assert.equal(put.body.api_key, '(set)');
    assert.deepEqual(put.body.health, { charges_created: 0 });
    assert.ok(!put.text.includes(other.key), 'the secret is never answered');
    const got = await admin(s.url, 'GET', `/admin/connectors/${FAKE_WALLET}`);
    assert.deepEqual(got.body, put.body);
    // No payments route: the kind declares none.
    assert.equal((await admin(s.url, 'GET', `/admin/connectors/${FAKE_WALLET}/payments`)).status, 404);
  });

  test('CLI: caja connector fake_wallet set --file … and show, the same validation and view', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'h39k-'));
    const file = join(dir, 'wallet.json');
    writeFileSync(file, JSON.stringify({ api_url: wallet.url, merchant: 'shop-cli' }));
    const refused = await cli(s, FAKE_WALLET, 'set', '--file', file);
    assert.match(String(refused.failed?.message), /invalid Fake wallet connector configuration:\n {2}api_key: required/);
    writeFileSync(file, JSON.stringify({ api_url: wallet.url, merchant: 'shop-cli', api_key: wallet.key }));
    const saved = await cli(s, FAKE_WALLET, 'set', '--file', file);
    assert.equal(saved.failed, undefined, String(saved.failed));
    assert.match(saved.err, /fake wallet saved/);
    const shown = JSON.parse((await cli(s, FAKE_WALLET, 'show')).out) as Record<string, unknown>;
    assert.equal(shown.merchant, 'shop-cli');
    assert.equal(shown.api_key, '(set)');
    assert.equal((await admin(s.url, 'GET', `/admin/connectors/${FAKE_WALLET}`)).body.merchant, 'shop-cli');
    const unknown = await cli(s, 'no_such_kind', 'show');
    assert.match(String(unknown.failed?.message), new RegExp(`known: .*\\b${FAKE_WALLET}\\b`));
    // `caja help` lists it, in the words its kind declares (none here: the default words).
    const help = connectorUsage();
    assert.match(help, new RegExp(`caja connector ${FAKE_WALLET} set --file CONFIG\\.json\\s+configure the Fake wallet connector \\(the body of PUT /admin/connectors/${FAKE_WALLET}\\)`));
    assert.match(help, new RegExp(`caja connector ${FAKE_WALLET} show\\s+its configuration \\(no secrets\\) and health`));
    const audit = await s.ctx.db.query<{ detail: { secrets_set: string[] } }>(`SELECT detail FROM operator_audit WHERE action = 'connector.configured' AND subject = $1 ORDER BY id`, [`connector:${FAKE_WALLET}`]);
    assert.deepEqual(audit.rows.at(-1)!.detail.secrets_set, ['api_key']);
  });

  test('console: the form is built from its fields; the secret is write-only and kept when left empty', async () => {
    const a = await signedIn(s, await makeOperator(s, 'admin'));
    assert.match((await a.get('/ops/connectors')).html, new RegExp(`href="/ops/connectors/${FAKE_WALLET}">Configure Fake wallet<`));
    const page = await a.get(`/ops/connectors/${FAKE_WALLET}`);
    assert.equal(page.status, 200);
    for (const f of ['api_url', 'merchant', 'api_key']) assert.match(page.html, new RegExp(`name="${f}"`));
    assert.match(page.html, /name="api_key"[^>]*type="password"|type="password"[^>]*name="api_key"/);
    assert.ok(!page.html.includes(wallet.key), 'no secret on the page');
    const renamed = await a.submit(`/ops/connectors/${FAKE_WALLET}`, `/ops/connectors/${FAKE_WALLET}`, { api_url: wallet.url, merchant: 'shop-console', api_key: '' });
    assert.equal(renamed.url, `/ops/connectors/${FAKE_WALLET}?done=saved`, renamed.html.slice(0, 500));
    // The endpoint moved with the stored key kept: refused, nothing saved.
    const moved = await a.submit(`/ops/connectors/${FAKE_WALLET}`, `/ops/connectors/${FAKE_WALLET}`, { api_url: other.url, merchant: 'shop-console', api_key: '' });
    assert.equal(moved.status, 400);
    assert.match(moved.html, /id="f-api_key-err">[^<]*again/);
    const view = (await admin(s.url, 'GET', `/admin/connectors/${FAKE_WALLET}`)).body;
    assert.equal(view.merchant, 'shop-console');
    assert.equal(view.api_url, wallet.url);
  });

  test('a production deposit of its method is charged at its provider with the stored secret', async () => {
    const listed = await bearer(s.url, m.read_only_key, '/v3/payment_methods?country=BR');
    assert.ok((listed.body as { code?: string; payment_method?: string }[]).some((x) => (x.code ?? x.payment_method) === 'PP'), listed.text);
    const r = await V3Client.deposits(s.url, m).post('/v3/deposits', { invoice_id: `fw-${process.pid}`, country: 'BR', amount: '10.00', currency: 'BRL', payment_method: 'PP', payer });
    assert.equal(r.status, 200, r.text);
    assert.equal(wallet.charges.length, 1, 'charged once, at the configured wallet');
    assert.equal(wallet.charges[0]!.merchant, 'shop-console');
    assert.equal(other.charges.length, 0);
    const row = await s.ctx.db.query<{ connector: string; connector_reference: string }>('SELECT connector, connector_reference FROM deposits WHERE id = $1', [r.body.deposit_id]);
    assert.deepEqual(row.rows[0], { connector: FAKE_WALLET, connector_reference: wallet.charges[0]!.id });
    assert.equal((await admin(s.url, 'GET', `/admin/connectors/${FAKE_WALLET}`)).body.health.charges_created, 1);
  });
});
