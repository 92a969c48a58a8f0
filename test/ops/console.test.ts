// The operator console over HTTP, as a browser speaks to it: sign-in needs the password and a
// TOTP code (each code once), the role table decides every page and post, four eyes on balance
// adjustments and on cashouts above a merchant's threshold (the requester cannot approve; two
// approvals at once apply once, on PostgreSQL too), and every action is in the audit log.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { admin, cashoutRequest, createMerchant, type Credentials } from '../helpers/clients.ts';
import { cpf } from '../helpers/documents.ts';
import { backends, startTestServer, type TestServer } from '../helpers/server.ts';
import { canOps, OPERATOR_ROLES, OPS_ACTIONS, type OpsAction } from '../../src/operators/roles.ts';
import { decide, requestAdjustment } from '../../src/operators/approvals.ts';
import { dec } from '../../src/domain/money.ts';
import { makeOperator, nextCode, OpsClient, signedIn, type TestOperator } from './helpers.ts';
import { ofx } from '../helpers/statements.ts';
import { ADMIN_TOKEN } from '../helpers/server.ts';

const BR_CASHOUT = (over: Record<string, unknown> = {}) => ({
  country: 'BR', currency: 'USD', amount: '10.00', document_id: cpf('529982247'), beneficiary_name: 'Maria', beneficiary_lastname: 'Souza',
  bank_code: '260', bank_account: '12345-6', bank_branch: '0001', account_type: 'C', ...over,
});

/** Each POST of the console and the action it needs (the role table's routes). */
const POSTS: [string, OpsAction, Record<string, string>][] = [
  ['/ops/merchants', 'merchants.create', { name: 'Via role test' }],
  ['/ops/rates/markup', 'rates.edit', { currency: 'BRL', markup: '0.1' }],
  ['/ops/operators', 'operators', { email: 'nobody@ops.example', role: 'read_only' }],
];

