// The merchant panel driven in a real browser (Debian's Chromium through playwright-core), as a
// merchant's staff use it: sign in (a wrong password first; another account locked out), rotate
// a secret and use the new one against the API, find a deposit by payer e-mail, approve it in
// staging and watch its notification attempt arrive, refund it, hold/release/cancel a cashout,
// create one from the form, upload a CSV batch with one bad row, export a CSV, a support user
// refused a finance action, another merchant's deposit unreachable by URL, a phone-sized page
// and the Spanish panel. Every page is checked with axe-core (no serious or critical
// violation), for size, for CSP reports, and screenshotted under test/artifacts/panel-*.png.
// Without Chromium the suite is skipped, saying why.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import type { TestServer } from '../helpers/server.ts';
import { startWithMerchants } from '../helpers/merchants.ts';
import { cashoutRequest, createMerchant, V3Client, type Credentials } from '../helpers/clients.ts';
import { cpf } from '../helpers/documents.ts';
import { ARTIFACTS, browserHarness, skipWithoutChromium } from '../helpers/browser.ts';
import { PanelClient } from './helpers.ts';

/** The merchant's notification endpoint: records what arrives and answers 200. */
async function startHook() {
  const hits: { path: string; body: string }[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      hits.push({ path: req.url ?? '/', body: Buffer.concat(chunks).toString('utf8') });
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.end('received by the shop');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, hits, close: () => new Promise<void>((r) => server.close(() => r())) };
}

