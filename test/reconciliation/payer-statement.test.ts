// The payer rule (a merchant's payer_must_match) on an uploaded bank statement, over HTTP, on
// PGlite and PostgreSQL: a camt.053 credit naming an own-accounts deposit from another payer's
// document (RltdPties/Dbtr/Id) credits nothing: the deposit stays PENDING, the payment is kept
// refused, the merchant hears deposit.payment_refused, and the operator's exception
// payer_mismatch cannot be matched to the deposit, only sent back. The payer's own document (spelt
// with punctuation) completes it with payer_checked true; a credit with no counterparty document
// completes it with payer_checked false (never pretended). A Pix deposit its PSP completed without
// reporting the payer, confirmed by a credit from another payer, is the operator's payer_mismatch.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { backends, ADMIN_TOKEN, startTestServer, type TestServer } from '../helpers/server.ts';
import { admin, createMerchant, type Res, V3Client } from '../helpers/clients.ts';
import { cpf } from '../helpers/documents.ts';
import { assertLedgerOk } from '../helpers/ledger.ts';
import { startPixSimulator, type PixSimulator } from '../helpers/pix-simulator.ts';
import { camt053, camt054, cnab240, type Day } from '../helpers/statements.ts';
import { depositReference } from '../../src/domain/payment-info.ts';
import { parseStatement } from '../../src/reconciliation/formats.ts';
import { until } from '../helpers/until.ts';

