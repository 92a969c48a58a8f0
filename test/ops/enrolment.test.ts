// No one can be both pairs of eyes (issue 38 §3), in production, over HTTP as a browser speaks to
// the console, on PGlite and PostgreSQL:
// - an admin makes an operator: the page shows a one-time enrolment link, never a password nor an
//   authenticator secret; the new operator chooses their password and enrols their authenticator
//   through it; the link works once and expires;
// - an admin resets an operator: the password and authenticator stop at once, their sessions end,
//   and only a new enrolment link lets them in again;
// - the two attacks of the issue: an admin asks for a credit, makes a finance operator, enrols it
//   themself through its link and approves as it; an admin resets another admin and approves as
//   them. Both are refused (the approver was made or reset by the requester, directly or through
//   operators they made), and the refusal is in the audit log naming who tried.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { backends, startTestServer, type TestServer } from '../helpers/server.ts';
import { admin, createMerchant } from '../helpers/clients.ts';
import { makeOperator, nextCode, OpsClient, signedIn, type TestOperator } from './helpers.ts';

const secretOf = (html: string) => /<dd class="secret">([A-Z2-7]{32})<\/dd>/.exec(html)?.[1];
const linkOf = (html: string) => /\/ops\/enrol\/([\w-]{43})/.exec(html)?.[1];
const csrfOf = (html: string) => /name="csrf" value="([^"]+)"/.exec(html)?.[1];

