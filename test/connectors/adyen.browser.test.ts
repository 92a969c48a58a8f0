// The hosted checkout in Chromium with cards collected through Adyen (the Adyen simulator as a
// separate process, caja in production): the customer follows redirect_url, caja sends them to
// Adyen's hosted page (the card number is typed there, never on caja's), a 3-D Secure 2 card
// asks for the challenge, a wrong password is refused and the customer stays on Adyen's page, the
// right one sends them back through caja's return leg, which reads the session result from
// Adyen server-to-server: the checkout shows the deposit paid with the masked card. Every page is
// checked with axe-core and screenshotted under test/artifacts/adyen-*.png.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { browserHarness, skipWithoutChromium as skip } from '../helpers/browser.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { admin, createMerchant, V3Client } from '../helpers/clients.ts';
import { cpf } from '../helpers/documents.ts';
import { assertLedgerOk } from '../helpers/ledger.ts';
import { setRates } from '../helpers/four-eyes.ts';
import { startAdyenSimulator, type AdyenSimulator } from '../helpers/adyen-simulator.ts';

const BR_PAYER = { first_name: 'Ana', last_name: 'Silva', email: 'ana@example.com', document: cpf('529982247') };

describe('hosted checkout with Adyen cards in Chromium (production)', () => {
  let sim: AdyenSimulator;
  let s: TestServer;
  let v3: V3Client;
  const chrome = browserHarness('adyen-');

  before(async () => {
    if (skip) return;
    sim = await startAdyenSimulator();
    s = await startTestServer('pglite', { CAJA_ENV: 'production' }, { workers: true });
    await setRates(s, { BRL: '5.00' });
    v3 = V3Client.deposits(s.url, await createMerchant(s.url, 'Loja da Ana'));
    await sim.control.receiver(`${s.url}/connectors/adyen/notifications`);
    const put = await admin(s.url, 'PUT', '/admin/connectors/adyen', sim.config());
    assert.equal(put.status, 200, put.text);
  });

  after(async () => {
    if (skip) return;
    await chrome.close();
    await assertLedgerOk(s.ctx.db);
    await s.close();
    await sim.stop();
  });

  test('a Visa card through a 3-D Secure challenge: failed once, passed, back on caja paid; only brand and last four kept', { skip }, async () => {
    const r = await v3.post('/v3/deposits', { invoice_id: `adyen-browser-${Date.now()}`, country: 'BR', currency: 'BRL', amount: '250.00', payment_method: 'VI', payer: BR_PAYER });
    assert.equal(r.status, 200, r.text);
    const page = await chrome.open({ ignoreHTTPSErrors: true });
    await page.goto(r.body.redirect_url);
    // caja created the Adyen session and sent the browser to Adyen's hosted page.
    await page.waitForSelector('input[name=number]');
    assert.ok(page.url().startsWith(sim.info.api_url.replace('/checkout/v71', '/hosted/')), page.url());
    await chrome.check(page, '01-hosted-card-form');
    const fill = async () => {
      await page.fill('input[name=number]', '4917 6100 0000 0000');
      await page.fill('input[name=expiry]', '03/30');
      await page.fill('input[name=cvc]', '737');
      await page.fill('input[name=holder]', 'Ana Silva');
      await page.click('#pay');
    };
    await fill();
    await page.waitForSelector('input[name=password]');
    await chrome.check(page, '02-3ds-challenge');
    await page.fill('input[name=password]', 'wrong');
    await page.click('#submit');
    await page.waitForSelector('#error');
    assert.match((await page.locator('#error').textContent())!, /3D Not Authenticated/);
    await chrome.check(page, '03-3ds-failed');
    assert.equal((await v3.get(`/v3/deposits/${r.body.deposit_id}`)).body.status, 'PENDING');

    await fill();
    await page.waitForSelector('input[name=password]');
    await page.fill('input[name=password]', 'password');
    await page.click('#submit');
    // Back on caja through the return leg, which read the result from Adyen.
    await page.waitForSelector('[data-phase=completed]');
    assert.ok(page.url().startsWith(s.url), page.url());
    await chrome.check(page, '04-caja-paid');
    const d = (await v3.get(`/v3/deposits/${r.body.deposit_id}`)).body;
    assert.equal(d.status, 'COMPLETED');
    const row = (await s.ctx.db.query<{ card_detail: any }>('SELECT card_detail FROM deposits WHERE id = $1', [r.body.deposit_id])).rows[0]!;
    assert.equal(row.card_detail.masked_card, '************0000');
    assert.equal(row.card_detail.brand, 'VISA');
    for (const table of ['deposits', 'events', 'notifications', 'deposit_status_changes', 'adyen_events', 'connector_payments']) {
      const { rows } = await s.ctx.db.query<{ n: number }>(`SELECT count(*)::integer AS n FROM ${table} t WHERE t::text LIKE '%4917610000000000%'`);
      assert.equal(rows[0]!.n, 0, `${table} holds the card number`);
    }
    await page.close();
  });
});
