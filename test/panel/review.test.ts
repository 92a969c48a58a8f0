// Issue 25's panel findings, over HTTP as a person's browser (and the operator) speak to it:
// roles decide every API-access action (page and forged post alike), a TOTP code works once,
// panel e-mails are unique per merchant without telling one merchant about another, the
// production test notification names no resolved address, and iframe_view=1 pages may be framed
// only by the merchant's own origins.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { admin, cashoutRequest, createMerchant, V3Client, type Credentials } from '../helpers/clients.ts';
import { backends, startTestServer, type TestServer } from '../helpers/server.ts';
import { totpCode } from '../../src/backoffice/totp.ts';
import { PanelClient } from './helpers.ts';

const ROLES = ['owner', 'admin', 'developer', 'finance', 'support'] as const;
type Role = (typeof ROLES)[number];
const SETS = ['deposits', 'web_status', 'cashouts', 'read_only', 'panel'] as const;
type Set = (typeof SETS)[number];

/** What each role may do under Settings → API access, written out (src/panel/services/roles.ts is the one table). */
const MAY: Record<Role, Record<Set | 'page' | 'settings' | 'notifications', boolean>> = {
  owner: { page: true, deposits: true, web_status: true, cashouts: true, read_only: true, panel: true, settings: true, notifications: true },
  admin: { page: true, deposits: true, web_status: true, cashouts: true, read_only: true, panel: false, settings: true, notifications: true },
  developer: { page: true, deposits: false, web_status: false, cashouts: false, read_only: true, panel: false, settings: true, notifications: true },
  finance: { page: false, deposits: false, web_status: false, cashouts: false, read_only: false, panel: false, settings: false, notifications: false },
  support: { page: false, deposits: false, web_status: false, cashouts: false, read_only: false, panel: false, settings: false, notifications: false },
};

const csrfOf = (html: string) => /name="csrf" value="([^"]+)"/.exec(html)?.[1];

