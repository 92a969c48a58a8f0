// The hosted checkout over plain HTTP, on every backend: what the browser tests do not reach.
// Forms are posted as a browser posts them (form-encoded, with the page's form token and Origin),
// and the outcome is read back through the v3 API: payer fields checked by the API's own rules,
// methods limited to what the request allows, forged or cross-site posts refused, no method
// settable twice, and the sandbox's refusal to pay a HOSTED deposit that has no method yet.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { backends, startTestServer, type TestServer } from '../helpers/server.ts';
import { admin, createMerchant, V3Client, type Credentials } from '../helpers/clients.ts';
import { cpf } from '../helpers/documents.ts';
import { waitFor } from '../notifications/helpers.ts';
import { runSandboxJobs } from '../../src/deposits/worker.ts';
import { setRates } from '../helpers/four-eyes.ts';

const BR_NAMES = { first_name: 'Ana', last_name: 'Silva', email: 'ana@example.com' };

let seq = 0;
const inv = () => `co-${process.pid}-${++seq}`;

interface Page {
  status: number;
  location: string | null;
  html: string;
}

for (const backend of backends()) {
  describe(`hosted checkout over HTTP (${backend})`, () => {
    let s: TestServer;
    let creds: Credentials;
    let v3: V3Client;

    before(async () => {
      s = await startTestServer(backend);
      creds = await createMerchant(s.url, 'Loja');
      v3 = V3Client.deposits(s.url, creds);
    });
    after(() => s.close());

    async function hosted(body: Record<string, unknown>) {
      const r = await v3.post('/v3/deposits', { invoice_id: inv(), country: 'BR', currency: 'BRL', amount: '100.00', ...body });
      assert.equal(r.status, 200, r.text);
      assert.equal(r.body.checkout_type, 'HOSTED');
      return { id: r.body.deposit_id as number, url: r.body.redirect_url as string, token: (r.body.redirect_url as string).split('/').pop()! };
    }

    async function get(url: string, headers: Record<string, string> = {}): Promise<Page> {
      const r = await fetch(url, { redirect: 'manual', headers: { 'accept-language': 'en', ...headers } });
      return { status: r.status, location: r.headers.get('location'), html: await r.text() };
    }

    async function post(url: string, fields: Record<string, string>, headers: Record<string, string> = {}): Promise<Page> {
      const r = await fetch(url, {
        method: 'POST',
        redirect: 'manual',
        headers: { 'content-type': 'application/x-www-form-urlencoded', origin: s.url, 'accept-language': 'en', ...headers },
        body: new URLSearchParams(fields).toString(),
      });
      return { status: r.status, location: r.headers.get('location'), html: await r.text() };
    }

    const csrfOf = (html: string) => /name="csrf" value="([0-9a-f]+)"/.exec(html)?.[1] ?? '';
    /** The methods a page offers: its list, or the one method whose form it shows straight away. */
    const methods = (html: string) => {
      const listed = [...html.matchAll(/data-method="(\w+)"/g)].map((m) => m[1]);
      return listed.length > 0 ? listed : [...html.matchAll(/name="method" value="(\w+)"/g)].map((m) => m[1]);
    };

    test('the methods offered follow payment_method, payment_type, payment_types and the amount bounds', async () => {
      assert.deepEqual(methods((await get((await hosted({ payment_type: 'VOUCHER' })).url)).html), ['BL']);
      assert.deepEqual(methods((await get((await hosted({ payment_types: ['BANK_TRANSFER', 'WALLET'] })).url)).html), ['IX', 'BB', 'I', 'B', 'CA', 'SB', 'PP']);
      // Crypto starts at 50 BRL: not offered for 20.
      assert.ok(!methods((await get((await hosted({ amount: '20.00' })).url)).html).includes('CR'));
      // A method the request does not allow is refused even when asked for by hand.
      const d = await hosted({ payment_type: 'VOUCHER', payer: { ...BR_NAMES, document: cpf('529982247') } });
      const page = await get(`${d.url}?method=IX`);
      assert.deepEqual(methods(page.html), ['BL'], 'one method: the form of that one');
      const r = await post(d.url, { csrf: csrfOf(page.html), method: 'IX' });
      assert.equal(r.status, 200);
      assert.match(r.html, /This payment method cannot be set up for this payment\./);
      assert.equal((await v3.get(`/v3/deposits/${d.id}`)).body.payment_method, null);
    });

    test('payer fields: only those the method still needs, refused by the API rules in the page language, stored normalised', async () => {
      const d = await hosted({ payer: { email: 'ana@example.com' } });
      const form = await get(`${d.url}?method=BL`, { 'accept-language': 'pt-BR' });
      const names = [...form.html.matchAll(/name="(payer\.[\w.]+)"/g)].map((m) => m[1]);
      assert.deepEqual(names, ['payer.document', 'payer.first_name', 'payer.last_name', 'payer.address.street', 'payer.address.city', 'payer.address.state', 'payer.address.zip_code']);
      const bad = await post(d.url, {
        csrf: csrfOf(form.html), method: 'BL', 'payer.document': '111.111.111-11', 'payer.first_name': 'Ana', 'payer.last_name': '',
        'payer.address.street': 'Av. Paulista 1000', 'payer.address.city': 'São Paulo', 'payer.address.state': 'XX', 'payer.address.zip_code': '123',
      }, { 'accept-language': 'pt-BR' });
      assert.equal(bad.status, 422);
      assert.match(bad.html, /<p class="error" id="f-document-error"[^>]*>Este número de documento não é válido\.<\/p>/);
      assert.match(bad.html, /id="f-last_name-error"[^>]*>Este campo é obrigatório\./);
      assert.match(bad.html, /id="f-address-zip_code-error"[^>]*>Informe um CEP válido\./);
      assert.match(bad.html, /id="f-address-state-error"[^>]*>Escolha um estado válido\./);
      assert.match(bad.html, /value="Av\. Paulista 1000"/, 'what was typed stays');
      assert.equal((await v3.get(`/v3/deposits/${d.id}`)).body.payment_method, null);

      const ok = await post(d.url, {
        csrf: csrfOf(form.html), method: 'BL', 'payer.document': '529.982.247-25', 'payer.first_name': 'Ana', 'payer.last_name': 'Silva',
        'payer.address.street': 'Av. Paulista 1000', 'payer.address.city': 'São Paulo', 'payer.address.state': 'SP', 'payer.address.zip_code': '01310100',
        // Not asked, so not read: the customer cannot change what the merchant sent.
        'payer.email': 'other@example.com', amount: '1.00',
      });
      assert.equal(ok.status, 303);
      assert.equal(ok.location, `/pay/${d.token}`);
      const after = (await v3.get(`/v3/deposits/${d.id}`)).body;
      assert.equal(after.payment_method, 'BL');
      type Event = { type: string; subject_id: number; data: Record<string, unknown> };
      // Read until the event shows: the feed holds an event back while a transaction that began
      // before it still runs (other tests' transactions on the same PostgreSQL too).
      const chosen = await waitFor('the method_chosen event in the feed', async () => {
        const events = (await v3.get('/v3/events?limit=500')).body.events as Event[];
        const found = events.filter((e) => e.type === 'deposit.method_chosen' && e.subject_id === d.id);
        return found.length > 0 && found;
      });
      assert.equal(chosen.length, 1);
      assert.deepEqual({ ...chosen[0]!.data, at: undefined }, { deposit_id: d.id, invoice_id: after.invoice_id, payment_method: 'BL', payment_type: 'VOUCHER', actor: 'customer', at: undefined });
      assert.equal(after.payment_type, 'VOUCHER');
      assert.equal(after.amount, 100);
      assert.deepEqual(after.payer, {
        id: after.user_id, document: '52998224725', document_type: 'CPF', first_name: 'Ana', last_name: 'Silva', email: 'ana@example.com',
        address: { street: 'Av. Paulista 1000', city: 'São Paulo', state: 'SP', zip_code: '01310100' },
      });
      const pay = await get(`${s.url}${ok.location}`);
      assert.equal(pay.status, 200);
      assert.match(pay.html, /data-field="bar_code"/);
      // Chosen once: the checkout now sends the customer to the payment page, and a second post is ignored.
      assert.equal((await get(d.url)).location, `/pay/${d.token}`);
      const again = await post(d.url, { csrf: csrfOf(form.html), method: 'IX' });
      assert.equal(again.status, 303);
      assert.equal((await v3.get(`/v3/deposits/${d.id}`)).body.payment_method, 'BL');
    });

    test("the merchant's logo: the deposit's `logo`, else the merchant setting; its origin alone joins img-src", async () => {
      const patched = await admin(s.url, 'PATCH', `/admin/merchants/${creds.merchant_id}`, { logo_url: 'https://cdn.shop.example/logo.png' });
      assert.equal(patched.status, 200, patched.text);
      assert.equal(patched.body.logo_url, 'https://cdn.shop.example/logo.png');
      assert.equal((await admin(s.url, 'PATCH', `/admin/merchants/${creds.merchant_id}`, { logo_url: 'javascript:alert(1)' })).status, 400);
      const fromSettings = await hosted({});
      const r1 = await fetch(fromSettings.url);
      assert.match(await r1.text(), /<img src="https:\/\/cdn\.shop\.example\/logo\.png" alt="" data-field="logo">/);
      assert.match(r1.headers.get('content-security-policy')!, /img-src 'self' data: https:\/\/cdn\.shop\.example;/);
      const own = await hosted({ logo: 'https://img.example/own.svg' });
      assert.match(await (await fetch(own.url)).text(), /<img src="https:\/\/img\.example\/own\.svg"/);
    });

    test('rule 3: an invalid phone the method needs is asked for on the checkout, and only it', async () => {
      const r = await v3.post('/v3/deposits', {
        invoice_id: inv(), country: 'CO', currency: 'COP', amount: '50000', payment_method: 'PC', request_payer_data_on_validation_failure: true,
        payer: { document: '1020304050', first_name: 'Luis', last_name: 'Pérez', email: 'luis@example.com', phone: '123' },
      });
      assert.equal(r.status, 200, r.text);
      assert.equal(r.body.checkout_type, 'HOSTED');
      const form = await get(r.body.redirect_url);
      assert.deepEqual([...form.html.matchAll(/name="(payer\.[\w.]+)"/g)].map((m) => m[1]), ['payer.phone']);
      const bad = await post(r.body.redirect_url, { csrf: csrfOf(form.html), method: 'PC', 'payer.phone': '12' });
      assert.equal(bad.status, 422);
      assert.match(bad.html, /Enter a valid mobile number, with its area code\./);
      const ok = await post(r.body.redirect_url, { csrf: csrfOf(form.html), method: 'PC', 'payer.phone': '+57 300 123 4567' });
      assert.equal(ok.status, 303, ok.html.slice(0, 400));
      const d = (await v3.get(`/v3/deposits/${r.body.deposit_id}`)).body;
      assert.equal(d.payer.phone, '+573001234567');
      assert.equal(d.payment_method, 'PC');
    });

    test('forged and cross-site posts are refused; no form changes anything without its token', async () => {
      const d = await hosted({ payer: { ...BR_NAMES, document: cpf('529982247') }, back_url: 'https://shop.example/back' });
      const page = await get(`${d.url}?method=IX`);
      assert.equal((await post(d.url, { method: 'IX' })).status, 403, 'no token');
      assert.equal((await post(d.url, { method: 'IX', csrf: '0'.repeat(64) })).status, 403, 'wrong token');
      assert.equal((await post(d.url, { method: 'IX', csrf: csrfOf(page.html) }, { origin: 'https://evil.example' })).status, 403, 'other site');
      assert.equal((await post(d.url, { method: 'IX', csrf: csrfOf(page.html) }, { origin: 'null' })).status, 403, 'opaque origin');
      const other = await hosted({});
      assert.equal((await post(other.url, { method: 'IX', csrf: csrfOf(page.html) })).status, 403, "another deposit's token");
      assert.equal((await post(`${d.url}/cancel`, { csrf: csrfOf(page.html) })).status, 403, "the method form's token does not cancel");
      assert.equal((await v3.get(`/v3/deposits/${d.id}`)).body.status, 'PENDING');
      // The page's CSP lets its forms post here and redirect to the merchant's back_url only.
      const csp = (await fetch(d.url)).headers.get('content-security-policy')!;
      assert.match(csp, /form-action 'self' https:\/\/shop\.example(;|$)/);
    });

    test('a ONE_SHOT token has no checkout; unknown tokens and garbage input are 404 and 4xx pages, never 500', async () => {
      const one = await v3.post('/v3/deposits', {
        invoice_id: inv(), country: 'BR', currency: 'BRL', amount: '10.00', payment_method: 'IX', payer: { ...BR_NAMES, document: cpf('529982247') },
      });
      const token = one.body.redirect_url.split('/').pop();
      assert.equal((await get(`${s.url}/checkout/${token}`)).status, 404);
      assert.equal((await post(`${s.url}/checkout/${token}`, { method: 'IX' })).status, 404);
      assert.equal((await post(`${s.url}/checkout/${'A'.repeat(22)}/card`, { number: '4111111111111111' })).status, 404);
      const d = await hosted({});
      assert.equal((await get(`${d.url}?method=%3Cscript%3E`)).status, 200, 'an unknown method shows the list');
      const page = await get(d.url);
      for (const body of ['method=IX&csrf=%E0%A4%A', 'csrf=&csrf=&method[]=x', '%%%']) {
        const r = await fetch(d.url, { method: 'POST', redirect: 'manual', headers: { 'content-type': 'application/x-www-form-urlencoded', origin: s.url }, body });
        assert.ok(r.status < 500, `${body}: ${r.status}`);
      }
      // The card step exists only once a card method is settled.
      assert.equal((await post(`${d.url}/card`, { csrf: csrfOf(page.html).replace(/./, 'f'), number: '4111111111111111' })).status, 403);
    });

    test('sandbox: a HOSTED deposit without a method cannot be paid (510), nor by the magic-value worker; with one it can', async () => {
      const d = await hosted({ payer: { email: 'approve@example.com' } });
      const r = await v3.post(`/v3/sandbox/deposits/${d.id}/approve`, '');
      assert.equal(r.status, 409);
      assert.equal(r.body.code, 510);
      assert.match(r.body.description, /has no payment method yet: the customer has not chosen one on the hosted checkout/);
      await s.ctx.db.query('UPDATE deposits SET sandbox_due_at = $1 WHERE id = $2', [new Date(Date.now() - 1000), d.id]);
      await runSandboxJobs(s.ctx);
      assert.equal((await v3.get(`/v3/deposits/${d.id}`)).body.status, 'PENDING', 'the magic e-mail waits for a method');

      const page = await get(`${d.url}?method=PP`);
      const chose = await post(d.url, { csrf: csrfOf(page.html), method: 'PP', 'payer.document': cpf('529982247'), 'payer.first_name': 'Ana', 'payer.last_name': 'Silva' });
      assert.equal(chose.status, 303, chose.html.slice(0, 300));
      await runSandboxJobs(s.ctx);
      const paid = (await v3.get(`/v3/deposits/${d.id}`)).body;
      assert.equal(paid.status, 'COMPLETED');
      assert.equal(paid.payment_method, 'PP');
      // Or the merchant names the method the customer paid with; it must be one the page offers.
      const n = await hosted({ payment_type: 'VOUCHER' });
      const wrong = await v3.post(`/v3/sandbox/deposits/${n.id}/approve`, { payment_method: 'IX' });
      assert.equal(wrong.status, 400);
      assert.deepEqual(wrong.body.details, ["payment_method: 'IX' is not offered for this deposit; offered: BL"]);
      const named = await v3.post(`/v3/sandbox/deposits/${n.id}/approve`, { payment_method: 'bl' });
      assert.equal(named.status, 200, named.text);
      assert.equal(named.body.status, 'COMPLETED');
      assert.equal(named.body.payment_method, 'BL');
      assert.equal(named.body.payment_type, 'VOUCHER');
      assert.equal(named.body.fee_amount, 0.37, 'the voucher fee (2%) of 100 BRL in USD, not the bank-transfer quote');
      // Cancelling needs no method, as before.
      const c = await hosted({});
      assert.equal((await v3.post(`/v3/sandbox/deposits/${c.id}/cancel`, '')).status, 200);
    });

    test('the staging Simulate buttons run the sandbox transitions, behind their form token', async () => {
      const d = await hosted({ payer: { ...BR_NAMES, document: cpf('529982247') } });
      const form = await get(`${d.url}?method=IX`);
      const chose = await post(d.url, { csrf: csrfOf(form.html), method: 'IX' });
      const pay = await get(`${s.url}${chose.location}`);
      const simulate = `${s.url}/pay/${d.token}/simulate`;
      assert.equal((await post(simulate, { action: 'approve', csrf: csrfOf(form.html) })).status, 403);
      const r = await post(simulate, { action: 'cancel', csrf: csrfOf(pay.html) });
      assert.equal(r.status, 303);
      assert.equal((await v3.get(`/v3/deposits/${d.id}`)).body.status, 'CANCELLED');
      // A second click after the state changed just shows the state.
      assert.equal((await post(simulate, { action: 'approve', csrf: csrfOf(pay.html) })).status, 303);
      assert.equal((await v3.get(`/v3/deposits/${d.id}`)).body.status, 'CANCELLED');
      assert.equal((await post(simulate, { action: 'explode', csrf: csrfOf(pay.html) })).status, 404);
    });
  });
}