for (const backend of backends()) {
  describe(`operators enrol themselves; no one is both pairs of eyes (${backend}, production)`, () => {
    let s: TestServer;
    let root: TestOperator;
    let merchantId: number;

    before(async () => {
      s = await startTestServer(backend, { CAJA_ENV: 'production', PUBLIC_BASE_URL: 'https://caja.example' });
      root = await makeOperator(s, 'admin', 'root');
      merchantId = (await createMerchant(s.url, 'Four eyes shop')).merchant_id;
    });
    after(() => s.close());

    const audit = async (action: string, subject: string) =>
      (await s.ctx.db.query<{ actor: string; operator_id: number | null; detail: Record<string, unknown> }>(
        'SELECT actor, operator_id, detail FROM operator_audit WHERE action = $1 AND subject = $2 ORDER BY id', [action, subject],
      )).rows;
    const balance = async () => JSON.stringify((await admin(s.url, 'GET', `/admin/merchants/${merchantId}/balance`)).body);

    /** The person holding `token` (an enrolment link) sets a password and enrols an authenticator through it. */
    async function enrol(token: string, password: string): Promise<{ secret: string; lastStep: number; status: number; url: string; again: () => Promise<{ status: number; html: string }> }> {
      const c = new OpsClient(s.url);
      const page = await c.get(`/ops/enrol/${token}`);
      assert.equal(page.status, 200, page.html.slice(0, 500));
      const secret = secretOf(page.html)!;
      assert.ok(secret, 'the enrolment page shows a new authenticator secret');
      const op = { secret, lastStep: -1 } as TestOperator;
      const form = new URLSearchParams({ csrf: csrfOf(page.html) ?? '', password, again: password, code: nextCode(s, op) });
      const done = await c.request('POST', `/ops/enrol/${token}`, form);
      // The same form posted again by the same browser (its cookie and CSRF token still good).
      const again = () => c.request('POST', `/ops/enrol/${token}`, form);
      return { secret, lastStep: op.lastStep, status: done.status, url: done.url, again };
    }

    /** An admin makes an operator on the console; the page, and the link it shows. */
    async function makeOnConsole(by: OpsClient, email: string, role: string): Promise<{ html: string; token: string; id: number }> {
      const page = await by.submit('/ops/operators', '/ops/operators', { email, role });
      assert.equal(page.status, 200, page.html.slice(0, 500));
      const token = linkOf(page.html);
      assert.ok(token, `an enrolment link is shown: ${page.html.slice(0, 300)}`);
      const id = Number((await s.ctx.db.query('SELECT id FROM operators WHERE email = $1', [email])).rows[0].id);
      return { html: page.html, token, id };
    }

    test('made on the console: a one-time link, no password nor secret; the operator enrols through it once', async () => {
      const a = await signedIn(s, root);
      const email = `new-${backend}@ops.example`;
      const { html, token, id } = await makeOnConsole(a, email, 'support');
      assert.equal(secretOf(html), undefined, 'no authenticator secret is shown to the creator');
      assert.doesNotMatch(html, /otpauth:\/\//, 'no otpauth URI is shown to the creator');
      assert.doesNotMatch(html, /<dd class="secret">[A-Za-z0-9]{20}<\/dd>/, 'no password is shown to the creator');
      assert.ok(html.includes(`https://caja.example/ops/enrol/${token}`), 'the link is on the public address');
      // Only a keyed hash of the link is kept.
      const row = (await s.ctx.db.query('SELECT enrolment_hash, created_by FROM operators WHERE id = $1', [id])).rows[0];
      assert.notEqual(row.enrolment_hash, token);
      assert.equal(row.created_by, root.id, 'who made the operator is recorded');
      // Before enrolling, nothing signs in.
      const early = await new OpsClient(s.url).request('POST', '/ops/login', new URLSearchParams({ email, password: 'x'.repeat(20) }));
      assert.equal(early.status, 401);
      // A short password or a wrong code: refused, the link still works.
      const c = new OpsClient(s.url);
      const page = await c.get(`/ops/enrol/${token}`);
      assert.match(page.html, new RegExp(email));
      const short = await c.request('POST', `/ops/enrol/${token}`, new URLSearchParams({ csrf: csrfOf(page.html)!, password: 'short', again: 'short', code: '000000' }));
      assert.equal(short.status, 400);
      assert.match(short.html, /shorter than 20 characters/);
      const password = 'my own passphrase, chosen by me';
      const wrong = await c.request('POST', `/ops/enrol/${token}`, new URLSearchParams({ csrf: csrfOf(short.html) ?? '', password, again: password, code: '000000' }));
      assert.equal(wrong.status, 401);
      const ok = await enrol(token, password);
      assert.equal(ok.url, '/ops/login', `enrolled: ${ok.status}`);
      // Once: the same link again is refused.
      assert.equal((await new OpsClient(s.url).get(`/ops/enrol/${token}`)).status, 404);
      const replayed = await ok.again();
      assert.equal(replayed.status, 404, replayed.html.slice(0, 500));
      assert.match(replayed.html, /This enrolment link is not valid/);
      // They sign in with what they chose.
      await signedIn(s, { id, email, role: 'support', password, secret: ok.secret, lastStep: ok.lastStep });
      assert.deepEqual((await audit('operator.created', `operator:${id}`)).map((r) => [r.actor, r.operator_id]), [[root.email, root.id]]);
      assert.deepEqual((await audit('operator.enrolled', `operator:${id}`)).map((r) => [r.actor, r.operator_id]), [[email, id]]);
      const created = (await audit('operator.created', `operator:${id}`))[0]!;
      assert.doesNotMatch(JSON.stringify(created.detail), new RegExp(token));
    });

    test('a link used twice at once: one enrolment wins, the other is refused', async () => {
      const a = await signedIn(s, root);
      for (let round = 0; round < 3; round++) {
        const email = `twice-${round}-${backend}@ops.example`;
        const { token, id } = await makeOnConsole(a, email, 'support');
        const page = await new OpsClient(s.url).get(`/ops/enrol/${token}`);
        const op = { secret: secretOf(page.html)!, lastStep: -1 } as TestOperator;
        const code = nextCode(s, op);
        const passwords = [`first passphrase of round ${round}`, `second passphrase of round ${round}`];
        const pages = await Promise.all(passwords.map((password) =>
          new OpsClient(s.url).request('POST', `/ops/enrol/${token}`, new URLSearchParams({ password, again: password, code }))));
        assert.deepEqual(pages.map((p) => p.url === '/ops/login').sort(), [false, true], pages.map((p) => p.status).join(' '));
        assert.equal(pages.find((p) => p.url !== '/ops/login')!.status, 404);
        assert.equal((await audit('operator.enrolled', `operator:${id}`)).length, 1);
        const winner = passwords[pages.findIndex((p) => p.url === '/ops/login')]!;
        await signedIn(s, { id, email, role: 'support', password: winner, secret: op.secret, lastStep: op.lastStep });
      }
    });

    test('a link expires', async () => {
      const a = await signedIn(s, root);
      const { token } = await makeOnConsole(a, `late-${backend}@ops.example`, 'risk');
      const real = s.ctx.now;
      s.ctx.now = () => new Date(real().getTime() + 73 * 3_600_000);
      try {
        const page = await new OpsClient(s.url).get(`/ops/enrol/${token}`);
        assert.equal(page.status, 410);
        assert.match(page.html, /expired/);
        assert.equal(secretOf(page.html), undefined);
        const post = await new OpsClient(s.url).request('POST', `/ops/enrol/${token}`, new URLSearchParams({ password: 'a long enough passphrase!!', again: 'a long enough passphrase!!', code: '123456' }));
        assert.equal(post.status, 410);
      } finally {
        s.ctx.now = real;
      }
    });

    test('a reset: the password and authenticator stop, sessions end, only the new link lets them in', async () => {
      const op = await makeOperator(s, 'finance', 'reset');
      const theirs = await signedIn(s, op);
      const a = await signedIn(s, root);
      const page = await a.submit('/ops/operators', `/ops/operators/${op.id}/reset`);
      assert.equal(page.status, 200, page.html.slice(0, 500));
      const token = linkOf(page.html);
      assert.ok(token, 'a new enrolment link is shown');
      assert.equal(secretOf(page.html), undefined);
      assert.doesNotMatch(page.html, /<dd class="secret">[A-Za-z0-9]{20}<\/dd>/);
      assert.equal((await theirs.get('/ops/merchants')).url, '/ops/login', 'their session ended');
      const old = await new OpsClient(s.url).request('POST', '/ops/login', new URLSearchParams({ email: op.email, password: op.password }));
      assert.equal(old.status, 401, 'the old password no longer signs in');
      const password = 'a new passphrase after the reset';
      const done = await enrol(token!, password);
      assert.equal(done.url, '/ops/login');
      await signedIn(s, { ...op, password, secret: done.secret, lastStep: done.lastStep });
      const row = (await s.ctx.db.query('SELECT last_reset_by FROM operators WHERE id = $1', [op.id])).rows[0];
      assert.equal(row.last_reset_by, root.id, 'who reset the operator is recorded');
      assert.deepEqual((await audit('operator.reset', `operator:${op.id}`)).map((r) => r.actor), [root.email]);
    });

    test('attack 1: an admin asks for a credit, makes a finance operator, enrols it themself and approves as it: refused', async () => {
      const a = await signedIn(s, root);
      const before = await balance();
      const asked = await a.submit(`/ops/merchants/${merchantId}`, `/ops/merchants/${merchantId}/adjustments`, { direction: 'credit', amount: '50000.00', currency: 'USD', reason: 'goodwill' });
      assert.equal(asked.status, 200);
      const approval = Number((await s.ctx.db.query(`SELECT max(id) AS id FROM approvals`)).rows[0].id);
      const email = `puppet-${backend}@ops.example`;
      const made = await a.submit('/ops/operators', '/ops/operators', { email, role: 'finance' });
      // Before: the page handed the creator the password and secret; now only the link, which the creator uses.
      const token = linkOf(made.html);
      assert.ok(token, 'the creator gets a link, not the secrets');
      const id = Number((await s.ctx.db.query('SELECT id FROM operators WHERE email = $1', [email])).rows[0].id);
      const password = 'the admin chose this for the puppet';
      const e = await enrol(token, password);
      const puppet = await signedIn(s, { id, email, role: 'finance', password, secret: e.secret, lastStep: e.lastStep });
      const tried = await puppet.submit('/ops/approvals', `/ops/approvals/${approval}/approve`);
      assert.equal(tried.status, 409, tried.html.slice(0, 400));
      assert.match(tried.html, /made or reset/);
      assert.equal(await balance(), before, 'nothing was credited');
      assert.equal((await s.ctx.db.query('SELECT status FROM approvals WHERE id = $1', [approval])).rows[0].status, 'pending');
      const refused = await audit('approval.refused', `approval:${approval}`);
      assert.deepEqual(refused.map((r) => [r.actor, r.operator_id, r.detail.reason, r.detail.requested_by]), [[email, id, 'related_operator', root.id]]);
      // The other way round: the puppet asks, its creator approves: refused too.
      await puppet.submit(`/ops/merchants/${merchantId}`, `/ops/merchants/${merchantId}/adjustments`, { direction: 'credit', amount: '100.00', currency: 'USD', reason: 'the other way' });
      const second = Number((await s.ctx.db.query(`SELECT max(id) AS id FROM approvals`)).rows[0].id);
      assert.equal((await a.submit('/ops/approvals', `/ops/approvals/${second}/approve`)).status, 409);
      assert.equal(await balance(), before);
    });

    test('attack 2: an admin resets another admin and approves as them: refused; an unrelated operator approves', async () => {
      const victim = await makeOperator(s, 'admin', 'victim');
      const fin = await makeOperator(s, 'finance', 'asker');
      const asker = await signedIn(s, fin);
      await asker.submit(`/ops/merchants/${merchantId}`, `/ops/merchants/${merchantId}/adjustments`, { direction: 'credit', amount: '25.00', currency: 'USD', reason: 'ticket 9' });
      const approval = Number((await s.ctx.db.query(`SELECT max(id) AS id FROM approvals`)).rows[0].id);
      // The attacker is the requester here: root asks, resets the victim, and approves as them.
      const a = await signedIn(s, root);
      await a.submit(`/ops/merchants/${merchantId}`, `/ops/merchants/${merchantId}/adjustments`, { direction: 'credit', amount: '50000.00', currency: 'USD', reason: 'mine' });
      const mine = Number((await s.ctx.db.query(`SELECT max(id) AS id FROM approvals`)).rows[0].id);
      const reset = await a.submit('/ops/operators', `/ops/operators/${victim.id}/reset`);
      const token = linkOf(reset.html)!;
      assert.ok(token);
      const password = 'the attacker chose this for the victim';
      const e = await enrol(token, password);
      const asVictim = await signedIn(s, { ...victim, password, secret: e.secret, lastStep: e.lastStep });
      const before = await balance();
      const tried = await asVictim.submit('/ops/approvals', `/ops/approvals/${mine}/approve`);
      assert.equal(tried.status, 409);
      assert.equal(await balance(), before);
      assert.deepEqual((await audit('approval.refused', `approval:${mine}`)).map((r) => [r.actor, r.detail.requested_by]), [[victim.email, root.id]]);
      // A request by someone the victim's resetter did not make nor reset: the victim may decide it.
      const ok = await asVictim.submit('/ops/approvals', `/ops/approvals/${approval}/approve`);
      assert.equal(ok.url, '/ops/approvals?done=approve', ok.html.slice(0, 400));
      const approved = await audit('approval.approved.balance_adjustment', `approval:${approval}`);
      assert.equal(approved.length, 1);
      assert.equal(approved[0]!.actor, victim.email);
    });

    test('through a chain: an admin makes an admin who makes a finance operator; that operator cannot approve the first admin', async () => {
      const a = await signedIn(s, root);
      const mid = await makeOnConsole(a, `mid-${backend}@ops.example`, 'admin');
      const midPassword = 'middle admin passphrase, long';
      const me = await enrol(mid.token, midPassword);
      const asMid = await signedIn(s, { id: mid.id, email: `mid-${backend}@ops.example`, role: 'admin', password: midPassword, secret: me.secret, lastStep: me.lastStep });
      const leaf = await makeOnConsole(asMid, `leaf-${backend}@ops.example`, 'finance');
      const leafPassword = 'leaf finance passphrase, long';
      const le = await enrol(leaf.token, leafPassword);
      const asLeaf = await signedIn(s, { id: leaf.id, email: `leaf-${backend}@ops.example`, role: 'finance', password: leafPassword, secret: le.secret, lastStep: le.lastStep });
      await a.submit(`/ops/merchants/${merchantId}`, `/ops/merchants/${merchantId}/adjustments`, { direction: 'credit', amount: '7.00', currency: 'USD', reason: 'chain' });
      const id = Number((await s.ctx.db.query(`SELECT max(id) AS id FROM approvals`)).rows[0].id);
      assert.equal((await asLeaf.submit('/ops/approvals', `/ops/approvals/${id}/approve`)).status, 409);
      // Two operators made by the same admin are independent of each other.
      const sib1 = await makeOperator(s, 'finance', 'sib1');
      const sib2 = await makeOperator(s, 'risk', 'sib2');
      await s.ctx.db.query('UPDATE operators SET created_by = $1 WHERE id = ANY($2)', [root.id, [sib1.id, sib2.id]]);
      const c1 = await signedIn(s, sib1);
      await c1.submit(`/ops/merchants/${merchantId}`, `/ops/merchants/${merchantId}/adjustments`, { direction: 'credit', amount: '1.00', currency: 'USD', reason: 'siblings' });
      const sid = Number((await s.ctx.db.query(`SELECT max(id) AS id FROM approvals`)).rows[0].id);
      assert.equal((await (await signedIn(s, sib2)).submit('/ops/approvals', `/ops/approvals/${sid}/approve`)).url, '/ops/approvals?done=approve');
    });
  });
}
