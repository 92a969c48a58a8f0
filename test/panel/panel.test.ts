// The panel over HTTP, as a person's browser speaks to it (cookies, forms with their CSRF token,
// 303 redirects): sign-in, lock-out, sessions and their expiry, TOTP, CSRF and merchants kept
// apart. Roles, escaping, framing, bad input, the cashout CSV batch, exports, the audit log and
// production: panel-money.test.ts. The browser tests (panel.browser.test.ts) drive the same pages
// in Chromium.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { admin, createMerchant, V3Client } from '../helpers/clients.ts';
import { backends } from '../helpers/server.ts';
import { totpCode } from '../../src/backoffice/totp.ts';
import { PanelClient, sessionCookie } from './helpers.ts';
import { a, b, cashout, cashoutStatus, owner, panelServer, s } from './over-http.ts';

for (const backend of backends()) {
  describe(`merchant panel over HTTP: sign-in and sessions (${backend})`, () => {
    panelServer(backend);

    test('brute force: five wrong passwords lock the e-mail, even against the right one, known e-mail or not', async () => {
      const m = await createMerchant(s.url, 'Locked');
      const c = new PanelClient(s.url);
      for (let i = 0; i < 4; i++) {
        const p = await c.signIn(m.panel.email, 'wrong-password');
        assert.equal(p.status, 401);
        assert.match(p.html, /The e-mail or password is not right/);
      }
      const fifth = await c.signIn(m.panel.email, 'wrong-password');
      assert.equal(fifth.status, 429);
      assert.match(fifth.html, /locked until/);
      const right = await c.signIn(m.panel.email, m.panel.password);
      assert.equal(right.status, 429, 'locked even with the right password');
      assert.equal(sessionCookie(c), undefined);
      const ghost = new PanelClient(s.url);
      for (let i = 0; i < 4; i++) assert.equal((await ghost.signIn('nobody@example.com', 'x')).status, 401);
      assert.equal((await ghost.signIn('nobody@example.com', 'x')).status, 429, 'unknown e-mails lock the same way');
      // The lock lasts LOCK_MINUTES.
      const real = s.ctx.now;
      s.ctx.now = () => new Date(Date.now() + 16 * 60_000);
      try {
        assert.equal((await c.signIn(m.panel.email, m.panel.password)).url, '/panel');
      } finally {
        s.ctx.now = real;
      }
    });

    test('session fixation: a cookie set before sign-in is never adopted; sign-in issues a fresh one; cookie flags', async () => {
      const c = new PanelClient(s.url);
      c.cookies.set('caja_panel', 'A'.repeat(43));
      const r = await fetch(`${s.url}/panel/login`, {
        method: 'POST', redirect: 'manual', headers: { cookie: c.cookieHeader, origin: s.url, 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ email: a.panel.email, password: a.panel.password }),
      });
      assert.equal(r.status, 303);
      const set = r.headers.getSetCookie().find((x) => x.startsWith('caja_panel='))!;
      assert.match(set, /HttpOnly/);
      assert.match(set, /SameSite=Strict/);
      assert.match(set, /Path=\/panel/);
      const token = set.split(';')[0]!.split('=')[1]!;
      assert.notEqual(token, 'A'.repeat(43));
      assert.match(token, /^[\w-]{43}$/);
      // The planted value opens nothing.
      const planted = new PanelClient(s.url);
      planted.cookies.set('caja_panel', 'A'.repeat(43));
      assert.equal((await planted.get('/panel')).url, '/panel/login?next=%2Fpanel');
    });

    test('sessions end: sign-out, idle and absolute expiry, sign out everywhere, an operator password reset', async () => {
      const c1 = await owner();
      const c2 = await owner();
      const out = await c1.submit('/panel', '/panel/logout');
      assert.equal(out.url, '/panel/login?out=1');
      assert.match(out.html, /You are signed out/);
      assert.equal((await c1.get('/panel')).url, '/panel/login?next=%2Fpanel');
      assert.equal((await c2.get('/panel')).url, '/panel', 'other sessions live on');

      const real = s.ctx.now;
      try {
        s.ctx.now = () => new Date(Date.now() + 31 * 60_000);
        assert.equal((await c2.get('/panel/balance')).url, '/panel/login?next=%2Fpanel%2Fbalance', 'idle 31 minutes');
        s.ctx.now = real;
        const c3 = await owner();
        // In use every 25 minutes, so never idle: it still ends 12 hours after sign-in.
        for (let m = 25; m <= 12 * 60 + 25; m += 25) {
          s.ctx.now = () => new Date(Date.now() + m * 60_000);
          const p = await c3.get('/panel/account');
          if (m < 12 * 60) assert.equal(p.url, '/panel/account', `minute ${m}`);
          else assert.equal(p.url, '/panel/login?next=%2Fpanel%2Faccount', `absolute expiry at minute ${m}`);
        }
      } finally {
        s.ctx.now = real;
      }

      const d1 = await owner();
      const d2 = await owner();
      await d1.submit('/panel', '/panel/logout-everywhere');
      assert.equal((await d2.get('/panel')).url, '/panel/login?next=%2Fpanel', 'sign out everywhere');

      const m = await createMerchant(s.url, 'Reset');
      const e = await owner(m);
      const rotated = await admin(s.url, 'POST', `/admin/merchants/${m.merchant_id}/rotate`, { set: 'panel' });
      assert.equal(rotated.status, 200, rotated.text);
      assert.equal((await e.get('/panel')).url, '/panel/login?next=%2Fpanel', 'the operator reset ends the owner session');
      assert.equal((await new PanelClient(s.url).signIn(m.panel.email, m.panel.password)).status, 401, 'old password refused');
      assert.equal((await new PanelClient(s.url).signIn(rotated.body.panel.email, rotated.body.panel.password)).url, '/panel');
    });

    test('password change: the old one stops, other sessions end, this one continues', async () => {
      const m = await createMerchant(s.url, 'Pw');
      const c = await owner(m);
      const other = await owner(m);
      const short = await c.submit('/panel/account', '/panel/account/password', { current: m.panel.password, next: 'short', confirm: 'short' });
      assert.equal(short.status, 422);
      assert.match(short.html, /at least 12/);
      const p = await c.submit('/panel/account', '/panel/account/password', { current: m.panel.password, next: 'a new long passphrase', confirm: 'a new long passphrase' });
      assert.equal(p.url, '/panel/account?done=password');
      assert.match(p.html, /Password changed/);
      assert.equal((await other.get('/panel')).url, '/panel/login?next=%2Fpanel');
      assert.equal((await new PanelClient(s.url).signIn(m.panel.email, m.panel.password)).status, 401);
      assert.equal((await new PanelClient(s.url).signIn(m.panel.email, 'a new long passphrase')).url, '/panel');
    });

    test('TOTP: enrolment needs a right code; sign-in then asks for it, a wrong one is refused, the session is renewed', async () => {
      const m = await createMerchant(s.url, 'Totp');
      const c = await owner(m);
      const started = await c.submit('/panel/account', '/panel/account/totp/start');
      const secret = /id="totp-secret">([A-Z2-7]+)</.exec(started.html)?.[1];
      assert.ok(secret, 'the key is shown');
      const wrong = await c.submit('/panel/account', '/panel/account/totp/confirm', { code: '000000' === totpCode(secret!, new Date()) ? '111111' : '000000' });
      assert.equal(wrong.status, 422);
      const on = await c.submit('/panel/account', '/panel/account/totp/confirm', { code: totpCode(secret!, new Date()) });
      assert.match(on.html, /Two-factor sign-in is on/);

      const d = new PanelClient(s.url);
      const step = await d.signIn(m.panel.email, m.panel.password);
      assert.equal(step.url, '/panel/login/code');
      const pending = sessionCookie(d);
      assert.equal((await d.get('/panel/deposits')).url, '/panel/login/code', 'nothing but the code until it is given');
      const bad = await d.submit('/panel/login/code', '/panel/login/code', { code: String((Number(totpCode(secret!, new Date())) + 500000) % 1000000).padStart(6, '0') });
      assert.equal(bad.status, 401);
      // The next step's code: the one that confirmed the key is used up (a code works once, see review.test.ts).
      const ok = await d.submit('/panel/login/code', '/panel/login/code', { code: totpCode(secret!, new Date(Date.now() + 30_000)) });
      assert.equal(ok.url, '/panel');
      assert.notEqual(sessionCookie(d), pending, 'a new session value after the second factor');
    });

    test('CSRF: a post without the token, with another session\'s token or from another origin changes nothing', async () => {
      const c = await owner();
      const id = await cashout(a);
      const page = await c.get(`/panel/cashouts/${id}`);
      const csrf = /name="csrf" value="([^"]+)"/.exec(page.html)![1]!;
      const noToken = await c.request('POST', `/panel/cashouts/${id}/hold`, new URLSearchParams({}));
      assert.equal(noToken.status, 403);
      assert.match(noToken.html, /The form expired/);
      const other = await owner();
      const otherCsrf = /name="csrf" value="([^"]+)"/.exec((await other.get('/panel')).html)![1]!;
      assert.equal((await c.request('POST', `/panel/cashouts/${id}/hold`, new URLSearchParams({ csrf: otherCsrf }))).status, 403);
      const crossSite = await c.request('POST', `/panel/cashouts/${id}/hold`, new URLSearchParams({ csrf }), { origin: 'https://evil.example' });
      assert.equal(crossSite.status, 403);
      assert.equal((await c.request('POST', '/panel/login', new URLSearchParams({ email: a.panel.email, password: a.panel.password }), { origin: 'https://evil.example' })).status, 403, 'login CSRF');
      const multipart = new FormData();
      multipart.set('anything', 'x');
      assert.equal((await c.request('POST', `/panel/cashouts/${id}/hold`, multipart)).status, 403, 'a multipart post carries no token either');
      const upload = new FormData();
      upload.set('file', new Blob(['external_id\nx'], { type: 'text/csv' }), 'x.csv');
      assert.equal((await c.request('POST', '/panel/cashouts/import', upload)).status, 403, 'an upload without the token');
      assert.equal(await cashoutStatus(a, id), 'Pending');
      const held = await c.request('POST', `/panel/cashouts/${id}/hold`, new URLSearchParams({ csrf }));
      assert.equal(held.url, `/panel/cashouts/${id}?done=hold`);
      assert.equal(await cashoutStatus(a, id), 'On hold');
    });

    test('IDOR: another merchant\'s deposit, cashout and notification are "not found" by URL and by action', async () => {
      const c = await owner(a);
      const theirs = await cashout(b);
      const dep = await V3Client.deposits(s.url, b).post('/v3/deposits', { country: 'BR', amount: '10.00', payment_method: 'IX', payer: { document: '529.982.247-25', first_name: 'Ana', last_name: 'Silva', email: 'ana@example.com' } });
      assert.equal(dep.status, 200, dep.text);
      const depositId = dep.body.deposit_id;
      assert.equal((await c.get(`/panel/deposits/${depositId}`)).status, 404);
      assert.equal((await c.get(`/panel/cashouts/${theirs}`)).status, 404);
      assert.equal((await c.submit('/panel', `/panel/cashouts/${theirs}/cancel`)).status, 404);
      assert.equal((await c.submit('/panel', `/panel/deposits/${depositId}/sandbox/approve`, { payment_method: 'IX' })).status, 404);
      assert.equal((await c.submit('/panel', `/panel/deposits/${depositId}/refund`)).status, 404);
      assert.equal(await cashoutStatus(b, theirs), 'Pending');
      const v3b = V3Client.deposits(s.url, b);
      assert.equal((await v3b.post(`/v3/sandbox/deposits/${depositId}/approve`, {})).status, 200);
      const refund = await v3b.post('/v3/refunds', { deposit_id: depositId, amount: '1.00', bank_account: { beneficiary: 'Maria Souza', bank_code: '341', branch: '0001', account_number: '12345-4', account_type: 'CHECKING' } });
      assert.equal(refund.status, 200, refund.text);
      assert.equal((await c.submit('/panel', `/panel/refunds/${refund.body.refund_id}/complete`)).status, 404);
      assert.equal((await v3b.get(`/v3/refunds/${refund.body.refund_id}`)).body.status, 'PENDING');
      const search = await c.get(`/panel/deposits?q=${depositId}`);
      assert.doesNotMatch(search.html, new RegExp(`/panel/deposits/${depositId}"`));
      assert.equal((await c.get('/panel/deposits/abc')).status, 404);
      assert.equal((await c.get('/panel/cashouts/99999999999')).status, 404);
    });
  });
}