describe('hosted checkout in production', () => {
  let s: TestServer;
  before(async () => {
    s = await startTestServer('pglite', { CAJA_ENV: 'production', PUBLIC_BASE_URL: 'https://caja.example' });
  });
  after(() => s.close());

  test('no staging banner, no Simulate route, no card simulator: cards are the connector\'s', async () => {
    const c = await createMerchant(s.url, 'Prod');
    // Production ships no sample rates.
    await setRates(s, { BRL: '5.4321' });
    const v3 = V3Client.deposits(s.url, c);
    // No card connector is configured: a card deposit is refused by naming the method.
    const refused = await v3.post('/v3/deposits', { country: 'BR', amount: '10.00', currency: 'BRL', payment_method: 'VI', payer: { ...BR_NAMES, document: cpf('529982247') } });
    assert.equal(refused.status, 400, refused.text);
    assert.match(refused.body.details.join(' '), /'VI' \(Visa\) is not available/);
    // A method the operator's own accounts collect is offered, with its hosted checkout.
    const own = await admin(s.url, 'PUT', '/admin/connectors/own_accounts', {
      accounts: [{ country: 'BR', method: 'BB', beneficiary_name: 'Operadora Ltda', agency: '1234', account: '98765-4', document: '11444777000161' }],
    });
    assert.equal(own.status, 200, own.text);
    const r = await v3.post('/v3/deposits', { country: 'BR', amount: '10.00', currency: 'BRL' });
    assert.equal(r.status, 200, r.text);
    const token = r.body.redirect_url.split('/').pop();
    const html = await (await fetch(`${s.url}/checkout/${token}`, { headers: { 'accept-language': 'en' } })).text();
    assert.doesNotMatch(html, /data-staging|data-test-cards|name="number"/);
    assert.match(html, /Banco do Brasil/);
    const csrf = /name="csrf" value="([0-9a-f]+)"/.exec(html)?.[1] ?? '';
    const card = await fetch(`${s.url}/checkout/${token}/card`, {
      method: 'POST', redirect: 'manual', headers: { 'content-type': 'application/x-www-form-urlencoded', origin: 'https://caja.example' },
      body: new URLSearchParams({ csrf, number: '4111111111111111', expiry: '12/30', cvc: '123', holder: 'Ana' }).toString(),
    });
    assert.equal(card.status, 403, 'no form was handed out for it');
    assert.equal((await fetch(`${s.url}/pay/${token}/simulate`, { method: 'POST' })).status, 404);
  });
});