for (const backend of backends()) {
  describe(`operator console over HTTP (${backend})`, () => {
    let s: TestServer;
    let m: Credentials;
    const ops: Partial<Record<string, TestOperator>> = {};
    let n = 0;

    before(async () => {
      s = await startTestServer(backend, { CAJA_CASHOUT_DELAY_SECONDS: '600' });
      m = await createMerchant(s.url, 'Loja <b>Ana</b>');
      const funded = await admin(s.url, 'POST', `/admin/merchants/${m.merchant_id}/balance_adjustments`, { direction: 'credit', amount: '1000.00', currency: 'USD', reason: 'funding' });
      assert.equal(funded.status, 201, funded.text);
      for (const role of OPERATOR_ROLES) ops[role] = await makeOperator(s, role);
      ops.admin2 = await makeOperator(s, 'admin', 'admin2');
    });
    after(() => s.close());

    test('sign-in: the password alone opens nothing; a wrong code is refused, a code works once', async () => {
      const op = ops.finance!;
      const c = new OpsClient(s.url);
      const wrongPw = await c.request('POST', '/ops/login', new URLSearchParams({ email: op.email, password: 'not-the-password' }));
      assert.equal(wrongPw.status, 401);
      await c.request('POST', '/ops/login', new URLSearchParams({ email: op.email, password: op.password }));
      const blocked = await c.get('/ops/merchants');
      assert.equal(blocked.url, '/ops/login/code', 'a pending session can only send its code');
      const wrong = await c.submit('/ops/login/code', '/ops/login/code', { code: '000000' === nextCode(s, { ...op }) ? '111111' : '000000' });
      assert.equal(wrong.status, 401);
      const code = nextCode(s, op);
      const ok = await c.submit('/ops/login/code', '/ops/login/code', { code });
      assert.equal(ok.url, '/ops/merchants');
      // The same code again, from another browser: refused.
      const other = new OpsClient(s.url);
      await other.request('POST', '/ops/login', new URLSearchParams({ email: op.email, password: op.password }));
      const replay = await other.submit('/ops/login/code', '/ops/login/code', { code });
      assert.equal(replay.status, 401);
      assert.equal((await s.ctx.db.query(`SELECT count(*)::int AS n FROM operator_audit WHERE operator_id = $1 AND action = 'sign_in'`, [op.id])).rows[0].n, 1);
    });

    test('no session: every page sends to sign-in; a post without the CSRF token is refused', async () => {
      const anon = new OpsClient(s.url);
      assert.equal((await anon.get('/ops/approvals')).url, '/ops/login');
      const c = await signedIn(s, ops.admin!);
      const forged = await c.request('POST', '/ops/merchants', new URLSearchParams({ name: 'forged' }));
      assert.equal(forged.status, 403);
      const otherSite = await c.request('POST', '/ops/merchants', new URLSearchParams({ name: 'forged' }), { origin: 'https://evil.example' });
      assert.equal(otherSite.status, 403);
    });

    test('the role table decides every post: allowed roles act, the others get 403 and nothing changes', async () => {
      for (const role of OPERATOR_ROLES) {
        const c = await signedIn(s, ops[role]!);
        for (const [path, action, fields] of POSTS) {
          const before = (await s.ctx.db.query('SELECT count(*)::int AS n FROM operator_audit')).rows[0].n;
          const page = await c.submit('/ops/merchants', path, path === '/ops/operators' ? { ...fields, email: `r${++n}-${fields.email}` } : fields);
          const after = (await s.ctx.db.query('SELECT count(*)::int AS n FROM operator_audit')).rows[0].n;
          if (canOps(role, action)) {
            assert.ok(page.status < 400, `${role} ${path}: ${page.status}`);
            assert.ok(after > before, `${role} ${path} is audited`);
          } else {
            assert.equal(page.status, 403, `${role} ${path}`);
            assert.equal(after, before, `${role} ${path} changed nothing`);
          }
        }
        const operatorsPage = await c.get('/ops/operators');
        assert.equal(operatorsPage.status, canOps(role, 'operators') ? 200 : 403, `${role} /ops/operators`);
      }
      assert.ok(OPS_ACTIONS.includes('money.approve'));
    });

    test('support finds a merchant by panel e-mail, by a deposit-less name fragment, by a cashout external id; text is escaped', async () => {
      const c = await signedIn(s, ops.support!);
      const byName = await c.get('/ops/merchants?q=Ana');
      assert.match(byName.html, new RegExp(`href="/ops/merchants/${m.merchant_id}"`));
      assert.ok(byName.html.includes('Loja &lt;b&gt;Ana&lt;/b&gt;'));
      const ext = `ops-find-${backend}-${Date.now()}`;
      const r = await cashoutRequest(s.url, m, 'POST', '/v3/cashout', BR_CASHOUT({ external_id: ext }));
      assert.equal(r.status, 200, r.text);
      const byCashout = await c.get(`/ops/merchants?q=${ext}`);
      assert.match(byCashout.html, /cashout \d+/);
      const detail = await c.get(`/ops/merchants/${m.merchant_id}`);
      assert.equal(detail.status, 200);
      assert.doesNotMatch(detail.html, /action="\/ops\/merchants\/\d+\/rotate"/, 'support is offered no rotation');
    });

    test('four eyes on a balance adjustment: the requester cannot approve; a second operator can, once', async () => {
      const a = await signedIn(s, ops.finance!);
      const balance = async () => (await admin(s.url, 'GET', `/admin/merchants/${m.merchant_id}/balance`)).body;
      const before = JSON.stringify(await balance());
      const asked = await a.submit(`/ops/merchants/${m.merchant_id}`, `/ops/merchants/${m.merchant_id}/adjustments`, { direction: 'credit', amount: '12.34', currency: 'USD', reason: 'goodwill, ticket 7' });
      assert.equal(asked.status, 200);
      assert.equal(JSON.stringify(await balance()), before, 'nothing moves on the request');
      const id = Number((await s.ctx.db.query(`SELECT max(id) AS id FROM approvals WHERE kind = 'balance_adjustment'`)).rows[0].id);
      const page = await a.get('/ops/approvals');
      assert.doesNotMatch(page.html, new RegExp(`action="/ops/approvals/${id}/approve"`), 'no approve button for the requester');
      const self = await a.submit('/ops/approvals', `/ops/approvals/${id}/approve`);
      assert.equal(self.status, 409);
      assert.match(self.html, /second operator/);
      const b = await signedIn(s, ops.risk!);
      const ok = await b.submit('/ops/approvals', `/ops/approvals/${id}/approve`);
      assert.equal(ok.url, '/ops/approvals?done=approve');
      const again = await b.submit('/ops/approvals', `/ops/approvals/${id}/approve`);
      assert.equal(again.status, 409);
      const adj = await s.ctx.db.query(`SELECT count(*)::int AS n FROM balance_adjustments WHERE actor = $1`, [`four-eyes:${id}`]);
      assert.equal(adj.rows[0].n, 1);
      const audit = await s.ctx.db.query(`SELECT action FROM operator_audit WHERE subject = $1 ORDER BY id`, [`approval:${id}`]);
      // The requester's refused attempt is recorded too.
      assert.deepEqual(audit.rows.map((r) => r.action), ['approval.requested.balance_adjustment', 'approval.refused', 'approval.approved.balance_adjustment']);
    });

    test('four eyes race: two operators approve the same request at once (service calls, then HTTP posts); it applies once', async () => {
      const asker = { kind: 'operator' as const, id: ops.finance!.id, email: ops.finance!.email, ip: null };
      for (let round = 0; round < 5; round++) {
        const id = await requestAdjustment(s.ctx, asker, m.merchant_id, { direction: 'credit', amount: dec('1.00'), currency: 'USD', reason: `race ${round}` });
        const deciders = [ops.admin!, ops.risk!].map((o) => ({ kind: 'operator' as const, id: o.id, email: o.email, ip: null }));
        const results = await Promise.allSettled(deciders.map((d) => decide(s.ctx, d, id, 'approve')));
        assert.equal(results.filter((r) => r.status === 'fulfilled').length, 1, `round ${round}: one approval wins`);
        const failed = results.find((r) => r.status === 'rejected') as PromiseRejectedResult;
        assert.equal(failed.reason.kind, 'already_decided');
        const adj = await s.ctx.db.query(`SELECT count(*)::int AS n FROM balance_adjustments WHERE actor = $1`, [`four-eyes:${id}`]);
        assert.equal(adj.rows[0].n, 1, 'booked once');
      }
      // The same race as two browsers make it: two operators' approve posts sent at once over HTTP.
      const clients = [await signedIn(s, ops.admin!), await signedIn(s, ops.risk!)];
      for (let round = 0; round < 5; round++) {
        const id = await requestAdjustment(s.ctx, asker, m.merchant_id, { direction: 'credit', amount: dec('1.00'), currency: 'USD', reason: `http race ${round}` });
        const forms = await Promise.all(clients.map(async (c) => /name="csrf" value="([^"]+)"/.exec((await c.get('/ops/approvals')).html)![1]!));
        const pages = await Promise.all(clients.map((c, i) => c.request('POST', `/ops/approvals/${id}/approve`, new URLSearchParams({ csrf: forms[i]! }))));
        assert.deepEqual(pages.map((p) => p.status).sort(), [200, 409], `round ${round}: ${pages.map((p) => `${p.status} ${p.url}`).join(', ')}`);
        const adj = await s.ctx.db.query(`SELECT count(*)::int AS n FROM balance_adjustments WHERE actor = $1`, [`four-eyes:${id}`]);
        assert.equal(adj.rows[0].n, 1, 'booked once');
      }
      // The database refuses a requester's decision even if a code path forgot the check.
      const id = await requestAdjustment(s.ctx, asker, m.merchant_id, { direction: 'credit', amount: dec('1.00'), currency: 'USD', reason: 'check' });
      await assert.rejects(s.ctx.db.query(`UPDATE approvals SET status = 'approved', decided_by = requested_by, decided_at = now() WHERE id = $1`, [id]));
    });

    test('a cashout above the merchant threshold waits ON_HOLD; the merchant cannot release it; two operators can', async () => {
      const c = await signedIn(s, ops.admin!);
      const saved = await c.submit(`/ops/merchants/${m.merchant_id}`, `/ops/merchants/${m.merchant_id}/settings`, { name: 'Loja <b>Ana</b>', cashout_approval_usd: '50.00' });
      assert.equal(saved.url, `/ops/merchants/${m.merchant_id}?done=saved`);
      const small = await cashoutRequest(s.url, m, 'POST', '/v3/cashout', BR_CASHOUT({ external_id: `small-${backend}-${Date.now()}`, amount: '50.00' }));
      const big = await cashoutRequest(s.url, m, 'POST', '/v3/cashout', BR_CASHOUT({ external_id: `big-${backend}-${Date.now()}`, amount: '50.01' }));
      const status = async (id: number) => (await cashoutRequest(s.url, m, 'POST', '/v3/cashout/status', { cashout_id: id })).body.cashout_status_description;
      assert.equal(await status(small.body.cashout_id), 'Pending');
      assert.equal(await status(big.body.cashout_id), 'On hold');
      // The merchant's own release (PUT /v3/cashout/status PENDING) is refused while it awaits two operators.
      const release = await cashoutRequest(s.url, m, 'PUT', '/v3/cashout/status', { cashout_id: big.body.cashout_id, status: 'PENDING' });
      assert.equal(release.status, 400, release.text);
      assert.equal(release.body.code, 510);
      assert.match(release.body.message, /two operators/);
      assert.equal(await status(big.body.cashout_id), 'On hold');
      const asked = await c.submit('/ops/approvals', `/ops/approvals/cashouts/${big.body.cashout_id}/request`);
      assert.equal(asked.url, '/ops/approvals?done=requested');
      const id = Number((await s.ctx.db.query(`SELECT id FROM approvals WHERE cashout_id = $1`, [big.body.cashout_id])).rows[0].id);
      assert.equal((await c.submit('/ops/approvals', `/ops/approvals/${id}/approve`)).status, 409);
      const second = await signedIn(s, ops.admin2!);
      assert.equal((await second.submit('/ops/approvals', `/ops/approvals/${id}/approve`)).url, '/ops/approvals?done=approve');
      assert.equal(await status(big.body.cashout_id), 'Pending');
    });

    test('limits: finance sets a merchant rule in force for the API; a bad method is refused with the reason', async () => {
      const f = await signedIn(s, ops.finance!);
      const bad = await f.submit(`/ops/merchants/${m.merchant_id}`, `/ops/merchants/${m.merchant_id}/limits`, { country: 'BR', payment_method: 'ZZ', daily: '100' });
      assert.match(bad.html, /payment_method: &#39;ZZ&#39; is not offered in BR/);
      const ok = await f.submit(`/ops/merchants/${m.merchant_id}`, `/ops/merchants/${m.merchant_id}/limits`, { country: 'BR', payment_method: '*', per_transaction: '250.00', daily: '', monthly: '' });
      assert.equal(ok.url, `/ops/merchants/${m.merchant_id}?done=saved`);
      const rules = (await admin(s.url, 'GET', '/admin/limits')).body;
      assert.ok(rules.some((r: { merchant_id: number; country: string; per_transaction: string }) => r.merchant_id === m.merchant_id && r.country === 'BR' && r.per_transaction === '250'));
      const audit = await s.ctx.db.query(`SELECT actor FROM operator_audit WHERE action = 'merchant.limit' ORDER BY id DESC LIMIT 1`);
      assert.equal(audit.rows[0].actor, ops.finance!.email);
    });

    test('reconciliation: an imported statement\'s exceptions are listed; finance books one as a fee, support cannot resolve', async () => {
      const today = new Date().toISOString().slice(0, 10);
      const file = ofx({
        statementId: '', account: {}, currency: 'BRL', date: today, opening: '100.00', bankId: '033', branch: '0001', accountId: `777-${backend}`,
        movements: [{ amount: '7.90', direction: 'debit', date: today, bankId: `fee-${backend}`, info: 'TARIFA PACOTE' }],
      });
      const up = await fetch(`${s.url}/admin/reconciliation/statements`, { method: 'POST', headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/x-ofx' }, body: file });
      assert.equal(up.status, 201, await up.text());
      const sup = await signedIn(s, ops.support!);
      const page = await sup.get('/ops/reconciliation');
      assert.equal(page.status, 200);
      assert.match(page.html, /7\.90 BRL/);
      const id = Number(/action="\/ops\/reconciliation\/exceptions\/(\d+)\/resolve"/.exec((await (await signedIn(s, ops.finance!)).get('/ops/reconciliation')).html)?.[1]);
      assert.ok(id > 0);
      assert.doesNotMatch(page.html, /\/resolve"/, 'support is offered no resolve form');
      assert.equal((await sup.submit('/ops/reconciliation', `/ops/reconciliation/exceptions/${id}/resolve`, { prefix: `x${id}`, [`x${id}-action`]: 'book_fee', [`x${id}-reason`]: 'x' })).status, 403);
      const f = await signedIn(s, ops.finance!);
      const noReason = await f.submit('/ops/reconciliation', `/ops/reconciliation/exceptions/${id}/resolve`, { prefix: `x${id}`, [`x${id}-action`]: 'book_fee' });
      assert.equal(noReason.status, 400);
      assert.match(noReason.html, /reason: required for book_fee/);
      const ok = await f.submit('/ops/reconciliation', `/ops/reconciliation/exceptions/${id}/resolve`, { prefix: `x${id}`, [`x${id}-action`]: 'book_fee', [`x${id}-reason`]: 'monthly package fee' });
      assert.equal(ok.url, '/ops/reconciliation?done=resolved');
      const again = await f.submit('/ops/reconciliation', `/ops/reconciliation/exceptions/${id}/resolve`, { prefix: `x${id}`, [`x${id}-action`]: 'book_fee', [`x${id}-reason`]: 'twice' });
      assert.equal(again.status, 409);
      const audit = await s.ctx.db.query(`SELECT actor FROM operator_audit WHERE action = 'reconciliation.resolve' AND subject = $1`, [`exception:${id}`]);
      assert.deepEqual(audit.rows, [{ actor: ops.finance!.email }]);
    });

    test('rates page: markup and manual rate, audited; read-only sees no form', async () => {
      const f = await signedIn(s, ops.finance!);
      const manual = await f.submit('/ops/rates', '/ops/rates/manual', { currency: 'COP', rate: '4000.5' });
      assert.equal(manual.url, '/ops/rates?done=saved');
      assert.match(manual.html, /4000\.5/);
      assert.match(manual.html, />manual</);
      const bad = await f.submit('/ops/rates', '/ops/rates/markup', { currency: 'BRL', markup: '75' });
      assert.equal(bad.status, 400);
      const ro = await signedIn(s, ops.read_only!);
      const page = await ro.get('/ops/rates');
      assert.equal(page.status, 200);
      assert.doesNotMatch(page.html, /action="\/ops\/rates\/manual"/);
      const audit = await s.ctx.db.query(`SELECT actor FROM operator_audit WHERE action = 'rates.set_manual' ORDER BY id DESC LIMIT 1`);
      assert.equal(audit.rows[0].actor, ops.finance!.email);
      const log = await ro.get('/ops/audit');
      assert.match(log.html, /rates\.set_manual/);
    });
  });
}