for (const backend of backends()) {
  describe(`panel review findings (${backend})`, () => {
    let s: TestServer;
    let n = 0;
    before(async () => {
      s = await startTestServer(backend);
    });
    after(() => s.close());

    const owner = async (m: Credentials) => {
      const c = new PanelClient(s.url);
      const p = await c.signIn(m.panel.email, m.panel.password);
      assert.equal(p.url, '/panel', p.html.slice(0, 300));
      return c;
    };
    /** The owner invites `email` with `role`; answers the invitation page. */
    const invite = async (o: PanelClient, email: string, role: string) => o.submit('/panel/team', '/panel/team/invite', { email, role });
    const invitedPassword = (html: string) => /class="secret">([^<]+)</.exec(html)?.[1];
    const member = async (m: Credentials, role: Role) => {
      if (role === 'owner') return owner(m);
      const email = `${role}-${backend}-${++n}@example.com`;
      const password = invitedPassword((await invite(await owner(m), email, role)).html);
      assert.ok(password);
      const u = new PanelClient(s.url);
      assert.equal((await u.signIn(email, password!)).url, '/panel');
      return u;
    };
    const credentialRows = async (merchantId: number) =>
      (await s.ctx.db.query<{ set_name: string; login: string; secret_hash: string | null; secret_enc: string | null }>(
        'SELECT set_name, login, secret_hash, secret_enc FROM credentials WHERE merchant_id = $1 ORDER BY set_name', [merchantId],
      )).rows;

    for (const role of ROLES) {
      test(`roles, ${role}: every API-access action is offered, and done on a post with a valid CSRF token, exactly as the role table says`, async () => {
        const m = await createMerchant(s.url, `Roles ${role}`);
        const u = await member(m, role);
        const may = MAY[role];
        const api = await u.get('/panel/settings/api');
        assert.equal(api.status, may.page ? 200 : 403, 'Settings → API access');
        assert.equal(/href="\/panel\/settings\/api"/.test(api.html), may.page, 'in the menu');
        assert.equal((await u.get('/panel/notifications')).status, may.notifications ? 200 : 403, 'notifications');
        // Offered: the rotate link on the page, and its confirmation page.
        for (const set of SETS) {
          assert.equal(api.html.includes(`href="/panel/settings/api/rotate?set=${set}"`), may[set], `rotate ${set} offered`);
          assert.equal((await u.get(`/panel/settings/api/rotate?set=${set}`)).status, may[set] ? 200 : 403, `confirm page of ${set}`);
        }
        assert.equal(api.html.includes('action="/panel/settings/urls"'), may.settings, 'URL form offered');
        assert.equal(api.html.includes('action="/panel/settings/test-notification"'), may.notifications, 'test notification offered');

        // Forged posts, each with this session's valid token (read from a page every role opens).
        const csrf = csrfOf((await u.get('/panel/account')).html)!;
        const post = (action: string, fields: Record<string, string> = {}) => u.request('POST', action, new URLSearchParams({ csrf, ...fields }));
        // (A loopback port nothing listens on: the test notification is refused at once.)
        const urls = await post('/panel/settings/urls', { notification_url: 'https://127.0.0.1:1/n', return_url: '', logo_url: '' });
        assert.equal(urls.status, may.settings ? 200 : 403, 'save URLs');
        assert.equal((await admin(s.url, 'GET', `/admin/merchants/${m.merchant_id}`)).body.notification_url, may.settings ? 'https://127.0.0.1:1/n' : null);
        assert.equal((await post('/panel/settings/test-notification')).status, may.notifications ? 200 : 403, 'test notification');
        // The owner's own panel password last: rotating it ends the owner's session.
        for (const set of SETS) {
          const before = await credentialRows(m.merchant_id);
          const r = await post('/panel/settings/api/rotate', { set });
          const after = await credentialRows(m.merchant_id);
          const changed = JSON.stringify(before.find((x) => x.set_name === set)) !== JSON.stringify(after.find((x) => x.set_name === set));
          assert.equal(r.status, may[set] ? 200 : 403, `rotate ${set}`);
          assert.equal(changed, may[set], `${set} ${may[set] ? 'rotated' : 'unchanged'}`);
          assert.equal(/data-secret=/.test(r.html), may[set], `${set} secrets ${may[set] ? 'shown once' : 'never shown'}`);
          assert.deepEqual(after.filter((x) => x.set_name !== set), before.filter((x) => x.set_name !== set), 'no other set touched');
        }
      });
    }

    test('roles: a developer cannot take the cashouts or deposits secrets, so cannot move money with them; the live integration keeps working', async () => {
      const m = await createMerchant(s.url, 'Live integration');
      const dev = await member(m, 'developer');
      const csrf = csrfOf((await dev.get('/panel/settings/api')).html)!;
      for (const set of ['cashouts', 'deposits'] as const) {
        const r = await dev.request('POST', '/panel/settings/api/rotate', new URLSearchParams({ csrf, set }));
        assert.equal(r.status, 403, set);
        assert.match(r.html, /Your role \(Developer\) cannot do this/);
        assert.doesNotMatch(r.html, /secret_key|data-secret/);
      }
      // The owner's credentials still work: a cashout status call is judged (509), not refused (401).
      const st = await cashoutRequest(s.url, m, 'POST', '/v3/cashout/status', { cashout_id: 999999 });
      assert.deepEqual([st.status, st.body.code], [404, 509], st.text);
      assert.equal((await V3Client.deposits(s.url, m).get('/v3/balance')).status, 200);
      // What a developer does get: the read-only key.
      const ro = await dev.request('POST', '/panel/settings/api/rotate', new URLSearchParams({ csrf, set: 'read_only' }));
      assert.equal(ro.status, 200);
      assert.match(ro.html, /data-secret="read_only_key">ro_/);
    });

    test('TOTP: a code is accepted once — the same code a second time is refused, as is the code that confirmed the key', async () => {
      const m = await createMerchant(s.url, 'Totp once');
      const c = await owner(m);
      const secret = /id="totp-secret">([A-Z2-7]+)</.exec((await c.submit('/panel/account', '/panel/account/totp/start')).html)![1]!;
      const enrolCode = totpCode(secret, new Date());
      assert.match((await c.submit('/panel/account', '/panel/account/totp/confirm', { code: enrolCode })).html, /Two-factor sign-in is on/);

      const codeStep = async (code: string) => {
        const d = new PanelClient(s.url);
        assert.equal((await d.signIn(m.panel.email, m.panel.password)).url, '/panel/login/code');
        return d.submit('/panel/login/code', '/panel/login/code', { code });
      };
      assert.equal((await codeStep(enrolCode)).status, 401, 'the enrolment code cannot sign in');
      const next = totpCode(secret, new Date(Date.now() + 30_000));
      assert.equal((await codeStep(next)).url, '/panel', 'a fresh code signs in');
      const again = await codeStep(next);
      assert.equal(again.status, 401, 'the same code twice: the second is refused');
      assert.match(again.html, /code is not right/i);
      // A later step works again.
      const real = s.ctx.now;
      try {
        s.ctx.now = () => new Date(Date.now() + 60_000);
        assert.equal((await codeStep(totpCode(secret, new Date(Date.now() + 60_000)))).url, '/panel');
      } finally {
        s.ctx.now = real;
      }
    });

    test('e-mails are unique per merchant: another merchant\'s addresses are neither revealed nor claimable', async () => {
      const a = await createMerchant(s.url, `Shop A ${backend}`);
      const b = await createMerchant(s.url, `Shop B ${backend}`);
      const c = await createMerchant(s.url, `Shop C ${backend}`);
      const ownerA = await owner(a);
      const ownerB = await owner(b);
      // B's owner e-mail, and an address B's team uses: A's invitations answer as for any new address.
      const shared = `shared-${backend}-${Date.now()}@example.com`;
      const pB = invitedPassword((await invite(ownerB, shared, 'developer')).html);
      assert.ok(pB);
      for (const email of [b.panel.email, shared]) {
        const r = await invite(ownerA, email, 'support');
        assert.equal(r.status, 200, email);
        assert.doesNotMatch(r.html, /already has a panel account/, email);
        assert.ok(invitedPassword(r.html), email);
      }
      // Within one merchant an address is still once.
      const dup = await invite(ownerA, shared, 'finance');
      assert.equal(dup.status, 422);
      assert.match(dup.html, /already has a panel account/);
      // C's owner has never signed in; A inviting C's owner e-mail first claims nothing.
      assert.equal((await invite(ownerA, c.panel.email, 'support')).status, 200);
      const cOwner = new PanelClient(s.url);
      assert.equal((await cOwner.signIn(c.panel.email, c.panel.password)).url, '/panel');
      assert.match((await cOwner.get('/panel')).html, new RegExp(`Shop C ${backend}`));
      // B's owner and B's developer still open B's panel.
      assert.match((await (await owner(b)).get('/panel')).html, new RegExp(`Shop B ${backend}`));
      const devB = new PanelClient(s.url);
      assert.equal((await devB.signIn(shared, pB!)).url, '/panel');
      assert.match((await devB.get('/panel')).html, new RegExp(`Shop B ${backend} · `));
    });

    test('sign-in with an e-mail of several merchants: the password says which; the same password at both asks which merchant', async () => {
      const a = await createMerchant(s.url, `Multi A ${backend}`);
      const b = await createMerchant(s.url, `Multi B ${backend}`);
      const email = `consultant-${backend}-${Date.now()}@example.com`;
      const pA = invitedPassword((await invite(await owner(a), email, 'developer')).html)!;
      const pB = invitedPassword((await invite(await owner(b), email, 'finance')).html)!;
      const inA = new PanelClient(s.url);
      assert.equal((await inA.signIn(email, pA)).url, '/panel');
      assert.match((await inA.get('/panel')).html, new RegExp(`Multi A ${backend} · .*\\(Developer\\)`, 's'));
      const inB = new PanelClient(s.url);
      assert.equal((await inB.signIn(email, pB)).url, '/panel');
      assert.match((await inB.get('/panel')).html, new RegExp(`Multi B ${backend} · .*\\(Finance\\)`, 's'));
      assert.equal((await new PanelClient(s.url).signIn(email, 'neither of them')).status, 401);

      // The person sets the same password at both.
      const same = 'one passphrase for both shops';
      for (const [cl, old] of [[inA, pA], [inB, pB]] as const) {
        assert.equal((await cl.submit('/panel/account', '/panel/account/password', { current: old, next: same, confirm: same })).url, '/panel/account?done=password');
      }
      const p = new PanelClient(s.url);
      const choose = await p.signIn(email, same);
      assert.equal(choose.status, 200);
      assert.match(choose.html, /Choose a merchant/);
      const options = [...choose.html.matchAll(/name="account" value="([^"]+)">[\s\S]*?<button class="button wide">([^<]+)<\/button>/g)].map((x) => ({ key: x[1]!, label: x[2]! }));
      assert.deepEqual(options.map((o) => o.label).sort(), [`Multi A ${backend} · Developer`, `Multi B ${backend} · Finance`]);
      assert.equal(p.cookies.get('caja_panel'), undefined, 'no session before the choice');
      // A choice the ticket does not name, or without the ticket, opens nothing.
      assert.equal((await p.request('POST', '/panel/login/choose', new URLSearchParams({ account: 'o:1' }))).status, 401);
      const noTicket = new PanelClient(s.url);
      assert.equal((await noTicket.request('POST', '/panel/login/choose', new URLSearchParams({ account: options[0]!.key }))).status, 401);
      const forB = options.find((o) => o.label.startsWith('Multi B'))!;
      const p2 = new PanelClient(s.url);
      await p2.signIn(email, same);
      const opened = await p2.request('POST', '/panel/login/choose', new URLSearchParams({ account: forB.key }));
      assert.equal(opened.url, '/panel');
      assert.match(opened.html, new RegExp(`Multi B ${backend} · `));
    });

    test('test notification in staging keeps the detail of a refused address', async () => {
      const m = await createMerchant(s.url, 'Private hook', { notification_url: 'https://10.1.2.3/hook' });
      const p = await (await owner(m)).submit('/panel/settings/api', '/panel/settings/test-notification');
      assert.equal(p.status, 200);
      assert.match(p.html, /Not delivered: refused: 10\.1\.2\.3 address 10\.1\.2\.3 is private, not a public address/);
    });

    test('iframe_view=1 pages: framed only by the merchant\'s origins (its setting, by default those of its notification and return URLs)', async () => {
      const m = await createMerchant(s.url, 'Framing', { notification_url: 'https://hooks.shop.example/n', return_url: 'https://www.shop.example/back?x=1' });
      const v3 = V3Client.deposits(s.url, m);
      const hosted = async () => {
        const r = await v3.post('/v3/deposits', { country: 'BR', amount: '30.00' });
        assert.equal(r.status, 200, r.text);
        return r.body.redirect_url as string;
      };
      const headers = async (url: string) => {
        const r = await fetch(url);
        await r.text();
        return { csp: r.headers.get('content-security-policy') ?? '', xfo: r.headers.get('x-frame-options') };
      };
      const url = await hosted();
      let h = await headers(`${url}?iframe_view=1`);
      assert.match(h.csp, /frame-ancestors https:\/\/hooks\.shop\.example https:\/\/www\.shop\.example(;|$)/, 'by default, the URLs\' origins');
      assert.doesNotMatch(h.csp, /frame-ancestors[^;]*https:(\s|;|$)/, 'not any https site');
      assert.equal(h.xfo, null);
      assert.match((await headers(url)).csp, /frame-ancestors 'none'/, 'without iframe_view, never framed');

      const patch = (frame_origins: unknown) => admin(s.url, 'PATCH', `/admin/merchants/${m.merchant_id}`, { frame_origins });
      const set = await patch(['https://Shop.Example', 'https://pay.shop.example:8443/', 'http://localhost:3000']);
      assert.equal(set.status, 200, set.text);
      assert.deepEqual(set.body.frame_origins, ['https://shop.example', 'https://pay.shop.example:8443', 'http://localhost:3000']);
      assert.deepEqual(set.body.frame_origins_in_effect, set.body.frame_origins);
      h = await headers(`${url}?iframe_view=1`);
      assert.match(h.csp, /frame-ancestors https:\/\/shop\.example https:\/\/pay\.shop\.example:8443 http:\/\/localhost:3000(;|$)/);
      assert.equal((await patch([])).body.frame_origins_in_effect.length, 0);
      h = await headers(`${url}?iframe_view=1`);
      assert.match(h.csp, /frame-ancestors 'none'/, 'an empty list: no site');
      assert.equal(h.xfo, 'DENY');
      const reset = await patch('default');
      assert.equal(reset.body.frame_origins, null);
      assert.deepEqual(reset.body.frame_origins_in_effect, ['https://hooks.shop.example', 'https://www.shop.example']);

      for (const bad of [['http://shop.example'], ['https://shop.example/pay'], ['https://a;script-src.example'], ['https://*.shop.example'], ['javascript:alert(1)'], ['https://u:p@shop.example'], 'https://shop.example']) {
        const r = await patch(bad);
        assert.equal(r.status, 400, `${JSON.stringify(bad)}: ${r.text}`);
        assert.equal(r.body.code, 201);
      }
      // A merchant with neither URL nor setting: no site frames its pages.
      const bare = await createMerchant(s.url, 'No URLs');
      const r = await V3Client.deposits(s.url, bare).post('/v3/deposits', { country: 'BR', amount: '30.00' });
      assert.match((await headers(`${r.body.redirect_url}?iframe_view=1`)).csp, /frame-ancestors 'none'/);

      // The panel's settings page sets it too (owner, admin, developer).
      const o = await owner(m);
      const saved = await o.submit('/panel/settings/api', '/panel/settings/urls', {
        notification_url: 'https://hooks.shop.example/n', return_url: '', logo_url: '', frame_origins: 'https://shop.example, https://app.shop.example',
      });
      assert.match(saved.html, /URLs saved/);
      assert.match((await headers(`${url}?iframe_view=1`)).csp, /frame-ancestors https:\/\/shop\.example https:\/\/app\.shop\.example(;|$)/);
      const refused = await o.submit('/panel/settings/api', '/panel/settings/urls', { notification_url: '', return_url: '', logo_url: '', frame_origins: 'http://evil.example' });
      assert.equal(refused.status, 422);
      assert.match(refused.html, /must be https/);
      await o.submit('/panel/settings/api', '/panel/settings/urls', { notification_url: '', return_url: '', logo_url: '', frame_origins: 'none' });
      assert.deepEqual((await admin(s.url, 'GET', `/admin/merchants/${m.merchant_id}`)).body.frame_origins, []);

      // The admin route documents it.
      const doc = (await (await fetch(`${s.url}/openapi.json`)).json()) as any;
      const body = doc.paths['/admin/merchants/{id}'].patch.requestBody.content['application/json'].schema;
      assert.match(body.properties.frame_origins.description, /frame-ancestors/);
    });
  });
}

