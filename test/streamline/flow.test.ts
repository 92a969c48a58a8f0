// The streamline API end to end: NewInvoice, webpaystatus, refunds, the return redirect and the
// confirmation notification, with every control computed here from the spec's table, and the
// same deposits and refunds seen through v3.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { XMLParser } from 'fast-xml-parser';
import { backends, startTestServer, type TestServer } from '../helpers/server.ts';
import { admin, createMerchant, formPost, V3Client, type Credentials } from '../helpers/clients.ts';
import { cpf } from '../helpers/documents.ts';
import { assertLedgerOk } from '../helpers/ledger.ts';
import { streamlineFields } from '../../src/deposits/notifications.ts';
import { findDepositByInvoice } from '../../src/deposits/store.ts';

const xml = new XMLParser({ parseTagValue: false });
const upper = (key: string, msg: string) => createHmac('sha256', key).update(msg, 'utf8').digest('hex').toUpperCase();

function invoiceControl(secret: string, f: Record<string, string>): string {
  const v = (k: string) => f[k] ?? '';
  return upper(secret, `${v('x_invoice')}V${v('x_amount')}I${v('x_iduser')}2${v('x_bank')}1${v('x_cpf')}H${v('x_bdate')}G${v('x_email')}Y${v('x_zip')}A${v('x_address')}P${v('x_city')}S${v('x_state')}P`);
}

