// Sign-in lock-out under truly concurrent guesses, console and panel alike: each password or code
// is counted (atomically, in the database) before it is checked, so a burst of guesses gets no
// more checks than the cap, however many arrive at once; a pending sign-in allows at most
// MFA_ATTEMPTS codes, after which it is void; and a right password does not reset the count of
// wrong codes (else a known password would buy unlimited code guesses, five at a time).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createMerchant } from '../helpers/clients.ts';
import { backends, startTestServer, type TestServer } from '../helpers/server.ts';
import { MAX_FAILURES, MFA_ATTEMPTS } from '../../src/auth/login-lockout.ts';
import { totpCode } from '../../src/backoffice/totp.ts';
import { PanelClient } from '../panel/helpers.ts';
import { makeOperator, nextCode, OpsClient } from './helpers.ts';

/** `n` six-digit codes none of which is right for `secret` now (nor a step either side). */
function wrongCodes(secret: string, n: number): string[] {
  const now = new Date();
  const right = new Set([-2, -1, 0, 1, 2].map((d) => totpCode(secret, now, d)));
  const out: string[] = [];
  for (let i = 0; out.length < n; i++) {
    const c = String((i * 7919 + 123457) % 1_000_000).padStart(6, '0');
    if (!right.has(c)) out.push(c);
  }
  return out;
}

const csrfOf = (html: string) => {
  const csrf = /name="csrf" value="([^"]+)"/.exec(html)?.[1];
  assert.ok(csrf, html.slice(0, 300));
  return csrf!;
};

