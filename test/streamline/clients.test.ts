// Requests exactly as the provider family's public streamline integrations build them, and their
// responses parsed the way those integrations parse them:
// - the official PHP/Java/C# sample classes join `key=value` with `&` without URL-encoding, send
//   x_iduser as free text (`userId123` in the provider's own curl example) and x_amount as `10`;
// - the C# sample sends `Content-Type: application/x-www-form-urlencoded, charset=utf-8` (a comma);
// - status parsers split the default pipe string into result, x_iduser, x_invoice, x_amount, PT,
//   Sign, x_document, x_bank, x_payment_type, x_bank_name, x_currency and check Sign.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { backends, startTestServer, type TestServer } from '../helpers/server.ts';
import { createMerchant, formPost, type Credentials } from '../helpers/clients.ts';
import { cpf } from '../helpers/documents.ts';

const upper = (key: string, msg: string) => createHmac('sha256', key).update(msg, 'utf8').digest('hex').toUpperCase();

/** The sample classes' curl(): "{$key}={$value}" joined with '&', no encoding. */
async function rawPost(base: string, path: string, fields: Record<string, string>, contentType = 'application/x-www-form-urlencoded') {
  const body = Object.entries(fields).map(([k, v]) => `${k}=${v}`).join('&');
  const r = await fetch(base + path, { method: 'POST', headers: { 'content-type': contentType }, body });
  return { status: r.status, text: await r.text() };
}

const STATUS_KEYS = ['result', 'x_iduser', 'x_invoice', 'x_amount', 'PT', 'Sign', 'x_document', 'x_bank', 'x_payment_type', 'x_bank_name', 'x_currency'];

for (const backend of backends()) {
  describe(`streamline as the public client libraries call it (${backend})`, () => {
    let s: TestServer;
    let m: Credentials;
    before(async () => {
      s = await startTestServer(backend);
      m = await createMerchant(s.url, 'Client libs', { return_url: 'https://shop.example/back' });
    });
    after(() => s.close());

    async function newInvoice(iduser: string, invoice: string, signedIduser = iduser) {
      const document = cpf('529982247');
      const f: Record<string, string> = {
        x_login: m.deposits.login,
        x_trans_key: m.deposits.trans_key,
        x_invoice: invoice,
        x_amount: '10',
        x_bank: 'IX',
        type: 'json',
        x_country: 'BR',
        x_iduser: iduser,
        x_cpf: document,
        x_name: 'Jonh Smith',
        x_email: 'test@example.com',
        x_version: '1.1',
        x_currency: 'BRL',
        x_address: 'Rua Augusta 1500',
        x_zip: '01304-001',
        x_city: 'Sao Paulo',
        x_state: 'SP',
      };
      f.control = upper(m.deposits.secret_key, `${invoice}V10I${signedIduser}2IX1${document}HGtest@example.comY01304-001ARua Augusta 1500PSao PauloSSPP`);
      return rawPost(s.url, '/api_curl/streamline/newinvoice/', f);
    }

    test('NewInvoice with a text x_iduser, an integer x_amount and an unencoded body', async () => {
      for (const iduser of ['userId123', 'donor@example.c', '4-8639937875866184408']) {
        const invoice = `lib-${backend}-${iduser.length}-${Date.now()}`;
        const r = await newInvoice(iduser, invoice);
        const body = JSON.parse(r.text);
        assert.equal(body.status, '0', r.text);
        assert.match(body.link, /^http/);
        const status = await formPost(s.url, '/apd/webpaystatus', { x_login: m.web_status.login, x_trans_key: m.web_status.trans_key, x_invoice: invoice, type: 'json' });
        assert.equal(status.body.x_iduser, iduser);
        assert.equal(status.body.x_amount, '10.00');
      }
      // The numeric form stays canonical, and control characters are still refused.
      assert.equal(JSON.parse((await newInvoice('4411', `lib-${backend}-n-${Date.now()}`)).text).status, '0');
      const bad = JSON.parse((await newInvoice('a%01b', `lib-${backend}-c-${Date.now()}`, 'a\u0001b')).text);
      assert.deepEqual([bad.status, bad.error_code], ['1', 300]);
    });

    test('the comma Content-Type of the C# sample is read as a form; other types are still refused', async () => {
      const invoice = `lib-${backend}-ct-${Date.now()}`;
      assert.equal(JSON.parse((await newInvoice('idMeli', invoice)).text).status, '0');
      const comma = 'application/x-www-form-urlencoded, charset=utf-8';
      const pipe = await rawPost(s.url, '/apd/webpaystatus', { x_login: m.web_status.login, x_trans_key: m.web_status.trans_key, x_invoice: invoice }, comma);
      assert.equal(pipe.status, 200);
      const parts = pipe.text.split('|');
      assert.equal(parts.length, STATUS_KEYS.length, pipe.text);
      const st = Object.fromEntries(STATUS_KEYS.map((k, i) => [k, parts[i]]));
      assert.deepEqual([st.result, st.x_iduser, st.x_invoice, st.x_amount, st.x_bank, st.x_currency], ['7', 'idMeli', invoice, '10.00', 'IX', 'BRL']);
      assert.equal(st.Sign, upper(m.deposits.secret_key, `${m.deposits.login}${st.result}${st.x_amount}${st.x_invoice}`));
      const banks = await rawPost(s.url, '/api_curl/apd/get_banks_by_country', { x_login: m.deposits.login, x_trans_key: m.deposits.trans_key, country_code: 'BR', type: 'json' }, comma);
      assert.ok(JSON.parse(banks.text).some((b: { code: string }) => b.code === 'IX'), banks.text);
      for (const type of ['text/plain', 'application/jsonx, x', 'application/x-www-form-urlencodedx']) {
        const refused = await rawPost(s.url, '/apd/webpaystatus', { x_login: m.web_status.login, x_trans_key: m.web_status.trans_key, x_invoice: invoice, type: 'json' }, type);
        assert.equal(refused.status, 200);
        assert.match(refused.text, /ERROR\|Content-Type must be application\/x-www-form-urlencoded\|300/, `${type}: ${refused.text}`);
      }
    });
  });
}
