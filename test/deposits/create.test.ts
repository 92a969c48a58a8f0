// POST /v3/deposits as a merchant's integration uses it: validation, HOSTED/ONE_SHOT,
// payment_info, exact amounts, invoice uniqueness and idempotency (also under concurrency).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { backends, depositBatches, depositsWaiting, holdFirstDepositWrite, startTestServer, type TestServer } from '../helpers/server.ts';
import { createMerchant, hmac, V3Client, xDateNow, type Credentials } from '../helpers/clients.ts';
import { verifyPixCrc } from '../../src/domain/pix.ts';
import { isValidClabe } from '../../src/domain/clabe.ts';
import { boletoFromDigitableLine, isValidBoletoBarcode } from '../../src/domain/vouchers.ts';

const BR_PAYER = { document: '529.982.247-25', first_name: 'Ana', last_name: 'Silva', email: 'ana@example.com' };
const MX_PAYER = { document: 'GODE561231GR8', first_name: 'Eva', last_name: 'Gómez', email: 'eva@example.com' };

let seq = 0;
const inv = (p = 'inv') => `${p}-${process.pid}-${++seq}`;

for (const backend of backends()) {
  describe(`deposit creation (${backend})`, () => {
    let s: TestServer;
    let creds: Credentials;
    let v3: V3Client;

    before(async () => {
      // One insert statement at a time, so that concurrent creations queue and share batches.
      s = await startTestServer(backend, { CAJA_DEPOSIT_BATCH_IN_FLIGHT: '1' });
      creds = await createMerchant(s.url, 'Acme');
      v3 = V3Client.deposits(s.url, creds);
    });
    after(() => s.close());

    test('HOSTED when nothing but country and amount: only the five fields, a stable unguessable URL', async () => {
      const r = await v3.post('/v3/deposits', { country: 'BR', amount: '10.00' });
      assert.equal(r.status, 200, r.text);
      assert.deepEqual(Object.keys(r.body).sort(), ['checkout_type', 'deposit_id', 'merchant_invoice_id', 'redirect_url', 'user_id']);
      assert.equal(r.body.checkout_type, 'HOSTED');
      assert.match(r.body.redirect_url, new RegExp(`^${s.url}/checkout/[A-Za-z0-9_-]{22}$`));
      assert.ok(Number.isInteger(r.body.deposit_id) && r.body.deposit_id < 2 ** 31);
      assert.ok(r.body.user_id && r.body.merchant_invoice_id);
      const again = await v3.post('/v3/deposits/', { country: 'BR', amount: '10.00' });
      assert.equal(again.status, 200, 'trailing slash accepted');
      assert.notEqual(again.body.redirect_url, r.body.redirect_url);
    });

    test('user_id from payer.id and invoice_id echoed', async () => {
      const invoice = inv();
      const r = await v3.post('/v3/deposits', { country: 'MX', amount: 5, invoice_id: invoice, payer: { id: 'cust-42' } });
      assert.equal(r.status, 200, r.text);
      assert.equal(r.body.user_id, 'cust-42');
      assert.equal(r.body.merchant_invoice_id, invoice);
    });

    test('Pix ONE_SHOT: payment_info with a valid BR Code and its QR', async () => {
      const r = await v3.post('/v3/deposits', { country: 'BR', amount: '10.50', currency: 'BRL', payment_method: 'IX', payer: BR_PAYER });
      assert.equal(r.status, 200, r.text);
      assert.equal(r.body.checkout_type, 'ONE_SHOT');
      assert.match(r.body.redirect_url, /\/pay\/[A-Za-z0-9_-]{22}$/);
      const pi = r.body.payment_info;
      assert.equal(pi.payment_method, 'IX');
      assert.equal(pi.currency, 'BRL');
      assert.equal(pi.amount, 10.5);
      assert.match(pi.expiration_date, /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/);
      assert.match(pi.created_at, /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/);
      assert.ok(verifyPixCrc(pi.secondary_metadata.digitable_line));
      assert.ok(Buffer.from(pi.secondary_metadata.qr_code, 'base64').subarray(1, 4).toString() === 'PNG');
      assert.ok(pi.secondary_metadata.reference);
    });

    test('SPEI ONE_SHOT carries a CLABE; OXXO and Boleto vouchers carry real codes', async () => {
      const spei = await v3.post('/v3/deposits', { country: 'MX', amount: 100, currency: 'MXN', payment_method: 'SE', payer: MX_PAYER });
      assert.equal(spei.status, 200, spei.text);
      assert.ok(isValidClabe(spei.body.payment_info.metadata.account));
      const oxxo = await v3.post('/v3/deposits', { country: 'MX', amount: 100, currency: 'MXN', payment_method: 'OX', payer: MX_PAYER });
      assert.equal(oxxo.body.payment_info.type, 'VOUCHER');
      assert.match(oxxo.body.payment_info.metadata.receipt_url, /\/vouchers\/[A-Za-z0-9_-]{22}$/);
      const boleto = await v3.post('/v3/deposits', {
        country: 'BR', amount: 100, currency: 'BRL', payment_method: 'BL',
        payer: { ...BR_PAYER, address: { street: 'Av. Paulista 1000', city: 'São Paulo', state: 'SP', zip_code: '01310-100' } },
      });
      assert.equal(boleto.status, 200, boleto.text);
      const m = boleto.body.payment_info.metadata;
      assert.ok(isValidBoletoBarcode(m.bar_code));
      assert.ok(boletoFromDigitableLine(m.digitable_line).ok);
    });

    test('fee_on_payer and surcharge_on_payer change what the customer pays; display fields do not', async () => {
      const body = { country: 'MX', amount: 100, currency: 'MXN', payment_method: 'OX', payer: MX_PAYER };
      const plain = await v3.post('/v3/deposits', { ...body, surcharge_on_payer: false });
      assert.equal(plain.body.payment_info.amount, 100);
      const surcharge = await v3.post('/v3/deposits', body);
      assert.equal(surcharge.body.payment_info.amount, 101);
      const both = await v3.post('/v3/deposits', { ...body, fee_on_payer: true, bonus_amount: 50, strikethrough_price: '150.00', description: 'Gold pack' });
      assert.equal(both.body.payment_info.amount, 103);
    });

    test('HOSTED when the method needs a field the request lacks', async () => {
      const r = await v3.post('/v3/deposits', { country: 'BR', amount: 10, payment_method: 'IX', payer: { document: BR_PAYER.document } });
      assert.equal(r.status, 200, r.text);
      assert.equal(r.body.checkout_type, 'HOSTED');
      assert.equal(r.body.payment_info, undefined);
    });

    test('rule 3: a tolerated invalid phone sends a method that needs it to HOSTED', async () => {
      const payer = { document: '1020304050', first_name: 'Juan', last_name: 'Pérez', email: 'j@example.com', phone: '12' };
      const strict = await v3.post('/v3/deposits', { country: 'CO', amount: 10, payment_method: 'PC', payer });
      assert.equal(strict.status, 400);
      assert.equal(strict.body.code, 201);
      assert.ok(strict.body.details.some((d: string) => d.startsWith('payer.phone: ')));
      const soft = await v3.post('/v3/deposits', { country: 'CO', amount: 10, payment_method: 'PC', payer, request_payer_data_on_validation_failure: true });
      assert.equal(soft.status, 200, soft.text);
      assert.equal(soft.body.checkout_type, 'HOSTED');
      const ignored = await v3.post('/v3/deposits', { country: 'BR', amount: 10, payment_method: 'IX', payer: { ...BR_PAYER, phone: '12' }, request_payer_data_on_validation_failure: true });
      assert.equal(ignored.body.checkout_type, 'ONE_SHOT');
    });

    test('invalid input: 400, code 201, every field listed', async () => {
      const r = await v3.post('/v3/deposits', {
        country: 'BR', amount: '12.345', currency: 'BRLX', invoice_id: 'no spaces please', language: 'de', client_ip: 'localhost',
        payer: { document: '111.111.111-12', email: 'nope' }, notification_url: 'http://example.com/n', payment_method: 'ABCD',
      });
      assert.equal(r.status, 400);
      assert.equal(r.body.code, 201);
      const fields = r.body.details.map((d: string) => d.split(':')[0]);
      for (const f of ['amount', 'currency', 'invoice_id', 'language', 'client_ip', 'payer.document', 'payer.email', 'notification_url', 'payment_method']) {
        assert.ok(fields.includes(f), `${f} not in ${JSON.stringify(r.body.details)}`);
      }
      const country = await v3.post('/v3/deposits', { country: 'US', amount: 1 });
      assert.match(country.body.details[0], /^country: .*AR, BR, CL/);
      const missing = await v3.post('/v3/deposits', {});
      assert.deepEqual(missing.body.details, ['country: is required', 'amount: is required']);
    });

    test('method minimum and maximum give a clear 201 detail', async () => {
      const r = await v3.post('/v3/deposits', { country: 'BR', amount: '0.50', currency: 'BRL', payment_method: 'IX', payer: BR_PAYER });
      assert.equal(r.status, 400);
      assert.equal(r.body.code, 201);
      assert.match(r.body.details[0], /^amount: .*minimum of 1\.00 BRL for IX/);
    });

    test('malformed JSON and non-object bodies: 502 INVALID_REQUEST_BODY', async () => {
      const r = await v3.post('/v3/deposits', '{"country": "BR", amount: }');
      assert.equal(r.status, 400);
      assert.equal(r.body.code, 502);
      const arr = await v3.post('/v3/deposits', '[1,2]');
      assert.equal(arr.body.code, 502);
    });

    test('bad signature and unknown login are refused before anything is created', async () => {
      const rows = async () => (await s.ctx.db.query<{ n: number }>('SELECT count(*)::int AS n FROM deposits')).rows[0]!.n;
      const before = await rows();
      const bad = new V3Client(s.url, creds.deposits.login, 'wrong-secret');
      const r = await bad.post('/v3/deposits', { country: 'BR', amount: 1 });
      assert.equal(r.status, 400, r.text);
      assert.equal(r.body.code, 102);
      const unknown = new V3Client(s.url, 'nobody', 'x');
      const u = await unknown.post('/v3/deposits', { country: 'BR', amount: 1 });
      assert.equal(u.status, 401, u.text);
      assert.equal(u.body.code, 100);
      assert.equal(await rows(), before, 'no deposit row');
    });

    test('an 18-digit amount sent as a JSON number stays exact', async () => {
      const raw = '{"country":"BR","currency":"BRL","amount":123456789012345678.91}';
      const r = await v3.post('/v3/deposits', raw);
      assert.equal(r.status, 200, r.text);
      const g = await v3.get(`/v3/deposits/${r.body.deposit_id}`);
      assert.match(g.text, /"local_amount":123456789012345678\.91[,}]/);
      assert.match(g.text, /"amount":123456789012345678\.91[,}]/);
    });

    test('invoice_id is unique per merchant; another merchant may reuse it', async () => {
      const invoice = inv('dup');
      assert.equal((await v3.post('/v3/deposits', { country: 'BR', amount: 1, invoice_id: invoice })).status, 200);
      const second = await v3.post('/v3/deposits', { country: 'BR', amount: 2, invoice_id: invoice });
      assert.equal(second.status, 400);
      assert.equal(second.body.code, 201);
      assert.deepEqual(second.body.details, ['invoice_id: already used']);
      const other = V3Client.deposits(s.url, await createMerchant(s.url, 'Other'));
      assert.equal((await other.post('/v3/deposits', { country: 'BR', amount: 1, invoice_id: invoice })).status, 200);
    });

    test('concurrent requests with one invoice_id create exactly one deposit', async () => {
      const invoice = inv('race');
      // Fifteen requests, each its own deposit but for the invoice id they share.
      const results = await Promise.all(Array.from({ length: 15 }, (_, i) => v3.post('/v3/deposits', { country: 'BR', amount: 3, invoice_id: invoice, description: `race ${i}` })));
      assert.equal(results.filter((r) => r.status === 200).length, 1, results.map((r) => r.status).join());
      assert.ok(results.filter((r) => r.status !== 200).every((r) => r.body.code === 201));
      const { rows } = await s.ctx.db.query('SELECT count(*)::int AS n FROM deposits WHERE invoice_id = $1', [invoice]);
      assert.equal(rows[0].n, 1);
    });

    test('a burst of creations written in shared batches: each answer is its own deposit, with its history and event', async () => {
      // 130 at once: distinct deposits (some ONE_SHOT Pix), ten pairs sharing an invoice id, and
      // ten signed copies of one request (each a creation of its own, whose one invoice id lets
      // one through). The batcher is driven, not timed: the first insert statement is held until
      // every other creation is queued behind it, so the rest are written by shared statements
      // however fast or loaded the machine is.
      const tag = inv('burst');
      const bodies = Array.from({ length: 100 }, (_, i) => (i % 4 === 0
        ? { country: 'BR', currency: 'BRL', amount: `${10 + i}.25`, payment_method: 'IX', invoice_id: `${tag}-${i}`, payer: BR_PAYER }
        : { country: 'MX', currency: 'MXN', amount: `${100 + i}.50`, invoice_id: `${tag}-${i}`, description: `burst ${i}` }));
      const pair = (i: number, which: string) => ({ country: 'MX', amount: '5.00', invoice_id: `${tag}-pair-${i}`, description: which });
      const pairs = Array.from({ length: 10 }, (_, i) => pair(i, 'first'));
      const seconds = Array.from({ length: 10 }, (_, i) => pair(i, 'second'));
      const copyBody = JSON.stringify({ country: 'MX', amount: '6.00', invoice_id: `${tag}-copy` });
      const xDate = xDateNow();
      const copy = () => fetch(`${s.url}/v3/deposits`, {
        method: 'POST', body: copyBody,
        headers: { 'Content-Type': 'application/json', 'X-Date': xDate, 'X-Login': creds.deposits.login, Authorization: `SVC ${hmac(creds.deposits.secret_key, xDate + creds.deposits.login + copyBody)}` },
      }).then(async (r) => ({ status: r.status, replayed: r.headers.get('idempotent-replayed'), body: await r.json() }));
      const total = bodies.length + pairs.length + seconds.length + 10;
      const batchesBefore = await depositBatches(s);
      // Hold the first insert statement at its door (the database itself stays free: credential,
      // rate and id reads go on) until the other creations wait in the batcher behind it.
      const hold = holdFirstDepositWrite(s, 'insert');
      const settled = Promise.all([
        // One in five with an idempotency key: keyed creations are batched like the others.
        Promise.all(bodies.map((b, i) => v3.post('/v3/deposits', b, i % 5 === 1 ? { 'X-Idempotency-Key': `${tag}-key-${i}` } : {}))),
        Promise.all([...pairs, ...seconds].map((b) => v3.post('/v3/deposits', b))),
        Promise.all(Array.from({ length: 10 }, copy)),
      ]);
      try {
        await hold.queued(total - 1);
      } finally {
        hold.release();
      }
      const [distinct, paired, copies] = await settled;
      // The held statement wrote one deposit; the 129 queued behind it went in statements of at
      // most 64 (CAJA_DEPOSIT_BATCH_SIZE): three more.
      assert.equal((await depositBatches(s)) - batchesBefore, 1 + Math.ceil((total - 1) / 64), 'the queued creations shared statements');
      assert.equal(await depositsWaiting(s), 0);
      distinct.forEach((r, i) => {
        assert.equal(r.status, 200, r.text);
        assert.equal(r.body.merchant_invoice_id, bodies[i]!.invoice_id, 'each answer is its own deposit');
        assert.equal(r.body.checkout_type, i % 4 === 0 ? 'ONE_SHOT' : 'HOSTED');
      });
      for (let i = 0; i < 10; i++) {
        const statuses = [paired[i]!, paired[i + 10]!].map((r) => (r.status === 200 ? 200 : r.body.code));
        assert.deepEqual(statuses.sort(), [200, 201], `pair ${i}: one deposit, one 201`);
      }
      // Identical signed copies are not one request: each is a creation, and the invoice id lets
      // one through (the others are 201, none a replay).
      assert.ok(copies.every((c) => c.replayed === null), JSON.stringify(copies));
      assert.deepEqual(copies.map((c) => (c.status === 200 ? 200 : c.body.code)).sort(), [200, ...Array(9).fill(201)], JSON.stringify(copies));
      const ids = distinct.map((r) => r.body.deposit_id as number);
      const { rows } = await s.ctx.db.query<{ id: number; amount: string; history: number; events: number }>(
        `SELECT d.id, d.amount::text AS amount,
                (SELECT count(*)::int FROM deposit_status_changes h WHERE h.deposit_id = d.id) AS history,
                (SELECT count(*)::int FROM events e WHERE e.subject_type = 'deposit' AND e.subject_id = d.id) AS events
         FROM deposits d WHERE d.invoice_id LIKE $1 || '%' ORDER BY d.id`, [tag]);
      assert.equal(rows.length, 100 + 10 + 1, 'no deposit lost or doubled');
      assert.ok(rows.every((r) => r.history === 1 && r.events === 1), 'one history row and one creation event each');
      const byId = new Map(rows.map((r) => [Number(r.id), r.amount]));
      ids.forEach((id, i) => assert.equal(byId.get(id), bodies[i]!.amount));
      const keys = await s.ctx.db.query<{ key: string; deposit_id: number }>(
        `SELECT key, deposit_id FROM idempotency_keys WHERE scope = 'deposits' AND key LIKE $1 || '-key-%'`, [tag]);
      assert.equal(keys.rows.length, 20);
      keys.rows.forEach((k) => assert.equal(k.deposit_id, ids[Number(k.key.split('-key-')[1])], 'each key names its own deposit'));
    });

    test('a creation is answered from what its statement wrote: the same as the stored deposit, and as its replay', async () => {
      const invoice = inv('answer');
      const body = { country: 'BR', amount: '10.50', currency: 'BRL', payment_method: 'IX', invoice_id: invoice, payer: { ...BR_PAYER, id: 'cust-answer' } };
      const key = `${invoice}-key`;
      const r = await v3.post('/v3/deposits', body, { 'x-idempotency-key': key });
      assert.equal(r.status, 200, r.text);
      const { rows } = await s.ctx.db.query<{ id: number; token: string; user_id: string; invoice_id: string; payment_info: string }>(
        'SELECT id, token, user_id, invoice_id, payment_info FROM deposits WHERE invoice_id = $1', [invoice]);
      const stored = rows[0]!;
      // The row keeps payment_info without its QR image, which its BR Code draws again.
      const info = JSON.parse(stored.payment_info);
      assert.equal(info.secondary_metadata.qr_code, null);
      assert.ok(stored.payment_info.length < 600, stored.payment_info);
      info.secondary_metadata.qr_code = r.body.payment_info.secondary_metadata.qr_code;
      assert.deepEqual(
        [r.body.deposit_id, r.body.redirect_url, r.body.user_id, r.body.merchant_invoice_id, r.body.payment_info],
        [stored.id, `${s.url}/pay/${stored.token}`, 'cust-answer', invoice, info]);
      // The replay is answered from the stored row (every column): byte for byte the same answer.
      const replay = await v3.post('/v3/deposits', body, { 'x-idempotency-key': key });
      assert.equal(replay.headers.get('idempotent-replayed'), 'true');
      assert.equal(replay.text, r.text);
    });

    test('concurrent status reads share one query: each merchant still sees only its own deposits', async () => {
      const other = V3Client.deposits(s.url, await createMerchant(s.url, 'Reader'));
      const mine = await v3.post('/v3/deposits', { country: 'MX', amount: '12.34', invoice_id: inv('read') });
      const theirs = await other.post('/v3/deposits', { country: 'BR', amount: '56.78', invoice_id: inv('read') });
      const [a, b] = [mine.body.deposit_id as number, theirs.body.deposit_id as number];
      // Interleaved reads of both deposits by both merchants, and of ids that do not exist.
      const reads = await Promise.all(Array.from({ length: 40 }, (_, i) => {
        const client = i % 2 === 0 ? v3 : other;
        const id = [a, b, 2147483647][i % 3]!;
        return client.get(`/v3/deposits/${id}`).then((r) => ({ mine: client === v3, id, r }));
      }));
      for (const { mine: isMine, id, r } of reads) {
        const own = (isMine && id === a) || (!isMine && id === b);
        if (own) {
          assert.equal(r.status, 200, r.text);
          assert.equal(r.body.deposit_id, id);
          assert.equal(r.text.includes('"amount":12.34'), id === a);
        } else {
          assert.equal(r.status, 404, r.text);
          assert.equal(r.body.code, 208);
        }
      }
    });

    test('idempotency: same key and body replays; another body is 104; the misspelt header works', async () => {
      const key = inv('key');
      const body = { country: 'BR', amount: '7.00', payment_method: 'IX', payer: BR_PAYER };
      const first = await v3.post('/v3/deposits', body, { 'X-Idempotency-Key': key });
      assert.equal(first.status, 200, first.text);
      assert.equal(first.headers.get('idempotent-replayed'), null);
      const again = await v3.post('/v3/deposits', body, { 'X-Idempontency-Key': key });
      assert.equal(again.status, 200);
      assert.equal(again.headers.get('idempotent-replayed'), 'true');
      assert.equal(again.text, first.text);
      const other = await v3.post('/v3/deposits', { ...body, amount: '8.00' }, { 'X-Idempotency-Key': key });
      assert.equal(other.status, 400);
      assert.equal(other.body.code, 104);
    });

    test('concurrent requests with one idempotency key create exactly one deposit', async () => {
      const key = inv('ckey');
      // No invoice_id: each request would get its own, so only the key keeps them one deposit.
      const raw = JSON.stringify({ country: 'MX', amount: 20, currency: 'MXN', payment_method: 'SE', payer: MX_PAYER });
      const count = async () => (await s.ctx.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM deposits WHERE merchant_id = $1`, [creds.merchant_id])).rows[0]!.n;
      const before = await count();
      const results = await Promise.all(Array.from({ length: 15 }, () => v3.post('/v3/deposits', raw, { 'X-Idempotency-Key': key })));
      assert.ok(results.every((r) => r.status === 200), results.map((r) => `${r.status} ${r.text}`).join('\n'));
      assert.equal(new Set(results.map((r) => r.body.deposit_id)).size, 1);
      assert.equal(results.filter((r) => r.headers.get('idempotent-replayed') === 'true').length, 14);
      assert.equal(await count(), before + 1, 'one deposit written, none left behind by the others');
    });

    test('concurrent requests with one idempotency key and different bodies: one deposit, every other one 104', async () => {
      const key = inv('dkey');
      const tag = inv('dkey-body');
      const results = await Promise.all(Array.from({ length: 12 }, (_, i) =>
        v3.post('/v3/deposits', { country: 'MX', amount: `${30 + i}.00`, currency: 'MXN', invoice_id: `${tag}-${i}` }, { 'X-Idempotency-Key': key })));
      const created = results.filter((r) => r.status === 200);
      assert.equal(created.length, 1, results.map((r) => `${r.status} ${r.text}`).join('\n'));
      assert.equal(created[0]!.headers.get('idempotent-replayed'), null);
      assert.ok(results.filter((r) => r.status !== 200).every((r) => r.status === 400 && r.body.code === 104));
      const { rows } = await s.ctx.db.query<{ id: number }>(`SELECT id FROM deposits WHERE merchant_id = $1 AND invoice_id LIKE $2`, [creds.merchant_id, `${tag}-%`]);
      assert.deepEqual(rows.map((r) => r.id), [created[0]!.body.deposit_id]);
      const keys = await s.ctx.db.query<{ deposit_id: number }>(`SELECT deposit_id FROM idempotency_keys WHERE merchant_id = $1 AND scope = 'deposits' AND key = $2`, [creds.merchant_id, key]);
      assert.deepEqual(keys.rows.map((r) => r.deposit_id), [created[0]!.body.deposit_id]);
      // The invoice ids of the refused requests are still free: a refusal wrote nothing.
      const refused = results.findIndex((r) => r.status !== 200);
      const reuse = await v3.post('/v3/deposits', { country: 'MX', amount: '1.00', currency: 'MXN', invoice_id: `${tag}-${refused}` });
      assert.equal(reuse.status, 200, reuse.text);
    });

    test('a request with a key whose invoice id is used gets 201, and the key stays free', async () => {
      const invoice = inv('used');
      assert.equal((await v3.post('/v3/deposits', { country: 'MX', amount: '2.00', invoice_id: invoice })).status, 200);
      const key = inv('free-key');
      const refused = await v3.post('/v3/deposits', { country: 'MX', amount: '2.00', invoice_id: invoice }, { 'X-Idempotency-Key': key });
      assert.equal(refused.body.code, 201, refused.text);
      const later = await v3.post('/v3/deposits', { country: 'MX', amount: '2.00', invoice_id: `${invoice}-2` }, { 'X-Idempotency-Key': key });
      assert.equal(later.status, 200, later.text);
      assert.equal(later.headers.get('idempotent-replayed'), null);
    });

    test('the signature covers the raw bytes, including escaped slashes', async () => {
      const raw = '{"country":"BR","amount":"1.00","notification_url":"https:\\/\\/merchant.example\\/n"}';
      const xDate = xDateNow();
      const res = await fetch(`${s.url}/v3/deposits`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', 'X-Date': xDate, 'X-Login': creds.deposits.login, Authorization: `SVC ${hmac(creds.deposits.secret_key, xDate + creds.deposits.login + raw)}` },
        body: raw,
      });
      assert.equal(res.status, 200, await res.clone().text());
    });
  });
}
