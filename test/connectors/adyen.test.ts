// The Adyen connector against the Adyen Checkout simulator (a separate process with its own CA and
// TLS, X-API-Key authentication, HMAC-signed notifications; src/connectors/adyen/simulator), with
// caja in production on PGlite and PostgreSQL: configuration; a card deposit through the hosted
// checkout (authorised, refused with each reason, 3-D Secure passed and failed, cancelled), read
// back server-to-server and confirmed once by the notification; notifications dropped, duplicated,
// out of order and forged; boleto and OXXO vouchers paid and expired; card refunds settled and
// failed, voucher refunds refused. The ledger is checked at the end.
import { after, before, describe, test } from 'node:test';
import { createHmac } from 'node:crypto';
import assert from 'node:assert/strict';
import { backends, startTestServer, type TestServer } from '../helpers/server.ts';
import { admin, createMerchant, formPost, V3Client, type Credentials } from '../helpers/clients.ts';
import { cpf } from '../helpers/documents.ts';
import { assertLedgerOk } from '../helpers/ledger.ts';
import { setRates } from '../helpers/four-eyes.ts';
import { startAdyenSimulator, type AdyenSimulator } from '../helpers/adyen-simulator.ts';
import { trackConnectorRefunds } from '../../src/refunds/provider-refunds.ts';
import { withdrawCharge } from '../../src/connectors/charges.ts';
import { boletoFromDigitableLine } from '../../src/domain/vouchers.ts';
import { storedSecrets } from '../../src/connectors/store.ts';
import { makeOperator, signedIn } from '../ops/helpers.ts';
import { merchantBalances } from '../../src/ledger/ledger.ts';
import { toDb } from '../../src/domain/money.ts';
import { until } from '../helpers/until.ts';
import { PanelClient } from '../panel/helpers.ts';
import { generateDueReports } from '../../src/settlements/service.ts';
import { dayBounds, localDay } from '../../src/settlements/days.ts';

const BR_PAYER = { first_name: 'Ana', last_name: 'Silva', email: 'ana@example.com', document: cpf('529982247'), address: { street: 'Av. Paulista 1000', city: 'São Paulo', state: 'SP', zip_code: '01310-100' } };
const MX_PAYER = { document: 'GODE561231GR8', first_name: 'Luis', last_name: 'Pérez', email: 'luis@example.com' };