describe('merchant panel in Chromium', { skip: skipWithoutChromium }, () => {
  let s: TestServer;
  let m: Credentials;
  let other: Credentials;
  let hook: Awaited<ReturnType<typeof startHook>>;
  const browser = browserHarness('panel-');
  let page: Page;
  let seq = 0;
  const ext = () => `pb-${process.pid}-${++seq}`;

  before(async () => {
    hook = await startHook();
    ({ s, merchants: [m, other] } = await startWithMerchants('pglite', { CAJA_NOTIFY_POLL_MS: '100', CAJA_CASHOUT_DELAY_SECONDS: '600' }, [
      { name: 'Loja <Ana>', extra: { notification_url: `${hook.url}/hook` }, funds: '500.00' },
      { name: 'Other shop' },
    ], { workers: true }));
    page = await browser.open({ acceptDownloads: true, timeoutMs: 10_000 });
  });

  after(async () => {
    await browser.close();
    await s?.close();
    await hook?.close();
  });

  /** The harness's checks and screenshot, and the page's size; `docs`: also a viewport-only picture, the size docs/images/ keeps copies of. */
  async function checkPage(p: Page, name: string, opts: { docs?: boolean } = {}) {
    await p.waitForLoadState('load');
    const size = await p.evaluate(() => document.documentElement.outerHTML.length);
    assert.ok(size < 300_000, `${name}: ${size} bytes of HTML`);
    await browser.check(p, name);
    if (opts.docs) await p.screenshot({ path: join(ARTIFACTS, `docs-panel-${name}.png`) });
  }

  async function signIn(p: Page, email: string, password: string) {
    await p.goto(`${s.url}/panel/login`);
    await p.fill('#f-email', email);
    await p.fill('#f-password', password);
    await p.click('button:has-text("Sign in")');
  }

  // Generous: the whole suite shares two cores, and the notification worker polls.
  async function waitFor<T>(what: string, probe: () => Promise<T | undefined>, ms = 30_000, every = 300): Promise<T> {
    const end = Date.now() + ms;
    for (;;) {
      const v = await probe();
      if (v !== undefined) return v;
      if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
      await new Promise((r) => setTimeout(r, every));
    }
  }

  test('sign-in: a wrong password first, by keyboard; another account locked out after five', async () => {
    const locked = await createMerchant(s.url, 'Locked shop');
    for (let i = 0; i < 5; i++) await signIn(page, locked.panel.email, 'not-the-password');
    assert.match(await page.locator('[role=alert]').textContent() ?? '', /Too many failed attempts/);
    await checkPage(page, '01-locked');

    await page.goto(`${s.url}/panel`);
    assert.match(page.url(), /\/panel\/login\?next=/);
    await page.focus('#f-email');
    await page.keyboard.type(m.panel.email);
    await page.keyboard.press('Tab');
    await page.keyboard.type('wrong password');
    await page.keyboard.press('Enter');
    await page.waitForSelector('[role=alert]');
    assert.equal(await page.locator('[role=alert]').textContent(), 'The e-mail or password is not right.');
    assert.equal(await page.inputValue('#f-email'), m.panel.email, 'the e-mail is kept');
    await checkPage(page, '02-login-error');
    await page.focus('#f-password');
    await page.keyboard.type(m.panel.password);
    await page.keyboard.press('Enter');
    await page.waitForURL(`${s.url}/panel`);
    assert.equal(await page.locator('.env').textContent(), 'Staging');
    assert.match(await page.locator('.brand').textContent() ?? '', /Loja <Ana>/, 'the merchant name, as text');
    await checkPage(page, '03-home');
  });

  test('API access: rotate the deposits secret with a confirm step, then use the new one against the API', async () => {
    await page.goto(`${s.url}/panel/settings/api`);
    assert.ok(await page.locator(`text=${m.deposits.login}`).isVisible());
    await checkPage(page, '04-api-access');
    await page.click('a[href="/panel/settings/api/rotate?set=deposits"]');
    assert.match(await page.locator('h1').textContent() ?? '', /Rotate the Deposits credentials\?/);
    // The old values keep working 24 hours unless chosen otherwise (an integration switches without downtime).
    assert.equal(await page.locator('#f-grace_hours').inputValue(), '24');
    await checkPage(page, '05-rotate-confirm');
    await page.click('button:has-text("Yes, rotate now")');
    await page.waitForSelector('[data-secret=secret_key]');
    const login = (await page.locator('[data-secret=login]').textContent())!;
    const secret = (await page.locator('[data-secret=secret_key]').textContent())!;
    assert.match(await page.locator('[role=status]').textContent() ?? '', /keep working until \d{4}-\d\d-\d\d \d\d:\d\d UTC/);
    await checkPage(page, '06-rotated');
    const fresh = await new V3Client(s.url, login, secret).get('/v3/balance');
    assert.equal(fresh.status, 200, fresh.text);
    const old = await V3Client.deposits(s.url, m).get('/v3/balance');
    assert.equal(old.status, 200, 'the old one works during the overlap');
    await page.goto(`${s.url}/panel/settings/api`);
    assert.ok(await page.locator(`text=${login}`).isVisible());
    assert.ok(await page.locator('text=/replaced by the last rotation work until/').isVisible(), 'the API page says when the old values stop');
    // Leaked: rotated again with "stop at once", the values just shown stop at once.
    await page.click('a[href="/panel/settings/api/rotate?set=deposits"]');
    await page.selectOption('#f-grace_hours', '0');
    await page.click('button:has-text("Yes, rotate now")');
    await page.waitForSelector('[data-secret=secret_key]');
    const login2 = (await page.locator('[data-secret=login]').textContent())!;
    const secret2 = (await page.locator('[data-secret=secret_key]').textContent())!;
    assert.equal((await new V3Client(s.url, login, secret).get('/v3/balance')).status, 401, 'stopped at once');
    assert.equal((await new V3Client(s.url, login2, secret2).get('/v3/balance')).status, 200);
    m = { ...m, deposits: { ...m.deposits, login: login2, secret_key: secret2 } };
  });

  test('deposits: find one by payer e-mail, approve it in staging, see the notification attempt, refund part of it', async () => {
    const v3 = V3Client.deposits(s.url, m);
    const made = await v3.post('/v3/deposits', {
      invoice_id: `inv-${process.pid}`, country: 'BR', amount: '40.00', payment_method: 'IX',
      payer: { document: '529.982.247-25', first_name: 'Ana', last_name: 'Silva', email: 'ana.panel@example.com' },
    });
    assert.equal(made.status, 200, made.text);
    await v3.post('/v3/deposits', { country: 'BR', amount: '11.00', payment_method: 'IX', payer: { document: '529.982.247-25', first_name: 'Bo', last_name: 'B', email: 'bo@example.com' } });
    await page.goto(`${s.url}/panel/deposits`);
    await page.fill('#f-q', 'ANA.panel@example.com');
    await page.click('button:has-text("Filter")');
    await page.waitForURL(/q=ANA.panel/);
    assert.equal(await page.locator('tbody tr').count(), 1);
    await checkPage(page, '07-deposits-search');
    await page.click(`a[href="/panel/deposits/${made.body.deposit_id}"]`);
    await page.click('button:has-text("Approve")');
    await page.waitForURL(/done=approve/);
    assert.equal((await v3.get(`/v3/deposits/${made.body.deposit_id}`)).body.status, 'COMPLETED');
    await waitFor('the notification', async () => (hook.hits.some((h) => h.body.includes(String(made.body.deposit_id))) ? true : undefined));
    // The hook listens on loopback: caja records the attempt's status and timing but never what a
    // loopback or private destination answers (docs/security.md), so the page shows the 200.
    const attempt = await waitFor('the attempt on the page', async () => {
      await page.reload();
      const cell = page.locator('td', { hasText: /^200$/ });
      return (await cell.count()) ? cell : undefined;
    }, 30_000, 1000);
    assert.ok(await attempt.first().isVisible());
    assert.equal(await page.locator('td:has-text("received by the shop")').count(), 0);
    await checkPage(page, '08-deposit-approved', { docs: true });
    await page.goto(`${s.url}/panel/notifications`);
    assert.ok(await page.locator(`a[href="/panel/deposits/${made.body.deposit_id}"]`).first().isVisible());
    await checkPage(page, '08b-notifications');
    await page.goto(`${s.url}/panel/deposits/${made.body.deposit_id}`);

    await page.fill('#f-amount', '15.00');
    await page.fill('#f-bank_code', '341');
    await page.fill('#f-branch', '0001');
    await page.fill('#f-account_number', '12345-4');
    await page.selectOption('#f-account_type', 'CHECKING');
    await page.click('button:has-text("Refund")');
    await page.waitForURL(/done=refund/);
    assert.match(await page.locator('[role=status]').textContent() ?? '', /Refund \d+ created/);
    const refundRows = page.locator('h2:has-text("Refunds") + div tbody tr');
    assert.equal(await refundRows.count(), 1);
    assert.match(await refundRows.textContent() ?? '', /15\.00 USD/);
    const refundId = Number(/Refund (\d+) created/.exec(await page.locator('[role=status]').textContent() ?? '')![1]);
    assert.equal((await v3.get(`/v3/refunds/${refundId}`)).body.amount, 15);
    await checkPage(page, '09-deposit-refunded');
    // Staging: the bank completes the refund from the same table.
    await page.click(`form[action="/panel/refunds/${refundId}/complete"] button`);
    await page.waitForURL(/done=refund_complete/);
    assert.equal((await v3.get(`/v3/refunds/${refundId}`)).body.status, 'COMPLETED');
    assert.match(await refundRows.textContent() ?? '', /Completed/);
    // More than what remains: the service's rule, shown on the page.
    await page.fill('#f-amount', '100.00');
    await page.fill('#f-bank_code', '341');
    await page.fill('#f-branch', '0001');
    await page.fill('#f-account_number', '12345-4');
    await page.click('button:has-text("Refund")');
    await page.waitForSelector('.card [role=alert]');
  });

  test('cashouts: hold, release and cancel; one from the form; a CSV batch with one bad row; export', async () => {
    const r = await cashoutRequest(s.url, m, 'POST', '/v3/cashout', {
      external_id: ext(), country: 'BR', currency: 'USD', amount: '20.00', document_id: cpf('529982247'), beneficiary_name: 'Maria', beneficiary_lastname: 'Souza',
      bank_code: '260', bank_account: '12345-6', bank_branch: '0001', account_type: 'C',
    });
    assert.equal(r.status, 200, r.text);
    const id = r.body.cashout_id;
    const statusOf = async () => (await cashoutRequest(s.url, m, 'POST', '/v3/cashout/status', { cashout_id: id })).body.cashout_status_description;
    await page.goto(`${s.url}/panel/cashouts/${id}`);
    await checkPage(page, '10-cashout');
    await page.click('button:has-text("Hold")');
    await page.waitForURL(/done=hold/);
    assert.equal(await statusOf(), 'On hold');
    await page.click('button:has-text("Release")');
    await page.waitForURL(/done=release/);
    assert.equal(await statusOf(), 'Pending');
    await page.click('button:has-text("Cancel cashout")');
    await page.waitForURL(/done=cancel/);
    assert.equal(await statusOf(), 'Canceled');
    assert.equal(await page.locator('h2:has-text("Timeline") + div tbody tr').count(), 4);
    await checkPage(page, '11-cashout-cancelled', { docs: true });

    await page.goto(`${s.url}/panel/cashouts/new`);
    const external = ext();
    await page.fill('#f-external_id', external);
    await page.selectOption('#f-country', 'BR');
    await page.fill('#f-amount', '7.50');
    await page.fill('#f-beneficiary_name', 'João');
    await page.fill('#f-document_id', '123');
    await page.fill('#f-bank_code', '260');
    await page.fill('#f-bank_branch', '0001');
    await page.fill('#f-bank_account', '12345-6');
    await page.click('button:has-text("Create cashout")');
    await page.waitForSelector('[role=alert] li');
    assert.match(await page.locator('[role=alert]').textContent() ?? '', /document_id/);
    await checkPage(page, '12-cashout-form-error');
    await page.fill('#f-document_id', cpf('529982247'));
    await page.click('button:has-text("Create cashout")');
    await page.waitForURL(/done=created/);
    assert.match(await page.locator('dd').nth(1).textContent() ?? '', new RegExp(external));

    await page.goto(`${s.url}/panel/cashouts/import`);
    const header = 'external_id,country,currency,amount,document_id,beneficiary_name,bank_code,bank_branch,bank_account,account_type';
    const row = (e: string, amount: string) => `${e},BR,USD,${amount},${cpf('529982247')},Maria Souza,260,0001,12345-6,C`;
    const good = [ext(), ext(), ext()];
    const csv = (amounts: string[]) => Buffer.from([header, ...good.map((e, i) => row(e, amounts[i]!))].join('\n'));
    await page.setInputFiles('#f-file', { name: 'payouts.csv', mimeType: 'text/csv', buffer: csv(['5.00', 'five', '6.00']) });
    await page.click('button:has-text("Check and create")');
    await page.waitForSelector('[role=alert]');
    assert.match(await page.locator('[role=alert]').textContent() ?? '', /1 of 3 rows are rejected; nothing was created/);
    const download = page.waitForEvent('download');
    await page.click('a:has-text("Download the report of rejected rows")');
    const report = readFileSync((await (await download).path())!, 'utf8');
    assert.match(report, /^line,external_id,reasons\r\n3,pb-\d+-\d+,amount: /);
    await checkPage(page, '13-import-rejected', { docs: true });
    await page.setInputFiles('#f-file', { name: 'payouts.csv', mimeType: 'text/csv', buffer: csv(['5.00', '5.50', '6.00']) });
    await page.click('button:has-text("Check and create")');
    await page.waitForSelector('text=3 cashouts created.');
    await checkPage(page, '14-import-created');

    await page.goto(`${s.url}/panel/cashouts`);
    await checkPage(page, '15-cashouts');
    const exported = page.waitForEvent('download');
    await page.click('a:has-text("Export CSV")');
    const text = readFileSync((await (await exported).path())!, 'utf8');
    const lines = text.trim().split('\r\n');
    assert.equal(lines.length, 1 + 5, text);
    for (const e of good) assert.match(text, new RegExp(e));

    await page.goto(`${s.url}/panel/balance`);
    assert.ok(await page.locator('td:has-text("cashout.reserve")').first().isVisible());
    await checkPage(page, '16-balance');
    await page.goto(`${s.url}/panel`);
    assert.ok(await page.locator('svg.chart title', { hasText: 'Deposits created per day' }).count());
    await checkPage(page, '21-home-with-data', { docs: true });
  });

  test('a support user is refused a finance action; another merchant\'s deposit is not reachable by URL', async () => {
    await page.goto(`${s.url}/panel/team`);
    const email = `support-${process.pid}@example.com`;
    await page.fill('#f-email', email);
    await page.selectOption('#f-role', 'support');
    await page.click('button:has-text("Invite")');
    const password = (await page.locator('.ok .secret').textContent())!;
    await checkPage(page, '17-team');
    await page.goto(`${s.url}/panel/audit`);
    assert.ok(await page.locator('td:has-text("team.invited")').isVisible());
    assert.equal(await page.locator('td:has-text("credentials.rotated")').count(), 2, 'both rotations are in the audit');
    await checkPage(page, '18-audit');

    const theirs = await V3Client.deposits(s.url, other).post('/v3/deposits', { country: 'BR', amount: '10.00', payment_method: 'IX', payer: { document: '529.982.247-25', first_name: 'Z', last_name: 'Z', email: 'z@example.com' } });
    await page.goto(`${s.url}/panel/deposits/${theirs.body.deposit_id}`);
    assert.equal(await page.locator('h1').textContent(), 'Not found');

    // The support user's own browser (its own profile, so its own cookies).
    const sp = await browser.open();
    await signIn(sp, email, password);
    await sp.waitForURL(`${s.url}/panel`);
    const nav = await sp.locator('nav.pnav a').allTextContents();
    assert.ok(!nav.includes('API access') && !nav.includes('Team'), nav.join());
    await sp.goto(`${s.url}/panel/cashouts`);
    assert.equal(await sp.locator('a:has-text("New cashout")').count(), 0);
    const refused = await sp.goto(`${s.url}/panel/cashouts/new`);
    assert.equal(refused?.status(), 403);
    assert.match(await sp.locator('main p').first().textContent() ?? '', /Your role \(Support\) cannot do this/);
    await checkPage(sp, '19-support-refused');
    await sp.close();
  });

  test('a developer sees logins and rotates only the read-only key; one e-mail at two merchants with one password asks which merchant', async () => {
    await page.goto(`${s.url}/panel/team`);
    const email = `dev-${process.pid}@example.com`;
    await page.fill('#f-email', email);
    await page.selectOption('#f-role', 'developer');
    await page.click('button:has-text("Invite")');
    const first = (await page.locator('.ok .secret').textContent())!;
    // The other merchant invites the same address (it is told nothing about this one).
    const otherOwner = new PanelClient(s.url);
    await otherOwner.signIn(other.panel.email, other.panel.password);
    const second = /class="secret">([^<]+)</.exec((await otherOwner.submit('/panel/team', '/panel/team/invite', { email, role: 'finance' })).html)![1]!;
    const shared = 'one passphrase for two shops';
    const atOther = new PanelClient(s.url);
    await atOther.signIn(email, second);
    assert.equal((await atOther.submit('/panel/account', '/panel/account/password', { current: second, next: shared, confirm: shared })).url, '/panel/account?done=password');

    const dp = await browser.open();
    await signIn(dp, email, first);
    await dp.waitForURL(`${s.url}/panel`);
    await dp.goto(`${s.url}/panel/settings/api`);
    const rotatable = await dp.locator('a[href^="/panel/settings/api/rotate"]').evaluateAll((as) => as.map((a) => a.getAttribute('href')));
    assert.deepEqual(rotatable, ['/panel/settings/api/rotate?set=read_only']);
    assert.ok(await dp.locator(`text=${m.cashouts.login}`).isVisible(), 'the logins are shown');
    await checkPage(dp, '22-developer-api');
    const refused = await dp.goto(`${s.url}/panel/settings/api/rotate?set=cashouts`);
    assert.equal(refused?.status(), 403);
    await dp.goto(`${s.url}/panel/account`);
    await dp.fill('#f-current', first);
    await dp.fill('#f-next', shared);
    await dp.fill('#f-confirm', shared);
    await dp.click('form[action="/panel/account/password"] button');
    await dp.waitForURL(`${s.url}/panel/account?done=password`);
    await dp.click('form[action="/panel/logout"] button');
    await dp.waitForURL(`${s.url}/panel/login?out=1`);
    await signIn(dp, email, shared);
    assert.equal(await dp.locator('h1').textContent(), 'Choose a merchant');
    await checkPage(dp, '23-choose-merchant');
    await dp.click(`button:has-text("${other.name}")`);
    await dp.waitForURL(`${s.url}/panel`);
    assert.match(await dp.locator('.brand').textContent() ?? '', new RegExp(other.name));
    await dp.close();
  });

  test('on a phone, in Spanish', async () => {
    const phone = await page.context().newPage();
    await phone.setViewportSize({ width: 390, height: 844 });
    await signIn(phone, m.panel.email, m.panel.password);
    await phone.goto(`${s.url}/panel/cashouts?lang=es`);
    assert.equal(await phone.locator('html').getAttribute('lang'), 'es');
    assert.equal(await phone.locator('h1').textContent(), 'Pagos');
    const overflow = await phone.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    assert.ok(overflow <= 0, `the page scrolls sideways by ${overflow}px`);
    await checkPage(phone, '20-phone-es', { docs: true });
    await phone.goto(`${s.url}/panel?lang=en`);
    await phone.close();
  });
});
