// Contract with the official client libraries: every endpoint the Java and PHP SDKs call, asked
// the way the Java SDK asks (its headers, its `D24` signature, its X-Date format), and every
// answer validated against a JSON Schema written from the SDK's response model
// (test/contract/schemas, one per model). A field caja renames, drops or retypes fails here.
// The same fields must also appear in /openapi.json, so the document cannot drift from them.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { Ajv, type ValidateFunction } from 'ajv';
import { backends, startTestServer, type TestServer } from '../helpers/server.ts';
import { bearer, createMerchant, hmac, V3Client, type Credentials } from '../helpers/clients.ts';

const SCHEMA_DIR = new URL('./schemas/', import.meta.url);
const ajv = new Ajv({ allErrors: true, allowUnionTypes: true });
const schemas = new Map<string, ValidateFunction>();
for (const file of readdirSync(SCHEMA_DIR)) {
  schemas.set(file.replace(/\.json$/, ''), ajv.compile(JSON.parse(readFileSync(new URL(file, SCHEMA_DIR), 'utf8'))));
}

function assertModel(model: string, body: unknown) {
  const validate = schemas.get(model);
  assert.ok(validate, `schema ${model}`);
  assert.ok(validate(body), `${model}: ${ajv.errorsText(validate.errors)}\n${JSON.stringify(body)}`);
}

const BR_PAYER = { document: '529.982.247-25', first_name: 'Ana', last_name: 'Silva', email: 'ana@example.com' };
const MX_PAYER = { document: 'GODE561231GR8', first_name: 'Eva', last_name: 'Gómez', email: 'eva@example.com' };
const SDK_ACCOUNT = { beneficiary: 'Eva Gómez', bank_code: '012', account_number: '012180001234567899', account_type: 'CHECKING' };

/**
 * Requests as com.directa24.client.Directa24Client sends them: DefaultHeadersInterceptor adds
 * Content-Type: application/json and X-Login to every call (GETs included); ClientUtils.now()
 * writes X-Date as yyyy-MM-dd'T'HH:mm:ss'Z'; deposit calls sign with "D24 " + lower-case hex of
 * HMAC-SHA256(X-Date + X-Login + body), lookups send "Bearer " + the read-only key.
 */
class JavaSdkLikeClient {
  constructor(readonly base: string, readonly c: Credentials) {}

  private async call(method: string, path: string, auth: 'deposit' | 'readOnly', body?: unknown) {
    const raw = body === undefined ? undefined : JSON.stringify(body);
    const date = new Date().toISOString().replace(/\.\d{3}Z$/, 'Z');
    const authorization = auth === 'deposit' ? `D24 ${hmac(this.c.deposits.secret_key, date + this.c.deposits.login + (raw ?? ''))}` : `Bearer ${this.c.read_only_key}`;
    const r = await fetch(this.base + path, {
      method,
      headers: { 'Content-Type': 'application/json', 'X-Login': this.c.deposits.login, 'X-Date': date, Authorization: authorization },
      body: raw,
    });
    const text = await r.text();
    // The SDK throws on any non-2xx and parses the body of a 2xx: so does this client.
    assert.ok(r.ok, `${method} ${path}: ${r.status} ${text}`);
    return JSON.parse(text);
  }

  createDeposit = (body: Record<string, unknown>) => this.call('POST', '/v3/deposits', 'deposit', body);
  depositStatus = (id: number) => this.call('GET', `/v3/deposits/${id}`, 'deposit');
  paymentMethods = (country: string) => this.call('GET', `/v3/payment_methods?country=${country}`, 'readOnly');
  exchangeRates = (query: Record<string, string>) => this.call('GET', `/v3/exchange_rates?${new URLSearchParams(query)}`, 'readOnly');
  banks = (country: string) => this.call('GET', `/v3/banks?country=${country}`, 'readOnly');
  states = (country: string) => this.call('GET', `/v3/states?country=${country}`, 'readOnly');
  createRefund = (body: Record<string, unknown>) => this.call('POST', '/v3/refunds', 'deposit', body);
  refundStatus = (id: number | string) => this.call('GET', `/v3/refunds/${id}`, 'deposit');
  /** Not an SDK call: the staging sandbox, to bring a deposit to COMPLETED as a payment would. */
  approve = (id: number) => this.call('POST', `/v3/sandbox/deposits/${id}/approve`, 'deposit');
}

