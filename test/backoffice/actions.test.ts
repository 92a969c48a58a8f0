// The back office's one action table (src/backoffice/actions.ts): every console and panel route
// declares its action (read from the route modules' source, so a route added without one fails
// here), every admin operation of the OpenAPI document has a scope in the table, the three gates
// read the same table, and a caller the table refuses gets a 403 in its face's own format.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { ACTION_TABLE, ADMIN_ACTIONS, adminActionOf, adminScopeFor, OPERATOR_ROLES, OPS_ACTIONS, PANEL_ACTIONS, PANEL_ROLES, TOKEN_SCOPES } from '../../src/backoffice/actions.ts';
import { canOps } from '../../src/operators/roles.ts';
import { can } from '../../src/panel/services/roles.ts';
import { scopeFor } from '../../src/operators/tokens.ts';
import { admin } from '../helpers/clients.ts';
import { backends, startTestServer, type TestServer } from '../helpers/server.ts';
import { makeOperator, signedIn } from '../ops/helpers.ts';

const ROOT = new URL('../../', import.meta.url).pathname;

function sources(dir: string): string[] {
  return readdirSync(join(ROOT, dir)).flatMap((n) => {
    const p = join(dir, n);
    return statSync(join(ROOT, p)).isDirectory() ? sources(p) : p.endsWith('.ts') ? [p] : [];
  });
}

/** Pages before a session (sign-in, the TOTP step, an enrolment link): no action, by design. */
const BEFORE_SESSION = new Set([
  'GET /ops/login', 'POST /ops/login', 'GET /ops/login/code', 'POST /ops/login/code', 'GET /ops/enrol/:token', 'POST /ops/enrol/:token',
  'GET /panel/login', 'POST /panel/login', 'POST /panel/login/choose', 'GET /panel/login/code', 'POST /panel/login/code',
]);

