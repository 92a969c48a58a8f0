// A day of activity reconciled over HTTP against the bank's files of that day: camt.053 (the
// operator's main account), OFX (a second bank) and CNAB 240 (a third, with boleto
// liquidations). Deposits by Pix (through the API Pix simulator), bank transfer to own accounts
// and boleto; cashouts; a return; a PSP settlement batch with its fee; then the exceptions
// listed and resolved, duplicate and malformed imports, and the ledger checked against each file.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { backends, ADMIN_TOKEN, startTestServer, type TestServer } from '../helpers/server.ts';
import { admin, cashoutRequest, createMerchant, type Credentials, type Res, V3Client } from '../helpers/clients.ts';
import { cpf } from '../helpers/documents.ts';
import { assertLedgerOk } from '../helpers/ledger.ts';
import { startPixSimulator, type PixSimulator } from '../helpers/pix-simulator.ts';
import { camt053, camt054, cnab240, type Day, ofx } from '../helpers/statements.ts';
import { depositReference } from '../../src/domain/payment-info.ts';
import { parseStatement } from '../../src/reconciliation/formats.ts';
import { checkAgainstStatement } from '../../src/reconciliation/check.ts';
import { matchesPerRule } from '../../src/reconciliation/service.ts';
import { fundMerchant } from '../helpers/four-eyes.ts';
import { until } from '../helpers/until.ts';

const run = promisify(execFile);