for (const backend of backends()) {
  describe(`official SDK response models (${backend})`, () => {
    let s: TestServer;
    let sdk: JavaSdkLikeClient;
    before(async () => {
      s = await startTestServer(backend);
      const m = await createMerchant(s.url, 'SDK');
      sdk = new JavaSdkLikeClient(s.url, m);
    });
    after(() => s.close());

    test('CreateDepositResponse: ONE_SHOT with payment_info, and HOSTED', async () => {
      const pix = await sdk.createDeposit({ country: 'BR', amount: '10.00', currency: 'BRL', payment_method: 'IX', payer: BR_PAYER });
      assert.equal(pix.checkout_type, 'ONE_SHOT');
      assertModel('create-deposit-response', pix);
      const hosted = await sdk.createDeposit({ country: 'BR', amount: 10 });
      assert.equal(hosted.checkout_type, 'HOSTED');
      assertModel('create-deposit-response', hosted);
    });

    test('DepositStatusResponse of a plain deposit: bonus as sent, no card, no crypto', async () => {
      const d = await sdk.createDeposit({ country: 'BR', amount: '10.00', payment_method: 'IX', payer: BR_PAYER, bonus_amount: '2.50', bonus_relative: true });
      const st = await sdk.depositStatus(d.deposit_id);
      assertModel('deposit-status-response', st);
      assert.deepEqual([st.bonus_amount, st.bonus_relative, st.card_detail, st.crypto], [2.5, true, null, null]);
      const plain = await sdk.depositStatus((await sdk.createDeposit({ country: 'MX', amount: 5 })).deposit_id);
      assertModel('deposit-status-response', plain);
      assert.deepEqual([plain.bonus_amount, plain.bonus_relative, plain.payment_method], [0, false, null]);
    });

    test('DepositStatusResponse of a card deposit carries the card the customer paid with on the hosted checkout, masked', async () => {
      const d = await sdk.createDeposit({ country: 'BR', amount: '50.00', currency: 'BRL', payment_method: 'VI', payer: BR_PAYER });
      assert.equal(d.checkout_type, 'HOSTED', 'card numbers are only taken on our page');
      const before = await sdk.depositStatus(d.deposit_id);
      assertModel('deposit-status-response', before);
      assert.equal(before.card_detail, null, 'nothing until a card pays');
      // The customer, in a browser: the card step of the checkout, then its form posted.
      const page = await (await fetch(d.redirect_url)).text();
      const csrf = /action="[^"]*\/card"[^>]*>[\s\S]*?name="csrf" value="([^"]+)"/.exec(page)?.[1];
      assert.ok(csrf, 'the checkout shows the card form');
      const paid = await fetch(`${d.redirect_url}/card`, {
        method: 'POST',
        redirect: 'manual',
        headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ csrf, number: '4111 1111 1111 1111', expiry: '12/29', cvc: '123', holder: 'Ana Silva' }),
      });
      assert.equal(paid.status, 303, await paid.text());
      const st = await sdk.depositStatus(d.deposit_id);
      assertModel('deposit-status-response', st);
      assert.deepEqual(st.card_detail, { card_holder: 'Ana Silva', masked_card: '411111******1111', brand: 'VISA', expiration: '12/29' });
      assert.equal(st.status, 'COMPLETED');
    });

    test('DepositStatusResponse of a crypto deposit: wallet, network, price and coin amount fixed at creation', async () => {
      const d = await sdk.createDeposit({ country: 'BR', amount: '100.00', currency: 'USD', payment_method: 'CR', payer: BR_PAYER, crypto: { currency: 'btc' } });
      const st = await sdk.depositStatus(d.deposit_id);
      assertModel('deposit-status-response', st);
      // 100 USD plus nothing on the payer (fee_on_payer false) at 95000 USD per BTC, rounded up to a satoshi.
      assert.deepEqual({ ...st.crypto, wallet: undefined }, { currency: 'BTC', network: 'BITCOIN', crypto_fx: 95000, crypto_amount: 0.00105264, wallet: undefined });
      assert.match(st.crypto.wallet, /^1[1-9A-HJ-NP-Za-km-z]{25,34}$/);
      // Paid: APPROVED while the coins arrive, and the quote does not move.
      await sdk.approve(d.deposit_id);
      const approved = await sdk.depositStatus(d.deposit_id);
      assertModel('deposit-status-response', approved);
      assert.deepEqual([approved.status, approved.crypto], ['APPROVED', st.crypto]);

      const usdt = await sdk.depositStatus((await sdk.createDeposit({ country: 'MX', amount: '250', currency: 'MXN', payment_method: 'CR', payer: MX_PAYER, fee_on_payer: true })).deposit_id);
      assertModel('deposit-status-response', usdt);
      assert.deepEqual([usdt.crypto.currency, usdt.crypto.network, usdt.crypto.crypto_fx], ['USDT', 'TRON', 1]);
      assert.match(usdt.crypto.wallet, /^T[1-9A-HJ-NP-Za-km-z]{33}$/);
      // The customer pays the fee here: usd_amount plus 1 % (crypto), in USDT at 1 USD.
      assert.equal(usdt.crypto.crypto_amount, Math.round(usdt.usd_amount * 101) / 100);
    });

    test('a crypto coin or network caja does not take is a 201 naming it, with the other details', async () => {
      const v3 = new V3Client(s.url, sdk.c.deposits.login, sdk.c.deposits.secret_key);
      const r = await v3.post('/v3/deposits', { country: 'BR', amount: '100.00', payment_method: 'CR', payer: BR_PAYER, crypto: { currency: 'DOGE' }, language: 'fr' });
      assert.equal(r.status, 400, r.text);
      assert.equal(r.body.code, 201);
      assert.deepEqual(r.body.details, ['language: must be one of es, en, pt', 'crypto.currency: must be one of BTC, USDT']);
      const net = await v3.post('/v3/deposits', { country: 'BR', amount: '100.00', payment_method: 'CR', payer: BR_PAYER, crypto: { currency: 'BTC', network: 'TRON' } });
      assert.deepEqual([net.status, net.body.details], [400, ['crypto.network: BTC is paid on BITCOIN']]);
      // For other methods the object means nothing and is kept as sent, as before.
      const pix = await v3.post('/v3/deposits', { country: 'BR', amount: '10.00', payment_method: 'IX', payer: BR_PAYER, crypto: { currency: 'DOGE' } });
      assert.equal(pix.status, 200, pix.text);
    });

    test('PaymentMethodResponse, BankDataResponse, StateCountryResponse for every accepted country with data', async () => {
      for (const country of ['BR', 'MX', 'CO', 'AR']) {
        assertModel('payment-method-response', await sdk.paymentMethods(country));
        assertModel('bank-data-response', await sdk.banks(country));
      }
      const states = await sdk.states('BR');
      assertModel('state-country-response', states);
      assert.ok(states.some((st: { iso: string; name: string }) => st.iso === 'AC' && st.name === 'Acre'));
      const methods = await sdk.paymentMethods('BR');
      assert.deepEqual([methods[0].daily_average, methods[0].monthly_average], [5, 5]);
    });

    test('ExchangeRateResponse, with the fee a deposit of that amount would cost the merchant', async () => {
      const r = await sdk.exchangeRates({ country: 'BR', amount: '10' });
      assertModel('exchange-rate-response', r);
      assert.equal(r.fee, 0.15, '1.5 % (bank transfer, the default) of 10 USD');
      assertModel('exchange-rate-response', await sdk.exchangeRates({ country: 'MX' }));
      const card = await sdk.exchangeRates({ country: 'BR', amount: '10', payment_method: 'VI' });
      assert.equal(card.fee, 0.35, "a method's own fee: 3.5 % for a credit card");
      const unknown = await bearer(s.url, sdk.c.read_only_key, '/v3/exchange_rates?country=BR&payment_method=OX');
      assert.deepEqual([unknown.status, unknown.body.code, unknown.body.details], [400, 201, ["payment_method: 'OX' is not offered in BR"]]);
    });

    test('CreateRefundResponse and RefundStatusResponse, for a bank deposit and a card deposit', async () => {
      const spei = await sdk.createDeposit({ country: 'MX', amount: 100, currency: 'MXN', payment_method: 'SE', payer: MX_PAYER });
      await sdk.approve(spei.deposit_id);
      const bank = await sdk.createRefund({ deposit_id: spei.deposit_id, amount: 10, bank_account: SDK_ACCOUNT });
      assertModel('create-refund-response', bank);
      assertModel('refund-status-response', await sdk.refundStatus(bank.refund_id));

      // A card deposit of its own to refund (identical creations are distinct deposits anyway).
      const card = await sdk.createDeposit({ country: 'BR', amount: '50.00', currency: 'BRL', payment_method: 'VI', payer: BR_PAYER, invoice_id: `sdk-card-refund-${Date.now()}` });
      await sdk.approve(card.deposit_id);
      const refund = await sdk.createRefund({ deposit_id: card.deposit_id, amount: 20 });
      assertModel('create-refund-response', refund);
      assert.ok(refund.refund_info, 'a card refund answers refund_info');
      assertModel('refund-status-response', await sdk.refundStatus(refund.refund_id));
    });

    test('/openapi.json shows every field of every model on its route', async () => {
      const doc = (await (await fetch(`${s.url}/openapi.json`)).json()) as { paths: Record<string, Record<string, any>> };
      const ok = (path: string, method: string) => {
        const content = doc.paths[path]?.[method]?.responses?.['200']?.content;
        const schema = content?.['application/json']?.schema;
        assert.ok(schema, `${method.toUpperCase()} ${path} documents its 200`);
        return schema.type === 'array' ? schema.items : schema;
      };
      const documented = (route: Record<string, any>, model: string) => {
        const sdk = JSON.parse(readFileSync(new URL(`${model}.json`, SCHEMA_DIR), 'utf8'));
        const fields = sdk.type === 'array' ? sdk.items : sdk;
        for (const [name, field] of Object.entries<Record<string, any>>(fields.properties)) {
          assert.ok(route.properties?.[name], `${model}: ${name} is in /openapi.json`);
          for (const [inner] of Object.entries(field.properties ?? field.oneOf?.find((o: any) => o.properties)?.properties ?? {})) {
            assert.ok(route.properties[name].properties?.[inner], `${model}: ${name}.${inner} is in /openapi.json`);
          }
        }
      };
      documented(ok('/v3/deposits', 'post'), 'create-deposit-response');
      documented(ok('/v3/deposits/{id}', 'get'), 'deposit-status-response');
      documented(ok('/v3/payment_methods', 'get'), 'payment-method-response');
      documented(ok('/v3/exchange_rates', 'get'), 'exchange-rate-response');
      documented(ok('/v3/banks', 'get'), 'bank-data-response');
      documented(ok('/v3/states', 'get'), 'state-country-response');
      documented(ok('/v3/refunds', 'post'), 'create-refund-response');
      documented(ok('/v3/refunds/{id}', 'get'), 'refund-status-response');
    });
  });
}