for (const backend of backends()) {
  describe(`Adyen connector through the Adyen simulator (${backend})`, () => {
    let sim: AdyenSimulator;
    let s: TestServer;
    let m: Credentials;
    let v3: V3Client;
    let n = 0;

    before(async () => {
      sim = await startAdyenSimulator();
      s = await startTestServer(backend, { CAJA_ENV: 'production', CAJA_CONNECTOR_TIMEOUT_MS: '1500' }, { workers: true });
      await setRates(s, { BRL: '5.00', MXN: '17.00' });
      m = await createMerchant(s.url, 'Adyen shop');
      v3 = V3Client.deposits(s.url, m);
      await sim.control.receiver(`${s.url}/connectors/adyen/notifications`);
    });

    after(async () => {
      await assertLedgerOk(s.ctx.db);
      await s.close();
      await sim.stop();
    });

    const status = async (id: number) => (await v3.get(`/v3/deposits/${id}`)).body.status as string;
    const row = async (id: number) => (await s.ctx.db.query<{ connector: string; connector_reference: string; card_detail: any; payment_info: any }>(
      'SELECT connector, connector_reference, card_detail, payment_info FROM deposits WHERE id = $1', [id])).rows[0]!;
    const completions = async (id: number) =>
      (await s.ctx.db.query<{ n: number }>(`SELECT count(*)::integer AS n FROM deposit_status_changes WHERE deposit_id = $1 AND to_status = 'COMPLETED'`, [id])).rows[0]!.n;
    const payments = async (ref: string) => (await s.ctx.db.query<{ payment_id: string; seen_via: string; status: string }>('SELECT payment_id, seen_via, status FROM connector_payments WHERE charge_reference = $1', [ref])).rows;

    async function deposit(country: 'BR' | 'MX', method: string, amount = '120.00', extra: Record<string, unknown> = {}) {
      const invoice = `ad-${backend}-${++n}-${Date.now()}`;
      const r = await v3.post('/v3/deposits', {
        invoice_id: invoice, country, currency: country === 'BR' ? 'BRL' : 'MXN', amount, payment_method: method,
        payer: country === 'BR' ? BR_PAYER : MX_PAYER, ...extra,
      });
      assert.equal(r.status, 200, r.text);
      return { id: r.body.deposit_id as number, invoice, body: r.body, token: typeof r.body.redirect_url === 'string' ? (r.body.redirect_url as string).split('/').pop()! : '' };
    }

    /** A card deposit's checkout: caja creates the session and sends the customer to Adyen's hosted page. */
    async function cardCheckout(method = 'VI', country: 'BR' | 'MX' = 'BR', amount = '120.00', extra: Record<string, unknown> = {}) {
      const d = await deposit(country, method, amount, extra);
      const r = await fetch(d.body.redirect_url, { redirect: 'manual' });
      assert.equal(r.status, 303, await r.text());
      const hosted = r.headers.get('location')!;
      assert.ok(hosted.startsWith(sim.info.api_url.replace('/checkout/v71', '/hosted/')), hosted);
      const ref = (await row(d.id)).connector_reference;
      return { ...d, hosted, sessionId: hosted.split('/').pop()!, ref };
    }

    /** The customer's browser coming back from Adyen to caja's return leg. */
    async function comeBack(url: string) {
      assert.ok(url.startsWith(`${s.url}/connectors/adyen/return/`), url);
      const r = await fetch(url, { redirect: 'manual' });
      return r.status;
    }

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

    test('boleto: the acquirer\'s voucher (digitable line, bar code, download URL, expiry) shown; paid days later through the notification; its refund refused clearly', async () => {
      const d = await deposit('BR', 'BL', '250.00');
      const info = d.body.payment_info;
      const psp = d.body.payment_info.metadata.psp_reference as string;
      const voucher = (await sim.state()).payments.find((p: any) => p.pspReference === psp);
      assert.equal(info.metadata.digitable_line, voucher.voucher.reference, 'the acquirer\'s number, not caja\'s');
      assert.equal(info.metadata.bar_code.length, 44);
      assert.ok(boletoFromDigitableLine(info.metadata.digitable_line).ok);
      assert.equal(info.metadata.receipt_url, voucher.voucher.downloadUrl);
      await sim.control.payVoucher(psp);
      await until('boleto paid', () => status(d.id), (v) => v === 'COMPLETED');
      const refund = await v3.post('/v3/refunds', { deposit_id: d.id, amount: '50.00', comments: 'x' });
      assert.ok(refund.status >= 400 && refund.status < 500, refund.text);
      assert.match(refund.text, /Adyen does not refund boleto/);
    });

    test('OXXO: expired (OFFER_CLOSED) cancels the deposit', async () => {
      const d = await deposit('MX', 'OX', '300.00');
      const psp = d.body.payment_info.metadata.psp_reference as string;
      assert.match(d.body.payment_info.metadata.digitable_line, /^\d{15}$/);
      await sim.control.expireVoucher(psp);
      await until('cancelled', () => status(d.id), (v) => v === 'CANCELLED');
    });

    test('a voucher withdrawn (its deposit cancelled: withdrawCharge) is cancelled at Adyen, so it can no longer be paid', async () => {
      const d = await deposit('MX', 'OX', '90.00');
      const psp = d.body.payment_info.metadata.psp_reference as string;
      const r = await row(d.id);
      await withdrawCharge(s.ctx, { id: d.id, connector: r.connector, connector_reference: r.connector_reference });
      await until('cancelled at Adyen', async () => (await sim.state()).payments.find((p: any) => p.pspReference === psp).status, (v) => v === 'cancelled');
      assert.ok((await sim.state()).requests.some((r) => r.method === 'POST' && r.path === `/checkout/v71/payments/${psp}/cancels` && r.status === 201));
    });

    test('card refunds: partial settled by REFUND, another failed by REFUND_FAILED; the balance follows', async () => {
      const d = await cardCheckout('VI', 'BR', '200.00');
      const paid = await sim.control.pay(d.sessionId, { number: '4111111145551142', holder: 'Ana Silva' });
      await comeBack(paid.redirect!);
      assert.equal(await status(d.id), 'COMPLETED');
      const refunds = v3;
      const r1 = await refunds.post('/v3/refunds', { deposit_id: d.id, amount: '50.00', comments: 'partial' });
      assert.equal(r1.status, 200, r1.text);
      const id1 = r1.body.refund_id ?? r1.body.id;
      await until('refund completed', async () => (await refunds.get(`/v3/refunds/${id1}`)).body.status, (v) => v === 'COMPLETED');
      await sim.control.refundOutcome('fail');
      try {
        const r2 = await refunds.post('/v3/refunds', { deposit_id: d.id, amount: '30.00', comments: 'second' });
        assert.equal(r2.status, 200, r2.text);
        const id2 = r2.body.refund_id ?? r2.body.id;
        await until('refund rejected', async () => {
          await trackConnectorRefunds(s.ctx);
          return (await refunds.get(`/v3/refunds/${id2}`)).body.status;
        }, (v) => v === 'REJECTED');
      } finally {
        await sim.control.refundOutcome('settle');
      }
      const st = await sim.state();
      const p = st.payments.find((x: any) => x.merchantReference === d.ref && x.status === 'authorised');
      assert.equal(p.refunded, 5000, 'only the settled refund stays refunded at the acquirer');
    });

    test('chargebacks: notified (deadline shown, no money), charged once with the merchant\'s chargeback fee (duplicate and second notice), reversed (given back, not the fee), second chargeback charged again; shown in the API, notification, panel, console and settlement report', async () => {
      // The merchant's own chargeback fee (USD), copied onto its deposits at creation as the other fees are.
      const priced = await admin(s.url, 'PUT', `/admin/merchants/${m.merchant_id}/fees`, { chargeback: '20' });
      assert.equal(priced.status, 200, priced.text);
      assert.deepEqual([priced.body.chargeback, priced.body.overrides.chargeback], ['20.00', '20.00']);
      const badFee = await admin(s.url, 'PUT', `/admin/merchants/${m.merchant_id}/fees`, { chargeback: '-1' });
      assert.equal(badFee.status, 400, badFee.text);
      assert.match(badFee.body.details.join(' '), /^chargeback: /);
      const d = await cardCheckout('VI', 'BR', '150.00', { notification_url: 'https://shop.example/notify' });
      const view = async () => (await v3.get(`/v3/deposits/${d.id}`)).body;
      const cents = (x: string | number) => Math.round(Number(x) * 100);
      const paid = await sim.control.pay(d.sessionId, { number: '4111111145551142', holder: 'Ana Silva' });
      await comeBack(paid.redirect!);
      assert.equal(await status(d.id), 'COMPLETED');
      const psp = (await payments(d.ref))[0]!.payment_id;
      const mId = (await s.ctx.db.query<{ merchant_id: number }>('SELECT merchant_id FROM deposits WHERE id = $1', [d.id])).rows[0]!.merchant_id;
      const available = async () => (await merchantBalances(s.ctx.db, mId)).map((b) => [b.currency, toDb(b.available)]);
      const dispute = async () => (await admin(s.url, 'GET', '/admin/connectors/adyen/disputes')).body.disputes.find((x: any) => x.deposit_id === d.id);
      const start = await available();

      await sim.control.dispute(psp, 'NOTIFICATION_OF_CHARGEBACK', { defensePeriodEndsAt: '2027-01-15T00:00:00Z', reasonCode: '10.4' });
      const notified = await until('notified', dispute, (x) => x?.status === 'notified');
      assert.equal(notified.deadline_at, '2027-01-15T00:00:00.000Z');
      assert.equal(notified.reason_code, '10.4');
      assert.deepEqual(await available(), start, 'no money moves on the notice');
      const open = (await view()).disputes;
      assert.deepEqual(open.map((x: any) => [x.status, x.reason_code, x.reason, x.amount, x.currency, x.defense_deadline, x.closed_at, x.fee]),
        [['OPEN', '10.4', 'Fraudulent transaction', 150, 'BRL', '2027-01-15 00:00:00', null, null]]);
      assert.match(open[0].opened_at, /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/);
      // The panel's and the console's deposit pages show it with its deadline.
      const panel = new PanelClient(s.url);
      assert.equal((await panel.signIn(m.panel.email, m.panel.password)).status, 200);
      const pp = await panel.get(`/panel/deposits/${d.id}`);
      assert.equal(pp.status, 200);
      const panelDisputes = /<section class="card" id="disputes">([\s\S]*?)<\/section>/.exec(pp.html)?.[1] ?? '';
      assert.match(panelDisputes, /Open/);
      assert.match(panelDisputes, /10\.4 · Fraudulent transaction/);
      assert.match(panelDisputes, /<time datetime="2027-01-15T00:00:00.000Z">/);
      const support = await signedIn(s, await makeOperator(s, 'support', `support-adyen-${backend}`));
      const cp = await support.get(`/ops/deposits/${d.id}`);
      assert.equal(cp.status, 200, cp.html.slice(0, 300));
      assert.match(/id="disputes">([\s\S]*?)<\/section>/.exec(cp.html)?.[1] ?? '', /2027-01-15T00:00:00.000Z[\s\S]*Open|Open[\s\S]*2027-01-15T00:00:00.000Z/);
      assert.match(cp.html, /VISA \*{12}1142/);

      await sim.control.delivery('duplicate');
      await sim.control.dispute(psp, 'CHARGEBACK');
      await sim.control.delivery('deliver');
      const charged = await until('charged', dispute, (x) => x?.status === 'charged');
      const taken = charged.debit;
      assert.ok(charged.return_id);
      assert.ok(Number(taken) > 0);
      const after1 = await available();
      const [cur, startAmt] = start[0]!;
      assert.equal(cur, 'USD', 'the merchant settles in USD');
      assert.equal(after1[0]![0], cur);
      // The charged-back share and the merchant's chargeback fee (20.00 USD), once.
      assert.equal(cents(after1[0]![1]), cents(startAmt) - cents(taken) - 2000, 'taken once, with the fee');
      const cb = (await view()).disputes[0];
      assert.deepEqual([cb.status, cents(cb.debit), cb.fee, cb.debit_currency, cb.closed_at], ['CHARGED_BACK', cents(taken), 20, 'USD', null]);
      const tx = (await v3.get('/v3/balance/transactions?limit=10')).body;
      const debitTx = (tx.data ?? tx.transactions ?? []).find((x: any) => x.type === 'deposit_return.debit');
      assert.ok(debitTx, JSON.stringify(tx).slice(0, 500));
      assert.deepEqual([cents(debitTx.amount), cents(debitTx.fee)], [-cents(taken) - 2000, 2000], 'the fee is a fee of the movement');

      await sim.control.dispute(psp, 'CHARGEBACK_REVERSED');
      await until('reversed', dispute, (x) => x?.status === 'reversed');
      assert.equal(cents((await available())[0]![1]), cents(startAmt) - 2000, 'the amount given back, not the fee');
      const won = (await view()).disputes[0];
      assert.equal(won.status, 'REVERSED');
      assert.match(won.closed_at, /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/);

      await sim.control.dispute(psp, 'SECOND_CHARGEBACK');
      await until('charged again', dispute, (x) => x?.status === 'charged');
      assert.equal(cents((await available())[0]![1]), cents(startAmt) - cents(taken) - 4000, 'charged again, with a second fee');
      assert.deepEqual([(await view()).disputes[0].status, (await view()).disputes[0].fee], ['CHARGED_BACK', 40]);
      // Every change of the dispute notified the merchant, naming the dispute (v3 body {deposit_id, dispute}).
      const bodies = await until('the dispute notifications', async () => (await v3.get('/v3/notifications?limit=100')).body.notifications
        .filter((x: any) => x.subject_id === d.id).map((x: any) => JSON.parse(x.body)).filter((b: any) => b.dispute).reverse(),
      (x: any[]) => x.length === 4);
      assert.deepEqual(bodies.map((b: any) => [b.deposit_id, b.dispute.status]), [[d.id, 'OPEN'], [d.id, 'CHARGED_BACK'], [d.id, 'REVERSED'], [d.id, 'CHARGED_BACK']]);
      // The day's settlement report shows the chargeback fees as fees.
      const tz = (await s.ctx.db.query<{ timezone: string }>('SELECT timezone FROM merchants WHERE id = $1', [m.merchant_id])).rows[0]!.timezone;
      const today = localDay(new Date(), tz);
      await generateDueReports(s.ctx, { now: new Date(dayBounds(today, tz).end.getTime() + 61 * 60_000), delayMinutes: 60 });
      const report = await v3.get(`/v3/settlements/USD/${today}`);
      assert.equal(report.status, 200, report.text);
      const returnLines = report.body.lines.filter((l: any) => l.type === 'deposit_return.debit' || l.type === 'deposit_return.reverse');
      assert.deepEqual(returnLines.slice(-3).map((l: any) => [l.type, cents(l.fee)]),
        [['deposit_return.debit', 2000], ['deposit_return.reverse', 0], ['deposit_return.debit', 2000]]);
      const events = (await s.ctx.db.query<{ type: string }>(`SELECT type FROM events WHERE subject_type = 'deposit' AND subject_id = $1 AND (type LIKE 'deposit.dispute%' OR type LIKE 'deposit.return%') ORDER BY id`, [d.id])).rows.map((r) => r.type);
      assert.deepEqual(events, ['deposit.dispute_opened', 'deposit.returned', 'deposit.return_reversed', 'deposit.returned']);
      // The money moved as bank-initiated returns of kind chargeback (src/deposits/returns.ts).
      const returns = (await s.ctx.db.query<{ kind: string; status: string; deadline_at: Date | null }>('SELECT kind, status, deadline_at FROM deposit_returns WHERE deposit_id = $1 ORDER BY id', [d.id])).rows;
      assert.deepEqual(returns.map((r) => [r.kind, r.status, r.deadline_at !== null]), [['chargeback', 'reversed', true], ['chargeback', 'applied', true]]);
      // The merchant reads them (GET /v3/events), with the defence deadline.
      // (The feed is in commit order: it may hold the newest back a moment on PostgreSQL.)
      // The feed pages oldest first (500 at most a page): read it to its end with the cursor.
      const feed = async () => {
        const all: any[] = [];
        for (let after = '0'; ;) {
          const page = (await v3.get(`/v3/events?limit=500&after=${after}`)).body;
          all.push(...page.events);
          if (page.events.length < 500) return all;
          after = page.next_cursor;
        }
      };
      const seen = await until('the merchant\'s events', async () => (await feed()).filter((e: any) => e.subject_id === d.id && (e.type.startsWith('deposit.dispute') || e.type.startsWith('deposit.return'))), (x: any[]) => x.length === 4);
      assert.equal(seen[0].data.deadline_at, '2027-01-15T00:00:00.000Z');
      assert.equal(seen[1].data.kind, 'chargeback');
      await assertLedgerOk(s.ctx.db);
    });

    test('HMAC key rotation: notifications under a new key are refused until it is configured as hmac_key_next; both verify then', async () => {
      const { hmac_key: next } = await sim.control.rotateHmac();
      try {
        const d = await cardCheckout('VI');
        await sim.control.pay(d.sessionId, { number: '4111111145551142', holder: 'Ana Silva' });
        const st = await sim.state();
        const last = st.deliveries.at(-1)!;
        assert.equal(last.status, 401, 'signed with a key caja does not know yet');
        assert.equal(await status(d.id), 'PENDING');
        const put = await admin(s.url, 'PUT', '/admin/connectors/adyen', sim.config({ hmac_key_next: next }));
        assert.equal(put.status, 200, put.text);
        assert.equal(put.body.hmac_key_next, '(set)');
        assert.ok(!put.text.includes(next));
        // Adyen retries the refused batch: posted again, now accepted.
        const again = await fetch(`${s.url}/connectors/adyen/notifications`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(last.body) });
        assert.equal(await again.text(), '[accepted]');
        assert.equal(await status(d.id), 'COMPLETED');
      } finally {
        // The rotation done: the new key alone.
        await admin(s.url, 'PUT', '/admin/connectors/adyen', sim.config({ hmac_key: next }));
      }
    });

    test('an answer lost (timeout): sent again under the same Idempotency-Key, Adyen replays the first: one session, one voucher', async () => {
      await sim.control.loseAnswers(1);
      const d = await cardCheckout('VI');
      const st = await sim.state();
      assert.equal(st.sessions.filter((x: any) => x.reference === d.ref).length, 1, 'one session for the charge');
      assert.equal(st.sessions.find((x: any) => x.reference === d.ref).id, d.sessionId);
      await sim.control.loseAnswers(1);
      const v = await deposit('MX', 'OX', '120.00');
      const vref = (await row(v.id)).connector_reference;
      const vouchers = (await sim.state()).payments.filter((p: any) => p.merchantReference === vref);
      assert.equal(vouchers.length, 1, 'one voucher for the charge');
      assert.equal(vouchers[0].pspReference, v.body.payment_info.metadata.psp_reference);
    });

    test('out of order: a chargeback arriving before its notice, then the notice: charged once, still charged', async () => {
      const d = await cardCheckout('MC', 'MX', '500.00');
      const paid = await sim.control.pay(d.sessionId, { number: '5555341244441115', holder: 'Luis Perez' });
      await comeBack(paid.redirect!);
      const psp = (await payments(d.ref))[0]!.payment_id;
      await sim.control.delivery('hold');
      // The acquirer's reason text is shown escaped on the pages.
      const hostile = '<img src=x onerror=alert(1)> & "q"';
      try {
        await sim.control.dispute(psp, 'NOTIFICATION_OF_CHARGEBACK', { reason: hostile, reasonCode: '<b>4837</b>' });
        await sim.control.dispute(psp, 'CHARGEBACK', { reason: hostile, reasonCode: '<b>4837</b>' });
      } finally {
        await sim.control.delivery('deliver');
      }
      assert.deepEqual(await sim.control.release(), { released: 2 });
      const { rows } = await s.ctx.db.query<{ status: string; n: number }>(
        `SELECT d.status, (SELECT count(*)::integer FROM deposit_returns r WHERE r.deposit_id = d.deposit_id) AS n FROM deposit_disputes d WHERE d.deposit_id = $1`, [d.id]);
      assert.deepEqual(rows, [{ status: 'charged', n: 1 }]);
      const panel = new PanelClient(s.url);
      await panel.signIn(m.panel.email, m.panel.password);
      const ops = await signedIn(s, await makeOperator(s, 'support', `support-ooo-${backend}`));
      for (const page of [await panel.get(`/panel/deposits/${d.id}`), await ops.get(`/ops/deposits/${d.id}`)]) {
        assert.equal(page.status, 200);
        assert.ok(!page.html.includes('<img src=x') && !page.html.includes('<b>4837'), 'escaped');
        assert.match(page.html, /&lt;b&gt;4837&lt;\/b&gt; · &lt;img src=x onerror=alert\(1\)&gt; &amp; &quot;q&quot;/);
        assert.match(page.html, /Charged back/);
      }
      // Another merchant's deposit is not found on the panel; an unknown id on the console is a 404 page.
      assert.equal((await ops.get('/ops/deposits/999999999')).status, 404);
      assert.equal((await ops.get('/ops/deposits/abc')).status, 404);
    });

    test('the same notification posted 8 times at once: one completion, one payment; the same chargeback 8 times: taken once', async () => {
      const d = await cardCheckout('VI', 'BR', '180.00');
      await sim.control.delivery('drop');
      let auth: any;
      try {
        await sim.control.pay(d.sessionId, { number: '4111111145551142', holder: 'Ana Silva' });
        auth = (await sim.state()).deliveries.filter((x) => x.answer === 'dropped').at(-1)!.body;
      } finally {
        await sim.control.delivery('deliver');
      }
      const post = (body: unknown) => fetch(`${s.url}/connectors/adyen/notifications`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }).then(async (r) => [r.status, await r.text()]);
      const answers = await Promise.all(Array.from({ length: 8 }, () => post(auth)));
      assert.deepEqual(answers, Array.from({ length: 8 }, () => [200, '[accepted]']));
      assert.equal(await status(d.id), 'COMPLETED');
      assert.equal(await completions(d.id), 1);
      assert.equal((await payments(d.ref)).length, 1);
      const psp = (await payments(d.ref))[0]!.payment_id;
      await sim.control.delivery('drop');
      let cb: any;
      try {
        await sim.control.dispute(psp, 'CHARGEBACK');
        cb = (await sim.state()).deliveries.filter((x) => x.answer === 'dropped').at(-1)!.body;
      } finally {
        await sim.control.delivery('deliver');
      }
      const cbAnswers = await Promise.all(Array.from({ length: 8 }, () => post(cb)));
      assert.deepEqual(cbAnswers, Array.from({ length: 8 }, () => [200, '[accepted]']));
      const { rows } = await s.ctx.db.query<{ n: number }>(
        `SELECT count(*)::integer AS n FROM deposit_returns WHERE deposit_id = $1`, [d.id]);
      assert.equal(rows[0]!.n, 1, 'taken once');
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
