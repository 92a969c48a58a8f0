// The Adyen connector against the Adyen Checkout simulator (a separate process with its own CA and
// TLS, X-API-Key authentication, HMAC-signed notifications; src/connectors/adyen/simulator), with
// caja in production on PGlite and PostgreSQL: configuration (API and console); a card deposit
// through the hosted checkout (authorised, refused with each reason, 3-D Secure passed and failed),
// read back server-to-server and confirmed once by the notification; notifications dropped,
// duplicated and forged; Adyen down. Vouchers, refunds and chargebacks: adyen-payments.test.ts
// (test/helpers/adyen-connector.ts sets both up). The ledger is checked at the end.
import { after, before, describe, test } from 'node:test';
import { createHmac } from 'node:crypto';
import assert from 'node:assert/strict';
import { backends, type TestServer } from '../helpers/server.ts';
import { admin, formPost, type V3Client, type Credentials } from '../helpers/clients.ts';
import type { AdyenSimulator } from '../helpers/adyen-simulator.ts';
import { startAdyenSuite, type AdyenSuite, BR_PAYER } from '../helpers/adyen-connector.ts';
import { storedSecrets } from '../../src/connectors/store.ts';
import { makeOperator, signedIn } from '../ops/helpers.ts';
import { until } from '../helpers/until.ts';

