// The console's fee schedules, connector settings and statement uploads in a real browser
// (Debian's Chromium through playwright-core): finance types a wrong percentage and sees the box
// marked with its reason, then saves a merchant's own fee; an admin configures STP (secrets left
// empty keep what is stored, never shown back) and an own account; finance uploads an OFX file
// and sees the import's figures, then matches one credit to two deposits. Each page is checked
// with axe-core (no serious or critical violation) and for CSP reports, and screenshotted under
// test/artifacts/ops-config-*.png; the same pages at phone width in Spanish and Portuguese.
// Without Chromium the suite is skipped, saying why.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { createMerchant, V3Client, type Credentials } from '../helpers/clients.ts';
import { cpf } from '../helpers/documents.ts';
import { ofx } from '../helpers/statements.ts';
import { startStpSimulator, type StpSimulator } from '../helpers/stp-simulator.ts';
import { storedSecrets } from '../../src/connectors/store.ts';
import { makeOperator, signInInBrowser, type TestOperator } from './helpers.ts';
import { browserHarness, skipWithoutChromium } from '../helpers/browser.ts';

const payer = { document: cpf('529982247'), first_name: 'Maria', last_name: 'Souza', email: 'maria@example.com' };

describe('operator console configuration in Chromium', { skip: skipWithoutChromium }, () => {
  const chrome = browserHarness('ops-config-');
  const browser = chrome.open;
  const checkPage = chrome.check;
  const signIn = (p: Page, op: TestOperator) => signInInBrowser(p, s, op);
  let s: TestServer;
  let sim: StpSimulator;
  let m: Credentials;
  let finance: TestOperator;
  let adminOp: TestOperator;
  let seq = 0;

  before(async () => {
    sim = await startStpSimulator();
    s = await startTestServer('pglite');
    m = await createMerchant(s.url, 'Loja <Fees>');
    finance = await makeOperator(s, 'finance');
    adminOp = await makeOperator(s, 'admin');
  });

  after(async () => {
    await chrome.close();
    await s?.close();
    await sim?.stop();
  });

  async function pixDeposit(amount: string, currency: string) {
    const r = await V3Client.deposits(s.url, m).post('/v3/deposits', { invoice_id: `cb-${process.pid}-${++seq}`, country: 'BR', currency, amount, payment_method: 'IX', payer });
    assert.equal(r.status, 200, r.text);
    return r.body.deposit_id as number;
  }

  let fin: Page;

  test("fees: a wrong percentage is marked on its box; the merchant's own fee saved and charged", async () => {
    fin = await browser();
    await signIn(fin, finance);
    await fin.goto(`${s.url}/ops/merchants/${m.merchant_id}`);
    await fin.click('a:has-text("Change fees")');
    await fin.waitForURL(`${s.url}/ops/merchants/${m.merchant_id}/fees`);
    await checkPage(fin, '01-fees-form');
    await fin.fill('#f-fee-BANK_TRANSFER', '100');
    await fin.fill('#f-fee-VOUCHER', '2.12345');
    await fin.click('form[action$="/fees"] button');
    await fin.waitForSelector('[role=alert]');
    assert.match(await fin.locator('#f-fee-BANK_TRANSFER-err').textContent() ?? '', /must be less than 100/);
    assert.equal(await fin.locator('#f-fee-VOUCHER').getAttribute('aria-invalid'), 'true');
    await checkPage(fin, '02-fees-errors');
    await fin.fill('#f-fee-BANK_TRANSFER', '0.95');
    await fin.fill('#f-fee-VOUCHER', '');
    await fin.fill('#f-surcharge-VOUCHER', '0.25');
    await fin.click('form[action$="/fees"] button');
    await fin.waitForSelector('[role=status]');
    await fin.goto(`${s.url}/ops/merchants/${m.merchant_id}`);
    assert.match(await fin.locator('tr:has-text("BANK_TRANSFER")').first().textContent() ?? '', /0\.95\s*own/);
    await checkPage(fin, '03-merchant-own-fees');
    const d = await pixDeposit('100.00', 'USD');
    assert.equal((await V3Client.deposits(s.url, m).get(`/v3/deposits/${d}`)).body.fee_amount, 0.95);
  });

  test('connectors: STP configured by an admin, secrets write-only; an own account added', async () => {
    const p = await browser();
    await signIn(p, adminOp);
    await p.goto(`${s.url}/ops/connectors`);
    await p.click('a:has-text("Configure STP")');
    await p.waitForURL(`${s.url}/ops/connectors/stp`);
    for (const [k, v] of Object.entries(sim.config)) if (v !== undefined) await p.fill(`#f-${k}`, v);
    await p.fill('#f-api_url', 'http://stp.example');
    await p.click('form[action="/ops/connectors/stp"] button');
    await p.waitForSelector('[role=alert]');
    assert.equal(await p.locator('#f-api_url').getAttribute('aria-invalid'), 'true');
    assert.equal(await p.locator('#f-private_key').inputValue(), '', 'a secret is never put back on the page');
    await checkPage(p, '04-stp-errors');
    // Fix the URL; the secrets must be typed again (never sent back), as a first configuration needs them.
    await p.fill('#f-api_url', sim.config.api_url);
    await p.fill('#f-private_key', sim.config.private_key);
    await p.fill('#f-private_key_passphrase', sim.config.private_key_passphrase);
    await p.click('form[action="/ops/connectors/stp"] button');
    await p.waitForSelector('[role=status]');
    const first = await storedSecrets(s.ctx, 'stp');
    assert.ok(!(await p.content()).includes(sim.config.private_key_passphrase));
    // A later change of a setting alone: the empty secret boxes keep what is stored.
    await p.fill('#f-ordering_name', 'Caja Operadora SA');
    await p.click('form[action="/ops/connectors/stp"] button');
    await p.waitForSelector('[role=status]');
    assert.deepEqual(await storedSecrets(s.ctx, 'stp'), first);
    await checkPage(p, '05-stp-saved');

    await p.goto(`${s.url}/ops/connectors`);
    await p.click('a:has-text("Configure Own accounts")');
    await p.fill('#f-country', 'BR');
    await p.fill('#f-method', 'BB');
    await p.fill('#f-beneficiary_name', 'Caja Pagamentos Ltda');
    await p.fill('#f-agency', '0001');
    await p.fill('#f-account', '12345-6');
    await p.fill('#f-document', '11.222.333/0001-81');
    await p.click('form[action="/ops/connectors/own_accounts"] button');
    await p.waitForSelector('[role=status]');
    assert.ok(await p.locator('td:has-text("Caja Pagamentos Ltda")').isVisible());
    await checkPage(p, '06-own-accounts');
    await p.goto(`${s.url}/ops/connectors`);
    await checkPage(p, '07-connectors');
  });

  test('reconciliation: a statement uploaded, its figures shown; one credit matched to two deposits', async () => {
    const ids = [await pixDeposit('80.00', 'BRL'), await pixDeposit('40.00', 'BRL')];
    for (const id of ids) assert.equal((await V3Client.deposits(s.url, m).post(`/v3/sandbox/deposits/${id}/approve`, '')).status, 200);
    const today = s.ctx.now().toISOString().slice(0, 10);
    const file = ofx({
      statementId: '', account: {}, currency: 'BRL', date: today, opening: '0.00', bankId: '341', branch: '0001', accountId: '9911-2',
      movements: [{ amount: '118.00', direction: 'credit', date: today, bankId: 'psp-settle-1', info: 'LIQUIDACAO PSP' }],
    });
    await fin.goto(`${s.url}/ops/reconciliation`);
    await checkPage(fin, '08-reconciliation-upload');
    await fin.setInputFiles('#f-statement', { name: 'itau-day.ofx', mimeType: 'application/x-ofx', buffer: Buffer.from(file) });
    await fin.click('form[action="/ops/reconciliation/statements"] button');
    await fin.waitForSelector('[role=status]');
    assert.match(await fin.locator('[role=status]').textContent() ?? '', /itau-day\.ofx: statement \d+ imported: 1 entries, 0 matched, 1 exceptions/);
    await checkPage(fin, '09-statement-imported');
    await fin.setInputFiles('#f-statement', { name: 'broken.ofx', mimeType: 'application/x-ofx', buffer: Buffer.from('<OFX><STMTTRN><TRNAMT>x</TRNAMT></STMTTRN></OFX>') });
    await fin.click('form[action="/ops/reconciliation/statements"] button');
    await fin.waitForSelector('[role=alert]');
    assert.match(await fin.locator('[role=alert]').textContent() ?? '', /broken\.ofx was not imported/);
    await checkPage(fin, '10-statement-malformed');

    const row = fin.locator('tr:has-text("118.00 BRL")');
    await row.locator('summary').click();
    await row.locator('input[name$="-deposits"]').fill(ids.join(', '));
    await row.locator('input[name$="-note"]').fill('PSP settlement of the day');
    await checkPage(fin, '11-batch-form');
    await row.locator('button:has-text("Match to these deposits")').click();
    await fin.waitForSelector('[role=status]');
    assert.match(await fin.locator('[role=status]').textContent() ?? '', /Resolved/);
    await checkPage(fin, '12-batch-matched');
  });

  test('phone-sized, in Spanish and Portuguese', async () => {
    const phone = await browser({ locale: 'es-MX', viewport: { width: 375, height: 740 } });
    await signIn(phone, adminOp);
    const noSideways = async (name: string) => {
      const width = await phone.evaluate(() => document.documentElement.scrollWidth);
      assert.ok(width <= 380, `${name}: no sideways scroll on a phone: ${width}px`);
      await checkPage(phone, name);
    };
    await phone.goto(`${s.url}/ops/merchants/${m.merchant_id}/fees`);
    assert.match(await phone.locator('h1').textContent() ?? '', /^Comisiones de /);
    await noSideways('13-phone-es-fees');
    await phone.goto(`${s.url}/ops/connectors/stp?lang=pt`);
    assert.equal(await phone.locator('h1').textContent(), 'Configurar STP');
    await noSideways('14-phone-pt-stp');
    await phone.goto(`${s.url}/ops/reconciliation`);
    assert.ok(await phone.locator('h2:has-text("Importar um extrato bancário")').isVisible());
    await noSideways('15-phone-pt-reconciliation');
    await phone.goto(`${s.url}/ops/connectors/own_accounts?lang=es`);
    await noSideways('16-phone-es-own-accounts');
  });
});
