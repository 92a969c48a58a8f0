// The hosted checkout driven in a real browser (Debian's Chromium through playwright-core), as a
// customer meets it: deposits are created through the merchant APIs, the customer's browser
// follows redirect_url, clicks, types and submits, and the outcome is read back through the API,
// the merchant's notification endpoint and the merchant pages the browser lands on. Every page
// is checked with axe-core (no serious or critical violation), for size (< 100 KB), for
// Content-Security-Policy reports in the console, and screenshotted under test/artifacts/.
// Without Chromium the suite is skipped, saying why.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import { ARTIFACTS, browserHarness, skipWithoutChromium as skip } from '../helpers/browser.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { createMerchant, formPost, V3Client, type Credentials } from '../helpers/clients.ts';
import { createHmac } from 'node:crypto';
import { cpf } from '../helpers/documents.ts';


const BR_NAMES = { first_name: 'Ana', last_name: 'Silva', email: 'ana@example.com' };
const MX_PAYER = { document: 'GODE561231GR8', first_name: 'Eva', last_name: 'Gómez', email: 'eva@example.com' };
const BR_PAYER = { ...BR_NAMES, document: cpf('529982247') };

/** The merchant's own web site: where customers are sent back, and its logo and embedding page. */
interface MerchantSite {
  url: string;
  hits: { method: string; path: string; body: string }[];
  close(): Promise<void>;
}

async function startMerchantSite(): Promise<MerchantSite> {
  const site: MerchantSite = { url: '', hits: [], close: async () => {} };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const path = req.url ?? '/';
      site.hits.push({ method: req.method ?? 'GET', path, body: Buffer.concat(chunks).toString('utf8') });
      if (path === '/logo.svg') {
        res.writeHead(200, { 'content-type': 'image/svg+xml' });
        return res.end('<svg xmlns="http://www.w3.org/2000/svg" width="96" height="32"><rect width="96" height="32" rx="6" fill="#6b2fb3"/><text x="48" y="22" font-size="16" font-family="sans-serif" fill="#fff" text-anchor="middle">Loja</text></svg>');
      }
      if (path.startsWith('/embed?')) {
        const src = new URL(path, 'http://x').searchParams.get('src') ?? '';
        res.writeHead(200, { 'content-type': 'text/html' });
        return res.end(`<!doctype html><title>Shop</title><h1>Shop checkout</h1><iframe id="pay" title="Payment" src="${src.replace(/"/g, '&quot;')}" width="400" height="700"></iframe>`);
      }
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end(`<!doctype html><title>merchant ${req.method} ${path}</title><p id="landed">${req.method} ${path}</p>`);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  site.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  site.close = () => new Promise((resolve) => server.close(() => resolve()));
  return site;
}

let seq = 0;
const inv = () => `web-${process.pid}-${++seq}`;
const upper = (key: string, msg: string) => createHmac('sha256', key).update(msg, 'utf8').digest('hex').toUpperCase();