async function upload(base: string, body: string, contentType: string, query = ''): Promise<Res> {
  const r = await fetch(`${base}/admin/reconciliation/statements${query}`, { method: 'POST', headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': contentType }, body });
  const text = await r.text();
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  return { status: r.status, headers: r.headers, body: parsed as any, text };
}

const TODAY = new Date().toISOString().slice(0, 10);
const MARIA = cpf('529982247');
const JOAO = cpf('111444777');
const payer = (document: string) => ({ document, first_name: 'Maria', last_name: 'Souza', email: 'maria@example.com' });
const ADDRESS = { street: 'Av. Paulista 1000', city: 'São Paulo', state: 'SP', zip_code: '01310-100' };

for (const backend of backends()) {
  describe(`reconciliation of a day (${backend})`, () => {
    let s: TestServer;
    let sim: PixSimulator;
    let m: Credentials;
    let v3: V3Client;
    let n = 0;
    const ids: Record<string, number> = {};
    let pixE2e = '';
    const bankRef: Record<string, string> = {};
    const files: Record<string, string> = {};

    const deposit = async (name: string, method: string, amount: string, extra: Record<string, unknown> = {}) => {
      const r = await v3.post('/v3/deposits', { country: 'BR', amount, currency: 'BRL', payment_method: method, invoice_id: `rec-${backend}-${++n}-${Date.now()}`, payer: payer(MARIA), ...extra });
      assert.equal(r.status, 200, r.text);
      ids[name] = r.body.deposit_id;
      return r.body;
    };
    const depositStatus = async (id: number) => (await v3.get(`/v3/deposits/${id}`)).body.status as string;
    const cashout = async (name: string, amount: string) => {
      const r = await cashoutRequest(s.url, m, 'POST', '/v3/cashout', {
        external_id: `rec-${backend}-${name}-${Date.now()}`, country: 'BR', currency: 'BRL', amount, document_id: cpf('529982247'), beneficiary_name: 'Maria',
        beneficiary_lastname: 'Souza', bank_code: '260', bank_account: '12345-6', bank_branch: '0001', account_type: 'C',
      });
      assert.equal(r.status, 200, r.text);
      ids[name] = r.body.cashout_id;
      assert.equal((await v3.post(`/v3/sandbox/cashouts/${ids[name]}/deliver`, '')).status, 200);
      const { rows } = await s.ctx.db.query<{ bank_reference_id: string }>('SELECT bank_reference_id FROM cashouts WHERE id = $1', [ids[name]]);
      bankRef[name] = rows[0]!.bank_reference_id;
    };
    const cashoutStatus = async (id: number) => (await s.ctx.db.query<{ status: string; rejection_code: string | null }>('SELECT status, rejection_code FROM cashouts WHERE id = $1', [id])).rows[0]!;

    before(async () => {
      sim = await startPixSimulator({ tokenTtl: 60 });
      s = await startTestServer(backend, { CAJA_PIX_POLL_SECONDS: '3600', CAJA_CONNECTOR_TIMEOUT_MS: '3000' });
      assert.equal((await admin(s.url, 'PUT', '/admin/connectors/pix', sim.config)).status, 200);
      const own = { accounts: [{ country: 'BR', method: 'SB', beneficiary_name: 'Operadora Pagamentos Ltda', agency: '4417', account: '13009218-7', document: '11444777000161' }] };
      assert.equal((await admin(s.url, 'PUT', '/admin/connectors/own_accounts', own)).status, 200);
      m = await createMerchant(s.url, 'Loja');
      assert.equal((await admin(s.url, 'PATCH', `/admin/merchants/${m.merchant_id}`, { settlement_currency: 'BRL' })).status, 200);
      await fundMerchant(s, m.merchant_id, '1000.00', 'BRL', 'float');
      v3 = V3Client.deposits(s.url, m);
    });

    after(async () => {
      await assertLedgerOk(s.ctx.db);
      await s.close();
      await sim.stop();
    });

    test('the day: Pix, transfers to own accounts, boleto, PicPay, cashouts', async () => {
      await deposit('pix', 'IX', '100.00');
      const { rows } = await s.ctx.db.query<{ connector_reference: string }>('SELECT connector_reference FROM deposits WHERE id = $1', [ids.pix]);
      pixE2e = (await sim.control.pay(rows[0]!.connector_reference)).endToEndId;
      await until('Pix completed', () => depositStatus(ids.pix!), (x) => x === 'COMPLETED');
      const t = await deposit('transfer', 'SB', '250.00');
      assert.equal(t.payment_info.metadata.reference, depositReference(ids.transfer!));
      await deposit('byDocument', 'SB', '80.00', { payer: payer(JOAO) });
      await deposit('short', 'SB', '40.00');
      await deposit('byHand', 'SB', '60.00');
      await deposit('branch', 'SB', '70.00');
      await deposit('boleto', 'BL', '50.00', { payer: { ...payer(MARIA), address: ADDRESS } });
      await deposit('psp1', 'PP', '30.00');
      await deposit('psp2', 'PP', '20.00');
      await deposit('psp3', 'PP', '25.00');
      await deposit('psp4', 'PP', '15.00');
      for (const d of ['boleto', 'psp1', 'psp2', 'psp3', 'psp4']) assert.equal((await v3.post(`/v3/sandbox/deposits/${ids[d]}/approve`, '')).status, 200);
      for (const d of ['transfer', 'byDocument', 'short', 'byHand', 'branch']) assert.equal(await depositStatus(ids[d]!), 'PENDING');
      const { rows: amounts } = await s.ctx.db.query<{ id: number; payer_amount: string }>('SELECT id, payer_amount::text FROM deposits WHERE id = ANY($1)', [Object.values(ids)]);
      for (const a of amounts) assert.match(a.payer_amount, /^\d+\.\d{2}$/, `deposit ${a.id} payer amount`);
      await cashout('sent', '30.00');
      await cashout('paid', '45.00');
      assert.equal((await v3.post(`/v3/sandbox/cashouts/${ids.paid}/complete`, '')).status, 200);
    });

    test('camt.053: matched by reference, batch with its fee, cashout completed, confirmed and returned; the rest are exceptions', async () => {
      const day: Day = {
        statementId: `ITAU-${backend}-${TODAY}`, account: { iban: 'BR1800360305000010009795493C1' }, currency: 'BRL', date: TODAY, opening: '10000.00',
        movements: [
          { amount: '100.00', direction: 'credit', date: TODAY, bankId: 'C-1', endToEndId: pixE2e, counterparty: { name: 'Maria Souza', document: MARIA } },
          { amount: '250.00', direction: 'credit', date: TODAY, bankId: 'C-2', reference: depositReference(ids.transfer!) },
          { amount: '48.50', direction: 'credit', date: TODAY, bankId: 'C-3', info: 'PicPay settlement', batch: [
            { amount: '30.00', reference: depositReference(ids.psp1!) }, { amount: '20.00', reference: depositReference(ids.psp2!) }] },
          { amount: '30.00', direction: 'debit', date: TODAY, bankId: 'C-4', endToEndId: bankRef.sent },
          { amount: '45.00', direction: 'debit', date: TODAY, bankId: 'C-5', endToEndId: bankRef.paid },
          { amount: '45.00', direction: 'credit', date: TODAY, bankId: 'C-6', reversal: true, endToEndId: bankRef.paid, info: 'DEVOLUCAO' },
          { amount: '5.90', direction: 'debit', date: TODAY, bankId: 'C-7', info: 'TARIFA PACOTE' },
          { amount: '15.00', direction: 'credit', date: TODAY, bankId: 'C-8', reference: depositReference(99_999_999) },
        ],
      };
      files.camt = camt053(day);
      const r = await upload(s.url, files.camt, 'application/xml');
      assert.equal(r.status, 201, r.text);
      const open = async () => JSON.stringify((await admin(s.url, 'GET', '/admin/reconciliation/exceptions')).body.data.map((x: any) => [x.reason, x.detail]));
      assert.deepEqual({ ...r.body, statement_id: undefined }, { statement_id: undefined, entries: 8, matched: 6, exceptions: 2, repeated: 0 }, await open());
      assert.deepEqual(await matchesPerRule(s.ctx.db, r.body.statement_id), { reference: 5, settlement_batch: 1 });
      assert.equal(await depositStatus(ids.transfer!), 'COMPLETED');
      assert.deepEqual(await cashoutStatus(ids.sent!), { status: 'COMPLETED', rejection_code: null });
      assert.deepEqual(await cashoutStatus(ids.paid!), { status: 'REJECTED', rejection_code: '809' });
      // The transfer completed through the one completion path: history, event and the ledger credit.
      const { rows } = await s.ctx.db.query<{ cause: string; actor: string }>("SELECT cause, actor FROM deposit_status_changes WHERE deposit_id = $1 AND to_status = 'COMPLETED'", [ids.transfer]);
      assert.deepEqual(rows, [{ cause: 'payment', actor: 'bank' }]);
      const fees = await s.ctx.db.query<{ balance: string }>("SELECT balance::text FROM ledger_balances WHERE kind = 'bank_fees' AND currency = 'BRL'");
      assert.equal(Number(fees.rows[0]!.balance), -1.5);
      const against = await checkAgainstStatement(s.ctx.db, parseStatement('camt', files.camt));
      assert.equal(against.bank_balance, '10377.60');
      assert.equal(against.explained_by_exceptions, '9.10');
      assert.equal(against.unexplained, '0.00');
    });

    test('the same file again: 200 with the first figures and nothing changed; a malformed file: 400 and nothing imported', async () => {
      const count = async () => (await s.ctx.db.query<{ n: number }>('SELECT (SELECT count(*) FROM bank_entries)::int + (SELECT count(*) FROM bank_statements)::int AS n')).rows[0]!.n;
      const before = await count();
      const again = await upload(s.url, files.camt!, 'application/xml; charset=utf-8');
      assert.equal(again.status, 200, again.text);
      assert.deepEqual({ ...again.body, statement_id: undefined }, { statement_id: undefined, entries: 8, matched: 6, exceptions: 2, repeated: 0 });
      assert.equal(await count(), before);
      const broken = await upload(s.url, files.camt!.replace('<Amt Ccy="BRL">250.00</Amt>', '<Amt Ccy="BRL">250,00</Amt>').replace('ITAU-', 'OTHER-'), 'application/xml');
      assert.equal(broken.status, 400, broken.text);
      assert.equal(broken.body.type, 'INVALID_STATEMENT');
      assert.match(broken.body.details[0], /^Document\/BkToCstmrStmt\/Stmt\/Ntry\[1\]\/Amt: '250,00' is not an ISO 20022 amount$/);
      const cnabBroken = await upload(s.url, 'not a cnab file\n', 'text/plain');
      assert.equal(cnabBroken.status, 400);
      assert.match(cnabBroken.body.details[0], /^line 1: every line has 240 characters/);
      const ofxBroken = await upload(s.url, '<OFX><BANKMSGSRSV1></OFX>', 'application/octet-stream', '?format=ofx');
      assert.equal(ofxBroken.status, 400);
      assert.equal((await upload(s.url, '{"statement": "…"}', 'application/json')).status, 415);
      assert.equal((await upload(s.url, '', 'application/xml')).status, 400);
      assert.equal(await count(), before);
    });

    test('OFX: rule 2 by amount, date window and document; the others are exceptions', async () => {
      const day = {
        statementId: '', account: {}, currency: 'BRL', date: TODAY, opening: '500.00', bankId: '033', branch: '0001', accountId: `55501-${backend}`,
        movements: [
          { amount: '80.00', direction: 'credit' as const, date: TODAY, bankId: 'O-1', counterparty: { name: 'JOAO', document: JOAO } },
          { amount: '39.00', direction: 'credit' as const, date: TODAY, bankId: 'O-2', reference: depositReference(ids.short!) },
          { amount: '60.00', direction: 'credit' as const, date: TODAY, bankId: 'O-3', info: 'TED RECEBIDA' },
          { amount: '39.20', direction: 'credit' as const, date: TODAY, bankId: 'O-4', info: 'PICPAY LIQUIDACAO' },
        ],
      };
      files.ofx = ofx(day);
      const r = await upload(s.url, files.ofx, 'application/x-ofx');
      assert.equal(r.status, 201, r.text);
      assert.deepEqual({ ...r.body, statement_id: undefined }, { statement_id: undefined, entries: 4, matched: 1, exceptions: 3, repeated: 0 });
      assert.deepEqual(await matchesPerRule(s.ctx.db, r.body.statement_id), { amount_date_document: 1 });
      assert.equal(await depositStatus(ids.byDocument!), 'COMPLETED');
      assert.equal(await depositStatus(ids.short!), 'PENDING');
    });

    test('CNAB 240: a boleto liquidation confirmed by nosso número, a branch deposit completed by its document number', async () => {
      // The boleto's payer pays its surcharge too: the bank receives the payer amount.
      const { rows } = await s.ctx.db.query<{ payer_amount: string }>('SELECT payer_amount::text FROM deposits WHERE id = $1', [ids.boleto]);
      const boletoPaid = rows[0]!.payer_amount;
      files.cnab = cnab240({
        statementId: '', currency: 'BRL', date: TODAY, opening: '0.00', bank: '341', agency: '4417', account: `13009218${backend === 'pg' ? 1 : 2}`, digit: '7', nsa: 7,
        boletos: [{ nossoNumero: String(ids.boleto), amount: boletoPaid, fee: '2.00', payerDocument: MARIA, payerName: 'MARIA SOUZA', date: TODAY }],
        movements: [{ amount: '70.00', direction: 'credit', date: TODAY, bankId: '', reference: depositReference(ids.branch!), info: 'DEPOSITO EM AGENCIA' }],
      });
      const r = await upload(s.url, files.cnab, 'text/plain');
      assert.equal(r.status, 201, r.text);
      const open = async () => JSON.stringify((await admin(s.url, 'GET', '/admin/reconciliation/exceptions')).body.data.map((x: any) => [x.reason, x.detail]));
      assert.deepEqual({ ...r.body, statement_id: undefined }, { statement_id: undefined, entries: 2, matched: 2, exceptions: 0, repeated: 0 }, await open());
      assert.equal(await depositStatus(ids.branch!), 'COMPLETED');
      const matches = (await admin(s.url, "GET", `/admin/reconciliation/matches?statement_id=${r.body.statement_id}`)).body.data;
      assert.deepEqual(matches.map((x: any) => [x.rule, x.target.id, x.effect]).sort(), [['reference', ids.boleto, 'confirmed'], ['reference', ids.branch, 'completed']].sort());
    });

    test('the exceptions queue: listed with reasons and candidates, paged, and resolved', async () => {
      const list = await admin(s.url, 'GET', '/admin/reconciliation/exceptions?limit=100');
      assert.equal(list.status, 200, list.text);
      const byKey = new Map<string, any>(list.body.data.map((x: any) => [`${x.entry.amount}:${x.entry.direction}`, x]));
      assert.equal(list.body.data.length, 5);
      assert.equal(byKey.get('5.90:debit').reason, 'no_match');
      assert.equal(byKey.get('15.00:credit').reason, 'unknown_reference');
      const short = byKey.get('39.00:credit');
      assert.equal(short.reason, 'amount_differs');
      assert.deepEqual(short.candidates, [{ type: 'deposit', id: ids.short, status: 'PENDING', amount: '40.00', currency: 'BRL' }]);
      const byHand = byKey.get('60.00:credit');
      assert.equal(byHand.reason, 'no_match');
      assert.ok(byHand.candidates.some((c: any) => c.id === ids.byHand), JSON.stringify(byHand.candidates));
      const page1 = await admin(s.url, 'GET', '/admin/reconciliation/exceptions?limit=3');
      const page2 = await admin(s.url, 'GET', `/admin/reconciliation/exceptions?limit=3&before=${page1.body.next_before}`);
      assert.deepEqual([page1.body.data.length, page2.body.data.length, page2.body.next_before], [3, 2, null]);

      const resolve = (id: number, body: unknown) => admin(s.url, 'POST', `/admin/reconciliation/exceptions/${id}/resolve`, body);
      // A wrong target is refused by the service and nothing changes.
      const wrong = await resolve(short.id, { action: 'match', target: { type: 'deposit', id: ids.short } });
      assert.equal(wrong.status, 409, wrong.text);
      assert.match(wrong.body.description, /40\.00 BRL, the entry 39\.00 BRL/);
      assert.equal((await resolve(short.id, { action: 'teleport' })).status, 400);
      assert.equal((await resolve(short.id, { action: 'book_fee' })).status, 400);
      assert.equal((await resolve(2_000_000_000, { action: 'send_back' })).status, 404);
      const matched = await resolve(byHand.id, { action: 'match', target: { type: 'deposit', id: ids.byHand } });
      assert.equal(matched.status, 200, matched.text);
      assert.equal(matched.body.status, 'resolved');
      assert.equal(await depositStatus(ids.byHand!), 'COMPLETED');
      assert.equal((await resolve(short.id, { action: 'book_adjustment', reason: 'customer paid 1.00 short; agreed to absorb' })).status, 200);
      assert.equal((await resolve(byKey.get('5.90:debit').id, { action: 'book_fee', reason: 'monthly account fee' })).status, 200);
      assert.equal((await resolve(byKey.get('15.00:credit').id, { action: 'send_back', reason: 'unknown payer' })).status, 200);
      // A PSP settlement the OFX does not itemise: matched by hand to its deposits, the fee booked.
      const psp = byKey.get('39.20:credit');
      const tooMuch = await resolve(psp.id, { action: 'match', targets: [{ type: 'deposit', id: ids.psp3 }] });
      assert.equal(tooMuch.status, 409);
      assert.match(tooMuch.body.description, /sum to 25\.00, less than the 39\.20 credited/);
      const batch = await resolve(psp.id, { action: 'match', targets: [{ type: 'deposit', id: ids.psp3 }, { type: 'deposit', id: ids.psp4 }], reason: 'PicPay settlement of the 25th' });
      assert.equal(batch.status, 200, batch.text);
      const fees = await s.ctx.db.query<{ balance: string }>("SELECT balance::text FROM ledger_balances WHERE kind = 'bank_fees' AND currency = 'BRL'");
      assert.equal(Number(fees.rows[0]!.balance), -1.5 - 0.8 - 5.9);
      const again = await resolve(short.id, { action: 'send_back' });
      assert.equal(again.status, 409);
      assert.deepEqual((await admin(s.url, 'GET', '/admin/reconciliation/exceptions')).body.data, []);
      const audit = await s.ctx.db.query<{ action: string; n: number }>("SELECT action, count(*)::int AS n FROM operator_audit WHERE action LIKE 'reconciliation.%' GROUP BY action ORDER BY action");
      assert.deepEqual(audit.rows, [{ action: 'reconciliation.import', n: 3 }, { action: 'reconciliation.resolve', n: 5 }]);
      const imports = await admin(s.url, 'GET', '/admin/reconciliation/statements');
      assert.deepEqual(imports.body.data.map((i: any) => i.format), ['cnab240', 'ofx', 'camt053']);
      // A cursor past every serial id (the fuzzer found 2147483648 answered 500) is the first page.
      for (const list of ['statements', 'matches', 'exceptions?status=all']) {
        const first = await admin(s.url, 'GET', `/admin/reconciliation/${list}`);
        const past = await admin(s.url, 'GET', `/admin/reconciliation/${list}${list.includes('?') ? '&' : '?'}before=2147483648`);
        assert.equal(past.status, 200, `${list}: ${JSON.stringify(past.body)}`);
        assert.deepEqual(past.body.data, first.body.data);
      }
    });

    test('the ledger after: invariants hold, and each file agrees with the ledger with nothing unexplained', async () => {
      await assertLedgerOk(s.ctx.db);
      for (const [format, file] of [['camt', files.camt], ['ofx', files.ofx], ['cnab240', files.cnab]] as const) {
        const c = await checkAgainstStatement(s.ctx.db, parseStatement(format, file!));
        assert.deepEqual([c.imported, c.open_exceptions, c.explained_by_exceptions, c.unexplained, c.ok], [true, 0, '0.00', '0.00', true], `${format}: ${JSON.stringify(c)}`);
      }
      if (backend !== 'pg') return;
      // The CLI, beside the running server on PostgreSQL.
      const dir = mkdtempSync(join(tmpdir(), 'stmt-'));
      const file = join(dir, 'itau.xml');
      writeFileSync(file, files.camt!);
      const env = { ...process.env, DATABASE_URL: s.ctx.config.databaseUrl!, CAJA_MASTER_KEY: s.ctx.config.masterKey.toString('base64'), CAJA_ADMIN_TOKEN: ADMIN_TOKEN, CAJA_ENV: 'staging' };
      const { stdout } = await run(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', 'ledger', 'check', '--against', file], { env });
      const out = JSON.parse(stdout);
      assert.equal(out.ok, true, stdout);
      assert.equal(out.against.bank_balance, '10377.60');
      assert.equal(out.against.unexplained, '0.00');
    });

    if (backend === 'pg') {
      test('PostgreSQL: the same new file imported four times at once is imported once; one exception resolved twice at once is resolved once', async () => {
        const day: Day = {
          statementId: `RACE-${TODAY}`, account: { other: 'race-account' }, currency: 'BRL', date: TODAY, opening: '0.00',
          movements: Array.from({ length: 50 }, (_, i) => ({ amount: `${i + 1}.00`, direction: 'credit' as const, date: TODAY, bankId: `R-${i}` })),
        };
        const file = camt053(day);
        const answers = await Promise.all(Array.from({ length: 4 }, () => upload(s.url, file, 'application/xml')));
        assert.deepEqual(answers.map((a) => a.status).sort(), [200, 200, 200, 201], answers.map((a) => a.text).join('\n'));
        assert.ok(answers.every((a) => a.body.statement_id === answers[0]!.body.statement_id && a.body.entries === 50 && a.body.exceptions === 50));
        const { rows } = await s.ctx.db.query<{ n: number }>("SELECT count(*)::int AS n FROM bank_entries e JOIN bank_accounts a ON a.id = e.bank_account_id WHERE a.identifier = 'acct:race-account'");
        assert.equal(rows[0]!.n, 50);
        // Two operators resolving the same exception at once: one resolution, the other told so.
        const open = (await admin(s.url, 'GET', '/admin/reconciliation/exceptions?limit=1')).body.data[0];
        const both = await Promise.all([
          admin(s.url, 'POST', `/admin/reconciliation/exceptions/${open.id}/resolve`, { action: 'book_adjustment', reason: 'first operator' }),
          admin(s.url, 'POST', `/admin/reconciliation/exceptions/${open.id}/resolve`, { action: 'send_back', reason: 'second operator' }),
        ]);
        assert.deepEqual(both.map((r) => r.status).sort(), [200, 409]);
        const booked = await s.ctx.db.query<{ n: number }>("SELECT count(*)::int AS n FROM ledger_transfers WHERE kind = 'bank.entry' AND subject_id = $1", [open.entry.id]);
        assert.equal(booked.rows[0]!.n, 1);
      });

      test('PostgreSQL: two banks\' statements naming one pending deposit at once complete it once; a notification and its statement at once store each entry once', async () => {
        await deposit('twice', 'SB', '33.00');
        const credit = (bankId: string) => ({ amount: '33.00', direction: 'credit' as const, date: TODAY, bankId, reference: depositReference(ids.twice!) });
        const a = camt053({ statementId: `A-${TODAY}`, account: { other: 'bank-a' }, currency: 'BRL', date: TODAY, opening: '0.00', movements: [credit('A-1')] });
        const b = camt053({ statementId: `B-${TODAY}`, account: { other: 'bank-b' }, currency: 'BRL', date: TODAY, opening: '0.00', movements: [credit('B-1')] });
        const [ra, rb] = await Promise.all([upload(s.url, a, 'application/xml'), upload(s.url, b, 'application/xml')]);
        assert.deepEqual([ra.status, rb.status], [201, 201], ra.text + rb.text);
        assert.deepEqual([ra.body.matched + rb.body.matched, ra.body.exceptions + rb.body.exceptions], [1, 1]);
        const { rows } = await s.ctx.db.query<{ n: number }>("SELECT count(*)::int AS n FROM deposit_status_changes WHERE deposit_id = $1 AND to_status = 'COMPLETED'", [ids.twice]);
        assert.equal(rows[0]!.n, 1);
        const movements = [credit('C-1'), { amount: '1.00', direction: 'debit' as const, date: TODAY, bankId: 'C-2' }];
        const ntf = camt054({ statementId: `C-NTF-${TODAY}`, account: { other: 'bank-c' }, currency: 'BRL', date: TODAY, opening: '0.00', movements });
        const stmt = camt053({ statementId: `C-${TODAY}`, account: { other: 'bank-c' }, currency: 'BRL', date: TODAY, opening: '0.00', movements });
        const [rn, rs] = await Promise.all([upload(s.url, ntf, 'application/xml'), upload(s.url, stmt, 'application/xml')]);
        assert.deepEqual([rn.status, rs.status], [201, 201], rn.text + rs.text);
        assert.equal(rn.body.repeated + rs.body.repeated, 2);
        const entries = await s.ctx.db.query<{ n: number }>("SELECT count(*)::int AS n FROM bank_entries e JOIN bank_accounts a ON a.id = e.bank_account_id WHERE a.identifier = 'acct:bank-c'");
        assert.equal(entries.rows[0]!.n, 2);
      });
    }
  });
}