async function upload(base: string, body: string, contentType: string): Promise<Res> {
  const r = await fetch(`${base}/admin/reconciliation/statements`, { method: 'POST', headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': contentType }, body });
  const text = await r.text();
  return { status: r.status, headers: r.headers, body: text ? JSON.parse(text) : undefined, text };
}

const TODAY = new Date().toISOString().slice(0, 10);
const MARIA = cpf('529982247');
const JOAO = cpf('111444777');
const dotted = (c: string) => `${c.slice(0, 3)}.${c.slice(3, 6)}.${c.slice(6, 9)}-${c.slice(9)}`;

test('CNAB 240 segment T: the payer CPF keeps its leading zero (inscription type 1), a CNPJ its 14 digits', () => {
  const file = cnab240({
    statementId: '', currency: 'BRL', date: TODAY, opening: '0.00', bank: '341', agency: '4417', account: '130092181', digit: '7', nsa: 1,
    boletos: [
      { nossoNumero: '11', amount: '10.00', fee: '0.00', payerDocument: '01234567890', payerName: 'A', date: TODAY },
      { nossoNumero: '12', amount: '10.00', fee: '0.00', payerDocument: '01444777000161', payerName: 'B', date: TODAY },
    ],
    movements: [],
  });
  const s = parseStatement('cnab240', file);
  assert.deepEqual(s.entries.map((e) => e.counterparty.document), ['01234567890', '01444777000161']);
});

for (const backend of backends()) {
  describe(`the payer rule on a bank statement (${backend})`, () => {
    let s: TestServer;
    let sim: PixSimulator;
    let v3: V3Client;
    let n = 0;
    before(async () => {
      sim = await startPixSimulator({ tokenTtl: 60 });
      s = await startTestServer(backend, { CAJA_PIX_POLL_SECONDS: '3600', CAJA_CONNECTOR_TIMEOUT_MS: '3000' });
      assert.equal((await admin(s.url, 'PUT', '/admin/connectors/pix', sim.config)).status, 200);
      const own = { accounts: [{ country: 'BR', method: 'SB', beneficiary_name: 'Operadora Pagamentos Ltda', agency: '4417', account: '13009218-7', document: '11444777000161' }] };
      assert.equal((await admin(s.url, 'PUT', '/admin/connectors/own_accounts', own)).status, 200);
      const m = await createMerchant(s.url, 'Regulated bets');
      assert.equal((await admin(s.url, 'PATCH', `/admin/merchants/${m.merchant_id}`, { settlement_currency: 'BRL', payer_must_match: true })).status, 200);
      v3 = V3Client.deposits(s.url, m);
    });
    after(async () => {
      await assertLedgerOk(s.ctx.db);
      await s.close();
      await sim.stop();
    });
    const deposit = async (method: string, amount: string) => {
      const r = await v3.post('/v3/deposits', {
        country: 'BR', amount, currency: 'BRL', payment_method: method, invoice_id: `payer-stmt-${backend}-${++n}-${Date.now()}`,
        payer: { document: MARIA, first_name: 'Maria', last_name: 'Souza', email: 'maria@example.com' },
      });
      assert.equal(r.status, 200, r.text);
      return r.body.deposit_id as number;
    };
    const view = async (id: number) => (await v3.get(`/v3/deposits/${id}`)).body;

    test('camt.053: another payer refused and sent back by the operator; the payer completes; no document is payer_checked false', async () => {
      const other = await deposit('SB', '120.00');
      const own = await deposit('SB', '130.00');
      const silent = await deposit('SB', '140.00');
      const pix = await deposit('IX', '150.00');
      const { rows } = await s.ctx.db.query<{ connector_reference: string }>('SELECT connector_reference FROM deposits WHERE id = $1', [pix]);
      const e2e = (await sim.control.pay(rows[0]!.connector_reference)).endToEndId;
      await until('Pix completed', async () => (await view(pix)).status, (x) => x === 'COMPLETED');
      assert.equal((await view(pix)).payer_checked, false, 'the PSP did not report the payer');

      const day: Day = {
        statementId: `PAYER-${backend}-${TODAY}`, account: { iban: 'BR1800360305000010009795493C1' }, currency: 'BRL', date: TODAY, opening: '5000.00',
        movements: [
          { amount: '120.00', direction: 'credit', date: TODAY, bankId: 'P-1', reference: depositReference(other), counterparty: { name: 'Joao', document: JOAO } },
          { amount: '130.00', direction: 'credit', date: TODAY, bankId: 'P-2', reference: depositReference(own), counterparty: { name: 'Maria', document: dotted(MARIA) } },
          { amount: '140.00', direction: 'credit', date: TODAY, bankId: 'P-3', reference: depositReference(silent) },
          { amount: '150.00', direction: 'credit', date: TODAY, bankId: 'P-4', endToEndId: e2e, counterparty: { name: 'Joao', document: JOAO } },
        ],
      };
      const r = await upload(s.url, camt053(day), 'application/xml');
      assert.equal(r.status, 201, r.text);
      const exceptions = (await admin(s.url, 'GET', '/admin/reconciliation/exceptions?status=open&limit=100')).body.data as any[];
      assert.deepEqual({ ...r.body, statement_id: undefined }, { statement_id: undefined, entries: 4, matched: 2, exceptions: 2, repeated: 0 }, JSON.stringify(exceptions));
      const mismatches = exceptions.filter((x) => x.reason === 'payer_mismatch');
      assert.equal(mismatches.length, 2);

      // Another payer: nothing credited, the deposit PENDING, the payment kept refused, the merchant notified once.
      assert.equal((await view(other)).status, 'PENDING');
      const refused = await s.ctx.db.query<{ status: string; payer_document: string; seen_via: string }>(
        'SELECT status, payer_document, seen_via FROM connector_payments WHERE deposit_id = $1', [other]);
      assert.deepEqual(refused.rows, [{ status: 'refused', payer_document: JOAO, seen_via: 'statement' }]);
      const ev = await s.ctx.db.query<{ data: any }>(`SELECT data FROM events WHERE type = 'deposit.payment_refused' AND subject_id = $1`, [other]);
      assert.equal(ev.rows.length, 1);
      assert.equal(ev.rows[0]!.data.reason, 'payer_mismatch');
      assert.equal((await s.ctx.db.query(`SELECT 1 FROM ledger_transfers WHERE subject_type = 'deposit' AND subject_id = $1`, [other])).rows.length, 0);

      // The payer's own document, with punctuation: completed and checked. No document: completed, not checked.
      assert.deepEqual([(await view(own)).status, (await view(own)).payer_checked], ['COMPLETED', true]);
      assert.deepEqual([(await view(silent)).status, (await view(silent)).payer_checked], ['COMPLETED', false]);

      // The operator may not match another payer's money to the deposit; sending it back resolves it.
      const resolve = (id: number, body: unknown) => admin(s.url, 'POST', `/admin/reconciliation/exceptions/${id}/resolve`, body);
      const x = mismatches.find((e) => e.candidates[0]?.id === other)!;
      assert.ok(x, JSON.stringify(mismatches));
      const wrong = await resolve(x.id, { action: 'match', target: { type: 'deposit', id: other } });
      assert.equal(wrong.status, 409, wrong.text);
      assert.match(wrong.body.description, /payer mismatch/);
      assert.equal((await view(other)).status, 'PENDING');
      const back = await resolve(x.id, { action: 'send_back', reason: 'payer mismatch: returned to the ordering account' });
      assert.equal(back.status, 200, back.text);
      assert.equal(back.body.status, 'resolved');

      // The Pix completed without the payer reported, credited by another payer on the statement: the operator's.
      const pixX = mismatches.find((e) => e.candidates[0]?.id === pix)!;
      assert.match(pixX.detail, /did not report the payer/);
      assert.equal((await view(pix)).payer_checked, false);

      // The same file again changes nothing: no second refused payment, no second notification.
      const again = await upload(s.url, camt053(day), 'application/xml');
      assert.ok(again.status === 200 || again.status === 201, again.text);
      assert.equal((await s.ctx.db.query(`SELECT 1 FROM events WHERE type = 'deposit.payment_refused' AND subject_id = $1`, [other])).rows.length, 1);
      await assertLedgerOk(s.ctx.db);
    });

    test('the same credit from another payer in two statements imported at once (camt.054 and camt.053): refused once, notified once', async () => {
      const d = await deposit('SB', '210.00');
      const movement = { amount: '210.00', direction: 'credit' as const, date: TODAY, bankId: `RACE-${backend}`, reference: depositReference(d), counterparty: { name: 'Joao', document: JOAO } };
      const base = { account: { iban: 'BR1800360305000010009795493C1' }, currency: 'BRL', date: TODAY, opening: '5000.00', movements: [movement] };
      const [a, b] = await Promise.all([
        upload(s.url, camt054({ ...base, statementId: `RACE-054-${backend}` }), 'application/xml'),
        upload(s.url, camt053({ ...base, statementId: `RACE-053-${backend}` }), 'application/xml'),
      ]);
      assert.ok([a.status, b.status].every((x) => x === 201 || x === 200 || x === 409), `${a.text} ${b.text}`);
      assert.ok([a.status, b.status].includes(201), `${a.text} ${b.text}`);
      assert.equal((await view(d)).status, 'PENDING');
      const refused = await s.ctx.db.query('SELECT 1 FROM connector_payments WHERE deposit_id = $1', [d]);
      assert.equal(refused.rows.length, 1);
      assert.equal((await s.ctx.db.query(`SELECT 1 FROM events WHERE type = 'deposit.payment_refused' AND subject_id = $1`, [d])).rows.length, 1);
      const open = (await admin(s.url, 'GET', '/admin/reconciliation/exceptions?status=open&limit=100')).body.data.filter((x: any) => x.reason === 'payer_mismatch' && x.candidates[0]?.id === d);
      assert.equal(open.length, 1, JSON.stringify(open));
      await assertLedgerOk(s.ctx.db);
    });
  });
}
