// The operator console driven in a real browser (Debian's Chromium through playwright-core), as
// the people who run caja use it: sign in with e-mail, password and the authenticator code (a
// wrong code first); find and create a merchant, whose credentials are shown once; ask for a
// balance adjustment and see the asker offered no approve button, then a second operator (another
// browser) approve it; a support operator refused a finance action; the rates page with its
// source, markup and a manual override; the audit log; a phone-sized page and the Spanish and
// Portuguese console. Every page is checked with axe-core (no serious or critical violation),
// for CSP reports, and screenshotted under test/artifacts/ops-*.png.
// Without Chromium the suite is skipped, saying why.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { admin, createMerchant, type Credentials } from '../helpers/clients.ts';
import { makeOperator, nextCode, signInInBrowser, type TestOperator } from './helpers.ts';
import { browserHarness, skipWithoutChromium } from '../helpers/browser.ts';
import { ofx } from '../helpers/statements.ts';
import { ADMIN_TOKEN } from '../helpers/server.ts';

describe('operator console in Chromium', { skip: skipWithoutChromium }, () => {
  const chrome = browserHarness('ops-');
  const browser = chrome.open;
  const checkPage = chrome.check;
  const signIn = (p: Page, op: TestOperator, shots?: string) => signInInBrowser(p, s, op, shots ? (n) => checkPage(p, `${shots}-${n}`) : undefined);
  let s: TestServer;
  let m: Credentials;
  let finance: TestOperator;
  let risk: TestOperator;
  let support: TestOperator;

  before(async () => {
    s = await startTestServer('pglite', { CAJA_RATES_MAX_AGE_HOURS: '48' });
    m = await createMerchant(s.url, 'Loja <Ana>');
    const funded = await admin(s.url, 'POST', `/admin/merchants/${m.merchant_id}/balance_adjustments`, { direction: 'credit', amount: '500.00', currency: 'USD', reason: 'opening balance' });
    assert.equal(funded.status, 201, funded.text);
    finance = await makeOperator(s, 'finance');
    risk = await makeOperator(s, 'risk');
    support = await makeOperator(s, 'support');
  });

  after(async () => {
    await chrome.close();
    await s?.close();
  });

  let fin: Page;

  test('sign-in: a wrong code is refused, the right one opens the console', async () => {
    fin = await browser();
    await fin.goto(`${s.url}/ops/approvals`);
    assert.equal(new URL(fin.url()).pathname, '/ops/login');
    await fin.fill('#f-email', finance.email);
    await fin.fill('#f-password', finance.password);
    await fin.click('button.wide');
    await fin.waitForURL(`${s.url}/ops/login/code`);
    const right = nextCode(s, finance);
    await fin.fill('#f-code', right === '123456' ? '654321' : '123456');
    await fin.click('button.wide');
    await fin.waitForSelector('[role=alert]');
    assert.match(await fin.locator('[role=alert]').textContent() ?? '', /code is wrong or was already used/);
    await checkPage(fin, '01-code-wrong');
    await fin.fill('#f-code', right);
    await fin.click('button.wide');
    await fin.waitForURL(`${s.url}/ops/merchants`);
    assert.match(await fin.locator('.who').textContent() ?? '', /finance/);
    await checkPage(fin, '02-merchants');
  });

  test('create a merchant (admin): its credentials are shown once; then search finds it', async () => {
    const adminOp = await makeOperator(s, 'admin');
    const p = await browser();
    await signIn(p, adminOp, '03-signin');
    await p.click('summary:has-text("Create a merchant")');
    await p.fill('#f-name', 'Mercado <Sol>');
    await p.fill('#f-notification_url', 'https://sol.example/notify');
    await p.click('form[method=post][action="/ops/merchants"] button');
    await p.waitForLoadState('load');
    assert.equal(await p.locator('[role=alert]').count(), 0, await p.locator('main').innerText());
    await p.waitForSelector('.secret');
    const creds = JSON.parse(await p.locator('pre.secret').textContent() ?? '{}');
    assert.ok(creds.deposits?.secret_key, 'the secret is on the page once');
    await checkPage(p, '04-merchant-created');
    await p.goto(`${s.url}/ops/merchants?q=Sol`);
    assert.ok(await p.locator('td a:has-text("Mercado <Sol>")').isVisible());
    assert.equal(await p.locator('.secret').count(), 0, 'never shown again');
    await p.click('td a:has-text("Mercado <Sol>")');
    await checkPage(p, '05-merchant-detail');
  });

  test('four eyes: finance asks for an adjustment, is offered no approve button; risk approves in another browser', async () => {
    await fin.goto(`${s.url}/ops/merchants/${m.merchant_id}`);
    await fin.selectOption('#f-direction', 'credit');
    await fin.fill('#f-amount', '25.00');
    await fin.fill('#f-reason', 'Refund of a duplicated fee, ticket 881');
    await fin.click('form[action$="/adjustments"] button');
    await fin.waitForSelector('[role=status]');
    await fin.goto(`${s.url}/ops/approvals`);
    assert.ok(await fin.locator('text=Yours: another operator decides').isVisible());
    assert.equal(await fin.locator('button:has-text("Approve")').count(), 0);
    await checkPage(fin, '06-approvals-asker');

    const second = await browser();
    await signIn(second, risk);
    await second.goto(`${s.url}/ops/approvals`);
    await second.click('button:has-text("Approve")');
    await second.waitForSelector('[role=status]');
    assert.match(await second.locator('[role=status]').textContent() ?? '', /Approved/);
    await checkPage(second, '07-approved');
    const balance = (await admin(s.url, 'GET', `/admin/merchants/${m.merchant_id}/balance`)).body;
    assert.match(JSON.stringify(balance), /"available":525\b/);
  });

  test('a support operator is refused a finance action', async () => {
    const p = await browser();
    await signIn(p, support);
    await p.goto(`${s.url}/ops/merchants/${m.merchant_id}`);
    assert.equal(await p.locator('form[action$="/adjustments"]').count(), 0, 'no adjustment form for support');
    // The same post made by hand: refused by the role table.
    const csrf = await p.locator('input[name=csrf]').first().inputValue();
    const r = await p.context().request.post(`${s.url}/ops/merchants/${m.merchant_id}/adjustments`, {
      form: { csrf, direction: 'credit', amount: '1.00', currency: 'USD', reason: 'x' }, headers: { origin: s.url }, maxRedirects: 0,
    });
    assert.equal(r.status(), 403);
    await p.goto(`${s.url}/ops/operators`);
    assert.match(await p.locator('h1').textContent() ?? '', /Not allowed/);
    await checkPage(p, '08-refused');
  });

  test('rates: a manual override, a markup; sources and age shown', async () => {
    await fin.goto(`${s.url}/ops/rates`);
    await fin.fill('form[action="/ops/rates/manual"] #f-currency', 'BRL');
    await fin.fill('#f-rate', '5.4321');
    await fin.click('form[action="/ops/rates/manual"] button');
    await fin.waitForSelector('[role=status]');
    await fin.fill('form[action="/ops/rates/markup"] #f-currency', 'MXN');
    await fin.fill('#f-markup', '0.5');
    await fin.click('form[action="/ops/rates/markup"] button');
    await fin.waitForSelector('[role=status]');
    const row = await fin.locator('tr:has-text("BRL")').first().textContent();
    assert.match(row ?? '', /5\.4321.*manual/);
    await checkPage(fin, '09-rates');
    await fin.goto(`${s.url}/ops/audit`);
    assert.ok(await fin.locator('td:has-text("rates.markup")').first().isVisible());
    await checkPage(fin, '10-audit');
  });

  test('reconciliation: an exception of an imported statement booked as a fee with a reason', async () => {
    const today = new Date().toISOString().slice(0, 10);
    const file = ofx({
      statementId: '', account: {}, currency: 'BRL', date: today, opening: '100.00', bankId: '033', branch: '0001', accountId: '4242-9',
      movements: [{ amount: '7.90', direction: 'debit', date: today, bankId: 'fee-1', info: 'TARIFA PACOTE' }, { amount: '60.00', direction: 'credit', date: today, bankId: 'ted-1', info: 'TED RECEBIDA' }],
    });
    const up = await fetch(`${s.url}/admin/reconciliation/statements`, { method: 'POST', headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/x-ofx' }, body: file });
    assert.equal(up.status, 201, await up.text());
    await fin.goto(`${s.url}/ops/reconciliation`);
    const row = fin.locator('tr:has-text("7.90 BRL")');
    await row.locator('summary').click();
    await checkPage(fin, '11-reconciliation-exceptions');
    await row.locator('select[name$="-action"]').selectOption('book_fee');
    await row.locator('input[name$="-reason"]').fill('Monthly package fee');
    await row.locator('button:has-text("Resolve")').click();
    await fin.waitForSelector('[role=status]');
    assert.match(await fin.locator('[role=status]').textContent() ?? '', /Resolved/);
    await checkPage(fin, '12-reconciliation-resolved');
  });

  test('phone-sized, in Spanish and Portuguese', async () => {
    const phone = await browser({ locale: 'es-MX', viewport: { width: 375, height: 740 } });
    await signIn(phone, risk);
    assert.equal(await phone.locator('h1').textContent(), 'Comercios');
    const width = await phone.evaluate(() => document.documentElement.scrollWidth);
    assert.ok(width <= 380, `no sideways scroll on a phone: ${width}px`);
    await checkPage(phone, '13-phone-es');
    await phone.goto(`${s.url}/ops/approvals?lang=pt`);
    assert.equal(await phone.locator('h1').textContent(), 'Aprovações');
    await checkPage(phone, '14-phone-pt-approvals');
    await phone.goto(`${s.url}/ops/rates`);
    await checkPage(phone, '15-phone-pt-rates');
  });
});
