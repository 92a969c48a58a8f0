// Operators' lifecycle over HTTP, as a browser speaks to the console: an admin disables an
// operator (their session ends at once, they cannot sign in) and enables them again; the last
// active admin cannot be disabled, nor an admin act on themself, and two admins disabling each
// other at once end with one of them; an operator changes their own password (current password
// and a code); an admin resets another (a new enrolment link, never a secret: the operator sets
// both again, test/ops/enrolment.test.ts); a TOTP reset left from before enrolment links is still
// enrolled at the next sign-in. Each action is in the audit log, written by its transaction.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { backends, startTestServer, type TestServer } from '../helpers/server.ts';
import { OperatorError } from '../../src/operators/accounts.ts';
import { passwordProblem, resetOperator, setOperatorDisabled } from '../../src/operators/lifecycle.ts';
import { totpCode } from '../../src/backoffice/totp.ts';
import { makeOperator, nextCode, OpsClient, signedIn, type TestOperator } from './helpers.ts';

const CLI = { kind: 'token', id: 0, name: 'cli', ip: null } as const;

test('the password policy is creation\'s: at least 20 characters, at most 200, not the current one', () => {
  assert.equal(passwordProblem('x'.repeat(19), 'old'), 'short');
  assert.equal(passwordProblem('ç'.repeat(20), 'old'), null);
  assert.equal(passwordProblem('x'.repeat(201), 'old'), 'long');
  assert.equal(passwordProblem('same-password-twenty-chars', 'same-password-twenty-chars'), 'same');
  assert.equal(passwordProblem('a fine new passphrase of mine', 'old'), null);
});

