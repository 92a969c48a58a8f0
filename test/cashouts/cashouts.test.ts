// Cashouts through the HTTP API as a cashout client calls it: creation with its reservation,
// validation, 511/514, status, hold/release/cancel, the staging bank's pickup and outcomes
// (magic values), the sandbox, notifications, and the ledger's invariants after each scenario.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { backends, type TestServer } from '../helpers/server.ts';
import { creditBalance, startWithMerchants } from '../helpers/merchants.ts';
import { cashoutRequest, createMerchant, hmac, type Credentials, V3Client } from '../helpers/clients.ts';
import { cpf } from '../helpers/documents.ts';
import { assertLedgerOk } from '../helpers/ledger.ts';
import { runStagingBank } from '../../src/cashouts/worker.ts';
import { buildClabe } from '../../src/domain/clabe.ts';

const BR = (over: Record<string, unknown> = {}) => ({
  country: 'BR', currency: 'USD', amount: '100.00', document_id: cpf('529982247'), beneficiary_name: 'Maria', beneficiary_lastname: 'Souza',
  bank_code: '260', bank_account: '12345-6', bank_branch: '0001', account_type: 'C', ...over,
});

for (const backend of backends()) {
  describe(`cashouts (${backend})`, () => {
    let s: TestServer;
    let m: Credentials;
    let n = 0;
    const ext = () => `co-${backend}-${++n}-${Date.now()}`;
    before(async () => {
      ({ s, merchants: [m] } = await startWithMerchants(backend, { CAJA_CASHOUT_DELAY_SECONDS: '60', CAJA_SANDBOX_AUTO_SECONDS: '5' }, [{ name: 'Payouts', funds: '1000.00' }]));
    });
    after(() => s.close());

    const fund = (who: Credentials, amount: string, currency = 'USD') => creditBalance(s.url, who, amount, currency);
    const create = (body: Record<string, unknown>, who = m) => cashoutRequest(s.url, who, 'POST', '/v3/cashout', body);
    const status = (body: Record<string, unknown>, who = m) => cashoutRequest(s.url, who, 'POST', '/v3/cashout/status', body);
    const balance = async (who = m) => {
      const r = await V3Client.deposits(s.url, who).get('/v3/balance');
      assert.equal(r.status, 200, r.text);
      return r.body.balances.find((b: any) => b.currency === 'USD') ?? { available: 0, reserved: 0, total: 0 };
    };
    /** Runs the staging bank as if `seconds` had passed. */
    const later = async (seconds: number) => {
      const real = s.ctx.now;
      s.ctx.now = () => new Date(Date.now() + seconds * 1000);
      try {
        await runStagingBank(s.ctx);
      } finally {
        s.ctx.now = real;
      }
    };

    test('create reserves the amount; status answers the numbers clients read; the ledger holds', async () => {
      const before = await balance();
      const external_id = ext();
      const r = await create(BR({ external_id, notification_url: 'https://shop.example/cashouts' }));
      assert.equal(r.status, 200, r.text);
      assert.deepEqual(Object.keys(r.body), ['cashout_id']);
      assert.ok(Number.isInteger(r.body.cashout_id) && r.body.cashout_id < 2 ** 31);
      const after = await balance();
      assert.equal(Math.round((before.available - after.available) * 100), 10000);
      assert.equal(Math.round((after.reserved - before.reserved) * 100), 10000);
      assert.equal(after.total, before.total);
      for (const query of [{ cashout_id: r.body.cashout_id }, { external_id }, { cashout_id: String(r.body.cashout_id), external_id }]) {
        const st = await status(query);
        assert.equal(st.status, 200, st.text);
        assert.deepEqual([st.body.cashout_status, st.body.cashout_status_description, st.body.cashout_id], [0, 'Pending', r.body.cashout_id]);
      }
      await assertLedgerOk(s.ctx.db);
    });

    test('validation: every failing field at once, as {code: 300, message}', async () => {
      const r = await create({ external_id: ext(), country: 'BR', amount: '-5', document_id: '12345678900', beneficiary_name: 'X', bank_code: '9999', bank_account: 'abc' });
      assert.equal(r.status, 400);
      assert.deepEqual(Object.keys(r.body), ['code', 'message']);
      assert.equal(r.body.code, 300);
      for (const field of ['amount', 'document_id', 'bank_code', 'bank_account']) assert.match(r.body.message, new RegExp(field), field);
      const mx = await create({ ...BR(), external_id: ext(), country: 'MX', currency: 'BRL', document_id: 'GODE561231GR8', bank_code: '12', bank_account: '012180001234567898' });
      assert.equal(mx.body.code, 300);
      assert.match(mx.body.message, /currency: must be USD or MXN/);
      assert.match(mx.body.message, /bank_account: .*check digit/i);
      const wrongBank = await create({ ...BR(), external_id: ext(), country: 'MX', currency: 'MXN', document_id: 'GODE561231GR8', bank_code: '14', bank_account: buildClabe('012', '180', '00123456789') });
      assert.equal(wrongBank.body.code, 300);
      assert.match(wrongBank.body.message, /bank_code/);
      const missing = await create({});
      assert.equal(missing.body.code, 300);
      for (const field of ['external_id', 'country', 'amount', 'document_id', 'beneficiary_name', 'bank_account']) assert.match(missing.body.message, new RegExp(`${field}: is required`), field);
      const zeroDecimals = await create({ ...BR(), external_id: ext(), country: 'CL', currency: 'CLP', amount: '1000.50', document_id: '11.111.111-1', bank_code: '1', bank_account: '12345678' });
      assert.match(zeroDecimals.body.message, /amount: must be a decimal number with at most 0 decimals/);
      await assertLedgerOk(s.ctx.db);
    });

    test('a local-currency cashout converts at the current rate, fixed on the cashout; MX CLABE accepted', async () => {
      const before = await balance();
      const r = await create({ ...BR(), external_id: ext(), country: 'MX', currency: 'MXN', amount: '182.50', document_id: 'GODE561231GR8', bank_code: '12', bank_account: buildClabe('012', '180', '00123456789') });
      assert.equal(r.status, 200, r.text);
      const after = await balance();
      // MXN 182.50 at the staging sample rate 18.25 per USD is exactly USD 10.00.
      assert.equal(Math.round((before.available - after.available) * 100), 1000);
      const row = (await s.ctx.db.query('SELECT local_amount, usd_amount, fx_rate, settlement_amount FROM cashouts WHERE id = $1', [r.body.cashout_id])).rows[0];
      assert.deepEqual([row.local_amount, row.usd_amount, row.settlement_amount], ['182.50', '10.00', '10.00']);
    });

    test('a conversion never rounds in the merchant\'s favour: the reservation rounds up, the beneficiary\'s amount down; worth less than 0.01 USD is 300 naming amount', async () => {
      const before = await balance();
      // BRL 0.01 at 5.4321 per USD is USD 0.0018: no whole cent of the settlement currency.
      const tiny = await create(BR({ external_id: ext(), currency: 'BRL', amount: '0.01' }));
      assert.deepEqual([tiny.status, tiny.body.code], [400, 300], tiny.text);
      assert.match(tiny.body.message, /amount/);
      // BRL 0.08 is USD 0.0147: the reservation is USD 0.02, never 0.01.
      const r = await create(BR({ external_id: ext(), currency: 'BRL', amount: '0.08' }));
      assert.equal(r.status, 200, r.text);
      const row = (await s.ctx.db.query('SELECT local_amount, usd_amount, settlement_amount FROM cashouts WHERE id = $1', [r.body.cashout_id])).rows[0];
      assert.deepEqual([row.local_amount, row.usd_amount, row.settlement_amount], ['0.08', '0.02', '0.02']);
      const after = await balance();
      assert.equal(Math.round((after.reserved - before.reserved) * 100), 2);
      // USD 0.02 is BRL 0.108642: the beneficiary receives BRL 0.10, the merchant gives USD 0.02.
      const usd = await create(BR({ external_id: ext(), currency: 'USD', amount: '0.02' }));
      assert.equal(usd.status, 200, usd.text);
      const usdRow = (await s.ctx.db.query('SELECT local_amount, usd_amount, settlement_amount FROM cashouts WHERE id = $1', [usd.body.cashout_id])).rows[0];
      assert.deepEqual([usdRow.local_amount, usdRow.usd_amount, usdRow.settlement_amount], ['0.10', '0.02', '0.02']);
      await assertLedgerOk(s.ctx.db);
    });

    test('the signed bytes are read as JSON only: the Content-Type header, outside Payload-Signature, cannot make them mean other fields', async () => {
      const r = await create(BR({ external_id: ext(), amount: '1.00' }));
      assert.equal(r.status, 200, r.text);
      // The same signature over a body read as a form would be a second way to spell fields.
      const raw = `login=${m.cashouts.login}&pass=${m.cashouts.pass}&cashout_id=${r.body.cashout_id}`;
      for (const type of ['application/x-www-form-urlencoded', 'application/x-www-form-urlencoded; charset=utf-8']) {
        const res = await fetch(`${s.url}/v3/cashout/status`, { method: 'POST', headers: { 'Content-Type': type, 'Payload-Signature': hmac(m.cashouts.secret_key, raw) }, body: raw });
        const body = await res.json();
        assert.deepEqual([res.status, body.code], [400, 300], JSON.stringify(body));
        assert.match(body.message, /application\/json/);
      }
    });

    test('external_id is unique per merchant (511); more than the available balance is 514 and reserves nothing', async () => {
      const external_id = ext();
      assert.equal((await create(BR({ external_id, amount: '1.00' }))).status, 200);
      const again = await create(BR({ external_id, amount: '1.00' }));
      assert.deepEqual([again.status, again.body.code], [400, 511]);
      const other = await createMerchant(s.url, 'Other payouts');
      await fund(other, '5.00');
      assert.equal((await create(BR({ external_id, amount: '1.00' }), other)).status, 200, 'another merchant may use the same external_id');
      const before = await balance(other);
      const rows = async () => (await s.ctx.db.query<{ n: number }>('SELECT count(*)::int AS n FROM cashouts WHERE merchant_id = $1', [other.merchant_id])).rows[0]!.n;
      const rowsBefore = await rows();
      const broke = await create(BR({ external_id: ext(), amount: '4.01' }), other);
      assert.deepEqual([broke.status, broke.body.code, broke.body.message], [400, 514, 'Insufficient funds']);
      assert.deepEqual(await balance(other), before);
      assert.equal(await rows(), rowsBefore, 'no cashout row');
      assert.equal((await create(BR({ external_id: ext(), amount: '4.00' }), other)).status, 200, 'exactly what is available');
      assert.equal((await balance(other)).available, 0);
      await assertLedgerOk(s.ctx.db);
    });

    test('authentication: wrong pass or signature is 401 {code, message}; the D24 scheme word and escaped JSON are accepted', async () => {
      const body = JSON.stringify({ login: m.cashouts.login, pass: 'wrong', cashout_id: 1 });
      const bad = await fetch(`${s.url}/v3/cashout/status`, { method: 'POST', headers: { 'Content-Type': 'application/json', 'Payload-Signature': hmac(m.cashouts.secret_key, body) }, body });
      assert.equal(bad.status, 401);
      assert.deepEqual(await bad.json(), { code: 401, message: 'Invalid credentials' });
      // A PHP client: json_encode escapes "/" and sends numbers as strings; some send "D24 <hex>".
      const external_id = ext();
      const raw = JSON.stringify({ ...BR({ amount: '3.3', notification_url: 'https://shop.example/hook' }), external_id, login: m.cashouts.login, pass: m.cashouts.pass }).replaceAll('/', '\\/');
      const sig = createHmac('sha256', m.cashouts.secret_key).update(raw).digest('hex');
      const ok = await fetch(`${s.url}/v3/cashout`, { method: 'POST', headers: { 'Content-Type': 'application/json', 'Payload-Signature': `D24 ${sig.toUpperCase()}` }, body: raw });
      assert.equal(ok.status, 200, await ok.clone().text());
      const stored = (await s.ctx.db.query('SELECT amount, notification_url FROM cashouts WHERE external_id = $1', [external_id])).rows[0];
      assert.deepEqual(stored, { amount: '3.30', notification_url: 'https://shop.example/hook' });
      const tampered = await fetch(`${s.url}/v3/cashout`, { method: 'POST', headers: { 'Content-Type': 'application/json', 'Payload-Signature': sig }, body: raw.replace('3.3', '9.3') });
      assert.equal(tampered.status, 401);
    });

    test('hold, release and cancel follow the state table; 510 otherwise; 509 for unknown or foreign ids', async () => {
      const external_id = ext();
      const { cashout_id } = (await create(BR({ external_id, amount: '7.00', on_hold: 'true' }))).body;
      assert.equal((await status({ cashout_id })).body.cashout_status, 5);
      const put = (st: string, id = cashout_id) => cashoutRequest(s.url, m, 'PUT', '/v3/cashout/status', { cashout_id: id, status: st });
      assert.deepEqual((await put('ON_HOLD')).body, { code: 510, message: 'Invalid status transition: the cashout is ON_HOLD' });
      const released = await put('PENDING');
      assert.deepEqual([released.status, released.body.cashout_status, released.body.cashout_status_description], [200, 0, 'Pending']);
      assert.equal((await put('ON_HOLD')).body.cashout_status, 5);
      assert.equal((await put('CANCELLED')).body.code, 300);
      const before = await balance();
      const cancel = (body: Record<string, unknown>, who = m) => cashoutRequest(s.url, who, 'DELETE', '/v3/cashout/cancel', body);
      assert.equal((await cancel({ cashout_id })).body.code, 300, 'both ids are required');
      assert.equal((await cancel({ cashout_id, external_id: 'not-this-one' })).body.code, 509);
      const other = await createMerchant(s.url, 'Stranger');
      assert.deepEqual([(await cancel({ cashout_id, external_id }, other)).status, (await cancel({ cashout_id, external_id }, other)).body.code], [404, 509]);
      assert.equal((await status({ cashout_id }, other)).body.code, 509);
      const done = await cancel({ cashout_id, external_id });
      assert.equal(done.status, 200, done.text);
      assert.deepEqual([done.body.cashout_status, done.body.cashout_status_description], [2, 'Canceled']);
      const after = await balance();
      assert.equal(Math.round((after.available - before.available) * 100), 700, 'the reservation went back to available');
      assert.equal((await cancel({ cashout_id, external_id })).body.code, 510, 'a replayed cancel moves nothing');
      assert.equal((await put('PENDING')).body.code, 510);
      assert.equal((await balance()).available, after.available);
      assert.equal((await status({ cashout_id: 2147483647 })).body.code, 509);
      await assertLedgerOk(s.ctx.db);
    });

    test('the staging bank: pickup after the delay (no cancel then), completion posts; magic values reject and return', async () => {
      // A merchant of its own, so that other tests' cashouts do not move its balance.
      const m = await createMerchant(s.url, 'Bank run');
      await fund(m, '100.00');
      const create = (body: Record<string, unknown>) => cashoutRequest(s.url, m, 'POST', '/v3/cashout', body);
      const status = (body: Record<string, unknown>) => cashoutRequest(s.url, m, 'POST', '/v3/cashout/status', body);
      const plain = (await create(BR({ external_id: ext(), amount: '5.00', notification_url: 'https://shop.example/co' }))).body.cashout_id;
      const rejected = (await create(BR({ external_id: ext(), amount: '6.00', bank_account: '99901-1' }))).body.cashout_id;
      const bounced = (await create(BR({ external_id: ext(), amount: '8.00', bank_account: '99977-0' }))).body.cashout_id;
      const held = (await create(BR({ external_id: ext(), amount: '9.00', on_hold: true }))).body.cashout_id;
      const start = await balance(m);
      await later(30);
      assert.equal((await status({ cashout_id: plain })).body.cashout_status, 0, 'still waiting: merchants may hold or cancel');
      await later(61);
      assert.equal((await status({ cashout_id: plain })).body.cashout_status, 4, 'DELIVERED');
      assert.equal((await status({ cashout_id: held })).body.cashout_status, 5, 'a held cashout is not picked up');
      const ext1 = (await s.ctx.db.query('SELECT external_id FROM cashouts WHERE id = $1', [plain])).rows[0].external_id;
      assert.equal((await cashoutRequest(s.url, m, 'DELETE', '/v3/cashout/cancel', { cashout_id: plain, external_id: ext1 })).body.code, 510);
      await later(61 + 6);
      const done = await status({ cashout_id: plain });
      assert.deepEqual([done.body.cashout_status, done.body.cashout_status_description], [1, 'Completed']);
      const rej = await status({ cashout_id: rejected });
      assert.deepEqual([rej.body.cashout_status, rej.body.rejection_code, rej.body.rejection_reason], [3, '801', 'The beneficiary account is closed']);
      assert.equal((await status({ cashout_id: bounced })).body.cashout_status, 1);
      let now = await balance(m);
      assert.equal(Math.round((start.reserved - now.reserved) * 100), 1900, 'three reservations resolved');
      assert.equal(Math.round((now.available - start.available) * 100), 600, 'the rejected one went back to available');
      // Days later the beneficiary bank returns the bounced one.
      await later(61 + 6 + 61);
      const back = await status({ cashout_id: bounced });
      assert.deepEqual([back.body.cashout_status, back.body.rejection_code], [3, '809']);
      now = await balance(m);
      assert.equal(Math.round((now.available - start.available) * 100), 1400);
      assert.deepEqual([now.available, now.reserved], [100 - 5 - 9, 9], 'only the completed one left; the held one is still reserved');
      // Every change was notified with the control of DESIGN.md.
      const { rows } = await s.ctx.db.query<{ body: string; content_type: string }>(`SELECT body, content_type FROM notifications WHERE subject_key = $1 ORDER BY id`, [`cashout:${plain}`]);
      assert.equal(rows.length, 2, 'DELIVERED and COMPLETED');
      const form = new URLSearchParams(rows[1]!.body);
      assert.deepEqual([...form.keys()], ['date', 'bank_reference_id', 'comments', 'external_id', 'control', 'cashout_id', 'status_reason']);
      assert.equal(form.get('control'), createHmac('sha256', m.cashouts.secret_key).update(`Be4${ext1}Bo7`).digest('hex').toUpperCase());
      assert.equal(form.get('cashout_id'), String(plain));
      assert.match(form.get('date')!, /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/);
      assert.match(form.get('bank_reference_id')!, /^SB[0-9A-F]{12}$/);
      await assertLedgerOk(s.ctx.db);
    });

    test('sandbox: deliver, complete and reject as the bank would; 510 out of order; 404 for another merchant', async () => {
      const v3 = V3Client.deposits(s.url, m);
      const id = (await create(BR({ external_id: ext(), amount: '2.00' }))).body.cashout_id;
      assert.equal((await v3.post(`/v3/sandbox/cashouts/${id}/complete`, '')).body.code, 510);
      const d = await v3.post(`/v3/sandbox/cashouts/${id}/deliver`, '');
      assert.deepEqual([d.status, d.body.status, d.body.cashout_status], [200, 'DELIVERED', 4]);
      await later(3600);
      assert.equal((await status({ cashout_id: id })).body.cashout_status, 4, 'a sandbox delivery waits for the sandbox');
      const r = await v3.post(`/v3/sandbox/cashouts/${id}/reject`, { rejection_code: '805' });
      assert.deepEqual([r.status, r.body.status, r.body.rejection_code], [200, 'REJECTED', '805']);
      assert.equal((await v3.post(`/v3/sandbox/cashouts/${id}/reject`, '')).body.code, 510);
      const bad = await v3.post(`/v3/sandbox/cashouts/${id}/reject`, { rejection_code: '999' });
      assert.deepEqual([bad.status, bad.body.code], [400, 201]);
      assert.match(bad.body.details[0], /rejection_code: must be one of 800/);
      const other = V3Client.deposits(s.url, await createMerchant(s.url, 'Sandbox stranger'));
      assert.equal((await other.post(`/v3/sandbox/cashouts/${id}/deliver`, '')).body.code, 208);
      const id2 = (await create(BR({ external_id: ext(), amount: '2.00' }))).body.cashout_id;
      await v3.post(`/v3/sandbox/cashouts/${id2}/deliver`, '');
      assert.equal((await v3.post(`/v3/sandbox/cashouts/${id2}/complete`, '')).body.cashout_status, 1);
      assert.equal((await v3.post(`/v3/sandbox/cashouts/${id2}/reject`, '')).body.rejection_code, '809', 'a completed cashout bounced back');
      await assertLedgerOk(s.ctx.db);
    });

    test('hostile values in every field of every cashout call: never a 5xx, always {code, message}, nothing reserved', async () => {
      const who = await createMerchant(s.url, 'Hostile');
      await fund(who, '10.00');
      const HOSTILE: unknown[] = ['a\u0000b', '\ud800', 'x'.repeat(5000), 1e308, -1, 0, 2147483648, '1e309', 'Infinity', 'NaN', true, [], {}, { a: { b: { c: [] } } }, '', ' '];
      const calls: [string, string, Record<string, unknown>][] = [
        ['POST', '/v3/cashout', BR({ external_id: 'hostile-1', amount: '1.00' })],
        ['POST', '/v3/cashout/status', { cashout_id: 1, external_id: 'hostile-1' }],
        ['DELETE', '/v3/cashout/cancel', { cashout_id: 1, external_id: 'hostile-1' }],
        ['PUT', '/v3/cashout/status', { cashout_id: 1, status: 'ON_HOLD' }],
      ];
      const failures: string[] = [];
      for (const [method, path, body] of calls) {
        for (const field of [...Object.keys(body), 'on_hold', 'notification_url']) {
          for (const value of HOSTILE) {
            const r = await cashoutRequest(s.url, who, method, path, { ...body, [field]: value });
            if (r.status >= 500 || r.status < 400 && !(r.status === 200 && (path === '/v3/cashout' || r.body.cashout_status !== undefined))) failures.push(`${method} ${path} ${field}=${JSON.stringify(value).slice(0, 30)} → ${r.status} ${r.text.slice(0, 80)}`);
            if (r.status >= 400 && (typeof r.body?.code !== 'number' || typeof r.body?.message !== 'string')) failures.push(`${method} ${path} ${field}: not {code, message}: ${r.text.slice(0, 80)}`);
          }
        }
      }
      // Deeply nested JSON and a body that is not an object.
      for (const raw of ['['.repeat(5000) + ']'.repeat(5000), '"text"', '{"login":', '']) {
        const r = await fetch(`${s.url}/v3/cashout`, { method: 'POST', headers: { 'Content-Type': 'application/json', 'Payload-Signature': hmac(who.cashouts.secret_key, raw) }, body: raw });
        if (r.status >= 500) failures.push(`raw ${raw.slice(0, 10)} → ${r.status}`);
      }
      assert.deepEqual(failures, []);
      const b = await balance(who);
      assert.equal(Math.round((b.available + b.reserved) * 100), 1000);
      // Reserved is exactly what the cashouts a hostile call did create hold, no more.
      const held = (await s.ctx.db.query<{ cents: number }>(
        `SELECT coalesce(round(sum(settlement_amount) * 100), 0)::int AS cents FROM cashouts WHERE merchant_id = $1 AND status IN ('PENDING', 'ON_HOLD', 'DELIVERED')`, [who.merchant_id],
      )).rows[0]!.cents;
      assert.equal(Math.round(b.reserved * 100), held, `reserved ${b.reserved}, held by cashouts ${held / 100}`);
      await assertLedgerOk(s.ctx.db);
    });

    test('balance transactions list every movement with its source, by cursor', async () => {
      const who = await createMerchant(s.url, 'Statement');
      await fund(who, '50.00');
      const id = (await create(BR({ external_id: ext(), amount: '20.00' }), who)).body.cashout_id;
      const ext2 = ext();
      const id2 = (await create(BR({ external_id: ext2, amount: '5.00' }), who)).body.cashout_id;
      await cashoutRequest(s.url, who, 'DELETE', '/v3/cashout/cancel', { cashout_id: id2, external_id: ext2 });
      const v3 = V3Client.deposits(s.url, who);
      const first = await v3.get('/v3/balance/transactions?limit=2');
      assert.equal(first.status, 200, first.text);
      assert.equal(first.body.has_more, true);
      assert.deepEqual(first.body.data.map((t: any) => [t.type, t.amount, t.reserved, t.source]), [
        ['cashout.void', 5, -5, { type: 'cashout', id: id2 }],
        ['cashout.reserve', -5, 5, { type: 'cashout', id: id2 }],
      ]);
      const rest = await v3.get(`/v3/balance/transactions?starting_after=${first.body.next_cursor}`);
      assert.deepEqual(rest.body.data.map((t: any) => [t.type, t.amount]), [['cashout.reserve', -20], ['adjustment.credit', 50]]);
      assert.equal(rest.body.data[1].description, 'test funding');
      assert.equal(rest.body.has_more, false);
      assert.deepEqual(await balance(who), { currency: 'USD', available: 30, reserved: 20, total: 50, fees: 0 });
      assert.equal((await v3.get('/v3/balance/transactions?limit=0')).body.code, 201);
      assert.equal((await v3.get('/v3/balance/transactions?starting_after=abc')).body.code, 201);
      assert.ok(id);
    });
  });
}