for (const backend of backends()) {
  describe(`Adyen connector through the Adyen simulator (${backend})`, () => {
    let a: AdyenSuite;
    let sim: AdyenSimulator;
    let s: TestServer;
    let m: Credentials;
    let v3: V3Client;

    before(async () => {
      a = await startAdyenSuite(backend, { configure: false });
      ({ sim, s, m, v3 } = a);
    });

    after(() => a?.close());

    const status = (id: number) => a.status(id);
    const row = (id: number) => a.row(id);
    const completions = (id: number) => a.completions(id);
    const payments = (ref: string) => a.payments(ref);
    const deposit = (country: 'BR' | 'MX', method: string, amount?: string, extra?: Record<string, unknown>) => a.deposit(country, method, amount, extra);
    const cardCheckout = (method?: string, country?: 'BR' | 'MX', amount?: string, extra?: Record<string, unknown>) => a.cardCheckout(method, country, amount, extra);
    const comeBack = (url: string) => a.comeBack(url);

    test('configuration: every problem at once, secrets sealed and never answered; production offers exactly the methods configured', async () => {
      const bad = await admin(s.url, 'PUT', '/admin/connectors/adyen', { merchant_account: 'x y', hmac_key: 'zz', endpoint: 'live', methods: { BR: ['IX'], CO: ['VI'] } });
      assert.equal(bad.status, 400, bad.text);
      const details = bad.body.details.join('\n');
      for (const field of ['api_key', 'merchant_account', 'hmac_key', 'live_prefix', 'methods.BR', 'methods.CO']) assert.match(details, new RegExp(field.replace('.', '\\.')));
      assert.equal((await admin(s.url, 'GET', '/admin/connectors/adyen')).status, 404);
      // Before: production serves no card (no card connector).
      const before = await v3.post('/v3/deposits', { invoice_id: `ad-none-${backend}`, country: 'BR', currency: 'BRL', amount: '50.00', payment_method: 'VI', payer: BR_PAYER });
      assert.equal(before.status, 400, before.text);
      assert.match(before.body.details.join('\n'), /'VI' \(.*\) is not available: no payment provider collects it here/, 'no card connector yet');

      const put = await admin(s.url, 'PUT', '/admin/connectors/adyen', sim.config({ methods: { BR: ['VI', 'BL'], MX: ['OX'] } }));
      assert.equal(put.status, 200, put.text);
      for (const r of [put, await admin(s.url, 'GET', '/admin/connectors/adyen')]) {
        assert.ok(!r.text.includes(sim.info.api_key) && !r.text.includes(sim.info.hmac_key), 'a secret answered');
        assert.equal(r.body.api_key, '(set)');
        assert.equal(r.body.merchant_account, sim.info.merchant_account);
        assert.deepEqual(r.body.methods, { BR: ['BL', 'VI'], MX: ['OX'] });
        assert.equal(r.body.health.notification_url, `${s.url}/connectors/adyen/notifications`);
      }
      const { rows } = await s.ctx.db.query<{ secrets: string; settings: unknown }>(`SELECT secrets, settings FROM connectors WHERE name = 'adyen'`);
      assert.ok(!rows[0]!.secrets.includes(sim.info.api_key) && !JSON.stringify(rows[0]!.settings).includes(sim.info.api_key));
      // MC is not configured: refused in production; VI is served.
      const mc = await v3.post('/v3/deposits', { invoice_id: `ad-mc-${backend}`, country: 'BR', currency: 'BRL', amount: '50.00', payment_method: 'MC', payer: BR_PAYER });
      assert.equal(mc.status, 400, mc.text);
      assert.match(mc.body.details.join('\n'), /'MC' \(.*\) is not available: no payment provider collects it here; available in BR: .*VI/, 'MC not configured');
      await admin(s.url, 'PUT', '/admin/connectors/adyen', sim.config());
      assert.equal((await admin(s.url, 'GET', '/admin/connectors/adyen', undefined, 'wrong-token-0123456789')).status, 401);
    });

    test('console: Adyen configured by an admin with write-only secrets; methods as JSON; a stored secret kept when left empty', async () => {
      const admin_ = await signedIn(s, await makeOperator(s, 'admin'));
      assert.match((await admin_.get('/ops/connectors')).html, /href="\/ops\/connectors\/adyen">Configure Adyen</);
      const fields: Record<string, string> = {
        endpoint: 'custom', api_url: sim.info.api_url, merchant_account: sim.info.merchant_account, api_key: sim.info.api_key, hmac_key: sim.info.hmac_key,
        methods: JSON.stringify({ BR: ['VI', 'MC', 'BL'], MX: ['VI', 'MC', 'OX'] }), ca: sim.ca,
      };
      const bad = await admin_.submit('/ops/connectors/adyen', '/ops/connectors/adyen', { ...fields, methods: '{"BR":["IX"]}' });
      assert.equal(bad.status, 400);
      assert.ok(!bad.html.includes(sim.info.api_key) && !bad.html.includes(sim.info.hmac_key), 'a secret sent back');
      const saved = await admin_.submit('/ops/connectors/adyen', '/ops/connectors/adyen', fields);
      assert.equal(saved.url, '/ops/connectors/adyen?done=saved', saved.html.slice(0, 500));
      assert.ok(!saved.html.includes(sim.info.api_key) && !saved.html.includes(sim.info.hmac_key));
      const first = await storedSecrets(s.ctx, 'adyen');
      const again = await admin_.submit('/ops/connectors/adyen', '/ops/connectors/adyen', { ...fields, api_key: '', hmac_key: '' });
      assert.equal(again.url, '/ops/connectors/adyen?done=saved', again.html.slice(0, 500));
      assert.deepEqual(await storedSecrets(s.ctx, 'adyen'), first);
      // Pointing api_url elsewhere with the secrets left empty: refused (a stored secret never follows a changed endpoint).
      const moved = await admin_.submit('/ops/connectors/adyen', '/ops/connectors/adyen', { ...fields, api_url: 'https://evil.example/checkout/v71', api_key: '', hmac_key: '' });
      assert.equal(moved.status, 400);
      assert.deepEqual(await storedSecrets(s.ctx, 'adyen'), first);
    });

    test('card authorised on the hosted page: read back server-to-server, completed once, confirmed by the notification; only brand and last four kept', async () => {
      const d = await cardCheckout('VI');
      const page = await sim.fetchPage(d.hosted);
      assert.equal(page.status, 200);
      assert.match(page.text, /Card number/);
      assert.equal(await status(d.id), 'PENDING');
      const paid = await sim.fetchPage(d.hosted, { number: '4111 1111 4555 1142', expiry: '03/30', cvc: '737', holder: 'Ana Silva' });
      assert.equal(paid.status, 303);
      assert.match(paid.location!, /sessionResult=/);
      // The notification came first (the simulator posts it before redirecting): completed once.
      await until('completed', () => status(d.id), (v) => v === 'COMPLETED');
      assert.equal(await comeBack(paid.location!), 303);
      assert.equal(await completions(d.id), 1);
      const r = await row(d.id);
      assert.equal(r.card_detail.masked_card, '************1142');
      assert.equal(r.card_detail.brand, 'VISA');
      assert.ok(!JSON.stringify(r).includes('4111111145551142'), 'the card number is never stored');
      const p = await payments(d.ref);
      assert.equal(p.length, 1);
      const st = await sim.state();
      const auth = st.deliveries.filter((x) => x.body.notificationItems[0].NotificationRequestItem.merchantReference === d.ref);
      assert.deepEqual(auth.map((x) => [x.status, x.answer]), [[200, '[accepted]']]);
      const health = (await admin(s.url, 'GET', '/admin/connectors/adyen')).body.health;
      assert.ok(health.last_authorisation_at && health.last_notification_at);
      // Streamline's status: approved, with the masked card.
      const ws = await formPost(s.url, '/apd/webpaystatus', { x_login: m.web_status.login, x_trans_key: m.web_status.trans_key, x_invoice: d.invoice });
      const parts = ws.text.split('|');
      assert.deepEqual([parts[0], parts[9 - 2], parts[11], parts[12]], ['9', 'VI', 'Approved', '************1142']);
    });

    test('notification dropped: the return leg reads the session result back and completes; the late notification is a no-op', async () => {
      await sim.control.delivery('hold');
      try {
        const d = await cardCheckout('MC');
        const paid = await sim.control.pay(d.sessionId, { number: '5555341244441115', holder: 'Ana Silva' });
        assert.ok(paid.redirect);
        // A made-up sessionResult is handed to Adyen, which refuses it: nothing changes.
        const forgedReturn = paid.redirect!.replace(/sessionResult=[^&]+/, 'sessionResult=forged');
        await comeBack(forgedReturn);
        assert.equal(await status(d.id), 'PENDING');
        assert.equal(await comeBack(paid.redirect!), 303);
        assert.equal(await status(d.id), 'COMPLETED');
        assert.deepEqual((await payments(d.ref)).map((p) => p.seen_via), ['return']);
        assert.equal((await row(d.id)).card_detail.masked_card, '************1115');
        await sim.control.delivery('deliver');
        await sim.control.release();
        assert.equal(await completions(d.id), 1);
        assert.equal((await payments(d.ref)).length, 1);
      } finally {
        await sim.control.delivery('deliver');
      }
    });

    test('3-D Secure: a failed challenge is refused (the deposit stays payable), a passed one authorises', async () => {
      const d = await cardCheckout('VI');
      const ch = await sim.fetchPage(d.hosted, { number: '4917610000000000', holder: 'Ana Silva', expiry: '03/30', cvc: '737' });
      assert.match(ch.text, /Your bank asks you to confirm/);
      const failed = await sim.fetchPage(`${d.hosted}/challenge`, { password: 'wrong' });
      assert.match(failed.text, /3D Not Authenticated/);
      await new Promise((r) => setTimeout(r, 200));
      assert.equal(await status(d.id), 'PENDING');
      await sim.fetchPage(d.hosted, { number: '4917610000000000', holder: 'Ana Silva', expiry: '03/30', cvc: '737' });
      const passed = await sim.fetchPage(`${d.hosted}/challenge`, { password: 'password' });
      assert.equal(passed.status, 303);
      assert.equal(await comeBack(passed.location!), 303);
      assert.equal(await status(d.id), 'COMPLETED');
      assert.equal(await completions(d.id), 1);
    });

    test('refusals with their reasons leave the deposit payable and are shown (v3 card_refusal, streamline x_approval_detail); three refusals end the session, the next checkout visit opens a new one that pays', async () => {
      const d = await cardCheckout('VI');
      const webpaystatus = async () => (await formPost(s.url, '/apd/webpaystatus', { x_login: m.web_status.login, x_trans_key: m.web_status.trans_key, x_invoice: d.invoice })).text.split('|');
      assert.equal((await v3.get(`/v3/deposits/${d.id}`)).body.card_refusal, null);
      assert.equal((await webpaystatus())[11], 'Pending');
      const seen: unknown[] = [];
      for (const holder of ['DECLINED', 'NOT_ENOUGH_BALANCE', 'CVC_DECLINED']) {
        const r = await sim.control.pay(d.sessionId, { number: '4111111145551142', holder });
        if (holder !== 'CVC_DECLINED') assert.ok(r.refused, JSON.stringify(r));
        else assert.ok(r.redirect, 'the third refusal ends the session');
        if (r.redirect) assert.equal(await comeBack(r.redirect), 303);
        const v = (await v3.get(`/v3/deposits/${d.id}`)).body;
        assert.equal(v.status, 'PENDING', 'a refused card leaves the deposit payable');
        seen.push([v.card_refusal.reason, v.card_refusal.reason_code, v.card_refusal.attempts]);
        assert.match(v.card_refusal.refused_at, /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/);
      }
      // Adyen's refusalReason and refusalReasonCode, per attempt; the session's generic "Refused" does not replace them.
      assert.deepEqual(seen, [['Refused', '2', 1], ['Not enough balance', '12', 2], ['CVC Declined', '24', 3]]);
      const ws = await webpaystatus();
      assert.deepEqual([ws[0], ws[11]], ['7', 'Refused: CVC Declined']);
      const { rows } = await s.ctx.db.query<{ reason: string; success: boolean }>(`SELECT reason, success FROM adyen_events WHERE merchant_reference = $1 ORDER BY received_at`, [d.ref]);
      assert.deepEqual(rows.map((x) => [x.success, x.reason]), [[false, 'Refused'], [false, 'Not enough balance'], [false, 'CVC Declined']]);
      assert.equal((await admin(s.url, 'GET', '/admin/connectors/adyen')).body.health.refused_last_24h >= 3, true);
      // Adyen ended the session: back on the checkout, the customer gets a new one and pays with another card.
      const again = await fetch(d.body.redirect_url, { redirect: 'manual' });
      assert.equal(again.status, 303, await again.text());
      const hosted2 = again.headers.get('location')!;
      assert.notEqual(hosted2, d.hosted, 'a new hosted session');
      const ref2 = (await row(d.id)).connector_reference;
      assert.notEqual(ref2, d.ref);
      const paid = await sim.control.pay(hosted2.split('/').pop()!, { number: '4111111145551142', holder: 'Ana Silva' });
      assert.ok(paid.redirect, JSON.stringify(paid));
      assert.equal(await comeBack(paid.redirect!), 303);
      assert.equal(await status(d.id), 'COMPLETED');
      assert.equal(await completions(d.id), 1);
      assert.deepEqual([(await webpaystatus())[0], (await webpaystatus())[11]], ['9', 'Approved']);
    });

    test('streamline: a card NewInvoice (x_bank VI) through Adyen\'s hosted page; a refusal answers x_approval_detail "Refused: …" with result 7, then another card approves it', async () => {
      const f: Record<string, string> = {
        x_login: m.deposits.login, x_trans_key: m.deposits.trans_key, x_invoice: `ad-sl-${backend}-${Date.now()}`, x_amount: '80.00', x_currency: 'BRL',
        x_country: 'BR', x_bank: 'VI', x_iduser: '77', x_cpf: BR_PAYER.document, x_name: 'Ana Silva', x_email: 'ana@example.com',
        x_address: 'Av. Paulista 1000', x_zip: '01310-100', x_city: 'São Paulo', x_state: 'SP', x_return: 'https://shop.example/return', type: 'json',
      };
      const v = (k: string) => f[k] ?? '';
      f.control = createHmac('sha256', m.deposits.secret_key)
        .update(`${v('x_invoice')}V${v('x_amount')}I${v('x_iduser')}2${v('x_bank')}1${v('x_cpf')}H${v('x_bdate')}G${v('x_email')}Y${v('x_zip')}A${v('x_address')}P${v('x_city')}S${v('x_state')}P`, 'utf8')
        .digest('hex').toUpperCase();
      const created = await formPost(s.url, '/api_curl/streamline/NewInvoice', f);
      assert.equal(created.body.status, '0', created.text);
      const r = await fetch(created.body.link, { redirect: 'manual' });
      assert.equal(r.status, 303, await r.text());
      const hosted = r.headers.get('location')!;
      assert.ok(hosted.startsWith(sim.info.api_url.replace('/checkout/v71', '/hosted/')), hosted);
      const status = async () => (await formPost(s.url, '/apd/webpaystatus', { x_login: m.web_status.login, x_trans_key: m.web_status.trans_key, x_invoice: f.x_invoice })).text.split('|');
      const refused = await sim.control.pay(hosted.split('/').pop()!, { number: '4111111145551142', holder: 'NOT_ENOUGH_BALANCE' });
      assert.ok(refused.refused, JSON.stringify(refused));
      const ws = await until('the refusal shown', status, (x) => x[11] !== 'Pending');
      assert.deepEqual([ws[0], ws[11], ws[12]], ['7', 'Refused: Not enough balance', '']);
      const paid = await sim.control.pay(hosted.split('/').pop()!, { number: '4111111145551142', holder: 'Ana Silva' });
      assert.ok(paid.redirect, JSON.stringify(paid));
      assert.equal(await comeBack(paid.redirect!), 303);
      const done = await status();
      assert.deepEqual([done[0], done[11], done[12]], ['9', 'Approved', '************1142']);
    });

    test('a refused card deposit left unpaid expires: CANCELLED, x_approval_detail "Not approved: <reason>", the refusal still shown', async () => {
      const d = await cardCheckout('VI');
      const refused = await sim.control.pay(d.sessionId, { number: '4111111145551142', holder: 'DECLINED' });
      assert.ok(refused.refused, JSON.stringify(refused));
      await until('the refusal shown', async () => (await v3.get(`/v3/deposits/${d.id}`)).body.card_refusal, (x) => x !== null);
      // Its time and the grace a provider's charge gets after it (at most an hour) are up; the expiry worker runs every few seconds.
      await s.ctx.db.query(`UPDATE deposits SET expires_at = now() - interval '2 hours' WHERE id = $1`, [d.id]);
      await until('expired', () => status(d.id), (v) => v === 'CANCELLED', 30_000);
      const v = (await v3.get(`/v3/deposits/${d.id}`)).body;
      assert.deepEqual([v.status, v.card_refusal.reason, v.card_refusal.attempts], ['CANCELLED', 'Refused', 1]);
      const ws = (await formPost(s.url, '/apd/webpaystatus', { x_login: m.web_status.login, x_trans_key: m.web_status.trans_key, x_invoice: d.invoice })).text.split('|');
      assert.deepEqual([ws[0], ws[11]], ['8', 'Not approved: Refused']);
    });

    test('forged, duplicated and out-of-order notifications: a forged batch applies nothing (401), a duplicate once', async () => {
      const d = await cardCheckout('VI');
      await sim.control.delivery('duplicate');
      try {
        // Forged: an AUTHORISATION for this charge, signed with another key.
        const forged = await sim.control.forge({ pspReference: '9911223344556677', merchantReference: d.ref, amount: { value: 12000, currency: 'BRL' }, eventCode: 'AUTHORISATION', success: 'true' });
        assert.equal(forged.delivery.status, 401);
        assert.equal(await status(d.id), 'PENDING');
        const bare = await fetch(`${s.url}/connectors/adyen/notifications`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"notificationItems":[]}' });
        assert.equal(bare.status, 401);
        const paid = await sim.control.pay(d.sessionId, { number: '4111111145551142', holder: 'Ana Silva' });
        assert.ok(paid.redirect);
        await until('completed by notification', () => status(d.id), (v) => v === 'COMPLETED');
        const st = await sim.state();
        const mine = st.deliveries.filter((x) => x.body.notificationItems[0].NotificationRequestItem.merchantReference === d.ref && x.status !== 401);
        assert.deepEqual(mine.map((x) => x.answer), ['[accepted]', '[accepted]']);
        assert.equal(await completions(d.id), 1);
      } finally {
        await sim.control.delivery('deliver');
      }
    });

    test('Adyen down: the deposit is refused cleanly (no 500) and the failure shows in health', async () => {
      await sim.control.outage('503');
      try {
        const d = await deposit('BR', 'VI');
        const r = await fetch(d.body.redirect_url, { redirect: 'manual' });
        assert.ok(r.status < 500 || r.status === 503, `status ${r.status}`);
        const h = (await admin(s.url, 'GET', '/admin/connectors/adyen')).body.health;
        assert.match(h.last_error ?? '', /sessions/);
      } finally {
        await sim.control.outage('none');
      }
    });
  });
}
