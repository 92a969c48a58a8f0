// The panel over HTTP, as a person's browser speaks to it (test/panel/over-http.ts): roles,
// escaping of merchant- and payer-supplied text, framing, bad input, the cashout CSV batch,
// exports, the audit log and the test notification; the panel in production. Sign-in and
// sessions: panel.test.ts.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createMerchant, V3Client } from '../helpers/clients.ts';
import { backends, startTestServer, type TestServer } from '../helpers/server.ts';
import { readFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { PanelClient } from './helpers.ts';
import { fundMerchant } from '../helpers/four-eyes.ts';
import { a, cashout, cashoutStatus, ext, owner, panelServer, s, XSS } from './over-http.ts';
import { cpf } from '../helpers/documents.ts';

for (const backend of backends()) {
  describe(`merchant panel over HTTP: roles, money and exports (${backend})`, () => {
    panelServer(backend);

    test('roles: support reads lists but is refused every change; finance moves money but not API keys; developer the reverse', async () => {
      const c = await owner();
      const invite = async (role: string) => {
        const email = `${role}-${backend}-${Date.now()}@example.com`;
        const p = await c.submit('/panel/team', '/panel/team/invite', { email, role });
        const password = /class="secret">([^<]+)</.exec(p.html)?.[1];
        assert.ok(password, p.html.slice(0, 300));
        const u = new PanelClient(s.url);
        assert.equal((await u.signIn(email, password!)).url, '/panel');
        return u;
      };
      const support = await invite('support');
      const finance = await invite('finance');
      const developer = await invite('developer');
      const id = await cashout(a);
      for (const path of ['/panel/deposits', '/panel/cashouts', `/panel/cashouts/${id}`, '/panel/balance']) assert.equal((await support.get(path)).status, 200, path);
      const denied = await support.submit(`/panel/cashouts/${id}`, `/panel/cashouts/${id}/cancel`);
      assert.equal(denied.status, 403);
      assert.match(denied.html, /Your role \(Support\) cannot do this/);
      assert.doesNotMatch((await support.get(`/panel/cashouts/${id}`)).html, /\/cancel"/, 'no button it may not press');
      for (const path of ['/panel/settings/api', '/panel/notifications', '/panel/team', '/panel/audit', '/panel/cashouts/new']) assert.equal((await support.get(path)).status, 403, path);
      assert.equal(await cashoutStatus(a, id), 'Pending');
      assert.equal((await finance.get('/panel/settings/api')).status, 403);
      assert.equal((await finance.submit(`/panel/cashouts/${id}`, `/panel/cashouts/${id}/hold`)).url, `/panel/cashouts/${id}?done=hold`);
      assert.equal((await developer.submit(`/panel/cashouts/${id}`, `/panel/cashouts/${id}/release`)).status, 403);
      assert.equal((await developer.get('/panel/settings/api')).status, 200);
      assert.equal((await developer.submit('/panel/settings/api', '/panel/settings/api/rotate', { set: 'panel' })).status, 403, 'only the owner replaces the owner password');
      // A reset gives a new one-time password and ends the member's sessions.
      const financeEmail = /Signed in as ([^ ]+) \(Finance\)/.exec((await finance.get('/panel')).html)![1]!;
      const resetAction = new RegExp(`${financeEmail.replace(/[.]/g, '\\.')}</td>[\\s\\S]*?action="(/panel/team/\\d+/reset)"`).exec((await c.get('/panel/team')).html)![1]!;
      const reset = await c.submit('/panel/team', resetAction);
      const fresh = /class="secret">([^<]+)</.exec(reset.html)![1]!;
      assert.equal((await finance.get('/panel')).url, '/panel/login?next=%2Fpanel');
      assert.equal((await new PanelClient(s.url).signIn(financeEmail, fresh)).url, '/panel');
      // Removing a member ends their sessions at once.
      const team = await c.get('/panel/team');
      const removeAction = [...team.html.matchAll(/action="(\/panel\/team\/\d+\/remove)"/g)].map((x) => x[1]!);
      for (const action of removeAction) await c.submit('/panel/team', action);
      assert.equal((await support.get('/panel')).url, '/panel/login?next=%2Fpanel');
    });

    test('stored XSS: merchant, payer and beneficiary text is escaped on every page it appears', async () => {
      const c = await owner();
      const dep = await V3Client.deposits(s.url, a).post('/v3/deposits', {
        country: 'BR', amount: '10.00', payment_method: 'IX', description: XSS,
        payer: { document: '529.982.247-25', first_name: '<script>x()</script>', last_name: '"><img src=x onerror=y()>', email: 'xss@example.com' },
      });
      assert.equal(dep.status, 200, dep.text);
      const id = await cashout(a, { beneficiary_name: '<b onmouseover=z()>Bob</b>', comments: XSS });
      for (const path of ['/panel', `/panel/deposits/${dep.body.deposit_id}`, '/panel/deposits?q=xss@example.com', '/panel/cashouts', `/panel/cashouts/${id}`, '/panel/audit']) {
        const p = await c.get(path);
        assert.equal(p.status, 200, path);
        assert.doesNotMatch(p.html, /<script>(?!\s*$)|<img src=x|<b onmouseover/i, path);
      }
      const detail = await c.get(`/panel/cashouts/${id}`);
      assert.match(detail.html, /&lt;b onmouseover=z\(\)&gt;Bob&lt;\/b&gt;/);
      const head = await c.get('/panel');
      assert.match(head.html, /Tienda &lt;script&gt;/);
      assert.doesNotMatch(head.html, /<script[\s>]/i, 'the panel ships no script at all');
    });

    test('clickjacking and caching: every panel page refuses framing and is not stored', async () => {
      const c = await owner();
      for (const path of ['/panel/login', '/panel', '/panel/settings/api']) {
        const p = path === '/panel/login' ? await new PanelClient(s.url).get(path) : await c.get(path);
        assert.equal(p.headers.get('x-frame-options'), 'DENY', path);
        assert.match(p.headers.get('content-security-policy')!, /frame-ancestors 'none'/, path);
        assert.match(p.headers.get('content-security-policy')!, /default-src 'none'/, path);
        assert.equal(p.headers.get('cache-control'), 'no-store', path);
      }
    });

    test('bad input gets a clear 4xx page, never a 500', async () => {
      const c = await owner();
      assert.equal((await c.get('/panel/deposits?from=yesterday')).status, 400);
      assert.equal((await c.get('/panel/deposits?status=NOPE')).status, 400);
      assert.equal((await c.get('/panel/cashouts?before=-1')).status, 400);
      assert.equal((await c.get('/panel/balance.csv')).status, 400);
      const big = await c.request('POST', '/panel/cashouts/import', new FormData());
      assert.equal(big.status, 403, 'an upload without the CSRF token');
      const form = await c.submit('/panel/cashouts/new', '/panel/cashouts', { external_id: 'x', country: 'BR', amount: '-1' });
      assert.equal(form.status, 422);
      assert.match(form.html, /amount: /);
      const badUrl = await c.submit('/panel/settings/api', '/panel/settings/urls', { notification_url: 'javascript:alert(1)', return_url: '' });
      assert.equal(badUrl.status, 422);
      assert.match(badUrl.html, /must be a valid URL|must be an HTTPS URL/);
    });

    test('cashout CSV batch: one bad row creates nothing and is reported; the fixed file creates all and reserves; the same file again creates nothing', async () => {
      const c = await owner();
      const balance = async () => (await V3Client.deposits(s.url, a).get('/v3/balance')).body.balances.find((x: any) => x.currency === 'USD');
      const rows = [ext(), ext(), ext()];
      const header = 'external_id,country,currency,amount,document_id,beneficiary_name,beneficiary_lastname,bank_code,bank_branch,bank_account,account_type';
      const line = (e: string, amount = '5.00') => `${e},BR,USD,${amount},${cpf('529982247')},"Souza, Maria",Souza,260,0001,12345-6,C`;
      const upload = async (text: string) => {
        const page = await c.get('/panel/cashouts/import');
        const csrf = /name="csrf" value="([^"]+)"/.exec(page.html)![1]!;
        const fd = new FormData();
        fd.set('csrf', csrf);
        fd.set('file', new Blob([text], { type: 'text/csv' }), 'batch.csv');
        return c.request('POST', '/panel/cashouts/import', fd);
      };
      const cashoutRows = async () => (await s.ctx.db.query<{ n: number }>('SELECT count(*)::int AS n FROM cashouts WHERE merchant_id = $1', [a.merchant_id])).rows[0]!.n;
      const before = await balance();
      const rowsBefore = await cashoutRows();
      const bad = await upload([header, line(rows[0]!), line(rows[1]!, '-3'), line(rows[2]!)].join('\r\n'));
      assert.equal(bad.status, 422);
      assert.match(bad.html, /1 of 3 rows are rejected; nothing was created/);
      assert.match(bad.html, /<td>3<\/td><td>[^<]+<\/td><td>amount: /, 'line 3, its external_id and the reason');
      assert.match(bad.html, /download="rejected-rows.csv"/);
      assert.deepEqual(await balance(), before, 'nothing reserved');
      assert.equal(await cashoutRows(), rowsBefore, 'no cashout row, not even of the two good lines');
      const good = [header, ...rows.map((e) => line(e))].join('\n');
      const created = await upload(good);
      assert.equal(created.status, 200, created.html.slice(0, 500));
      assert.match(created.html, /3 cashouts created/);
      const after = await balance();
      assert.equal(Math.round((before.available - after.available) * 100), 1500);
      assert.equal(Math.round((after.reserved - before.reserved) * 100), 1500);
      const again = await upload(good);
      assert.match(again.html, /already imported/);
      assert.deepEqual(await balance(), after, 'nothing created twice');
      assert.equal(await cashoutRows(), rowsBefore + 3, 'three rows, once');
      const list = await c.get(`/panel/cashouts?q=${rows[1]}`);
      assert.match(list.html, new RegExp(rows[1]!));
    });

    test('the CSV example in docs/panel.md imports as written', async () => {
      const m = await createMerchant(s.url, 'Docs shop');
      await fundMerchant(s, m.merchant_id, '100.00', 'USD', 'docs');
      const example = /```csv\n([\s\S]*?)```/.exec(readFileSync('docs/panel.md', 'utf8'))![1]!;
      const c = await owner(m);
      const csrf = /name="csrf" value="([^"]+)"/.exec((await c.get('/panel/cashouts/import')).html)![1]!;
      const fd = new FormData();
      fd.set('csrf', csrf);
      fd.set('file', new Blob([example.replace(/^ {2}/gm, '')], { type: 'text/csv' }), 'example.csv');
      const p = await c.request('POST', '/panel/cashouts/import', fd);
      assert.match(p.html, /2 cashouts created/, p.html.slice(0, 2000));
    });

    test('exports: filtered deposits, cashouts and balance movements as CSV, formulas neutralised', async () => {
      const c = await owner();
      const v3 = V3Client.deposits(s.url, a);
      const dep = await v3.post('/v3/deposits', { country: 'BR', amount: '12.34', payment_method: 'IX', payer: { document: '529.982.247-25', first_name: '=HYPERLINK("x")', last_name: 'S', email: 'csv@example.com' } });
      assert.equal(dep.status, 200, dep.text);
      const r = await fetch(`${s.url}/panel/deposits.csv?q=csv@example.com`, { headers: { cookie: c.cookieHeader } });
      assert.equal(r.status, 200);
      assert.match(r.headers.get('content-type')!, /text\/csv/);
      assert.match(r.headers.get('content-disposition')!, /attachment/);
      const text = await r.text();
      const lines = text.trim().split('\r\n');
      assert.equal(lines.length, 2, text);
      assert.match(lines[1]!, new RegExp(`^${dep.body.deposit_id},`));
      // More rows than one read of the stream (500): every one arrives, once, newest first.
      const m = await createMerchant(s.url, 'Busy shop');
      const busy = V3Client.deposits(s.url, m);
      for (let i = 0; i < 520; i += 40) {
        await Promise.all(Array.from({ length: 40 }, (_, j) => busy.post('/v3/deposits', { country: 'BR', amount: '10.00', payment_method: 'IX', invoice_id: `bulk-${i + j}`, payer: { document: '529.982.247-25', first_name: 'A', last_name: 'B', email: 'bulk@example.com' } })));
      }
      const owner2 = await owner(m);
      const all = (await (await fetch(`${s.url}/panel/deposits.csv?country=BR`, { headers: { cookie: owner2.cookieHeader } })).text()).trim().split('\r\n').slice(1);
      assert.equal(all.length, 520);
      assert.equal(new Set(all.map((l) => l.split(',')[0])).size, 520);
      const ids = all.map((l) => Number(l.split(',')[0]));
      assert.deepEqual(ids, [...ids].sort((x, y) => y - x));
      const bal = await (await fetch(`${s.url}/panel/balance.csv?currency=USD`, { headers: { cookie: c.cookieHeader } })).text();
      assert.match(bal, /adjustment\.credit/);
      assert.match(bal, /cashout\.reserve/);
    });

    test('audit log: who, what, when and from where, visible to admins', async () => {
      const c = await owner();
      const id = await cashout(a);
      await c.submit(`/panel/cashouts/${id}`, `/panel/cashouts/${id}/cancel`);
      const p = await c.get('/panel/audit');
      assert.match(p.html, new RegExp(`${a.panel.email}</td><td>127\\.0\\.0\\.1</td><td>cashout.cancel</td><td>cashout:${id}</td>`));
      assert.match(p.html, /sign_in/);
    });

    test('API access: a test notification shows the request and the response code (a loopback body withheld); a resend is the merchant\'s own only', async () => {
      const hits: string[] = [];
      const hook = http.createServer((req, res) => {
        let body = '';
        req.on('data', (c) => (body += c));
        req.on('end', () => {
          hits.push(`${req.headers['caja-signature']} ${body}`);
          res.writeHead(202, { 'content-type': 'text/plain' }).end('thanks <b>shop</b>');
        });
      });
      await new Promise<void>((r) => hook.listen(0, '127.0.0.1', r));
      try {
        const m = await createMerchant(s.url, 'Hooked');
        const c = await owner(m);
        const url = `http://127.0.0.1:${(hook.address() as AddressInfo).port}/hook`;
        const refused = await c.submit('/panel/settings/api', '/panel/settings/urls', { notification_url: url, return_url: '', logo_url: 'javascript:alert(1)' });
        assert.equal(refused.status, 422);
        const saved = await c.submit('/panel/settings/api', '/panel/settings/urls', { notification_url: url, return_url: '', logo_url: 'https://shop.example/logo.svg' });
        assert.match(saved.html, /URLs saved/);
        // The hosted checkout shows the logo set here.
        const hosted = await V3Client.deposits(s.url, m).post('/v3/deposits', { country: 'BR', amount: '10.00', payer: { first_name: 'A', last_name: 'B', email: 'h@example.com' } });
        assert.equal(hosted.status, 200, hosted.text);
        assert.match(await (await fetch(hosted.body.redirect_url)).text(), /<img src="https:\/\/shop\.example\/logo\.svg"/);
        const p = await c.submit('/panel/settings/api', '/panel/settings/test-notification');
        assert.equal(p.status, 200);
        assert.match(p.html, new RegExp(`POST ${url}`));
        assert.match(p.html, /Caja-Signature: t=\d+,v1=[0-9a-f]{64}/);
        // A loopback destination's answer is never shown (it could be an internal service's), its code is.
        assert.match(p.html, /202\n\n\(the body of a private or loopback address is not shown\)/);
        assert.doesNotMatch(p.html, /thanks/);
        assert.equal(hits.length, 1);
        assert.match(hits[0]!, /"test":true/);

        const v3 = V3Client.deposits(s.url, m);
        const dep = await v3.post('/v3/deposits', { country: 'BR', amount: '10.00', payment_method: 'IX', payer: { document: '529.982.247-25', first_name: 'A', last_name: 'B', email: 'n@example.com' } });
        assert.equal((await v3.post(`/v3/sandbox/deposits/${dep.body.deposit_id}/approve`, {})).status, 200);
        const page = await c.get(`/panel/deposits/${dep.body.deposit_id}`);
        const resend = /action="(\/panel\/notifications\/\d+\/resend\?deposit=\d+)"/.exec(page.html)?.[1];
        assert.ok(resend, 'a resend button per notification');
        const done = await c.submit(`/panel/deposits/${dep.body.deposit_id}`, resend!.replace(/&amp;/g, '&'));
        assert.equal(done.url, `/panel/deposits/${dep.body.deposit_id}?done=resend`);
        assert.equal((await (await owner(a)).submit('/panel', resend!)).status, 404, 'another merchant cannot resend it');
        assert.match((await c.get('/panel/audit')).html, /notification\.resent/);
        const list = await c.get('/panel/notifications?status=pending');
        assert.match(list.html, new RegExp(`<a href="/panel/deposits/${dep.body.deposit_id}">deposit:${dep.body.deposit_id}</a>`));
        assert.equal((await c.get('/panel/notifications?status=bogus')).status, 400);
      } finally {
        await new Promise<void>((r) => hook.close(() => r()));
      }
    });
  });
}

describe('merchant panel in production', () => {
  let s: TestServer;
  before(async () => {
    s = await startTestServer('pglite', { CAJA_ENV: 'production', PUBLIC_BASE_URL: 'https://caja.example' });
  });
  after(() => s.close());

  test('Secure cookie, Production badge, no staging buttons, staging actions absent', async () => {
    const m = await createMerchant(s.url, 'Live shop');
    const r = await fetch(`${s.url}/panel/login`, {
      method: 'POST', redirect: 'manual', headers: { origin: s.url, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ email: m.panel.email, password: m.panel.password }),
    });
    assert.equal(r.status, 303);
    const set = r.headers.getSetCookie().find((x) => x.startsWith('caja_panel='))!;
    assert.match(set, /; Secure/);
    const c = new PanelClient(s.url);
    c.cookies.set('caja_panel', set.split(';')[0]!.split('=')[1]!);
    const home = await c.get('/panel');
    assert.match(home.html, /class="env production">Production</);
    assert.equal((await c.submit('/panel', '/panel/cashouts/1/deliver')).status, 404);
    assert.equal((await c.submit('/panel', '/panel/cashouts/1/cancel')).status, 404, 'no such cashout');
  });
});
