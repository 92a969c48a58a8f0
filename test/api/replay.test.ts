// A captured request replayed moves money once: the same signed v3 write (method, path, X-Date,
// X-Login, body) arriving again is answered from the first with `Idempotent-Replayed: true` and
// changes nothing, also when the copies race; an explicit X-Idempotency-Key keeps its meaning;
// X-Date far ahead is refused; SVC2 covers method and path, and a merchant can require it.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { backends, startTestServer, type TestServer } from '../helpers/server.ts';
import { admin, createMerchant, type Credentials, hmac, V3Client, xDateNow } from '../helpers/clients.ts';
import { cpf } from '../helpers/documents.ts';

const account = { beneficiary: 'Maria Souza', bank_code: '341', branch: '0001', account_number: '12345-4', account_type: 'CHECKING' };

for (const backend of backends()) {
  describe(`signed-request replay (${backend})`, () => {
    let s: TestServer;
    let m: Credentials;
    let v3: V3Client;
    let n = 0;
    before(async () => {
      s = await startTestServer(backend);
      m = await createMerchant(s.url, 'Replay');
      v3 = V3Client.deposits(s.url, m);
    });
    after(() => s.close());

    /** Sends exactly the same bytes each time: one captured request. */
    function captured(method: string, path: string, body: string, headers: Record<string, string> = {}) {
      const xDate = xDateNow();
      const init = {
        method,
        headers: { 'X-Date': xDate, 'X-Login': m.deposits.login, Authorization: `SVC ${hmac(m.deposits.secret_key, xDate + m.deposits.login + body)}`, ...(body ? { 'Content-Type': 'application/json' } : {}), ...headers },
        body: body || undefined,
      };
      return async () => {
        const r = await fetch(s.url + path, init);
        return { status: r.status, replayed: r.headers.get('idempotent-replayed'), text: await r.text() };
      };
    }

    async function completedDeposit() {
      const d = await v3.post('/v3/deposits', {
        country: 'BR', amount: '100.00', currency: 'BRL', invoice_id: `rp-${backend}-${++n}-${Date.now()}`, payment_method: 'IX',
        payer: { document: cpf('111444777'), first_name: 'Maria', last_name: 'Souza', email: 'maria@example.com' },
      });
      assert.equal(d.status, 200, d.text);
      assert.equal((await v3.post(`/v3/sandbox/deposits/${d.body.deposit_id}/approve`, '')).status, 200);
      return d.body.deposit_id as number;
    }
    const refundsOf = async (depositId: number) => (await s.ctx.db.query(`SELECT id FROM refunds WHERE deposit_id = $1`, [depositId])).rows.length;

    test('the same signed refund sent three times makes one refund; copies answer the first body', async () => {
      const depositId = await completedDeposit();
      const send = captured('POST', '/v3/refunds', JSON.stringify({ deposit_id: depositId, amount: '10.00', bank_account: account }));
      const first = await send();
      assert.equal(first.status, 200, first.text);
      assert.equal(first.replayed, null);
      for (let i = 0; i < 2; i++) {
        const again = await send();
        assert.deepEqual([again.status, again.replayed, again.text], [200, 'true', first.text]);
      }
      assert.equal(await refundsOf(depositId), 1);
    });

    test('identical copies racing: one refund; the others wait for it and answer its body', async () => {
      const depositId = await completedDeposit();
      const send = captured('POST', '/v3/refunds', JSON.stringify({ deposit_id: depositId, amount: '5.00', bank_account: account }));
      const answers = await Promise.all(Array.from({ length: 8 }, send));
      const fresh = answers.filter((a) => a.status === 200 && a.replayed === null);
      assert.equal(fresh.length, 1, JSON.stringify(answers));
      for (const a of answers) assert.deepEqual([a.status, a.text], [200, fresh[0]!.text]);
      assert.equal(await refundsOf(depositId), 1);
    });

    test('deposit creation and sandbox transitions replayed: one deposit, one transition', async () => {
      const invoice = `rp-dep-${backend}-${++n}`;
      const create = captured('POST', '/v3/deposits', JSON.stringify({ country: 'BR', amount: '10.00', currency: 'BRL', invoice_id: invoice, payment_method: 'IX', payer: { document: cpf('111444777'), first_name: 'A', last_name: 'B', email: 'a@example.com' } }));
      const a = await create();
      const b = await create();
      assert.equal(a.status, 200, a.text);
      assert.deepEqual([b.status, b.replayed, b.text], [200, 'true', a.text]);
      const id = JSON.parse(a.text).deposit_id;
      const approve = captured('POST', `/v3/sandbox/deposits/${id}/approve`, '');
      const x = await approve();
      const y = await approve();
      assert.equal(x.status, 200, x.text);
      assert.deepEqual([y.status, y.replayed, y.text], [200, 'true', x.text]);
      const changes = await s.ctx.db.query(`SELECT 1 FROM deposit_status_changes WHERE deposit_id = $1 AND to_status = 'COMPLETED'`, [id]);
      assert.equal(changes.rows.length, 1);
    });

    // Deposit creation claims inside its insert statement: copies are answered from the deposit.
    for (const invoice of [true, false]) {
      test(`identical deposit creations racing (${invoice ? 'with' : 'without'} invoice_id): one deposit, every copy answers its body`, async () => {
        const tag = `rp-race-${backend}-${++n}`;
        const body = { country: 'MX', amount: '10.00', currency: 'MXN', description: tag, ...(invoice ? { invoice_id: tag } : {}), payer: { email: 'a@example.com' } };
        const create = captured('POST', '/v3/deposits', JSON.stringify(body));
        const answers = await Promise.all(Array.from({ length: 12 }, () => create()));
        const first = answers.find((a) => a.replayed === null);
        assert.ok(first, JSON.stringify(answers));
        assert.equal(first.status, 200, first.text);
        for (const a of answers) assert.deepEqual([a.status, a.text], [200, first.text]);
        assert.equal(answers.filter((a) => a.replayed === 'true').length, 11);
        const { rows } = await s.ctx.db.query(`SELECT id FROM deposits WHERE description = $1`, [tag]);
        assert.deepEqual(rows.map((r) => Number(r.id)), [JSON.parse(first.text).deposit_id]);
        // The same deposit signed again (a new X-Date) is a new request: its invoice id is taken.
        if (invoice) {
          const again = await v3.post('/v3/deposits', body);
          assert.equal(again.status, 400, JSON.stringify(again.body));
        }
      });
    }

    test('a refused request is not stored: the same request may succeed later; GETs are never claimed', async () => {
      const depositId = await completedDeposit();
      const body = JSON.stringify({ deposit_id: depositId, amount: '1.00' });
      const send = captured('POST', '/v3/refunds', body);
      assert.equal((await send()).status, 400, 'no bank account: 804');
      assert.equal((await send()).replayed, null, 'a failure changed nothing and is not replayed');
      const get = captured('GET', `/v3/deposits/${depositId}`, '');
      assert.equal((await get()).replayed, null);
      assert.equal((await get()).replayed, null);
    });

    test('different X-Idempotency-Keys are different requests; the same key keeps replaying', async () => {
      const depositId = await completedDeposit();
      const body = JSON.stringify({ deposit_id: depositId, amount: '2.00', bank_account: account });
      const one = captured('POST', '/v3/refunds', body, { 'X-Idempotency-Key': `k1-${backend}` });
      const two = captured('POST', '/v3/refunds', body, { 'X-Idempotency-Key': `k2-${backend}` });
      assert.equal((await one()).status, 200);
      assert.equal((await two()).status, 200);
      assert.equal(await refundsOf(depositId), 2);
      // A new X-Date with a used key: the key's own replay (same body).
      const r = await v3.post('/v3/refunds', body, { 'X-Idempotency-Key': `k1-${backend}` });
      assert.equal(r.headers.get('idempotent-replayed'), 'true');
      assert.equal(await refundsOf(depositId), 2);
    });

    test('an identical streamline refund form posted three times makes one refund; its own key makes another', async () => {
      const depositId = await completedDeposit();
      const { rows } = await s.ctx.db.query<{ invoice_id: string }>(`SELECT invoice_id FROM deposits WHERE id = $1`, [depositId]);
      const f: Record<string, string> = {
        x_login: m.deposits.login, x_trans_key: m.deposits.trans_key, x_invoice: rows[0]!.invoice_id, x_document: String(depositId), x_amount: '3.00',
        x_bank_beneficiary: 'Maria Souza', x_bank: 'Itaú', x_bank_code: '341', x_bank_account: '12345-4', x_account_type: 'C', x_bank_branch: '0001',
      };
      const v = (k: string) => f[k] ?? '';
      f.x_control = createHmac('sha256', m.deposits.secret_key).update(`A${v('x_invoice')}${v('x_document')}${v('x_amount')}${v('x_bank_beneficiary')}${v('x_bank')}${v('x_bank_account')}${v('x_account_type')}${v('x_bank_branch')}`).digest('hex').toUpperCase();
      const post = async (fields: Record<string, string>) => {
        const r = await fetch(`${s.url}/api_curl/apd/refund`, { method: 'POST', headers: { 'Content-Type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams(fields).toString() });
        return { replayed: r.headers.get('idempotent-replayed'), text: await r.text() };
      };
      const first = await post(f);
      assert.equal(JSON.parse(first.text).status, 'OK', first.text);
      for (let i = 0; i < 2; i++) assert.deepEqual(await post(f), { replayed: 'true', text: first.text });
      assert.equal(await refundsOf(depositId), 1);
      const second = await post({ ...f, x_idempotency_key: 'second-partial' });
      assert.equal(second.replayed, null);
      assert.notEqual(JSON.parse(second.text).x_refund, JSON.parse(first.text).x_refund);
      assert.equal(await refundsOf(depositId), 2);
    });

    test('X-Date more than 60 s ahead is 103; the past window stays 5 minutes', async () => {
      assert.equal((await v3.get('/v3/me', { 'X-Date': xDateNow(61 + 5) })).body.code, 103);
      assert.equal((await v3.get('/v3/me', { 'X-Date': xDateNow(30) })).status, 200);
      assert.equal((await v3.get('/v3/me', { 'X-Date': xDateNow(-290) })).status, 200);
      assert.equal((await v3.get('/v3/me', { 'X-Date': xDateNow(-310) })).body.code, 103);
    });

    test('SVC2 covers method and path with query; a merchant can require it', async () => {
      const svc2 = (method: string, path: string, signedPath = path, body = '') => {
        const xDate = xDateNow();
        const sig = createHmac('sha256', m.deposits.secret_key).update(`${method}\n${signedPath}\n${xDate}\n${m.deposits.login}\n${body}`).digest('hex');
        return fetch(s.url + path, { method, headers: { 'X-Date': xDate, 'X-Login': m.deposits.login, Authorization: `SVC2 ${sig}` } });
      };
      assert.equal((await svc2('GET', '/v3/me')).status, 200);
      assert.equal((await svc2('GET', '/v3/events?limit=5')).status, 200);
      const moved = await (await svc2('GET', '/v3/events?limit=6', '/v3/events?limit=5')).json();
      assert.equal(moved.code, 102, 'a signature for another query does not verify');
      const p = await admin(s.url, 'PATCH', `/admin/merchants/${m.merchant_id}`, { require_svc2: true });
      assert.equal(p.body.require_svc2, true, p.text);
      try {
        const plain = await v3.get('/v3/me');
        assert.deepEqual([plain.body.code, plain.body.description], [102, 'This merchant requires SVC2 signatures (method and path covered)']);
        assert.equal((await svc2('GET', '/v3/me')).status, 200);
      } finally {
        await admin(s.url, 'PATCH', `/admin/merchants/${m.merchant_id}`, { require_svc2: false });
      }
    });
  });
}