let seq = 0;
for (const backend of backends()) {
  describe(`streamline deposits and refunds (${backend})`, () => {
    let s: TestServer;
    let m: Credentials;
    let v3: V3Client;
    before(async () => {
      s = await startTestServer(backend);
      m = await createMerchant(s.url, 'Streamline Shop', { notification_url: 'https://shop.example/confirm', return_url: 'https://shop.example/back' });
      v3 = V3Client.deposits(s.url, m);
    });
    after(async () => {
      // Every scenario above moved money: the ledger's invariants hold after all of them.
      await assertLedgerOk(s.ctx.db);
      await s.close();
    });

    const invoiceFields = (extra: Record<string, string> = {}) => {
      const f: Record<string, string> = {
        x_login: m.deposits.login,
        x_trans_key: m.deposits.trans_key,
        x_invoice: `SL-${backend}-${++seq}-${Date.now()}`,
        x_amount: '100.00',
        x_currency: 'BRL',
        x_country: 'BR',
        x_bank: 'IX',
        x_iduser: '4411',
        x_cpf: cpf('529982247'),
        x_name: 'João da Silva',
        x_email: 'joao@example.com',
        x_address: 'Rua Augusta 1500',
        x_zip: '01304-001',
        x_city: 'São Paulo',
        x_state: 'SP',
        x_return: 'https://shop.example/return',
        ...extra,
      };
      if (!('control' in extra)) f.control = invoiceControl(m.deposits.secret_key, f);
      return f;
    };
    const newInvoice = (f: Record<string, string>) => formPost(s.url, '/api_curl/streamline/NewInvoice', f);
    const webStatus = (invoice: string, extra: Record<string, string> = {}) =>
      formPost(s.url, '/apd/webpaystatus', { x_login: m.web_status.login, x_trans_key: m.web_status.trans_key, x_invoice: invoice, ...extra });
    const approve = (id: string) => v3.post(`/v3/sandbox/deposits/${id}/approve`, '');

    async function completedDeposit(extra: Record<string, string> = {}) {
      const f = invoiceFields({ x_version: '1.1', type: 'json', ...extra });
      const r = await newInvoice(f);
      assert.equal(r.body.status, '0', r.text);
      const ok = await approve(r.body.x_document);
      assert.equal(ok.status, 200, ok.text);
      return { invoice: f.x_invoice, document: r.body.x_document as string, local: r.body.local_amount as string };
    }

    test('NewInvoice answers XML by default with a link to the payment page', async () => {
      const r = await newInvoice(invoiceFields());
      assert.equal(r.status, 200);
      assert.match(r.headers.get('content-type') ?? '', /xml/);
      const res = xml.parse(r.text).response;
      assert.equal(res.status, '0');
      assert.ok(res.link.startsWith(`${s.url}/`), res.link);
      assert.equal(res.local_amount, undefined, 'x_version 1.0 has no 1.1 fields');
      const page = await fetch(res.link);
      assert.equal(page.status, 200);
    });

    test("NewInvoice charges the merchant's own fee schedule (PUT /admin/merchants/{id}/fees), as v3 does", async () => {
      const fee = async () => {
        const r = await newInvoice(invoiceFields({ x_version: '1.1', type: 'json', x_amount: '20.00', x_currency: 'USD' }));
        assert.equal(r.body.status, '0', r.text);
        return (await v3.get(`/v3/deposits/${r.body.x_document}`)).body.fee_amount;
      };
      assert.equal(await fee(), 0.3, 'the global 1.5 % of 20 USD');
      assert.equal((await admin(s.url, 'PUT', `/admin/merchants/${m.merchant_id}/fees`, { fee: { BANK_TRANSFER: '0.5' } })).status, 200);
      try {
        assert.equal(await fee(), 0.1);
      } finally {
        // The later scenarios of this file count on the global schedule.
        assert.equal((await admin(s.url, 'PUT', `/admin/merchants/${m.merchant_id}/fees`, {})).status, 200);
      }
    });

    test('x_version 1.1 adds the amounts and x_document; STRING joins the values', async () => {
      const r = await newInvoice(invoiceFields({ x_version: '1.1', type: 'json', x_amount: '20.00', x_currency: 'USD' }));
      assert.deepEqual(Object.keys(r.body), ['status', 'link', 'local_amount', 'usd_amount', 'local_currency', 'x_document', 'amount_to_deposit']);
      assert.equal(r.body.usd_amount, '20.00');
      assert.equal(r.body.local_currency, 'BRL');
      assert.match(r.body.x_document, /^\d+$/);
      const str = await newInvoice(invoiceFields({ type: 'STRING' }));
      const [status, link] = str.text.split('|');
      assert.equal(status, '0');
      assert.match(link, /^http/);
      const iframe = await newInvoice(invoiceFields({ type: 'json', iframe_view: '1' }));
      assert.match(iframe.body.link, /iframe_view=1$/);
    });

    test('the deposit is the one v3 shows', async () => {
      const f = invoiceFields({ x_version: '1.1', type: 'json' });
      const r = await newInvoice(f);
      const d = await v3.get(`/v3/deposits/${r.body.x_document}`);
      assert.equal(d.status, 200, d.text);
      assert.equal(d.body.invoice_id, f.x_invoice);
      assert.equal(d.body.status, 'PENDING');
      assert.equal(d.body.payment_method, 'IX');
    });

    test('NewInvoice errors: control 302, empty 301, country 505, BR address 301, document 310, credentials 401, invoice reuse 303', async () => {
      const j = { type: 'json', x_version: '1.1' };
      const badControl = await newInvoice(invoiceFields({ ...j, control: 'A'.repeat(64) }));
      assert.deepEqual(badControl.body, { status: '1', desc: 'Invalid control string', error_code: 302 });
      // The control is over the UTF-8 text: a Latin-1 computation is refused.
      const latin = invoiceFields(j);
      latin.control = createHmac('sha256', m.deposits.secret_key).update(Buffer.from(`${latin.x_invoice}V${latin.x_amount}I${latin.x_iduser}2${latin.x_bank}1${latin.x_cpf}HG${latin.x_email}Y${latin.x_zip}A${latin.x_address}P${latin.x_city}S${latin.x_state}P`, 'latin1')).digest('hex').toUpperCase();
      assert.equal((await newInvoice(latin)).body.error_code, 302);
      assert.equal((await newInvoice(invoiceFields({ ...j, x_email: '' }))).body.error_code, 301);
      assert.equal((await newInvoice(invoiceFields({ ...j, x_country: 'US' }))).body.error_code, 505);
      const noZip = await newInvoice(invoiceFields({ ...j, x_zip: '' }));
      assert.deepEqual([noZip.body.error_code, noZip.body.desc], [301, 'Empty parameter: x_zip']);
      const doc = await newInvoice(invoiceFields({ ...j, x_cpf: '52998224726' }));
      assert.equal(doc.body.error_code, 310, doc.text);
      assert.match(doc.body.desc, /^Invalid parameters: x_cpf: /);
      assert.equal((await newInvoice(invoiceFields({ ...j, x_trans_key: 'nope' }))).body.error_code, 401);
      const f = invoiceFields(j);
      assert.equal((await newInvoice(f)).body.status, '0');
      assert.equal((await newInvoice(f)).body.error_code, 303);
      // x_version 1.0: status 1 and desc only.
      const v10 = await newInvoice(invoiceFields({ type: 'json', control: 'x' }));
      assert.deepEqual(v10.body, { status: '1', desc: 'Invalid control string' });
    });

    test('customer limits apply to NewInvoice: 304 per transaction and per day', async () => {
      const lm = await createMerchant(s.url, 'Streamline Limited', { return_url: 'https://shop.example/back' });
      const put = await admin(s.url, 'PUT', '/admin/limits', { merchant_id: lm.merchant_id, country: 'BR', per_transaction: '50', daily: '60' });
      assert.equal(put.status, 200, put.text);
      const invoice = (x_amount: string, x_iduser: string) => {
        const f = invoiceFields({ x_login: lm.deposits.login, x_trans_key: lm.deposits.trans_key, x_currency: 'USD', x_amount, x_iduser, type: 'json', x_version: '1.1' });
        f.control = invoiceControl(lm.deposits.secret_key, f);
        return newInvoice(f);
      };
      const tx = await invoice('50.01', '7001');
      assert.equal(tx.body.error_code, 304, tx.text);
      assert.match(tx.body.desc, /: TRANSACTION$/);
      assert.equal((await invoice('50.00', '7001')).body.status, '0');
      const daily = await invoice('20.00', '7001');
      assert.equal(daily.body.error_code, 304, daily.text);
      assert.match(daily.body.desc, /: DAILY$/);
      // Another x_iduser with the same x_cpf is the same customer.
      assert.equal((await invoice('20.00', '7002')).body.error_code, 304);
      // The first merchant has no rule: the same amounts pass.
      assert.equal((await newInvoice(invoiceFields({ x_currency: 'USD', x_amount: '50.01', type: 'json', x_version: '1.1' }))).body.status, '0');
    });

    test('NewInvoice: x_currency, outside the control, can be pinned per merchant (newinvoice_currencies)', async () => {
      const pm = await createMerchant(s.url, 'Streamline Pinned', { return_url: 'https://shop.example/back' });
      const invoice = (extra: Record<string, string>) => {
        const f = invoiceFields({ x_login: pm.deposits.login, x_trans_key: pm.deposits.trans_key, type: 'json', x_version: '1.1', x_amount: '10.00', ...extra });
        f.control = invoiceControl(pm.deposits.secret_key, f);
        return newInvoice(f);
      };
      // Not pinned (the default): the same signed form is priced in whichever currency it names.
      assert.equal((await invoice({ x_currency: 'MXN' })).body.status, '0');
      const pin = await admin(s.url, 'PATCH', `/admin/merchants/${pm.merchant_id}`, { newinvoice_currencies: ['USD'] });
      assert.deepEqual([pin.status, pin.body.newinvoice_currencies], [200, ['USD']], pin.text);
      for (const x_currency of ['BRL', 'MXN', 'brl']) {
        const refused = await invoice({ x_currency });
        assert.deepEqual([refused.body.status, refused.body.error_code], ['1', 300], refused.text);
        assert.match(refused.body.desc, /x_currency must be USD/);
      }
      const usd = await invoice({ x_currency: 'usd' });
      assert.deepEqual([usd.body.status, usd.body.local_currency], ['0', 'BRL'], usd.text);
      const absent = await invoice({ x_currency: '' });
      assert.equal(absent.body.status, '0', 'absent is USD');
      assert.equal((await admin(s.url, 'PATCH', `/admin/merchants/${pm.merchant_id}`, { newinvoice_currencies: ['XYZ'] })).status, 400);
      const unpin = await admin(s.url, 'PATCH', `/admin/merchants/${pm.merchant_id}`, { newinvoice_currencies: [] });
      assert.deepEqual([unpin.status, unpin.body.newinvoice_currencies], [200, null], unpin.text);
      assert.equal((await invoice({ x_currency: 'BRL' })).body.status, '0');
    });

    test('Colombia requires x_mobile and x_address; national phone numbers are read in the country plan', async () => {
      const co = { x_country: 'CO', x_currency: 'COP', x_amount: '50000.00', x_bank: 'PC', x_cpf: '1020304050', x_state: '', x_zip: '', type: 'json', x_version: '1.1' };
      const noMobile = await newInvoice(invoiceFields({ ...co, x_mobile: '' }));
      assert.equal(noMobile.body.error_code, 301, noMobile.text);
      const ok = await newInvoice(invoiceFields({ ...co, x_mobile: '3001234567' }));
      assert.equal(ok.body.status, '0', ok.text);
    });

    test('raw UTF-8, raw spaces and unknown fields are accepted', async () => {
      const f = invoiceFields({ type: 'json', x_city: 'São Paulo', x_unknown: 'whatever', x_version: '1.1' });
      const raw = Object.entries(f).map(([k, v]) => `${k}=${k === 'x_city' || k === 'x_name' ? v : encodeURIComponent(v)}`).join('&');
      const r = await fetch(`${s.url}/api_curl/streamline/newinvoice`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded; charset=utf-8' }, body: raw });
      const body = (await r.json()) as any;
      assert.equal(body.status, '0', JSON.stringify(body));
    });

    test('webpaystatus: pipe string by default with a valid Sign; 7 pending, 9 completed, 8 cancelled', async () => {
      const f = invoiceFields({ x_version: '1.1', type: 'json' });
      const created = await newInvoice(f);
      const pipe = await webStatus(f.x_invoice);
      const parts = pipe.text.split('|');
      const [result, iduser, invoice, amount, pt, sign, document, bank, paymentType, bankName, currency] = parts;
      assert.equal(parts.length, 11);
      assert.deepEqual([result, iduser, invoice, amount, document, bank, paymentType, currency], ['7', '4411', f.x_invoice, '100.00', created.body.x_document, 'IX', '00', 'BRL']);
      assert.equal(pt, '1');
      assert.ok(bankName.length > 0);
      assert.equal(sign, upper(m.deposits.secret_key, `${m.deposits.login}7100.00${f.x_invoice}`));
      await approve(created.body.x_document);
      const json = await webStatus(f.x_invoice, { type: 'json' });
      assert.equal(json.body.result, '9');
      assert.equal(json.body.Sign, upper(m.deposits.secret_key, `${m.deposits.login}9100.00${f.x_invoice}`));
      const g = invoiceFields({ x_version: '1.1', type: 'json' });
      const other = await newInvoice(g);
      await v3.post(`/v3/sandbox/deposits/${other.body.x_document}/cancel`, '');
      const x = xml.parse((await webStatus(g.x_invoice, { type: 'XML' })).text).response;
      assert.equal(x.result, '8');
      assert.equal(x.x_invoice, g.x_invoice);
    });

    test('webpaystatus reads only some columns: its answer is what the whole deposit row gives (Pix, card; with a description)', async () => {
      for (const extra of [{ x_description: 'Pedido 1' }, { x_bank: 'VI' }] as Record<string, string>[]) {
        const f = invoiceFields({ x_version: '1.1', type: 'json', ...extra });
        const created = await newInvoice(f);
        assert.equal(created.body.status, '0', created.text);
        await approve(created.body.x_document);
        const row = await findDepositByInvoice(s.ctx.db, m.merchant_id, f.x_invoice);
        assert.ok(row);
        const whole = streamlineFields(row, m.deposits.login, m.deposits.secret_key);
        const card = whole.x_payment_type === '03';
        const r = await webStatus(f.x_invoice, { type: 'json' });
        assert.deepEqual(r.body, {
          result: whole.result, x_iduser: whole.x_iduser, x_invoice: whole.x_invoice, x_amount: whole.x_amount, PT: '1', Sign: whole.x_control,
          x_document: whole.x_document, x_bank: whole.x_bank, x_payment_type: whole.x_payment_type, x_bank_name: whole.x_bank_name, x_currency: whole.x_currency,
          ...(card ? { x_approval_detail: 'Approved', card_number: '' } : {}),
        });
        assert.equal(card, extra.x_bank === 'VI');
      }
    });

    test('webpaystatus: the not-found shape exactly; the webpaystatus credential aliases; deposits keys refused', async () => {
      const r = await webStatus('does-not-exist', { type: 'json' });
      assert.deepEqual(r.body, {
        result: '6', x_iduser: '0', x_invoice: 'does-not-exist', x_amount: '0', PT: '0',
        Sign: upper(m.deposits.secret_key, `${m.deposits.login}60does-not-exist`),
        x_document: '-1', x_bank: ' ', x_payment_type: '0', x_bank_name: ' ', x_currency: ' ',
      });
      const alias = await formPost(s.url, '/apd/webpaystatus', { x_login_webpaystatus: m.web_status.login, x_trans_key_webpaystatus: m.web_status.trans_key, x_invoice: 'x', type: 'json' });
      assert.equal(alias.body.result, '6');
      const deposits = await formPost(s.url, '/apd/webpaystatus', { x_login: m.deposits.login, x_trans_key: m.deposits.trans_key, x_invoice: 'x', type: 'json' });
      assert.equal(deposits.body.error_code, 401);
    });

    test('another merchant never sees the deposit', async () => {
      const f = invoiceFields({ type: 'json' });
      await newInvoice(f);
      const other = await createMerchant(s.url, 'Other');
      const r = await formPost(s.url, '/apd/webpaystatus', { x_login: other.web_status.login, x_trans_key: other.web_status.trans_key, x_invoice: f.x_invoice, type: 'json' });
      assert.equal(r.body.result, '6');
    });

    test('a confirmation notification for each status change is in the outbox, signed', async () => {
      const f = invoiceFields({ x_version: '1.1', type: 'json', x_confirmation: 'https://shop.example/confirm-this' });
      const created = await newInvoice(f);
      await approve(created.body.x_document);
      const { rows } = await s.ctx.db.query<{ url: string; body: string; kind: string }>(
        `SELECT url, body, kind FROM notifications WHERE subject_key = $1 ORDER BY id`,
        [`deposit:${created.body.x_document}`],
      );
      const last = rows.at(-1)!;
      assert.equal(last.kind, 'streamline.confirmation');
      assert.equal(last.url, 'https://shop.example/confirm-this');
      const fields = Object.fromEntries(new URLSearchParams(last.body));
      assert.deepEqual(Object.keys(fields).sort(), ['result', 'x_amount', 'x_bank', 'x_bank_name', 'x_control', 'x_currency', 'x_description', 'x_document', 'x_invoice', 'x_iduser', 'x_payment_type'].sort());
      assert.equal(fields.result, '9');
      assert.equal(fields.x_control, upper(m.deposits.secret_key, `${m.deposits.login}9${fields.x_amount}${f.x_invoice}`));
    });

    test('the return redirect POSTs the signed result to x_return', async () => {
      const f = invoiceFields({ type: 'json', x_version: '1.1' });
      const created = await newInvoice(f);
      const token = new URL(created.body.link).pathname.split('/').pop();
      const page = await fetch(`${s.url}/return/${token}`);
      assert.equal(page.status, 200);
      const html = await page.text();
      assert.match(html, /<form method="post" action="https:\/\/shop\.example\/return">/);
      const value = (name: string) => new RegExp(`name="${name}" value="([^"]*)"`).exec(html)?.[1];
      assert.equal(value('result'), '7');
      assert.equal(value('x_invoice'), f.x_invoice);
      assert.equal(value('x_document'), created.body.x_document);
      assert.equal(value('x_control'), upper(m.deposits.secret_key, `${m.deposits.login}7100.00${f.x_invoice}`));
      assert.equal((await fetch(`${s.url}/return/not-a-real-token-123456`)).status, 404);
    });

    const refundFields = (extra: Record<string, string>) => {
      const f: Record<string, string> = {
        x_login: m.deposits.login,
        x_trans_key: m.deposits.trans_key,
        x_bank_beneficiary: 'João da Silva',
        x_bank: 'Itaú',
        x_bank_code: '341',
        x_bank_account: '12345-4',
        x_account_type: 'C',
        x_bank_branch: '0001',
        ...extra,
      };
      const v = (k: string) => f[k] ?? '';
      if (!('x_control' in extra)) f.x_control = upper(m.deposits.secret_key, `A${v('x_invoice')}${v('x_document')}${v('x_amount')}${v('x_bank_beneficiary')}${v('x_bank')}${v('x_bank_account')}${v('x_account_type')}${v('x_bank_branch')}`);
      return f;
    };
    const refund = (extra: Record<string, string>) => formPost(s.url, '/api_curl/apd/refund', refundFields(extra));

    test('refund: signed request and response; v3 sees the same refund; refundstatus follows it', async () => {
      const d = await completedDeposit();
      const r = await refund({ x_invoice: d.invoice, x_document: d.document, x_amount: '100.00' });
      assert.equal(r.body.status, 'OK', r.text);
      assert.deepEqual(Object.keys(r.body), ['status', 'desc', 'control', 'result', 'x_invoice', 'x_document', 'x_amount', 'x_currency', 'x_amount_refunded', 'x_refund']);
      assert.deepEqual([r.body.desc, r.body.result, r.body.x_amount, r.body.x_currency, r.body.x_amount_refunded], ['Pending', '0', '100.00', 'BRL', '100.00']);
      assert.equal(r.body.control, upper(m.deposits.secret_key, `0100.00BRL${d.invoice}${d.document}${r.body.x_refund}`));
      const seen = await v3.get(`/v3/refunds/${r.body.x_refund}`);
      assert.equal(seen.status, 200);
      assert.deepEqual([seen.body.deposit_id, seen.body.status, seen.body.local_amount], [Number(d.document), 'PENDING', 100]);
      const status = (id: string) => formPost(s.url, '/api_curl/query/refundstatus', { x_login: m.web_status.login, x_trans_key: m.web_status.trans_key, x_refund: id, type: 'json' });
      assert.deepEqual((await status(r.body.x_refund)).body.result, '0');
      assert.equal((await v3.post(`/v3/sandbox/refunds/${r.body.x_refund}/complete`, '')).status, 200);
      const done = await status(r.body.x_refund);
      assert.deepEqual([done.body.result, done.body.x_invoice, done.body.x_document, done.body.desc], ['1', d.invoice, d.document, 'Completed']);
      assert.equal((await status('999999')).body.error_code, 604);
    });

    test('refund: amount never above the deposit minus pending and completed refunds, across both faces', async () => {
      const d = await completedDeposit();
      assert.equal((await refund({ x_invoice: d.invoice, x_document: d.document, x_amount: '60.00' })).body.status, 'OK');
      const v3Refund = await v3.post('/v3/refunds', { deposit_id: Number(d.document), amount: '30.00', bank_account: { beneficiary: 'João da Silva', bank_code: '341', account_number: '12345-4', branch: '0001', account_type: 'CHECKING' } });
      assert.equal(v3Refund.status, 200, v3Refund.text);
      assert.equal(typeof v3Refund.body.refund_id, 'number');
      const over = await refund({ x_invoice: d.invoice, x_document: d.document, x_amount: '10.01' });
      assert.deepEqual([over.body.status, over.body.error_code], ['ERROR', 602]);
      const v3Over = await v3.post('/v3/refunds', { deposit_id: Number(d.document), amount: '10.01', bank_account: { beneficiary: 'J', bank_code: '341', account_number: '12345-4' } });
      assert.deepEqual([v3Over.status, v3Over.body.code], [400, 802]);
      assert.equal((await refund({ x_invoice: d.invoice, x_document: d.document, x_amount: '10.00' })).body.status, 'OK');
    });

    test('refund: a rejected refund gives its amount back', async () => {
      const d = await completedDeposit();
      const first = await refund({ x_invoice: d.invoice, x_document: d.document });
      assert.equal(first.body.x_amount, '100.00', 'default: the whole deposit in local currency');
      assert.equal((await refund({ x_invoice: d.invoice, x_document: d.document, x_amount: '1.00' })).body.error_code, 602);
      assert.equal((await v3.post(`/v3/sandbox/refunds/${first.body.x_refund}/reject`, '')).status, 200);
      assert.equal((await refund({ x_invoice: d.invoice, x_document: d.document, x_amount: '1.00' })).body.status, 'OK');
    });

    test('refund: a field outside x_control changes neither the amount\'s currency nor the beneficiary\'s bank', async () => {
      // A USD-priced deposit paid in BRL: USD 10.00 is BRL 54.32.
      const d = await completedDeposit({ x_currency: 'USD', x_amount: '10.00' });
      assert.equal(d.local, '54.32');
      const refunded = async () => Number((await s.ctx.db.query<{ n: string }>(`SELECT count(*) AS n FROM refunds WHERE deposit_id = $1`, [Number(d.document)])).rows[0].n);
      // x_currency is not covered: another currency than the deposit's is refused, nothing refunded.
      for (const currency of ['USD', 'MXN']) {
        const other = await refund({ x_invoice: d.invoice, x_document: d.document, x_amount: '10.00', x_currency: currency });
        assert.deepEqual([other.body.status, other.body.error_code], ['ERROR', 300], other.text);
        assert.match(other.body.description, /x_currency/);
      }
      assert.equal(await refunded(), 0);
      // x_bank_code is not covered either: it must name the bank x_bank (covered) names.
      const otherBank = await refund({ x_invoice: d.invoice, x_document: d.document, x_amount: '1.00', x_bank_code: '260' });
      assert.deepEqual([otherBank.body.status, otherBank.body.error_code], ['ERROR', 300], otherBank.text);
      assert.match(otherBank.body.description, /x_bank_code/);
      const unnamed = await refund({ x_invoice: d.invoice, x_document: d.document, x_amount: '1.00', x_bank: '' });
      assert.deepEqual([unnamed.body.status, unnamed.body.error_code], ['ERROR', 300], unnamed.text);
      assert.equal(await refunded(), 0);
      // The deposit's own currency, in any case, and a bank named by its name or its code, go through.
      const same = await refund({ x_invoice: d.invoice, x_document: d.document, x_amount: '10.00', x_currency: 'brl' });
      assert.deepEqual([same.body.status, same.body.x_amount_refunded], ['OK', '10.00'], same.text);
      for (const [x_bank, x_bank_code] of [['341', '341'], ['ITAU UNIBANCO', '0341'], ['Itaú', '']]) {
        const named = await refund({ x_invoice: d.invoice, x_document: d.document, x_amount: '1.00', x_bank, x_bank_code });
        assert.equal(named.body.status, 'OK', `${x_bank} / ${x_bank_code}: ${named.text}`);
      }
    });

    test('refund errors: control 302, account type 300, unknown deposit 600, pending deposit 601, missing account 603, JSON default', async () => {
      const d = await completedDeposit();
      const bad = await refund({ x_invoice: d.invoice, x_document: d.document, x_control: 'F'.repeat(64) });
      assert.deepEqual(bad.body, { status: 'ERROR', description: 'Invalid control string', error_code: 302 });
      assert.equal((await refund({ x_invoice: d.invoice, x_document: d.document, x_account_type: 'Z' })).body.error_code, 300);
      assert.equal((await refund({ x_invoice: 'nope', x_document: '999999' })).body.error_code, 600);
      const pending = await newInvoice(invoiceFields({ type: 'json', x_version: '1.1' }));
      assert.equal((await refund({ x_document: pending.body.x_document })).body.error_code, 601);
      const noAccount = await refund({ x_invoice: d.invoice, x_document: d.document, x_bank_account: '' });
      assert.equal(noAccount.body.error_code, 603);
      const x = await refund({ x_invoice: d.invoice, x_document: d.document, x_amount: '5.00', type: 'XML' });
      assert.equal(xml.parse(x.text).response.status, 'OK');
    });

    if (backend === 'pg') {
      test('racing refunds never exceed the deposit', async () => {
        const d = await completedDeposit();
        // Twelve identical forms at once: twelve refunds asked for (a form carries no date, so
        // identical forms are distinct refunds); the deposit lets four through.
        const results = await Promise.all(Array.from({ length: 12 }, () => refund({ x_invoice: d.invoice, x_document: d.document, x_amount: '25.00' })));
        const ok = results.filter((r) => r.body.status === 'OK');
        assert.equal(ok.length, 4, JSON.stringify(results.map((r) => r.body)));
        assert.ok(results.filter((r) => r.body.status !== 'OK').every((r) => r.body.error_code === 602));
        const { rows } = await s.ctx.db.query<{ total: string }>(`SELECT sum(local_amount) AS total FROM refunds WHERE deposit_id = $1`, [Number(d.document)]);
        assert.equal(rows[0].total, '100.00');
      });
    }
  });
}
