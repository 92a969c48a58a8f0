// Issue 14's house rules, the ones a newcomer trips on: where staging listens, documents that
// stay inside the repository, no EBADENGINE on this Node, and ids that follow creation order
// across processes sharing one database.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { Caja } from '../../sdk/src/index.ts';
import { loadConfig } from '../../src/config/config.ts';
import { postgresUrl, startTestServer, type TestServer } from '../helpers/server.ts';
import { admin, createMerchant } from '../helpers/clients.ts';
import { cpf } from '../helpers/documents.ts';

test('staging listens on 127.0.0.1 unless HOST says otherwise; production where HOST says', () => {
  const secrets = { CAJA_MASTER_KEY: randomBytes(32).toString('base64'), CAJA_ADMIN_TOKEN: 'a'.repeat(20), DATA_DIR: '/nonexistent-caja' };
  assert.equal(loadConfig({ ...secrets }).host, '127.0.0.1');
  assert.equal(loadConfig({ ...secrets, HOST: '0.0.0.0' }).host, '0.0.0.0');
  assert.equal(loadConfig({ ...secrets, CAJA_ENV: 'production' }).host, '0.0.0.0');
  assert.equal(loadConfig({ ...secrets, CAJA_ENV: 'production', HOST: '10.0.0.5' }).host, '10.0.0.5');
});