for (const backend of backends()) {
  describe(`operators' lifecycle (${backend})`, () => {
    let s: TestServer;
    let root: TestOperator;
    let second: TestOperator;

    const audit = async (action: string, subjectId: number) =>
      (await s.ctx.db.query<{ actor: string; operator_id: number | null; token_id: number | null }>(
        'SELECT actor, operator_id, token_id FROM operator_audit WHERE action = $1 AND subject = $2 ORDER BY id', [action, `operator:${subjectId}`],
      )).rows;
    const post = (c: OpsClient, path: string, fields: Record<string, string> = {}) => c.submit('/ops/operators', path, fields);

    before(async () => {
      s = await startTestServer(backend);
      root = await makeOperator(s, 'admin', 'root');
      second = await makeOperator(s, 'admin', 'second');
    });
    after(() => s.close());

    test('disable: the session ends at once, sign-in is refused; enable lets them in again', async () => {
      const fin = await makeOperator(s, 'finance', 'fin');
      const finBrowser = await signedIn(s, fin);
      const admin = await signedIn(s, root);
      const page = await post(admin, `/ops/operators/${fin.id}/disable`);
      assert.equal(page.status, 200, page.html.slice(0, 500));
      assert.match(page.html, new RegExp(`${fin.email} is disabled`));
      assert.equal((await finBrowser.get('/ops/merchants')).url, '/ops/login', 'the open session ended');
      const refused = await new OpsClient(s.url).request('POST', '/ops/login', new URLSearchParams({ email: fin.email, password: fin.password }));
      assert.equal(refused.status, 401);
      assert.deepEqual((await audit('operator.disabled', fin.id)).map((r) => [r.actor, r.operator_id]), [[root.email, root.id]]);
      // Disabled twice: nothing changes, nothing is recorded.
      assert.equal((await post(admin, `/ops/operators/${fin.id}/disable`)).status, 200);
      assert.equal((await audit('operator.disabled', fin.id)).length, 1);
      assert.equal((await post(admin, `/ops/operators/${fin.id}/enable`)).status, 200);
      await signedIn(s, fin);
      assert.equal((await audit('operator.enabled', fin.id)).length, 1);
    });

    test('who may: not a finance operator, not on oneself, never the last active admin; every form needs its CSRF token', async () => {
      const fin = await makeOperator(s, 'finance', 'fin2');
      const finBrowser = await signedIn(s, fin);
      const asFinance = await finBrowser.request('POST', `/ops/operators/${root.id}/disable`, new URLSearchParams({ csrf: 'x' }));
      assert.equal(asFinance.status, 403);
      // The service checks the role too, whoever calls it.
      await assert.rejects(setOperatorDisabled(s.ctx.db, root.id, true, { kind: 'operator', id: fin.id, email: fin.email, ip: null }, s.ctx.now()), (e: OperatorError) => e.kind === 'forbidden');
      const admin = await signedIn(s, root);
      const self = await post(admin, `/ops/operators/${root.id}/disable`);
      assert.equal(self.status, 409);
      assert.match(self.html, /Ask another admin/);
      const noCsrf = await admin.request('POST', `/ops/operators/${fin.id}/disable`, new URLSearchParams({}));
      assert.equal(noCsrf.status, 403);
      assert.equal((await audit('operator.disabled', fin.id)).length, 0);
      // root disables second: root is the last active admin, and the CLI cannot disable them.
      assert.equal((await post(admin, `/ops/operators/${second.id}/disable`)).status, 200);
      await assert.rejects(setOperatorDisabled(s.ctx.db, root.id, true, CLI, s.ctx.now()), (e: OperatorError) => e.kind === 'last_admin');
      assert.equal((await post(admin, `/ops/operators/${second.id}/enable`)).status, 200);
    });

    test('two admins disabling each other at once: one of them stays', async () => {
      const a = await makeOperator(s, 'admin', 'race-a');
      const b = await makeOperator(s, 'admin', 'race-b');
      // root and second stay active: without the lock each would see the other as a remaining admin.
      const [ca, cb] = [await signedIn(s, a), await signedIn(s, b)];
      // The loser is refused (no longer an admin) or finds its session already ended.
      // Both forms read first, then both posts at once (a form read after the other's post finds its session ended).
      const [fa, fb] = await Promise.all([ca, cb].map(async (c) => /name="csrf" value="([^"]+)"/.exec((await c.get('/ops/operators')).html)![1]!));
      const [pa, pb] = await Promise.all([
        ca.request('POST', `/ops/operators/${b.id}/disable`, new URLSearchParams({ csrf: fa! })),
        cb.request('POST', `/ops/operators/${a.id}/disable`, new URLSearchParams({ csrf: fb! })),
      ]);
      const { rows } = await s.ctx.db.query<{ id: number; disabled_at: Date | null }>('SELECT id, disabled_at FROM operators WHERE id = ANY($1)', [[a.id, b.id]]);
      assert.equal(rows.filter((r) => r.disabled_at).length, 1, `${pa.status} ${pb.status}`);
      assert.equal((await audit('operator.disabled', a.id)).length + (await audit('operator.disabled', b.id)).length, 1);
    });

    test('my own password: the current one and a code; the other sessions end; the old one stops', async () => {
      const op = await makeOperator(s, 'support', 'own');
      const c = await signedIn(s, op);
      const other = await signedIn(s, op);
      const next = 'a long new passphrase for own';
      const wrong = await c.submit('/ops/account', '/ops/account/password', { current: 'not it', next, again: next, code: nextCode(s, op) });
      assert.equal(wrong.status, 401);
      assert.match(wrong.html, /current password or the code is wrong/);
      const mismatch = await c.submit('/ops/account', '/ops/account/password', { current: op.password, next, again: `${next}!`, code: nextCode(s, op) });
      assert.equal(mismatch.status, 400);
      const short = await c.submit('/ops/account', '/ops/account/password', { current: op.password, next: 'short one', again: 'short one', code: nextCode(s, op) });
      assert.equal(short.status, 400);
      assert.match(short.html, /shorter than 20 characters/);
      const badCode = await c.submit('/ops/account', '/ops/account/password', { current: op.password, next, again: next, code: '000000' });
      assert.equal(badCode.status, 401);
      assert.equal((await audit('operator.password_changed', op.id)).length, 0, 'a refused change is not recorded');
      const done = await c.submit('/ops/account', '/ops/account/password', { current: op.password, next, again: next, code: nextCode(s, op) });
      assert.equal(done.status, 200, done.html.slice(0, 500));
      assert.match(done.html, /Your password was changed/);
      assert.equal((await c.get('/ops/account')).status, 200, 'this session stays');
      assert.equal((await other.get('/ops/account')).url, '/ops/login', 'the other session ended');
      const old = await new OpsClient(s.url).request('POST', '/ops/login', new URLSearchParams({ email: op.email, password: op.password }));
      assert.equal(old.status, 401);
      op.password = next;
      await signedIn(s, op);
      assert.deepEqual((await audit('operator.password_changed', op.id)).map((r) => r.actor), [op.email]);
    });

    test('an admin resets an operator: a new enrolment link, never a secret; the CLI\'s reset is the same service', async () => {
      const op = await makeOperator(s, 'risk', 'reset');
      const theirs = await signedIn(s, op);
      const page = await post(await signedIn(s, root), `/ops/operators/${op.id}/reset`);
      assert.equal(page.status, 200);
      assert.match(page.html, /\/ops\/enrol\/[\w-]{43}/, 'the link is shown');
      assert.doesNotMatch(page.html, /<dd class="secret">/, 'no password nor secret is shown');
      assert.equal((await theirs.get('/ops/merchants')).url, '/ops/login');
      assert.equal((await new OpsClient(s.url).request('POST', '/ops/login', new URLSearchParams({ email: op.email, password: op.password }))).status, 401);
      const list = await (await signedIn(s, root)).get('/ops/operators');
      assert.match(list.html, /waiting for enrolment/);
      const cli = await resetOperator(s.ctx.db, s.ctx.box, op.id, CLI, s.ctx.now());
      assert.match(cli.enrolment.path, /^\/ops\/enrol\/[\w-]{43}$/);
      assert.deepEqual((await audit('operator.reset', op.id)).map((r) => [r.actor, r.token_id]), [[root.email, null], ['token:cli', 0]]);
      const row = (await s.ctx.db.query('SELECT last_reset_by FROM operators WHERE id = $1', [op.id])).rows[0];
      assert.equal(row.last_reset_by, null, 'the CLI is no operator: the last reset is no longer root\'s');
    });

    test('a TOTP reset from before enrolment links (totp_reset_at set): a new secret is shown once at sign-in and confirmed by its code', async () => {
      const op = await makeOperator(s, 'support', 'totp');
      await s.ctx.db.query('UPDATE operators SET totp_reset_at = now() WHERE id = $1', [op.id]);

      const c = new OpsClient(s.url);
      const first = await c.request('POST', '/ops/login', new URLSearchParams({ email: op.email, password: op.password }));
      assert.equal(first.url, '/ops/login/code');
      const secretOf = (html: string) => /<dd class="secret">([A-Z2-7]{32})<\/dd>/.exec(html)?.[1];
      const csrfOf = (html: string) => /name="csrf" value="([^"]+)"/.exec(html)![1]!;
      const shown = secretOf(first.html);
      assert.ok(shown, first.html.slice(0, 800));
      // The old secret is no longer accepted.
      const old = await c.request('POST', '/ops/login/code', new URLSearchParams({ csrf: csrfOf(first.html), code: nextCode(s, op) }));
      assert.equal(old.status, 401);
      assert.equal(secretOf(old.html), undefined, 'a secret is shown once');
      // Each opening shows a new secret; only the last one shown is confirmed.
      const again = await c.get('/ops/login/code');
      const fresh = secretOf(again.html)!;
      assert.notEqual(fresh, shown);
      const step = (d: number) => totpCode(shown, s.ctx.now(), d);
      const stale = await c.request('POST', '/ops/login/code', new URLSearchParams({ csrf: csrfOf(again.html), code: step(0) }));
      assert.equal(stale.status, 401);
      const reopened = await c.get('/ops/login/code');
      op.secret = secretOf(reopened.html)!;
      const ok = await c.request('POST', '/ops/login/code', new URLSearchParams({ csrf: csrfOf(reopened.html), code: nextCode(s, op) }));
      assert.equal(ok.url, '/ops/merchants', ok.html.slice(0, 500));
      // From now on the new secret is the one: a normal code step at the next sign-in.
      await signedIn(s, op);
      assert.deepEqual((await audit('operator.totp_enrolled', op.id)).map((r) => r.actor), [op.email]);
    });
  });
}