describe('panel review findings in production', () => {
  let s: TestServer;
  before(async () => {
    s = await startTestServer('pglite', { CAJA_ENV: 'production', PUBLIC_BASE_URL: 'https://caja.example' });
  });
  after(() => s.close());

  test('test notification to a name that resolves to a private address: "refused: private address", no resolved address', async () => {
    // Set before production refused loopback URLs when they are set (issue 38): still refused at each call.
    const m = await createMerchant(s.url, 'Prod hook');
    await s.ctx.db.query(`UPDATE merchants SET notification_url = 'https://localhost/hook' WHERE id = $1`, [m.merchant_id]);
    s.ctx.cache.changed();
    const c = new PanelClient(s.url);
    assert.equal((await c.signIn(m.panel.email, m.panel.password)).url, '/panel');
    const p = await c.submit('/panel/settings/api', '/panel/settings/test-notification');
    assert.equal(p.status, 200);
    assert.match(p.html, /Not delivered: refused: private address</);
    assert.doesNotMatch(p.html, /127\.0\.0\.1|::1|loopback|is private/);
    assert.doesNotMatch((await c.get('/panel/audit')).html, /loopback|is private/, 'nor in the audit log');
  });

  test('frame origins: https only in production', async () => {
    const m = await createMerchant(s.url, 'Prod framing');
    const patch = (frame_origins: unknown) => admin(s.url, 'PATCH', `/admin/merchants/${m.merchant_id}`, { frame_origins });
    assert.equal((await patch(['http://localhost:3000'])).status, 400);
    const ok = await patch(['https://shop.example']);
    assert.equal(ok.status, 200, ok.text);
    assert.deepEqual(ok.body.frame_origins_in_effect, ['https://shop.example']);
  });
});
