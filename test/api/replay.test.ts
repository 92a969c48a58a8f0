// The replay rules (docs/security.md, Replay), as a client meets them:
// - a refund creation whose signature was already accepted is a replay whatever its unsigned
//   parts (the path's spelling, the query, X-Idempotency-Key), answered from the first with
//   `Idempotent-Replayed: true`, moving money once, also when the copies race;
// - other v3 writes (sandbox transitions) are one request across spellings of their path;
// - deposit creation and streamline refund forms are not deduplicated by content: identical
//   requests are distinct operations, and X-Idempotency-Key / x_idempotency_key make retries safe;
// - X-Date far ahead is refused; SVC2 covers method and path, and a merchant can require it.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { backends, startTestServer, type TestServer } from '../helpers/server.ts';
import { admin, createMerchant, type Credentials, hmac, V3Client, xDateNow } from '../helpers/clients.ts';
import { cpf } from '../helpers/documents.ts';
import { assertLedgerOk } from '../helpers/ledger.ts';

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
    function captured(method: string, path: string, body: string, headers: Record<string, string> = {}, xDate = xDateNow()) {
      const init = {
        method,
        headers: { 'X-Date': xDate, 'X-Login': m.deposits.login, Authorization: `SVC ${hmac(m.deposits.secret_key, xDate + m.deposits.login + body)}`, ...(body ? { 'Content-Type': 'application/json' } : {}), ...headers },
        body: body || undefined,
      };
      return async () => answer(await fetch(s.url + path, init));
    }
    const answer = async (r: Response) => ({ status: r.status, replayed: r.headers.get('idempotent-replayed'), text: await r.text() });

    /**
     * One captured request re-sent with its unsigned parts changed: the path (`path`), extra
     * headers (`set`) and headers taken away (`drop`). The signature, X-Date, X-Login and body
     * stay the captured ones.
     */
    function resend(first: { headers: Record<string, string>; body: string }, path: string, set: Record<string, string> = {}, drop: string[] = []) {
      const headers: Record<string, string> = { ...first.headers, ...set };
      for (const name of drop) delete headers[name];
      return fetch(s.url + path, { method: 'POST', headers, body: first.body || undefined }).then(answer);
    }

    /** A signed refund request as captured on the wire (SVC, or SVC2 over method and path). */
    function signedRefund(depositId: number, amount: string, opts: { scheme?: 'SVC' | 'SVC2'; headers?: Record<string, string> } = {}) {
      const xDate = xDateNow();
      const body = JSON.stringify({ deposit_id: depositId, amount, bank_account: account });
      const message = opts.scheme === 'SVC2' ? `POST\n/v3/refunds\n${xDate}\n${m.deposits.login}\n${body}` : xDate + m.deposits.login + body;
      return {
        body,
        headers: { 'Content-Type': 'application/json', 'X-Date': xDate, 'X-Login': m.deposits.login, Authorization: `${opts.scheme ?? 'SVC'} ${hmac(m.deposits.secret_key, message)}`, ...opts.headers },
      };
    }

    /** The unsigned variations of one refund request that each made a new refund before issue 25. */
    const SPELLINGS = ['/v3/refunds/', '/V3/Refunds', '//v3/refunds', '/v3/refunds?x=1', '/v3//refunds'];

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

    test('two identical signed HOSTED requests in the same second (no invoice_id) are two deposits', async () => {
      // What the official PHP and Java SDKs send: X-Date in whole seconds, amount and country.
      const tag = `rp-twin-${backend}-${++n}`;
      const create = captured('POST', '/v3/deposits', JSON.stringify({ country: 'BR', amount: '10.00', description: tag }));
      const a = await create();
      const b = await create();
      for (const r of [a, b]) assert.deepEqual([r.status, r.replayed], [200, null], r.text);
      const [da, db] = [JSON.parse(a.text), JSON.parse(b.text)];
      assert.notEqual(da.deposit_id, db.deposit_id);
      assert.notEqual(da.redirect_url, db.redirect_url, 'two customers, two checkouts');
      const { rows } = await s.ctx.db.query(`SELECT id FROM deposits WHERE description = $1`, [tag]);
      assert.equal(rows.length, 2);
    });

    test('identical deposit creations racing: without invoice_id each is a deposit; with one, the invoice id decides', async () => {
      for (const invoice of [false, true]) {
        const tag = `rp-race-${backend}-${++n}`;
        const body = { country: 'MX', amount: '10.00', currency: 'MXN', description: tag, ...(invoice ? { invoice_id: tag } : {}), payer: { email: 'a@example.com' } };
        const create = captured('POST', '/v3/deposits', JSON.stringify(body));
        const answers = await Promise.all(Array.from({ length: 12 }, () => create()));
        assert.ok(answers.every((a) => a.replayed === null), JSON.stringify(answers));
        const created = answers.filter((a) => a.status === 200);
        const { rows } = await s.ctx.db.query(`SELECT id FROM deposits WHERE description = $1`, [tag]);
        if (invoice) {
          assert.equal(created.length, 1, JSON.stringify(answers));
          assert.ok(answers.filter((a) => a.status !== 200).every((a) => a.status === 400 && JSON.parse(a.text).code === 201));
          assert.deepEqual(rows.map((r) => Number(r.id)), [JSON.parse(created[0]!.text).deposit_id]);
        } else {
          assert.equal(created.length, 12, JSON.stringify(answers));
          assert.equal(new Set(created.map((a) => JSON.parse(a.text).deposit_id)).size, 12);
          assert.equal(rows.length, 12);
        }
      }
    });

    test('identical deposit creations with one X-Idempotency-Key: one deposit, the copies replay it; another body is 104', async () => {
      const tag = `rp-key-${backend}-${++n}`;
      const body = JSON.stringify({ country: 'BR', amount: '10.00', description: tag });
      const create = captured('POST', '/v3/deposits', body, { 'X-Idempotency-Key': tag });
      const first = await create();
      assert.deepEqual([first.status, first.replayed], [200, null], first.text);
      assert.deepEqual(await create(), { status: 200, replayed: 'true', text: first.text });
      const other = await v3.post('/v3/deposits', { country: 'BR', amount: '11.00', description: tag }, { 'X-Idempotency-Key': tag });
      assert.deepEqual([other.status, other.body.code], [400, 104]);
      assert.equal((await s.ctx.db.query(`SELECT id FROM deposits WHERE description = $1`, [tag])).rows.length, 1);
    });

    test('a sandbox transition replayed under other spellings of its path is one transition; an empty-body signature does not make two paths one', async () => {
      const created = await Promise.all([1, 2].map(() => v3.post('/v3/deposits', { country: 'BR', amount: '10.00', currency: 'BRL', payment_method: 'IX', payer: { document: cpf('111444777'), first_name: 'A', last_name: 'B', email: 'a@example.com' } })));
      const [id, other] = created.map((c) => c.body.deposit_id as number);
      const xDate = xDateNow();
      const approve = captured('POST', `/v3/sandbox/deposits/${id}/approve`, '', {}, xDate);
      const x = await approve();
      assert.deepEqual([x.status, x.replayed], [200, null], x.text);
      for (const path of [`/v3/sandbox/deposits/${id}/approve/`, `/V3/Sandbox/Deposits/${id}/Approve`, `//v3/sandbox/deposits/${id}/approve`, `/v3//sandbox/deposits/0${id}/approve?x=1`]) {
        const y = await captured('POST', path, '', { 'X-Idempotency-Key': `k-${path}` }, xDate)();
        assert.deepEqual([y.status, y.replayed, y.text], [200, 'true', x.text], path);
      }
      const changes = await s.ctx.db.query(`SELECT 1 FROM deposit_status_changes WHERE deposit_id = $1 AND to_status = 'COMPLETED'`, [id]);
      assert.equal(changes.rows.length, 1);
      // Plain SVC over an empty body: the same signature for another deposit in the same second.
      // That is another request (its own path), not a replay of the first.
      const z = await captured('POST', `/v3/sandbox/deposits/${other}/approve`, '', {}, xDate)();
      assert.deepEqual([z.status, z.replayed, JSON.parse(z.text).deposit_id, JSON.parse(z.text).status], [200, null, other, 'COMPLETED'], z.text);
    });

    test('copies of many sandbox approvals racing their firsts while the responses of other firsts are stored: each deposit completes once, every copy answers its first body', async () => {
      // Staggered copies of many approvals: copies are claimed while their firsts run and while
      // their firsts' responses are being stored, in the replay store's grouped statements.
      const created = await Promise.all(Array.from({ length: 12 }, () => v3.post('/v3/deposits', { country: 'BR', amount: '7.00', currency: 'BRL', payment_method: 'IX', payer: { document: cpf('111444777'), first_name: 'A', last_name: 'B', email: 'a@example.com' } })));
      const ids = created.map((c) => { assert.equal(c.status, 200, c.text); return c.body.deposit_id as number; });
      const sends = ids.map((id) => captured('POST', `/v3/sandbox/deposits/${id}/approve`, ''));
      const answers = await Promise.all(ids.map(async (_, k) => Promise.all(Array.from({ length: 5 }, async (__, copy) => {
        await new Promise((resolve) => setTimeout(resolve, copy * 3 + (k % 4)));
        return sends[k]!();
      }))));
      for (const [k, copies] of answers.entries()) {
        const fresh = copies.filter((a) => a.status === 200 && a.replayed === null);
        assert.equal(fresh.length, 1, JSON.stringify(copies));
        for (const a of copies) assert.deepEqual([a.status, a.text], [200, fresh[0]!.text], `deposit ${ids[k]}`);
        assert.equal(JSON.parse(fresh[0]!.text).status, 'COMPLETED');
      }
      const { rows } = await s.ctx.db.query<{ deposit_id: number; n: number }>(
        `SELECT deposit_id, count(*)::int AS n FROM deposit_status_changes WHERE deposit_id = ANY($1::integer[]) AND to_status = 'COMPLETED' GROUP BY deposit_id`, [ids]);
      assert.deepEqual(rows.map((r) => r.n), ids.map(() => 1));
      await assertLedgerOk(s.ctx.db);
    });

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

    test('a signed refund re-sent with its unsigned parts changed (path spelling, query, X-Idempotency-Key, scheme word, hex case) moves money once', async () => {
      const depositId = await completedDeposit();
      const first = signedRefund(depositId, '10.00');
      const one = await resend(first, '/v3/refunds');
      assert.deepEqual([one.status, one.replayed], [200, null], one.text);
      const variants: [string, Record<string, string>][] = [
        ...SPELLINGS.map((p): [string, Record<string, string>] => [p, {}]),
        ...Array.from({ length: 9 }, (_, i): [string, Record<string, string>] => ['/v3/refunds', { 'X-Idempotency-Key': `drain-${backend}-${i}` }]),
        ['/v3/refunds', { 'X-Idempontency-Key': 'misspelt' }],
        ['/v3/refunds', { Authorization: first.headers.Authorization.replace(/^SVC /, 'D24 ') }],
        ['/v3/refunds', { Authorization: first.headers.Authorization.replace(/^SVC (\w+)$/, (_, h: string) => `svc ${h.toUpperCase()}`) }],
      ];
      for (const [path, set] of variants) {
        const again = await resend(first, path, set);
        assert.deepEqual([again.status, again.replayed, again.text], [200, 'true', one.text], `${path} ${JSON.stringify(set)}`);
      }
      assert.equal(await refundsOf(depositId), 1);
      await assertLedgerOk(s.ctx.db);
    });

    test('SVC2: a captured refund re-sent with X-Idempotency-Key changed or removed moves money once', async () => {
      const depositId = await completedDeposit();
      const first = signedRefund(depositId, '7.00', { scheme: 'SVC2', headers: { 'X-Idempotency-Key': `svc2-${backend}-a` } });
      const one = await resend(first, '/v3/refunds');
      assert.deepEqual([one.status, one.replayed], [200, null], one.text);
      for (const [set, drop] of [[{ 'X-Idempotency-Key': `svc2-${backend}-b` }, []], [{}, ['X-Idempotency-Key']], [{ 'X-Idempotency-Key': '' }, []]] as [Record<string, string>, string[]][]) {
        const again = await resend(first, '/v3/refunds', set, drop);
        assert.deepEqual([again.status, again.replayed, again.text], [200, 'true', one.text], JSON.stringify([set, drop]));
      }
      assert.equal(await refundsOf(depositId), 1);
    });

    test('copies of one signed refund racing with different unsigned parts: one refund, every copy answers its body, the ledger holds', async () => {
      const depositId = await completedDeposit();
      const first = signedRefund(depositId, '60.00');
      const copies: [string, Record<string, string>, string[]][] = [
        ['/v3/refunds', {}, []],
        ...SPELLINGS.map((p): [string, Record<string, string>, string[]] => [p, {}, []]),
        ['/v3/refunds', { 'X-Idempotency-Key': `race-${backend}-1` }, []],
        ['/v3/refunds', { 'X-Idempotency-Key': `race-${backend}-2` }, []],
        ['/V3/REFUNDS/', { 'X-Idempotency-Key': `race-${backend}-3` }, []],
        ['/v3/refunds?again=1', { Authorization: first.headers.Authorization.replace(/^SVC /, 'D24 ') }, []],
      ];
      assert.equal(copies.length, 10);
      const answers = await Promise.all(copies.map(([path, set, drop]) => resend(first, path, set, drop)));
      const fresh = answers.filter((a) => a.replayed === null);
      assert.equal(fresh.length, 1, JSON.stringify(answers));
      for (const a of answers) assert.deepEqual([a.status, a.text], [200, fresh[0]!.text]);
      const { rows } = await s.ctx.db.query<{ n: number; total: string }>(`SELECT count(*)::int AS n, sum(amount)::text AS total FROM refunds WHERE deposit_id = $1`, [depositId]);
      assert.deepEqual([rows[0]!.n, rows[0]!.total], [1, '60.00']);
      await assertLedgerOk(s.ctx.db);
      // What remains (40.00) can still be refunded by a request of its own.
      const rest = await v3.post('/v3/refunds', { deposit_id: depositId, amount: '40.00', bank_account: account });
      assert.equal(rest.status, 200, rest.text);
      assert.equal(await refundsOf(depositId), 2);
    });

    test('X-Idempotency-Key only adds protection: a used key with a new signature replays; a new key and a new signature is a new refund', async () => {
      const depositId = await completedDeposit();
      const body = { deposit_id: depositId, amount: '2.00', bank_account: account };
      const first = await v3.post('/v3/refunds', body, { 'X-Idempotency-Key': `k1-${backend}` });
      assert.equal(first.status, 200, first.text);
      // A new X-Date (a new signature) with the used key: the key's own replay (same body).
      const keyed = await v3.post('/v3/refunds', body, { 'X-Idempotency-Key': `k1-${backend}` });
      assert.deepEqual([keyed.headers.get('idempotent-replayed'), keyed.text], ['true', first.text]);
      const other = await v3.post('/v3/refunds', { ...body, amount: '3.00' }, { 'X-Idempotency-Key': `k1-${backend}` });
      assert.deepEqual([other.status, other.body.code], [400, 104]);
      assert.equal(await refundsOf(depositId), 1);
      const second = await v3.post('/v3/refunds', body, { 'X-Idempotency-Key': `k2-${backend}` });
      assert.deepEqual([second.status, second.headers.get('idempotent-replayed')], [200, null]);
      assert.equal(await refundsOf(depositId), 2);
    });

    describe('streamline refund forms', () => {
      async function form(depositId: number, amount: string, extra: Record<string, string> = {}) {
        const { rows } = await s.ctx.db.query<{ invoice_id: string }>(`SELECT invoice_id FROM deposits WHERE id = $1`, [depositId]);
        const f: Record<string, string> = {
          x_login: m.deposits.login, x_trans_key: m.deposits.trans_key, x_invoice: rows[0]!.invoice_id, x_document: String(depositId), x_amount: amount,
          x_bank_beneficiary: 'Maria Souza', x_bank: 'Itaú', x_bank_code: '341', x_bank_account: '12345-4', x_account_type: 'C', x_bank_branch: '0001',
        };
        const v = (k: string) => f[k] ?? '';
        f.x_control = createHmac('sha256', m.deposits.secret_key).update(`A${v('x_invoice')}${v('x_document')}${v('x_amount')}${v('x_bank_beneficiary')}${v('x_bank')}${v('x_bank_account')}${v('x_account_type')}${v('x_bank_branch')}`).digest('hex').toUpperCase();
        return { ...f, ...extra };
      }
      const post = async (fields: Record<string, string>, headers: Record<string, string> = {}) => {
        const r = await fetch(`${s.url}/api_curl/apd/refund`, { method: 'POST', headers: { 'Content-Type': 'application/x-www-form-urlencoded', ...headers }, body: new URLSearchParams(fields).toString() });
        const text = await r.text();
        return { replayed: r.headers.get('idempotent-replayed'), text, body: JSON.parse(text) };
      };

      test('identical forms are distinct refunds: 40.00, 40.00, 40.00 on 100.00 give OK, OK, 602; then 20.00 is OK', async () => {
        const depositId = await completedDeposit();
        const forty = await form(depositId, '40.00');
        const answers = [];
        for (let i = 0; i < 3; i++) answers.push(await post(forty));
        assert.deepEqual(answers.map((a) => [a.body.status, a.body.error_code, a.replayed]), [['OK', undefined, null], ['OK', undefined, null], ['ERROR', 602, null]], JSON.stringify(answers));
        assert.notEqual(answers[0]!.body.x_refund, answers[1]!.body.x_refund);
        const twenty = await post(await form(depositId, '20.00'));
        assert.equal(twenty.body.status, 'OK', twenty.text);
        const { rows } = await s.ctx.db.query<{ n: number; total: string }>(`SELECT count(*)::int AS n, sum(local_amount)::text AS total FROM refunds WHERE deposit_id = $1`, [depositId]);
        assert.deepEqual([rows[0]!.n, rows[0]!.total], [3, '100.00']);
        await assertLedgerOk(s.ctx.db);
      });

      test('x_idempotency_key (or the X-Idempotency-Key header) makes a retry safe: the same key and form answer the first refund; another form is 606', async () => {
        const depositId = await completedDeposit();
        const keyed = await form(depositId, '3.00', { x_idempotency_key: `sl-${backend}-${depositId}` });
        const first = await post(keyed);
        assert.deepEqual([first.body.status, first.replayed], ['OK', null], first.text);
        // The same form, its fields in another order: a retry.
        const reordered = Object.fromEntries(Object.entries(keyed).reverse());
        for (const f of [keyed, reordered]) assert.deepEqual(await post(f), { ...first, replayed: 'true' });
        const other = await post(await form(depositId, '4.00', { x_idempotency_key: `sl-${backend}-${depositId}` }));
        assert.deepEqual([other.body.status, other.body.error_code], ['ERROR', 606], other.text);
        const viaHeader = await form(depositId, '5.00');
        const h = await post(viaHeader, { 'X-Idempotency-Key': `slh-${backend}-${depositId}` });
        assert.deepEqual([h.body.status, h.replayed], ['OK', null], h.text);
        assert.deepEqual(await post(viaHeader, { 'X-Idempotency-Key': `slh-${backend}-${depositId}` }), { ...h, replayed: 'true' });
        assert.equal(await refundsOf(depositId), 2);
      });

      test('retries of one keyed form racing: one refund, every answer names it', async () => {
        const depositId = await completedDeposit();
        const keyed = await form(depositId, '9.00', { x_idempotency_key: `slr-${backend}-${depositId}` });
        const answers = await Promise.all(Array.from({ length: 8 }, () => post(keyed)));
        assert.ok(answers.every((a) => a.body.status === 'OK' && a.body.x_refund === answers[0]!.body.x_refund), JSON.stringify(answers));
        assert.equal(answers.filter((a) => a.replayed === 'true').length, 7);
        assert.equal(await refundsOf(depositId), 1);
        await assertLedgerOk(s.ctx.db);
      });
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