describe('hosted checkout in Chromium', () => {
  let s: TestServer;
  let creds: Credentials;
  let v3: V3Client;
  let site: MerchantSite;
  const chrome = browserHarness('');
  let context: BrowserContext;

  before(async () => {
    if (skip) return;
    site = await startMerchantSite();
    s = await startTestServer('pglite', { CAJA_NOTIFY_POLL_MS: '100' }, { workers: true });
    creds = await createMerchant(s.url, 'Loja da Ana', { notification_url: `${site.url}/hook` });
    v3 = V3Client.deposits(s.url, creds);
    const first = await chrome.open({ viewport: { width: 1024, height: 900 }, timeoutMs: 10_000 });
    context = first.context();
    await first.close();
  });

  after(async () => {
    await chrome.close();
    await s?.close();
    await site?.close();
  });

  async function create(body: Record<string, unknown>) {
    const r = await v3.post('/v3/deposits', { invoice_id: inv(), ...body });
    assert.equal(r.status, 200, r.text);
    return r.body as { checkout_type: string; redirect_url: string; deposit_id: number };
  }

  const deposit = async (id: number) => (await v3.get(`/v3/deposits/${id}`)).body;

  /**
   * What every page must pass: axe, its size, no CSP report; then a full-page screenshot (and,
   * for the README's pictures, one of the viewport: docs/images/ holds copies of those).
   */
  async function checkPage(page: Page, name: string, opts: { readme?: boolean } = {}) {
    await page.waitForLoadState('load');
    const size = await page.evaluate(() => document.documentElement.outerHTML.length);
    assert.ok(size < 100_000, `${name}: ${size} bytes of HTML`);
    await chrome.check(page, name);
    if (opts.readme) await page.screenshot({ path: join(ARTIFACTS, `readme-${name}.png`) });
  }

  async function waitFor<T>(what: string, probe: () => Promise<T | undefined> | T | undefined, ms = 30_000): Promise<T> {
    const end = Date.now() + ms;
    for (;;) {
      const v = await probe();
      if (v !== undefined) return v;
      if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  test('BR: method choice, payer form with a wrong CPF first, Pix instructions, simulated payment, notification, success_url', { skip }, async () => {
    const d = await create({
      country: 'BR', amount: '100.00', currency: 'BRL', description: 'Plano Pro (12 meses)', strikethrough_price: '120.00', bonus_amount: '10',
      bonus_relative: true, payer: BR_NAMES, logo: `${site.url}/logo.svg`, success_url: `${site.url}/success`, back_url: `${site.url}/back`,
      error_url: `${site.url}/error`,
    });
    assert.equal(d.checkout_type, 'HOSTED');
    const page = await context.newPage();
    await page.goto(d.redirect_url);
    assert.equal(await page.locator('html').getAttribute('lang'), 'en', 'Accept-Language en-US');
    assert.equal(await page.locator('[data-field=merchant]').textContent(), 'Loja da Ana');
    assert.equal(await page.locator('header.merchant img').evaluate((img: HTMLImageElement) => img.naturalWidth), 96, 'merchant logo loaded');
    assert.equal(await page.locator('[data-field=amount]').textContent(), 'BRL 100.00');
    assert.equal(await page.locator('[data-field=strikethrough_price]').textContent(), 'BRL 120.00');
    assert.equal(await page.locator('[data-field=bonus]').textContent(), '+BRL 10.00 (10%)');
    assert.match((await page.locator('[data-countdown]').textContent())!, /^23:59:\d\d$/);
    assert.ok(await page.locator('[data-staging]').isVisible());
    // Grouped as the catalog groups them, each with its logo.
    assert.deepEqual(await page.locator('.group h3').allTextContents(), ['Bank transfer', 'Cash', 'Credit card', 'Digital wallet', 'Crypto']);
    assert.equal(await page.locator('a[data-method=IX] img').getAttribute('src'), '/logos/br/ix.svg');
    await checkPage(page, '01-checkout-methods');

    // Keyboard only: Tab to Pix, Enter; then type and submit with Enter.
    for (let i = 0; i < 40 && !(await page.evaluate(() => document.activeElement?.getAttribute('data-method') === 'IX')); i++) await page.keyboard.press('Tab');
    await page.keyboard.press('Enter');
    await page.waitForURL(/method=IX/);
    // Pix needs a document; the merchant sent the names and the e-mail, so only the CPF is asked.
    assert.deepEqual(await page.locator('form input:not([type=hidden]), form select').evaluateAll((els) => els.map((e) => (e as HTMLInputElement).name)), ['payer.document']);
    await page.focus('input[name="payer.document"]');
    await page.keyboard.type('123.456.789-00');
    await page.keyboard.press('Enter');
    await page.waitForSelector('#f-document-error');
    assert.equal(await page.locator('#f-document-error').textContent(), 'This document number is not valid.');
    assert.equal(await page.locator('input[name="payer.document"]').getAttribute('aria-invalid'), 'true');
    assert.equal(await page.locator('input[name="payer.document"]').getAttribute('aria-describedby'), 'f-document-error');
    await checkPage(page, '02-checkout-details-error', { readme: true });

    await page.fill('input[name="payer.document"]', '529.982.247-25');
    await page.click('button[type=submit]:has-text("Continue")');
    await page.waitForURL(/\/pay\//);
    assert.ok(await page.locator('img[data-field=qr_code]').isVisible());
    // The browser decoded the PNG (a broken image has no natural size).
    assert.ok(await page.locator('img[data-field=qr_code]').evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth > 100));
    assert.match((await page.locator('[data-field=digitable_line]').textContent())!, /^000201/);
    assert.equal(await page.locator('[data-field=amount]').textContent(), 'BRL 100.00', 'the merchant bears the fee');
    await checkPage(page, '03-pay-pix', { readme: true });
    const chosen = await deposit(d.deposit_id);
    assert.equal(chosen.payment_method, 'IX');
    assert.equal(chosen.status, 'PENDING');
    assert.equal(chosen.payer.document, '52998224725');

    await page.click('button:has-text("Simulate payment")');
    await page.waitForSelector('[data-phase=completed]');
    assert.equal(await page.locator('img[data-field=qr_code]').count(), 0);
    assert.equal(await page.getByText('Amount to pay').count(), 0);
    assert.equal(await page.locator('.amount .label').textContent(), 'Amount paid');
    await checkPage(page, '04-pay-completed');
    assert.equal((await deposit(d.deposit_id)).status, 'COMPLETED');
    const hook = await waitFor('the notification', () => site.hits.find((h) => h.path === '/hook' && JSON.parse(h.body).deposit_id === d.deposit_id));
    assert.deepEqual(JSON.parse(hook.body), { deposit_id: d.deposit_id });

    await page.click('a[data-link=return]');
    await page.waitForURL(`${site.url}/success`);
    assert.equal(await page.locator('#landed').textContent(), 'GET /success');
    await page.close();
  });
  test('MX: SPEI in Spanish (the only bank transfer, so no list), CLABE shown; a customer who cancels lands on back_url', { skip }, async () => {
    const d = await create({ country: 'MX', amount: '1500.00', currency: 'MXN', payer: MX_PAYER, language: 'es', payment_types: ['BANK_TRANSFER'] });
    const page = await context.newPage();
    await page.goto(d.redirect_url);
    assert.equal(await page.locator('html').getAttribute('lang'), 'es', "the request's language over the browser's");
    assert.equal(await page.locator('[data-field=payment_method_name]').textContent(), 'SPEI');
    assert.equal(await page.locator('form input:not([type=hidden])').count(), 0, 'the merchant sent every field SPEI needs');
    await checkPage(page, '05-checkout-spei-confirm');
    await page.click('button:has-text("Continuar")');
    await page.waitForURL(/\/pay\//);
    assert.match((await page.locator('[data-field=account]').textContent())!, /^\d{18}$/);
    assert.match((await page.locator('#pay-how').textContent())!, /^Transfiere exactamente/);
    assert.equal(await page.locator('[data-field=amount]').textContent(), 'MXN 1,500.00');
    await checkPage(page, '06-pay-spei');
    assert.equal((await deposit(d.deposit_id)).payment_method, 'SE');

    const c = await create({ country: 'MX', amount: '200.00', currency: 'MXN', back_url: `${site.url}/back` });
    await page.goto(c.redirect_url);
    await page.click('button[data-action=cancel]');
    await page.waitForURL(`${site.url}/back`);
    assert.equal((await deposit(c.deposit_id)).status, 'CANCELLED');
    await waitFor('the notification', () => site.hits.find((h) => h.path === '/hook' && JSON.parse(h.body).deposit_id === c.deposit_id));
    await page.close();
  });

  test('cards in staging: declined, wrong brand, approved; a 3-D Secure confirmation; only the masked card is stored', { skip }, async () => {
    const d = await create({ country: 'BR', amount: '250.00', currency: 'BRL', payment_method: 'VI', payer: BR_PAYER });
    assert.equal(d.checkout_type, 'HOSTED', 'cards always pass through our page');
    const page = await context.newPage();
    await page.goto(d.redirect_url);
    const pay = async (number: string) => {
      await page.fill('input[name=number]', number);
      await page.fill('input[name=expiry]', '12/30');
      await page.fill('input[name=cvc]', '123');
      await page.fill('input[name=holder]', 'ANA SILVA');
      await page.click('button:has-text("Pay now")');
    };
    await checkPage(page, '07-card-form');
    await pay('4000 0000 0000 0002');
    assert.equal(await page.locator('[data-alert]').textContent(), 'Your card was declined. Try another card, or choose another method.');
    assert.equal((await deposit(d.deposit_id)).status, 'PENDING');
    await page.fill('input[name=number]', '5555 5555 5555 4444');
    assert.equal(await page.locator('#card-brand').textContent(), 'Mastercard', 'brand detected while typing');
    await pay('5555 5555 5555 4444');
    assert.equal(await page.locator('#card-number-error').textContent(), 'This card is not a Visa card. Use a Visa card or choose another method.');
    await pay('4111 1111 1111 1112');
    assert.equal(await page.locator('#card-number-error').textContent(), 'This card number is not valid.', 'Luhn');
    await pay('4111 1111 1111 1111');
    await page.waitForSelector('[data-phase=completed]');
    assert.equal(await page.locator('[data-field=card]').textContent(), 'VISA 411111******1111');
    await checkPage(page, '08-card-approved');
    const paid = await deposit(d.deposit_id);
    assert.equal(paid.status, 'COMPLETED');
    assert.equal(paid.payment_method, 'VI');
    const row = (await s.ctx.db.query<{ card_detail: unknown }>('SELECT card_detail FROM deposits WHERE id = $1', [d.deposit_id])).rows[0]!;
    assert.deepEqual(row.card_detail, { card_holder: 'ANA SILVA', masked_card: '411111******1111', brand: 'VISA', expiration: '12/30' });

    const m = await create({ country: 'BR', amount: '80.00', currency: 'BRL', payment_method: 'MC', payer: BR_PAYER });
    await page.goto(m.redirect_url);
    await pay('5200 0000 0000 1096');
    await page.waitForSelector('#challenge');
    await checkPage(page, '09-card-challenge');
    await page.click('button:has-text("Confirm payment")');
    await page.waitForSelector('[data-phase=completed]');
    assert.equal((await deposit(m.deposit_id)).status, 'COMPLETED');

    // The full numbers typed went nowhere: not the deposits, their events, the notifications, nor the staging card network's record.
    for (const table of ['deposits', 'events', 'notifications', 'deposit_status_changes', 'staging_card_attempts']) {
      const { rows } = await s.ctx.db.query<{ n: number }>(
        `SELECT count(*)::integer AS n FROM ${table} t WHERE t::text ~ '(4111111111111111|5200000000001096|4000000000000002|5555555555554444)'`,
      );
      assert.equal(rows[0]!.n, 0, table);
    }
    await page.close();
  });

  test("a 360-pixel phone in the browser's language (es), with the switcher to pt", { skip }, async () => {
    const d = await create({ country: 'BR', amount: '59.90', currency: 'BRL', payer: BR_NAMES, back_url: `${site.url}/back` });
    const page = await context.newPage();
    await page.setViewportSize({ width: 360, height: 740 });
    // The browser's own language setting (the profile says en-US), as a Mexican phone would send it.
    const cdp = await context.newCDPSession(page);
    await cdp.send('Network.setUserAgentOverride', { userAgent: await page.evaluate(() => navigator.userAgent), acceptLanguage: 'es-MX,es;q=0.9,en;q=0.5' });
    await page.goto(d.redirect_url);
    assert.equal(await page.locator('html').getAttribute('lang'), 'es');
    assert.equal(await page.locator('#choose').textContent(), 'Elige cómo pagar');
    assert.ok(await page.evaluate(() => document.documentElement.scrollWidth <= 360), 'no sideways scrolling');
    await checkPage(page, '10-phone-es', { readme: true });
    await page.click('nav.langs a[hreflang=pt]');
    assert.equal(await page.locator('html').getAttribute('lang'), 'pt');
    assert.equal(await page.locator('#choose').textContent(), 'Escolha como pagar');
    // The choice sticks through the steps.
    await page.click('a[data-method=BL]');
    assert.equal(await page.locator('html').getAttribute('lang'), 'pt');
    assert.deepEqual(await page.locator('form input:not([type=hidden]), form select').evaluateAll((els) => els.map((e) => (e as HTMLInputElement).name)), [
      'payer.document', 'payer.address.street', 'payer.address.city', 'payer.address.state', 'payer.address.zip_code',
    ]);
    assert.ok(await page.evaluate(() => document.documentElement.scrollWidth <= 360));
    await checkPage(page, '11-phone-boleto-fields');
    await page.close();
  });

  test('expired: the checkout and the payment page say so and show nothing to pay', { skip }, async () => {
    const d = await create({ country: 'BR', amount: '10.00', currency: 'BRL', payer: BR_PAYER });
    const page = await context.newPage();
    await page.goto(d.redirect_url);
    await page.click('a[data-method=IX]');
    await page.click('button:has-text("Continue")');
    await page.waitForURL(/\/pay\//);
    await s.ctx.db.query('UPDATE deposits SET expires_at = $1 WHERE id = $2', [new Date(Date.now() - 60_000), d.deposit_id]);
    await page.reload();
    assert.equal(await page.locator('[data-phase]').getAttribute('data-phase'), 'expired');
    assert.equal(await page.locator('img[data-field=qr_code]').count(), 0);
    assert.equal(await page.locator('[data-field=digitable_line]').count(), 0);
    assert.equal(await page.getByText('Amount to pay').count(), 0);
    await checkPage(page, '12-pay-expired');
    const h = await create({ country: 'BR', amount: '10.00', currency: 'BRL' });
    await s.ctx.db.query('UPDATE deposits SET expires_at = $1 WHERE id = $2', [new Date(Date.now() - 60_000), h.deposit_id]);
    await page.goto(h.redirect_url);
    assert.equal(await page.locator('[data-phase]').getAttribute('data-phase'), 'expired');
    assert.equal(await page.locator('.methods').count(), 0);
    await checkPage(page, '13-checkout-expired');
    await page.close();
  });

  test('error_url: no method of the requested type fits the amount', { skip }, async () => {
    const d = await create({ country: 'BR', amount: '5.00', currency: 'BRL', payment_type: 'VOUCHER', error_url: `${site.url}/error` });
    const page = await context.newPage();
    await page.goto(d.redirect_url);
    assert.equal(await page.locator('[data-phase]').getAttribute('data-phase'), 'no_methods');
    await page.click('a[data-link=error]');
    await page.waitForURL(`${site.url}/error`);
    await page.close();
  });

  test('iframe: a NewInvoice link with iframe_view is framed by the merchant; cancelling POSTs the signed result to x_return', { skip }, async () => {
    const f: Record<string, string> = {
      x_login: creds.deposits.login, x_trans_key: creds.deposits.trans_key, x_invoice: inv(), x_amount: '120.00', x_currency: 'BRL',
      x_country: 'BR', x_bank: 'VI', x_iduser: '4411', x_cpf: cpf('529982247'), x_name: 'João da Silva', x_email: 'joao@example.com',
      x_address: 'Rua Augusta 1500', x_zip: '01304-001', x_city: 'São Paulo', x_state: 'SP', x_return: `${site.url}/return`,
      iframe_view: '1', type: 'json',
    };
    const v = (k: string) => f[k] ?? '';
    f.control = upper(creds.deposits.secret_key, `${v('x_invoice')}V${v('x_amount')}I${v('x_iduser')}2${v('x_bank')}1${v('x_cpf')}H${v('x_bdate')}G${v('x_email')}Y${v('x_zip')}A${v('x_address')}P${v('x_city')}S${v('x_state')}P`);
    const r = await formPost(s.url, '/api_curl/streamline/NewInvoice', f);
    assert.equal(r.body.status, '0', r.text);
    assert.match(r.body.link, /\/checkout\/[\w-]{22}\?iframe_view=1$/);

    const page = await context.newPage();
    await page.goto(`${site.url}/embed?src=${encodeURIComponent(r.body.link)}`);
    const frame = page.frameLocator('#pay');
    await frame.locator('input[name=number]').waitFor();
    assert.equal(await frame.locator('body').getAttribute('class'), 'embedded');
    await page.screenshot({ path: join(ARTIFACTS, '14-iframe.png') });
    await frame.locator('button[data-action=cancel]').click();
    await page.waitForURL(`${site.url}/return`);
    const posted = new URLSearchParams(site.hits.filter((h) => h.method === 'POST' && h.path === '/return').at(-1)!.body);
    assert.equal(posted.get('result'), '8');
    assert.equal(posted.get('x_invoice'), f.x_invoice);
    assert.equal(posted.get('x_control'), upper(creds.deposits.secret_key, `${creds.deposits.login}8${posted.get('x_amount')}${f.x_invoice}`));

    // Without iframe_view the same page refuses to be framed.
    const other = await formPost(s.url, '/api_curl/streamline/NewInvoice', { ...f, x_invoice: `${f.x_invoice}b`, iframe_view: '0', control: upper(creds.deposits.secret_key, `${f.x_invoice}bV${v('x_amount')}I${v('x_iduser')}2${v('x_bank')}1${v('x_cpf')}H${v('x_bdate')}G${v('x_email')}Y${v('x_zip')}A${v('x_address')}P${v('x_city')}S${v('x_state')}P`) });
    assert.equal(other.body.status, '0', other.text);
    await page.goto(`${site.url}/embed?src=${encodeURIComponent(other.body.link)}`);
    await page.waitForLoadState('load');
    assert.equal(await frame.locator('input[name=number]').count(), 0, 'frame-ancestors refused it');
    chrome.clearConsoleErrors();
    await page.close();
  });
});
