// Four eyes over every hand-made movement of merchant money, in production (issue 38 §3), as an
// insider would try it: an admin token's balance adjustment (and the X-Operator header naming
// someone else), the token's maker approving it, a reconciliation match that completes a PENDING
// deposit, a manual rate far from the source's (BRL 0.05), a statement of an invented account.
// Each is a request another operator approves in the console; nothing moves before.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { admin, createMerchant, type Credentials, V3Client } from '../helpers/clients.ts';
import { cpf } from '../helpers/documents.ts';
import { ADMIN_TOKEN, backends, startTestServer, type TestServer } from '../helpers/server.ts';
import { camt053 } from '../helpers/statements.ts';
import { createAdminToken } from '../../src/operators/tokens.ts';
import { withinBand } from '../../src/operators/four-eyes.ts';
import { statementAccountKeys } from '../../src/reconciliation/service.ts';
import { dec } from '../../src/domain/money.ts';
import { makeOperator, signedIn, type TestOperator } from './helpers.ts';

const TODAY = new Date().toISOString().slice(0, 10);
const OWN = { country: 'BR', method: 'SB', beneficiary_name: 'Operadora Pagamentos Ltda', agency: '4417', account: '13009218-7', document: '11444777000161' };

async function upload(base: string, body: string): Promise<{ status: number; body: any }> {
  const r = await fetch(`${base}/admin/reconciliation/statements`, { method: 'POST', headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/xml' }, body });
  return { status: r.status, body: await r.json() };
}

test('the band around the source rate is inclusive and symmetric', () => {
  assert.ok(withinBand(dec('5.5'), dec('5'), 10));
  assert.ok(withinBand(dec('4.5'), dec('5'), 10));
  assert.ok(!withinBand(dec('5.5001'), dec('5'), 10));
  assert.ok(!withinBand(dec('0.05'), dec('5'), 10));
  assert.ok(!withinBand(dec('5.01'), dec('5'), 0));
});

test("a statement's account is registered by its number, its IBAN, or branch and number", () => {
  assert.deepEqual(statementAccountKeys('acct:13009218-7'), ['ACCT130092187', '130092187']);
  assert.deepEqual(statementAccountKeys('iban:BR1800360305000010009795493C1'), ['IBANBR1800360305000010009795493C1', 'BR1800360305000010009795493C1']);
  assert.deepEqual(statementAccountKeys('br:341:4417:13009218-7'), ['BR3414417130092187', '3414417130092187', '130092187', '4417130092187']);
});

for (const backend of backends()) {
  describe(`four eyes in production (${backend})`, () => {
    let s: TestServer;
    let m: Credentials;
    let finance: TestOperator;
    let risk: TestOperator;
    let adminOp: TestOperator;
    const balance = async () => (await admin(s.url, 'GET', `/admin/merchants/${m.merchant_id}/balance`)).body.balances as { currency: string; available: number }[];
    const approve = async (op: TestOperator, id: number) => (await signedIn(s, op)).submit('/ops/approvals', `/ops/approvals/${id}/approve`);

    before(async () => {
      s = await startTestServer(backend, { CAJA_ENV: 'production', PUBLIC_BASE_URL: 'https://pay.example.com', CAJA_RATES_SOURCES: '' });
      // The rate a source published (what the rates worker stores), as the band's reference.
      await s.ctx.db.query(
        `INSERT INTO exchange_rates (currency, usd_rate, updated_at, source, rate_at, source_rate, markup_percent) VALUES ('BRL', 5, now(), 'bcb-ptax', now(), 5, 0)
         ON CONFLICT (currency) DO UPDATE SET usd_rate = 5, source = 'bcb-ptax', rate_at = now(), source_rate = 5, markup_percent = 0`,
      );
      m = await createMerchant(s.url, 'Loja');
      assert.equal((await admin(s.url, 'PATCH', `/admin/merchants/${m.merchant_id}`, { settlement_currency: 'BRL' })).status, 200);
      finance = await makeOperator(s, 'finance');
      risk = await makeOperator(s, 'risk');
      adminOp = await makeOperator(s, 'admin');
    });
    after(() => s.close());

    test('a money token posts an adjustment: 202 pending, nothing booked, X-Operator ignored; its maker cannot approve; another operator can', async () => {
      const made = await createAdminToken(s.ctx.db, s.ctx.box, `money-${backend}`, ['money', 'read'], { kind: 'operator', id: adminOp.id, email: adminOp.email, ip: null }, s.ctx.now());
      const before = await balance();
      const r = await fetch(`${s.url}/admin/merchants/${m.merchant_id}/balance_adjustments`, {
        method: 'POST', headers: { authorization: `Bearer ${made.token}`, 'content-type': 'application/json', 'x-operator': 'someone-else@ops' },
        body: JSON.stringify({ direction: 'credit', amount: '25000', currency: 'BRL', reason: 'insider' }),
      });
      const body = await r.json();
      assert.equal(r.status, 202, JSON.stringify(body));
      assert.deepEqual({ ...body, approval_id: undefined, merchant_id: undefined }, {
        approval_id: undefined, merchant_id: undefined, status: 'pending', direction: 'credit', amount: '25000.00', currency: 'BRL', reason: 'insider', requested_by: `token:money-${backend}`,
      });
      assert.deepEqual(await balance(), before, 'nothing is booked on the request');
      const audit = await s.ctx.db.query('SELECT actor, token_id, operator_id FROM operator_audit WHERE subject = $1', [`approval:${body.approval_id}`]);
      assert.deepEqual(audit.rows, [{ actor: `token:money-${backend}`, token_id: made.id, operator_id: null }], 'the token, never the header');

      assert.match((await (await signedIn(s, risk)).get('/ops/approvals')).html, new RegExp(`token:money-${backend}`), 'the approvals page names the token');
      const self = await approve(adminOp, body.approval_id);
      assert.equal(self.status, 409);
      assert.match(self.html, /made the admin token/);
      assert.deepEqual(await balance(), before);
      const ok = await approve(finance, body.approval_id);
      assert.equal(ok.url, '/ops/approvals?done=approve');
      assert.equal((await balance()).find((b) => b.currency === 'BRL')!.available, 25000);
      const decided = await s.ctx.db.query('SELECT status, requested_by, requested_by_token FROM approvals WHERE id = $1', [body.approval_id]);
      assert.deepEqual(decided.rows[0], { status: 'approved', requested_by: null, requested_by_token: made.id });
    });

    test('a reconciliation match that completes a PENDING deposit waits for a second operator', async () => {
      assert.equal((await admin(s.url, 'PUT', '/admin/connectors/own_accounts', { accounts: [OWN] })).status, 200);
      const v3 = V3Client.deposits(s.url, m);
      const ids: number[] = [];
      for (let i = 0; i < 2; i++) {
        const d = await v3.post('/v3/deposits', {
          country: 'BR', amount: '985.00', currency: 'BRL', payment_method: 'SB', invoice_id: `fe-${backend}-${i}-${Date.now()}`,
          payer: { document: cpf('529982247'), first_name: 'Maria', last_name: 'Souza', email: 'maria@example.com' },
        });
        assert.equal(d.status, 200, d.text);
        ids.push(d.body.deposit_id);
      }
      const day = { statementId: `fe-${backend}-1`, account: { other: OWN.account }, currency: 'BRL', date: TODAY, opening: '0.00',
        movements: [{ amount: '985.00', direction: 'credit' as const, date: TODAY, bankId: `fe-${backend}-e1` }] };
      const imported = await upload(s.url, camt053(day));
      assert.equal(imported.status, 201, JSON.stringify(imported.body));
      assert.equal(imported.body.exceptions, 1, 'two PENDING deposits of that amount: ambiguous');
      const x = (await admin(s.url, 'GET', '/admin/reconciliation/exceptions?status=open')).body.data[0];
      const before = await balance();
      const asked = await admin(s.url, 'POST', `/admin/reconciliation/exceptions/${x.id}/resolve`, { action: 'match', target: { type: 'deposit', id: ids[0] } });
      assert.equal(asked.status, 202, asked.text);
      assert.deepEqual({ ...asked.body, approval_id: undefined }, { approval_id: undefined, status: 'pending', exception_id: x.id });
      assert.equal((await v3.get(`/v3/deposits/${ids[0]}`)).body.status, 'PENDING', 'not completed on the request');
      assert.deepEqual(await balance(), before);
      const again = await admin(s.url, 'POST', `/admin/reconciliation/exceptions/${x.id}/resolve`, { action: 'match', target: { type: 'deposit', id: ids[0] } });
      assert.equal(again.body.approval_id, asked.body.approval_id, 'one open request per exception');
      // Another exception asked for by six clients at once: one request, the same for all.
      const day2 = { statementId: `fe-${backend}-race`, account: { other: OWN.account }, currency: 'BRL', date: TODAY, opening: '0.00',
        movements: [{ amount: '985.00', direction: 'credit' as const, date: TODAY, bankId: `fe-${backend}-race-e1` }] };
      assert.equal((await upload(s.url, camt053(day2))).status, 201);
      const x2 = (await admin(s.url, 'GET', '/admin/reconciliation/exceptions?status=open')).body.data.find((e: any) => e.id !== x.id);
      const racing = await Promise.all(Array.from({ length: 6 }, () => admin(s.url, 'POST', `/admin/reconciliation/exceptions/${x2.id}/resolve`, { action: 'match', target: { type: 'deposit', id: ids[1] } })));
      assert.deepEqual(racing.map((r) => r.status), [202, 202, 202, 202, 202, 202], racing.map((r) => r.text).join('\n'));
      assert.equal(new Set(racing.map((r) => r.body.approval_id)).size, 1);
      // An operator asks the same from the console: the same open request.
      const c = await signedIn(s, finance);
      const page = await c.submit('/ops/reconciliation', `/ops/reconciliation/exceptions/${x.id}/resolve`, { prefix: 'x1', action: 'match', 'x1-type': 'deposit', 'x1-target': String(ids[0]) });
      assert.equal(page.url, '/ops/approvals?done=requested', page.html.slice(0, 500));
      const open = await s.ctx.db.query("SELECT count(*)::int AS n FROM approvals WHERE kind = 'reconciliation_match' AND status = 'pending' AND payload ->> 'exception_id' = $1", [String(x.id)]);
      assert.equal(open.rows[0].n, 1);

      const ok = await approve(risk, asked.body.approval_id);
      assert.equal(ok.url, '/ops/approvals?done=approve', ok.html.slice(0, 500));
      assert.equal((await v3.get(`/v3/deposits/${ids[0]}`)).body.status, 'COMPLETED');
      assert.ok(!(await admin(s.url, 'GET', `/admin/reconciliation/exceptions?status=open`)).body.data.some((e: any) => e.id === x.id), 'resolved');
      assert.ok((await balance()).find((b) => b.currency === 'BRL')!.available > before.find((b) => b.currency === 'BRL')!.available);
      // Rejected: nothing moves and the exception stays open for another resolution.
      const rejected = await (await signedIn(s, risk)).submit('/ops/approvals', `/ops/approvals/${racing[0]!.body.approval_id}/reject`);
      assert.equal(rejected.url, '/ops/approvals?done=reject');
      assert.equal((await v3.get(`/v3/deposits/${ids[1]}`)).body.status, 'PENDING');
      assert.ok((await admin(s.url, 'GET', '/admin/reconciliation/exceptions?status=open')).body.data.some((e: any) => e.id === x2.id));
      assert.equal((await admin(s.url, 'POST', `/admin/reconciliation/exceptions/${x2.id}/resolve`, { action: 'send_back', reason: 'not ours' })).status, 200);
      const check = await admin(s.url, 'GET', '/admin/ledger/check');
      assert.equal(check.status, 200, check.text);
    });

    test("an import's own match that would complete a PENDING deposit is held for a second operator (a request asked by the importing token)", async () => {
      const v3 = V3Client.deposits(s.url, m);
      const d = await v3.post('/v3/deposits', {
        country: 'BR', amount: '300.00', currency: 'BRL', payment_method: 'SB', invoice_id: `fe-ref-${backend}-${Date.now()}`,
        payer: { document: cpf('529982247'), first_name: 'Maria', last_name: 'Souza', email: 'maria@example.com' },
      });
      assert.equal(d.status, 200, d.text);
      const day = { statementId: `fe-${backend}-2`, account: { other: OWN.account }, currency: 'BRL', date: TODAY, opening: '985.00',
        movements: [{ amount: '300.00', direction: 'credit' as const, date: TODAY, bankId: `fe-${backend}-e2`, reference: d.body.payment_info.metadata.reference }] };
      const before = await balance();
      const imported = await upload(s.url, camt053(day));
      assert.equal(imported.status, 201, JSON.stringify(imported.body));
      assert.deepEqual([imported.body.matched, imported.body.exceptions], [0, 1]);
      assert.equal((await v3.get(`/v3/deposits/${d.body.deposit_id}`)).body.status, 'PENDING', 'not completed by the import');
      assert.deepEqual(await balance(), before);
      const x = (await admin(s.url, 'GET', '/admin/reconciliation/exceptions?status=open')).body.data[0];
      assert.equal(x.reason, 'awaits_approval');
      const { rows } = await s.ctx.db.query("SELECT id, requested_by_token FROM approvals WHERE kind = 'reconciliation_match' AND status = 'pending' AND payload ->> 'exception_id' = $1", [String(x.id)]);
      assert.equal(rows.length, 1);
      assert.equal(rows[0].requested_by_token, 0, 'asked by the token that imported');
      assert.equal((await approve(risk, rows[0].id)).url, '/ops/approvals?done=approve');
      assert.equal((await v3.get(`/v3/deposits/${d.body.deposit_id}`)).body.status, 'COMPLETED');
      assert.equal((await admin(s.url, 'GET', '/admin/ledger/check')).status, 200);
    });

    test('a statement of an account the operator never registered is refused with a 400 naming it', async () => {
      const day = { statementId: `fe-${backend}-invented`, account: { other: '99999999-9' }, currency: 'BRL', date: TODAY, opening: '0.00',
        movements: [{ amount: '985.00', direction: 'credit' as const, date: TODAY, bankId: `fe-${backend}-inv` }] };
      const r = await upload(s.url, camt053(day));
      assert.equal(r.status, 400, JSON.stringify(r.body));
      assert.match(JSON.stringify(r.body), /99999999-9/);
      const stored = await s.ctx.db.query("SELECT count(*)::int AS n FROM bank_accounts WHERE identifier = '99999999-9'");
      assert.equal(stored.rows[0].n, 0);
    });

    test('manual rates: BRL 0.05 is a request (not applied); within 10 % applies; no source rate is a request; zero is refused', async () => {
      const rates = async () => (await admin(s.url, 'GET', '/admin/exchange_rates')).body.rates as Record<string, string>;
      const far = await admin(s.url, 'PUT', '/admin/exchange_rates', { rates: { BRL: '0.05' } });
      assert.equal(far.status, 202, far.text);
      assert.equal(far.body.pending[0].currency, 'BRL');
      assert.equal(Number((await rates()).BRL), 5, 'not applied');
      const near = await admin(s.url, 'PUT', '/admin/exchange_rates', { rates: { BRL: '5.2' } });
      assert.equal(near.status, 200, near.text);
      assert.equal(Number((await rates()).BRL), 5.2);
      const none = await admin(s.url, 'PUT', '/admin/exchange_rates', { rates: { ARS: '900' } });
      assert.equal(none.status, 202, none.text);
      for (const bad of ['0', '-5']) {
        const r = await admin(s.url, 'PUT', '/admin/exchange_rates', { rates: { BRL: bad } });
        assert.equal(r.status, 400, bad);
        assert.match(r.text, /rates\.BRL/);
      }
      // The console's manual rate: far from the source's, a request too.
      const c = await signedIn(s, adminOp);
      const asked = await c.submit('/ops/rates', '/ops/rates/manual', { currency: 'BRL', rate: '50' });
      assert.equal(asked.url, '/ops/approvals?done=requested');
      assert.equal(Number((await rates()).BRL), 5.2);
      const listed = (await c.get('/ops/approvals')).html;
      assert.match(listed, /Manual rate BRL 0.05 \(source 5, band 10 %\)/);
      assert.match(listed, /Manual rate BRL 50 \(source —, band 10 %\)/, 'a manual rate replaced the source rate: no reference left');
      assert.match(listed, /Manual rate ARS 900 \(source —/);
      const self = await c.submit('/ops/approvals', `/ops/approvals/${(await s.ctx.db.query("SELECT max(id) AS id FROM approvals WHERE kind = 'exchange_rate'")).rows[0].id}/approve`);
      assert.equal(self.status, 409, 'the requester cannot approve their own rate');
      assert.equal((await approve(finance, none.body.pending[0].approval_id)).url, '/ops/approvals?done=approve');
      assert.equal(Number((await rates()).ARS), 900);
    });
  });
}