test('the README and docs point at nothing outside the repository', () => {
  const files = ['README.md', 'sdk/README.md', ...readdirSync('docs').filter((f) => f.endsWith('.md')).map((f) => join('docs', f))];
  for (const file of files) {
    const text = readFileSync(file, 'utf8');
    assert.doesNotMatch(text, /\.\.\/shared|\/work\//, `${file} points outside the repository`);
    // Relative links resolve to files of the repository.
    for (const [, target] of text.matchAll(/\]\((?!https?:|#|mailto:)([^)#\s]+)/g)) {
      const path = join(file.includes('/') ? file.slice(0, file.lastIndexOf('/')) : '.', target);
      assert.ok(existsSync(path), `${file} links to ${target}, which does not exist`);
    }
  }
});

/** Every .ts file under dir, as paths relative to the repository. */
function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile() && e.name.endsWith('.ts'))
    .map((e) => join(e.parentPath, e.name));
}

// Issue 28: services speak in their own errors (DepositError, CashoutError, RefundError); only
// the faces (src/api, src/web, the panel's routes), http/ itself and the server's composition
// root (src/server: the Fastify app and the request log) turn them into statuses. Request-edge
// hooks live under src/api too, so no file outside these folders is excused.
const HTTP_ALLOWED = [/^src\/http\//, /^src\/api\//, /^src\/web\//, /^src\/panel\/routes\//, /^src\/server\//];

test('no service imports src/http/: only the faces, http/ itself and the server do', () => {
  const offenders: string[] = [];
  for (const file of sourceFiles('src')) {
    if (HTTP_ALLOWED.some((r) => r.test(file))) continue;
    for (const [, spec] of readFileSync(file, 'utf8').matchAll(/(?:from|import)\s*\(?\s*['"](\.[^'"]+)['"]/g)) {
      const target = relative('.', join(dirname(file), spec!));
      if (target.startsWith('src/http/') || target === 'src/http') offenders.push(`${file} imports ${spec}`);
    }
  }
  assert.deepEqual(offenders, []);
});

test('ApiError is built only in src/http/errors.ts, from its tables', () => {
  const adHoc = sourceFiles('src').filter((f) => f !== 'src/http/errors.ts' && /new ApiError\(/.test(readFileSync(f, 'utf8')));
  assert.deepEqual(adHoc, []);
});

/** True when `version` satisfies an npm engines range of the forms packages use (>=, ^, ~, ||, x). */
function satisfies(version: string, range: string): boolean {
  const v = version.replace(/^v/, '').split('.').map(Number);
  const cmp = (a: number[], b: number[]) => a[0] - b[0] || a[1] - b[1] || a[2] - b[2];
  const parse = (s: string) => s.replace(/^v/, '').split('.').map((p) => (/^\d+$/.test(p) ? Number(p) : 0)).concat([0, 0, 0]).slice(0, 3);
  return range.split('||').some((alt) =>
    alt.trim().replace(/([<>=^~]+)\s+/g, '$1').split(/\s+/).filter(Boolean).every((c) => {
      const m = /^(>=|<=|>|<|\^|~|=)?(.+)$/.exec(c)!;
      if (m[2] === '*' || m[2] === 'x') return true;
      const t = parse(m[2]);
      const d = cmp(v, t);
      switch (m[1]) {
        case '>=': return d >= 0;
        case '>': return d > 0;
        case '<=': return d <= 0;
        case '<': return d < 0;
        case '^': return d >= 0 && v[0] === t[0];
        case '~': return d >= 0 && v[0] === t[0] && v[1] === t[1];
        default: return m[2].split('.').length < 3 ? v[0] === t[0] : d === 0;
      }
    }),
  );
}

test('every installed package accepts this Node (npm install warns EBADENGINE otherwise)', () => {
  const lock = JSON.parse(readFileSync('package-lock.json', 'utf8')) as { packages: Record<string, { engines?: { node?: string } | string[]; optional?: boolean }> };
  const refused = Object.entries(lock.packages)
    .filter(([path, p]) => path && !p.optional && p.engines && !Array.isArray(p.engines) && p.engines.node && !satisfies(process.version, p.engines.node))
    .map(([path, p]) => `${path} wants node ${(p.engines as { node: string }).node}`);
  assert.deepEqual(refused, []);
});

describe('ids follow creation order across two processes on one PostgreSQL', { skip: postgresUrl() ? false : 'needs PostgreSQL (DATABASE_URL): an embedded database is one process' }, () => {
  let a: TestServer;
  let b: TestServer;
  before(async () => {
    a = await startTestServer('pg');
    // A second process on the same database and master key, as a second instance behind a load balancer.
    b = await startTestServer('pglite', { DATABASE_URL: a.ctx.config.databaseUrl!, CAJA_MASTER_KEY: a.ctx.config.masterKey.toString('base64') });
  });
  after(async () => {
    await b?.close();
    await a?.close();
  });

  test('deposits (ONE_SHOT and HOSTED), refunds and cashouts created alternately on each', async () => {
    const m = await createMerchant(a.url, 'Two Instances');
    assert.equal((await admin(a.url, 'POST', `/admin/merchants/${m.merchant_id}/balance_adjustments`, { direction: 'credit', amount: '1000.00', currency: 'USD', reason: 'ids test' })).status, 201);
    const clients = [a, b].map((s) => new Caja({
      baseUrl: s.url,
      deposits: { login: m.deposits.login, secretKey: m.deposits.secret_key },
      cashouts: { login: m.cashouts.login, pass: m.cashouts.pass, secretKey: m.cashouts.secret_key },
    }));
    const payer = { document: cpf('529982247'), first_name: 'Ana', last_name: 'Lima', email: 'ana@example.com' };
    const deposits: number[] = [];
    const refunds: number[] = [];
    const cashouts: number[] = [];
    for (let i = 0; i < 12; i++) {
      const c = clients[i % 2];
      const oneShot = i % 3 !== 0;
      const d = await c.deposits.create({ country: 'BR', amount: '30.00', currency: 'BRL', ...(oneShot ? { payment_method: 'IX', payer } : {}) });
      deposits.push(d.deposit_id!);
      if (oneShot) {
        await c.sandbox.deposits.approve(d.deposit_id!);
        const r = await c.refunds.create({ deposit_id: d.deposit_id!, amount: '1.00', bank_account: { beneficiary: 'Ana Lima', bank_code: '260', branch: '0001', account_number: '12345-6', account_type: 'CHECKING' } });
        refunds.push(Number(r.refund_id));
      }
      const co = await c.cashouts.create({
        external_id: `ids-${i}-${Date.now()}`, country: 'BR', currency: 'USD', amount: '1.00', document_id: cpf('529982247'),
        beneficiary_name: 'Ana', beneficiary_lastname: 'Lima', bank_code: '260', bank_account: '12345-6', bank_branch: '0001', account_type: 'C',
      });
      cashouts.push(co.cashout_id);
    }
    for (const [name, ids] of Object.entries({ deposits, refunds, cashouts })) {
      assert.deepEqual(ids, [...ids].sort((x, y) => x - y), `${name} ids in creation order: ${ids.join(', ')}`);
    }
  });
});

// Issue 39: the layer graph of docs/architecture.md, read from every import in src/. faces (api,
// web, panel/routes, panel/views, cli) → http → services → domain → db; config is importable from
// every layer and imports no service; the domain is pure; src/server/ is the composition root that
// no feature imports (the loop a worker runs is src/jobs/); connectors are adapters and import no
// feature service (applying payments is deposits/, sending payouts cashouts/, refunds refunds/).
interface ImportEdge { from: string; to: string; typeOnly: boolean }

function importEdges(): ImportEdge[] {
  const edges: ImportEdge[] = [];
  for (const file of sourceFiles('src')) {
    const text = readFileSync(file, 'utf8');
    const to = (spec: string) => relative('.', join(dirname(file), spec));
    for (const m of text.matchAll(/^\s*(?:import|export)\s+(type\s+)?[^'";]*?from\s*['"](\.[^'"]+)['"]/gm)) edges.push({ from: file, to: to(m[2]!), typeOnly: !!m[1] });
    for (const m of text.matchAll(/^\s*import\s*['"](\.[^'"]+)['"]/gm)) edges.push({ from: file, to: to(m[1]!), typeOnly: false });
    for (const m of text.matchAll(/import\(\s*['"](\.[^'"]+)['"]\s*\)/g)) edges.push({ from: file, to: to(m[1]!), typeOnly: false });
  }
  return edges;
}

const FACES = ['api', 'web', 'cli'];
const FEATURE_SERVICES = ['deposits', 'cashouts', 'refunds', 'reconciliation', 'settlements', 'balances', 'operators', 'panel'];
const folder = (path: string) => path.split('/')[1]!;
const isFace = (path: string) => FACES.includes(folder(path)) || /^src\/panel\/(routes|views)\//.test(path);

/** The upward import an edge makes, or null when it points down (or sideways within a layer). */
function upward(e: ImportEdge): string | null {
  const [a, b] = [folder(e.from), folder(e.to)];
  if (a === 'domain' && b !== 'domain' && !(b === 'config' && e.typeOnly)) return 'the domain imports only the domain (and config types)';
  if (a === 'db' && !['db', 'domain'].includes(b) && !e.typeOnly) return 'the db layer imports only db and domain';
  if (a === 'config' && !['config', 'db', 'domain'].includes(b) && !e.typeOnly) return 'config imports no service';
  if (b === 'server' && a !== 'server' && a !== 'cli') return 'only the composition root (and the CLI that starts it) imports src/server/';
  // A provider's simulator (connectors/*/simulator/) is its own program standing in for the provider, not an adapter.
  if (a === 'connectors' && !e.from.includes('/simulator/') && (FEATURE_SERVICES.includes(b) || isFace(e.to))) return 'connectors are adapters: no feature service, no face';
  if (!isFace(e.from) && a !== 'server' && a !== 'http' && isFace(e.to)) return 'nothing below the faces imports a face';
  if (a === 'http' && isFace(e.to)) return 'http imports no face';
  return null;
}

// Exceptions still standing, each with its reason; the list only shrinks.
const UPWARD_ALLOWED: Record<string, string> = {
};

test('imports point down the layers of docs/architecture.md', () => {
  const found = new Map<string, string>();
  for (const e of importEdges()) {
    const why = upward(e);
    if (why) found.set(`${e.from} -> ${e.to}`, why);
  }
  const offenders = [...found].filter(([edge]) => !(edge in UPWARD_ALLOWED)).map(([edge, why]) => `${edge}: ${why}`);
  assert.deepEqual(offenders, []);
  // An exception that no longer happens leaves the list.
  assert.deepEqual(Object.keys(UPWARD_ALLOWED).filter((edge) => !found.has(edge)), []);
});

/** The strongly connected groups of more than one file (Tarjan), each sorted. */
function cycles(edges: ImportEdge[]): string[][] {
  const next = new Map<string, string[]>();
  for (const e of edges) next.set(e.from, [...(next.get(e.from) ?? []), e.to]);
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const groups: string[][] = [];
  const visit = (v: string) => {
    index.set(v, index.size);
    low.set(v, index.get(v)!);
    stack.push(v);
    onStack.add(v);
    for (const w of next.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) === index.get(v)) {
      const group: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        group.push(w);
      } while (w !== v);
      if (group.length > 1) groups.push(group.sort());
    }
  };
  for (const v of next.keys()) if (!index.has(v)) visit(v);
  return groups.sort();
}

// Cycles still standing (type imports included), each with its reason; the list only shrinks.
const CYCLES_ALLOWED: Record<string, string> = {
};

test('no import cycle in src/ but the listed ones', () => {
  assert.deepEqual(cycles(importEdges()).map((g) => g.join(' ')).filter((g) => !(g in CYCLES_ALLOWED)), []);
  assert.deepEqual(Object.keys(CYCLES_ALLOWED).filter((g) => !cycles(importEdges()).some((c) => c.join(' ') === g)), []);
});

// Issue 39: a provider is one folder plus one registry line. No file of src/ outside
// src/connectors/ names a connector kind: not as a string ('stp'), not as a path segment
// (/connectors/stp, /admin/connectors/adyen), not as its constant (ADYEN_CONNECTOR), not by
// importing its folder (connectors/pix/…, connectors/own-accounts.ts). Everything else reads what
// the kind declares (src/connectors/kind.ts). Comments are prose and not checked; migrations are
// history. Each entry of the allow-list below says why it stays.
const KIND_NAME_ALLOWED: Record<string, string> = {
  'src/api/connectors/routes.ts pix': "the API Pix standard (BCB) appends /pix to every webhook URL: the generic webhook route answers /connectors/{name}/webhook/pix for every kind",
  'src/api/v5/validation.ts pix': 'the Pix key validation API: its items\' field `pix` is the payment method\'s key (examples in the OpenAPI words), not the provider',
};
// Catalog and domain name payment methods (PaymentKind 'pix', Pix keys and BR Codes), not providers.
const KIND_NAME_EXEMPT = [/^src\/connectors\//, /^src\/db\/migrations\//, /^src\/domain\//];

test('no file outside src/connectors/ names a connector kind (but the listed ones)', async () => {
  const { connectorKinds } = await import('../../src/connectors/providers.ts');
  const names = connectorKinds().map((k) => k.name);
  assert.ok(names.length >= 4, 'the registry lists the providers');
  const strip = (s: string) => s.replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|[^:'"`\\])\/\/.*$/gm, '$1');
  const found = new Map<string, string[]>();
  for (const file of sourceFiles('src')) {
    if (KIND_NAME_EXEMPT.some((r) => r.test(file))) continue;
    const code = strip(readFileSync(file, 'utf8'));
    for (const name of names) {
      const folder = name.replace(/_/g, '-');
      const patterns = [
        new RegExp(`['"\`]${name}['"\`]`), new RegExp(`/${name}(?![A-Za-z0-9_.-])`), new RegExp(`\\b${name.toUpperCase()}_CONNECTOR\\b`),
        new RegExp(`connectors/(?:${name}|${folder})(?:/|\\.ts)`),
      ];
      const lines = code.split('\n').flatMap((l, i) => (patterns.some((p) => p.test(l)) ? [`${i + 1}: ${l.trim().slice(0, 120)}`] : []));
      if (lines.length) found.set(`${file} ${name}`, lines);
    }
  }
  const unexpected = [...found].filter(([key]) => !(key in KIND_NAME_ALLOWED)).map(([key, lines]) => `${key}\n    ${lines.join('\n    ')}`);
  assert.deepEqual(unexpected, [], 'a connector kind named outside src/connectors/: read what its kind declares instead');
  const stale = Object.keys(KIND_NAME_ALLOWED).filter((key) => !found.has(key));
  assert.deepEqual(stale, [], 'an allow-list entry no longer needed: remove it');
});

// Issue 39 §1: staging is kinds too. Staging's stand-ins (src/connectors/staging/) are kinds the
// registry chooses by what they declare: no face, service or worker imports one or names one (the
// simulator's name is also the environment's, so for it only a connector compared with it counts).
test('no file outside src/connectors/ imports or names a staging stand-in', async () => {
  const { standInKinds } = await import('../../src/connectors/providers.ts');
  const names = standInKinds({ simulated: true }).map((k) => k.name);
  assert.ok(names.includes('staging') && names.length >= 5, 'the stand-ins are listed');
  const strip = (s: string) => s.replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|[^:'"`\\])\/\/.*$/gm, '$1');
  const found: string[] = [];
  for (const file of sourceFiles('src')) {
    if (/^src\/(connectors|config)\//.test(file)) continue;
    const code = strip(readFileSync(file, 'utf8'));
    for (const [, spec] of code.matchAll(/(?:from|import)\s*\(?\s*['"](\.[^'"]+)['"]/g)) {
      if (relative('.', join(dirname(file), spec!)).startsWith('src/connectors/staging/')) found.push(`${file} imports ${spec}`);
    }
    for (const name of names) {
      const patterns = name === 'staging'
        ? [/connector\w*\s*(?:!==?|={1,3}|<>)\s*['"`]staging['"`]/, /['"`]staging['"`]\s*[!=]==?\s*\w*connector/i, /\?\?\s*['"`]staging['"`]/]
        : [new RegExp(`['"\`/]${name}(?![A-Za-z0-9_-])`)];
      code.split('\n').forEach((l, i) => {
        if (patterns.some((p) => p.test(l))) found.push(`${file}:${i + 1} names ${name}: ${l.trim().slice(0, 100)}`);
      });
    }
  }
  assert.deepEqual(found, [], 'a staging stand-in named outside src/connectors/: ask the registry what the kinds declare');
});