for (const backend of backends()) {
  describe(`sign-in lock-out under concurrent guesses (${backend})`, () => {
    let s: TestServer;
    before(async () => {
      s = await startTestServer(backend);
    });
    after(() => s.close());

    const failedCodes = async (opId: number) =>
      (await s.ctx.db.query(`SELECT count(*)::int AS n FROM operator_audit WHERE operator_id = $1 AND action = 'sign_in.totp_failed'`, [opId])).rows[0].n as number;

    test('console: 150 concurrent wrong codes on one pending sign-in get at most the cap of checks; the right code afterwards is refused', async () => {
      assert.ok(MFA_ATTEMPTS <= MAX_FAILURES);
      const op = await makeOperator(s, 'read_only', 'burst');
      const c = new OpsClient(s.url);
      const first = await c.request('POST', '/ops/login', new URLSearchParams({ email: op.email, password: op.password }));
      assert.equal(first.url, '/ops/login/code');
      const csrf = csrfOf(first.html);
      const answers = await Promise.all(wrongCodes(op.secret, 150).map((code) => c.request('POST', '/ops/login/code', new URLSearchParams({ csrf, code }))));
      assert.ok(answers.every((a) => a.url !== '/ops/merchants'), 'no wrong code signs in');
      assert.ok((await failedCodes(op.id)) <= MFA_ATTEMPTS, `at most ${MFA_ATTEMPTS} codes were checked, not ${await failedCodes(op.id)}`);
      // The right code on that pending sign-in: void.
      const right = await c.request('POST', '/ops/login/code', new URLSearchParams({ csrf, code: nextCode(s, op) }));
      assert.equal(right.url, '/ops/login', `the pending sign-in is void: ${right.status} ${right.url}`);
      // And the e-mail is locked: even the right password is refused for now.
      const again = await new OpsClient(s.url).request('POST', '/ops/login', new URLSearchParams({ email: op.email, password: op.password }));
      assert.equal(again.status, 429, again.html.slice(0, 300));
    });

    test('console: 30 concurrent passwords, the right one last, are not all checked: the right one is refused', async () => {
      const op = await makeOperator(s, 'read_only', 'pwburst');
      const tries = [...Array.from({ length: 29 }, (_, i) => `wrong password ${i}`), op.password];
      const answers = await Promise.all(tries.map((password) => new OpsClient(s.url).request('POST', '/ops/login', new URLSearchParams({ email: op.email, password }))));
      assert.equal(answers.filter((a) => a.status === 401).length <= MAX_FAILURES - 1, true, 'at most MAX_FAILURES - 1 answered "wrong", the rest locked');
      assert.equal(answers.at(-1)!.status, 429, `the right password, after ${MAX_FAILURES} guesses were counted, is refused: ${answers.at(-1)!.status} ${answers.at(-1)!.url}`);
      assert.equal(answers.filter((a) => a.url === '/ops/login/code').length, 0, 'no guess in the burst reached the code step');
    });

    test('console: a pending sign-in allows at most MFA_ATTEMPTS codes, one after another; then it is void', async () => {
      const op = await makeOperator(s, 'read_only', 'seq');
      const c = new OpsClient(s.url);
      const first = await c.request('POST', '/ops/login', new URLSearchParams({ email: op.email, password: op.password }));
      const csrf = csrfOf(first.html);
      for (const code of wrongCodes(op.secret, MFA_ATTEMPTS)) {
        const a = await c.request('POST', '/ops/login/code', new URLSearchParams({ csrf, code }));
        assert.notEqual(a.url, '/ops/merchants');
      }
      const right = await c.request('POST', '/ops/login/code', new URLSearchParams({ csrf, code: nextCode(s, op) }));
      assert.equal(right.url, '/ops/login', `void after ${MFA_ATTEMPTS} codes: ${right.status} ${right.url}`);
    });

    test('console: a right password does not use up an attempt: after four wrong codes the right one still signs in', async () => {
      const op = await makeOperator(s, 'read_only', 'slow');
      const c = new OpsClient(s.url);
      const first = await c.request('POST', '/ops/login', new URLSearchParams({ email: op.email, password: op.password }));
      const csrf = csrfOf(first.html);
      for (const code of wrongCodes(op.secret, MAX_FAILURES - 1)) {
        const a = await c.request('POST', '/ops/login/code', new URLSearchParams({ csrf, code }));
        assert.equal(a.status, 401);
      }
      const right = await c.request('POST', '/ops/login/code', new URLSearchParams({ csrf, code: nextCode(s, op) }));
      assert.equal(right.url, '/ops/merchants', `${right.status} ${right.url}`);
      assert.equal((await s.ctx.db.query('SELECT count(*)::int AS n FROM operator_login_failures WHERE email = $1', [op.email])).rows[0].n, 0, 'the right code cleared the count');
    });

    /** A merchant whose owner signs in with a second factor: its e-mail, password and TOTP secret. */
    async function ownerWithTotp(name: string) {
      const m = await createMerchant(s.url, name);
      const c = new PanelClient(s.url);
      assert.equal((await c.signIn(m.panel.email, m.panel.password)).url, '/panel');
      const started = await c.submit('/panel/account', '/panel/account/totp/start');
      const secret = /id="totp-secret">([A-Z2-7]+)</.exec(started.html)?.[1];
      assert.ok(secret);
      const on = await c.submit('/panel/account', '/panel/account/totp/confirm', { code: totpCode(secret!, new Date()) });
      assert.match(on.html, /Two-factor sign-in is on/);
      return { email: m.panel.email, password: m.panel.password, secret: secret! };
    }
    const panelFailedCodes = async (email: string) =>
      (await s.ctx.db.query(`SELECT count(*)::int AS n FROM panel_audit WHERE email = $1 AND action = 'sign_in.totp_failed'`, [email])).rows[0].n as number;

    test('panel: 150 concurrent wrong codes get at most the cap of checks; the right code afterwards is refused', async () => {
      const o = await ownerWithTotp('Burst panel');
      const d = new PanelClient(s.url);
      const step = await d.signIn(o.email, o.password);
      assert.equal(step.url, '/panel/login/code');
      const csrf = csrfOf(step.html);
      const answers = await Promise.all(wrongCodes(o.secret, 150).map((code) => d.request('POST', '/panel/login/code', new URLSearchParams({ csrf, code }))));
      assert.ok(answers.every((a) => a.url !== '/panel'));
      assert.ok((await panelFailedCodes(o.email)) <= MFA_ATTEMPTS, `at most ${MFA_ATTEMPTS} codes were checked, not ${await panelFailedCodes(o.email)}`);
      const right = await d.request('POST', '/panel/login/code', new URLSearchParams({ csrf, code: totpCode(o.secret, new Date(Date.now() + 30_000)) }));
      assert.equal(right.url, '/panel/login', `the pending sign-in is void: ${right.status} ${right.url}`);
      assert.equal((await new PanelClient(s.url).signIn(o.email, o.password)).status, 429, 'the e-mail is locked');
    });

    test('panel: 30 concurrent passwords, the right one last, are not all checked', async () => {
      const m = await createMerchant(s.url, 'Pw burst');
      const tries = [...Array.from({ length: 29 }, (_, i) => `wrong password ${i}`), m.panel.password];
      const answers = await Promise.all(tries.map((password) => new PanelClient(s.url).signIn(m.panel.email, password)));
      assert.equal(answers.at(-1)!.status, 429, `the right password, after ${MAX_FAILURES} guesses were counted, is refused: ${answers.at(-1)!.status} ${answers.at(-1)!.url}`);
      assert.equal(answers.filter((a) => a.url === '/panel').length, 0, 'no guess in the burst signed in');
    });

    test('panel: wrong current passwords on a signed-in session (password change, two-factor off) count towards the lock-out, at once too', async () => {
      const m = await createMerchant(s.url, 'Stolen session');
      const c = new PanelClient(s.url);
      assert.equal((await c.signIn(m.panel.email, m.panel.password)).url, '/panel');
      const csrf = csrfOf((await c.get('/panel/account')).html);
      const answers = await Promise.all(Array.from({ length: 30 }, (_, i) =>
        c.request('POST', '/panel/account/password', new URLSearchParams({ csrf, current: `guess number ${i}`, next: 'a new long passphrase', confirm: 'a new long passphrase' }))));
      assert.ok(answers.every((a) => a.url !== '/panel/account?done=password'));
      // Locked: the right password neither signs in nor changes it, and the session that guessed has ended.
      assert.equal((await new PanelClient(s.url).signIn(m.panel.email, m.panel.password)).status, 429);
      assert.equal((await c.get('/panel')).url, '/panel/login?next=%2Fpanel');
      const d = new PanelClient(s.url);
      const off = await d.request('POST', '/panel/login', new URLSearchParams({ email: m.panel.email, password: m.panel.password }));
      assert.equal(off.status, 429);
    });

    test('panel: a right password does not reset the count of wrong codes', async () => {
      const o = await ownerWithTotp('Reset count');
      // Four wrong codes per pending sign-in, a new sign-in with the right password each time: the fifth wrong code locks.
      const codes = wrongCodes(o.secret, 3 * (MAX_FAILURES - 1));
      let locked = false;
      for (let round = 0; round < 3 && !locked; round++) {
        const d = new PanelClient(s.url);
        const step = await d.signIn(o.email, o.password);
        if (step.status === 429) {
          locked = true;
          break;
        }
        assert.equal(step.url, '/panel/login/code', `${step.status} ${step.url}`);
        const csrf = csrfOf(step.html);
        for (const code of codes.splice(0, MAX_FAILURES - 1)) await d.request('POST', '/panel/login/code', new URLSearchParams({ csrf, code }));
      }
      assert.ok(locked, 'the e-mail locks after MAX_FAILURES wrong codes in all, whatever the sign-ins between them');
      assert.ok((await panelFailedCodes(o.email)) <= MAX_FAILURES);
    });
  });
}
