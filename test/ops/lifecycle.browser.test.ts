// Operators' lifecycle in a real browser (Debian's Chromium through playwright-core): an admin
// disables and enables an operator, makes one and resets another (each time shown a one-time
// enrolment link, never a secret); the operator opens the link on a phone, in Portuguese, chooses
// a password, adds the secret shown and confirms it with a code, then signs in; an operator
// changes their own password on My account (a wrong code first); phone-sized in Spanish and
// Portuguese. Every page is checked with axe-core (no serious or critical
// violation), for CSP reports, and screenshotted under test/artifacts/ops-lifecycle-*.png.
// Without Chromium the suite is skipped, saying why.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { makeOperator, nextCode, signInInBrowser, type TestOperator } from './helpers.ts';
import { browserHarness, skipWithoutChromium } from '../helpers/browser.ts';

describe('operators\' lifecycle in Chromium', { skip: skipWithoutChromium }, () => {
  const chrome = browserHarness('ops-lifecycle-');
  const browser = chrome.open;
  const checkPage = chrome.check;
  const signIn = (p: Page, op: TestOperator) => signInInBrowser(p, s, op);
  let s: TestServer;
  let root: TestOperator;

  before(async () => {
    s = await startTestServer('pglite');
    root = await makeOperator(s, 'admin', 'root');
  });

  after(async () => {
    await chrome.close();
    await s?.close();
  });

  const row = (p: Page, op: TestOperator) => p.locator(`tr:has(td:text-is("${op.email}"))`);

  test('an admin disables and enables an operator, makes one and resets another: a link each time; the operator enrols through it', async () => {
    const fin = await makeOperator(s, 'finance', 'fin');
    const sup = await makeOperator(s, 'support', 'sup');
    const p = await browser();
    await signIn(p, root);
    await p.click('nav.pnav a:has-text("Operators and tokens")');
    assert.equal(await row(p, root).locator('button').count(), 0, 'no buttons on oneself');
    await checkPage(p, '01-operators');
    await row(p, fin).locator('button:has-text("Disable")').click();
    await p.waitForSelector('[role=status]');
    assert.match(await p.locator('[role=status]').textContent() ?? '', /is disabled; their sessions have ended/);
    assert.match(await row(p, fin).textContent() ?? '', /disabled/);
    await checkPage(p, '02-disabled');
    await row(p, fin).locator('button:has-text("Enable")').click();
    await p.waitForSelector('[role=status]');
    // Made: the link, no secret.
    await p.click('summary:has-text("Create an operator")');
    await p.fill('#f-email', `made-${process.pid}@ops.example`);
    await p.click('form[action="/ops/operators"] button');
    await p.waitForSelector('[role=status]');
    assert.match(await p.locator('p.secret a').textContent() ?? '', /\/ops\/enrol\/[\w-]{43}$/);
    assert.equal(await p.locator('dd.secret').count(), 0, 'no password nor secret is shown');
    await checkPage(p, '03-made-link');
    await row(p, sup).locator('button:has-text("Reset")').click();
    await p.waitForSelector('p.secret a');
    const link = (await p.locator('p.secret a').textContent())!.trim();
    assert.equal(await p.locator('dd.secret').count(), 0, 'no password nor secret is shown');
    assert.match(await row(p, sup).textContent() ?? '', /waiting for enrolment/);
    await checkPage(p, '04-reset-link');
    await p.goto(`${s.url}/ops/operators`);
    assert.equal(await p.locator('p.secret').count(), 0, 'the link is never shown again');

    const finBrowser = await browser();
    await signIn(finBrowser, fin);

    // The operator reset: the link on a phone, in Portuguese; a password of their own, the secret shown, its code.
    const e = await browser({ locale: 'pt-BR', viewport: { width: 375, height: 740 } });
    await e.goto(`${s.url}${new URL(link).pathname}`);
    assert.equal(await e.locator('h1').textContent(), 'Configure sua conta de operador');
    const secret = (await e.locator('dd.secret').first().textContent())!.trim();
    assert.match(secret, /^[A-Z2-7]{32}$/);
    const width = await e.evaluate(() => document.documentElement.scrollWidth);
    assert.ok(width <= 380, `no sideways scroll on a phone: ${width}px`);
    await checkPage(e, '05-phone-pt-enrol');
    sup.password = 'a passphrase sup chose';
    sup.secret = secret;
    sup.lastStep = -1;
    await e.fill('#f-password', sup.password);
    await e.fill('#f-again', sup.password);
    await e.fill('#f-code', nextCode(s, sup));
    await e.click('button.wide');
    await e.waitForURL(`${s.url}/ops/login`);
    await signIn(e, sup);
  });

  test('my account: a wrong code is refused, then the password changes', async () => {
    const op = await makeOperator(s, 'risk', 'own');
    const p = await browser();
    await signIn(p, op);
    await p.click('nav.pnav a:has-text("My account")');
    await checkPage(p, '06-account');
    const next = 'correct horse battery staple 42';
    await p.fill('#f-current', op.password);
    await p.fill('#f-next', next);
    await p.fill('#f-again', next);
    const right = nextCode(s, op);
    await p.fill('#f-code', right === '123456' ? '654321' : '123456');
    await p.click('form[action="/ops/account/password"] button');
    await p.waitForSelector('[role=alert]');
    assert.match(await p.locator('[role=alert]').textContent() ?? '', /current password or the code is wrong/);
    await checkPage(p, '07-account-wrong-code');
    await p.fill('#f-current', op.password);
    await p.fill('#f-next', next);
    await p.fill('#f-again', next);
    await p.fill('#f-code', right);
    await p.click('form[action="/ops/account/password"] button');
    await p.waitForSelector('[role=status]');
    assert.match(await p.locator('[role=status]').textContent() ?? '', /Your password was changed/);
    await checkPage(p, '08-account-changed');
    op.password = next;
    await signIn(await browser(), op);
  });

  test('phone-sized, in Spanish: my account and the operators page', async () => {
    const phone = await browser({ locale: 'es-MX', viewport: { width: 375, height: 740 } });
    await signIn(phone, root);
    await phone.goto(`${s.url}/ops/account`);
    assert.equal(await phone.locator('h1').textContent(), 'Mi cuenta');
    const width = await phone.evaluate(() => document.documentElement.scrollWidth);
    assert.ok(width <= 380, `no sideways scroll on a phone: ${width}px`);
    await checkPage(phone, '09-phone-es-account');
    await phone.goto(`${s.url}/ops/operators`);
    assert.ok(await phone.locator('button:has-text("Restablecer (enlace de enrolamiento nuevo)")').first().isVisible());
    await checkPage(phone, '10-phone-es-operators');
  });
});