describe('the action table', () => {
  test('every console and panel route declares an action the table knows', () => {
    const route = /\bapp\.(get|post|put|delete|patch)\(\s*(['`])(\/(?:ops|panel)[^'`]*)\2\s*,\s*([\s\S]{0,80})/g;
    const seen: string[] = [];
    for (const file of [...sources('src/web/ops'), ...sources('src/panel/routes')]) {
      const text = readFileSync(join(ROOT, file), 'utf8');
      for (const m of text.matchAll(route)) {
        const key = `${m[1]!.toUpperCase()} ${m[3]}`;
        seen.push(key);
        if (BEFORE_SESSION.has(key)) continue;
        const gate = /^(?:kit\.)?(opsRoute|panelRoute)\(\s*(?:'([^']+)'|([\w.]+))\s*,/.exec(m[4]!);
        assert.ok(gate, `${file}: ${key} passes no gate with an action`);
        assert.equal(gate[1], m[3]!.startsWith('/ops') ? 'opsRoute' : 'panelRoute', `${file}: ${key} passes the other face's gate`);
        if (gate[2] !== undefined) {
          const known: readonly string[] = gate[1] === 'opsRoute' ? OPS_ACTIONS : PANEL_ACTIONS;
          assert.ok(known.includes(gate[2]), `${file}: ${key} declares '${gate[2]}', not in the table`);
        }
      }
    }
    // The scan sees the routes (a regex that matched nothing would pass everything).
    for (const k of ['POST /ops/merchants/:id/rotate', 'GET /ops/operators', 'POST /panel/team/invite', 'GET /panel/audit']) assert.ok(seen.includes(k), k);
    for (const k of BEFORE_SESSION) assert.ok(seen.includes(k), `${k} is still a route`);
  });

  test('the gates read the table: every role against every action, face by face', () => {
    for (const a of OPS_ACTIONS) for (const r of OPERATOR_ROLES) assert.equal(canOps(r, a), ACTION_TABLE.ops[a].includes(r), `${r} ${a}`);
    for (const a of PANEL_ACTIONS) for (const r of PANEL_ROLES) assert.equal(can(r, a), ACTION_TABLE.panel[a].includes(r), `${r} ${a}`);
    for (const a of OPS_ACTIONS) assert.ok(ACTION_TABLE.ops[a].includes('admin'), `an operator admin may ${a}`);
    assert.equal(scopeFor, adminScopeFor);
    assert.equal(adminScopeFor('POST', '/admin/merchants/:id/balance_adjustments'), 'money');
    assert.equal(adminScopeFor('POST', '/admin/merchants'), 'merchants');
    assert.equal(adminScopeFor('GET', '/admin/tokens'), 'tokens');
    assert.equal(adminScopeFor('GET', '/admin/merchants/:id'), 'read');
    assert.equal(adminScopeFor('PUT', '/admin/connectors/stp'), 'connectors');
    assert.equal(adminScopeFor('GET', '/admin/connectors/adyen/disputes'), 'read');
    // A route with no declared action is the bootstrap token's alone (no area guesses for it).
    assert.equal(adminScopeFor('POST', '/admin/merchants/:id/something_new'), null);
    assert.equal(adminScopeFor('GET', '/admin/something_new'), null);
  });
});

/** Every admin route the app serves (hidden ones too), as `METHOD /admin/pattern`, from Fastify's route tree. */
function adminRoutes(s: TestServer): string[] {
  const stack: string[] = [];
  const out = new Set<string>();
  for (const line of s.app.printRoutes().split('\n')) {
    const m = /^((?:│   |    )*)(?:├── |└── )(.*?)(?: \(([A-Z, ]+)\))?$/.exec(line);
    if (!m) continue;
    stack.length = m[1]!.length / 4;
    stack.push(m[2]!);
    const path = stack.join('');
    if (m[3] && path.startsWith('/admin')) for (const method of m[3].split(', ')) if (method !== 'HEAD') out.add(`${method} ${path}`);
  }
  return [...out].sort();
}

for (const backend of backends()) {
  describe(`the action table over HTTP (${backend})`, () => {
    let s: TestServer;
    before(async () => {
      s = await startTestServer(backend);
    });
    after(() => s.close());

    test('every admin operation of the OpenAPI document has a scope in the table', async () => {
      const res = await fetch(`${s.url}/openapi.json`);
      assert.equal(res.status, 200);
      const doc = (await res.json()) as { paths: unknown };
      const ops = Object.entries(doc.paths as Record<string, Record<string, unknown>>)
        .filter(([p]) => p.startsWith('/admin'))
        .flatMap(([p, methods]) => Object.keys(methods).map((m) => [m.toUpperCase(), p.replace(/\{(\w+)\}/g, ':$1')] as const));
      assert.ok(ops.length > 20, `admin operations found: ${ops.length}`);
      const none = ops.filter(([m, p]) => adminScopeFor(m, p) === null).map(([m, p]) => `${m} ${p}`);
      assert.deepEqual(none, [], 'admin operations no named token can call');
    });

    test('every admin route declares its action in the table, and every action is a route', () => {
      const routes = adminRoutes(s);
      assert.ok(routes.length > 30, `admin routes found: ${routes.length}`);
      const undeclared = routes.filter((r) => adminActionOf(r.slice(0, r.indexOf(' ')), r.slice(r.indexOf(' ') + 1)) === null);
      assert.deepEqual(undeclared, [], 'admin routes with no declared action (add them to ADMIN in src/backoffice/actions.ts)');
      const served = new Set(routes.map((r) => adminActionOf(r.slice(0, r.indexOf(' ')), r.slice(r.indexOf(' ') + 1))));
      assert.deepEqual(ADMIN_ACTIONS.filter((a) => !served.has(a)), [], 'declared actions no route serves');
    });

    test('token scopes per action: without the scope the exact 403, with it the call passes the gate', async () => {
      const tokens = new Map<string, { token: string; name: string }>();
      for (const scope of TOKEN_SCOPES) {
        for (const [tag, scopes] of [['without', TOKEN_SCOPES.filter((x) => x !== scope)], ['only', [scope]]] as const) {
          const name = `h39k-${tag}-${scope}`;
          const made = await admin(s.url, 'POST', '/admin/tokens', { name, scopes });
          assert.equal(made.status, 201, made.text);
          tokens.set(`${tag}:${scope}`, { token: made.body.token, name });
        }
      }
      // A route the app serves for each action (a kind's routes: one kind that has it), its ids filled.
      const served = new Map(adminRoutes(s).map((r) => [adminActionOf(r.slice(0, r.indexOf(' ')), r.slice(r.indexOf(' ') + 1)), r.slice(r.indexOf(' ') + 1)]));
      const fill = (action: string) => served.get(action as never)!.replace(/:\w+/g, '999999');
      const count = async () => (await s.ctx.db.query<{ n: string }>('SELECT count(*)::text AS n FROM operator_audit')).rows[0]!.n;
      for (const action of ADMIN_ACTIONS) {
        const scope = ACTION_TABLE.admin[action];
        const method = action.slice(0, action.indexOf(' '));
        const path = fill(action);
        const body = method === 'GET' || method === 'DELETE' ? undefined : {};
        const without = tokens.get(`without:${scope}`)!;
        const audited = await count();
        const denied = await admin(s.url, method, path, body, without.token);
        assert.equal(await count(), audited, `${action}: the refused call wrote nothing`);
        assert.equal(denied.status, 403, `${action} without ${scope}: ${denied.text}`);
        assert.deepEqual(denied.body, { code: 107, type: 'FORBIDDEN', description: `The token '${without.name}' lacks the scope this call needs (${scope})` }, action);
        const allowed = await admin(s.url, method, path, body, tokens.get(`only:${scope}`)!.token);
        assert.ok(![401, 403].includes(allowed.status) && allowed.status < 500, `${action} with only ${scope}: ${allowed.status} ${allowed.text}`);
      }
    });

    test('a token without the scope and an operator without the role get 403 in their face\'s format', async () => {
      const made = await admin(s.url, 'POST', '/admin/tokens', { name: 'h39b-reader', scopes: ['read'] });
      assert.equal(made.status, 201, made.text);
      const denied = await admin(s.url, 'POST', '/admin/merchants', { name: 'x' }, made.body.token);
      assert.equal(denied.status, 403, denied.text);
      assert.deepEqual(denied.body, { code: 107, type: 'FORBIDDEN', description: "The token 'h39b-reader' lacks the scope this call needs (merchants)" });
      const before = await s.ctx.db.query<{ n: string }>('SELECT count(*)::text AS n FROM merchants');

      const support = await makeOperator(s, 'support', 'h39b-support');
      const c = await signedIn(s, support);
      const page = await c.submit('/ops/merchants', '/ops/merchants', { name: 'not made' });
      assert.equal(page.status, 403, page.html.slice(0, 300));
      assert.match(page.html, /<h1>Not allowed<\/h1>/);
      assert.match(page.html, /Your role \(support\) does not allow this\./);
      const afterRows = await s.ctx.db.query<{ n: string }>('SELECT count(*)::text AS n FROM merchants');
      assert.equal(afterRows.rows[0]!.n, before.rows[0]!.n, 'nothing was made');
    });
  });
}
