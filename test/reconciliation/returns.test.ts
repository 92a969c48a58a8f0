// Returns of cashouts on a bank statement: only what the bank asserts (a reversal, named by the
// bank's references of the original: end-to-end id, clave de rastreo, the bank's own id) returns a
// paid cashout (REJECTED 809, money back to the merchant). Text a payer chooses (the remittance
// information of a credit) never decides a cashout, and neither does a credit the bank does not
// mark as a return: those are exceptions for the operator.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { ADMIN_TOKEN, backends, startTestServer, type TestServer } from '../helpers/server.ts';
import { admin, cashoutRequest, createMerchant, type Credentials, type Res, V3Client } from '../helpers/clients.ts';
import { cpf } from '../helpers/documents.ts';
import { assertLedgerOk } from '../helpers/ledger.ts';
import { camt053 } from '../helpers/statements.ts';
import { fundMerchant } from '../helpers/four-eyes.ts';

const TODAY = new Date().toISOString().slice(0, 10);

async function upload(base: string, body: string): Promise<Res> {
  const r = await fetch(`${base}/admin/reconciliation/statements`, { method: 'POST', headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/xml' }, body });
  const text = await r.text();
  return { status: r.status, headers: r.headers, body: JSON.parse(text), text };
}

for (const backend of backends()) {
  describe(`cashout returns on a statement: the bank's assertion, never payer text (${backend})`, () => {
    let s: TestServer;
    let m: Credentials;
    let v3: V3Client;
    let n = 0;

    before(async () => {
      s = await startTestServer(backend);
      m = await createMerchant(s.url, 'Loja');
      assert.equal((await admin(s.url, 'PATCH', `/admin/merchants/${m.merchant_id}`, { settlement_currency: 'BRL' })).status, 200);
      await fundMerchant(s, m.merchant_id, '1000.00', 'BRL', 'float');
      v3 = V3Client.deposits(s.url, m);
    });

    after(async () => {
      await assertLedgerOk(s.ctx.db);
      await s.close();
    });

    /** A cashout the bank paid: COMPLETED, with the bank's reference (STP: its clave de rastreo). */
    async function paidCashout(amount: string) {
      const r = await cashoutRequest(s.url, m, 'POST', '/v3/cashout', {
        external_id: `ret-${backend}-${++n}-${Date.now()}`, country: 'BR', currency: 'BRL', amount, document_id: cpf('529982247'), beneficiary_name: 'Maria',
        beneficiary_lastname: 'Souza', bank_code: '260', bank_account: '12345-6', bank_branch: '0001', account_type: 'C',
      });
      assert.equal(r.status, 200, r.text);
      const id = r.body.cashout_id as number;
      assert.equal((await v3.post(`/v3/sandbox/cashouts/${id}/deliver`, '')).status, 200);
      assert.equal((await v3.post(`/v3/sandbox/cashouts/${id}/complete`, '')).status, 200);
      const { rows } = await s.ctx.db.query<{ bank_reference_id: string }>('SELECT bank_reference_id FROM cashouts WHERE id = $1', [id]);
      return { id, bankRef: rows[0]!.bank_reference_id };
    }
    const state = async (id: number) => {
      const c = (await s.ctx.db.query<{ status: string; rejection_code: string | null }>('SELECT status, rejection_code FROM cashouts WHERE id = $1', [id])).rows[0]!;
      const notes = (await s.ctx.db.query<{ n: number }>('SELECT count(*)::int AS n FROM notifications WHERE subject_key = $1', [`cashout:${id}`])).rows[0]!.n;
      return { ...c, notes };
    };

    test('a credit whose remittance text carries a paid cashout\'s reference leaves it COMPLETED, no 809, an exception for the operator', async () => {
      const free = await paidCashout('41.00');
      const unflagged = await paidCashout('42.00');
      const before = { free: await state(free.id), unflagged: await state(unflagged.id) };
      const r = await upload(s.url, camt053({
        statementId: `RET-${backend}-${Date.now()}`, account: { other: `ret-${backend}-1` }, currency: 'BRL', date: TODAY, opening: '0.00',
        movements: [
          // A payer's transfer with the cashout's reference typed in its remittance information.
          { amount: '41.00', direction: 'credit', date: TODAY, bankId: 'R-1', reference: free.bankRef, info: 'PIX RECEBIDO' },
          // A credit naming the cashout in the clearing reference but that the bank does not mark a return.
          { amount: '42.00', direction: 'credit', date: TODAY, bankId: 'R-2', claveRastreo: unflagged.bankRef },
        ],
      }));
      assert.equal(r.status, 201, r.text);
      assert.equal(r.body.matched, 0, r.text);
      assert.equal(r.body.exceptions, 2, r.text);
      assert.deepEqual(await state(free.id), { ...before.free, status: 'COMPLETED', rejection_code: null });
      assert.deepEqual(await state(unflagged.id), { ...before.unflagged, status: 'COMPLETED', rejection_code: null });
      const listed = await admin(s.url, 'GET', '/admin/reconciliation/exceptions');
      const unflaggedException = listed.body.data.find((x: { detail: string }) => x.detail.includes(`cashout ${unflagged.id}`));
      assert.ok(unflaggedException, listed.text);
      assert.equal(unflaggedException.reason, 'not_completable');
      await assertLedgerOk(s.ctx.db);
    });

    test('a return the bank asserts (reversal, its reference of the original) returns the paid cashout: REJECTED 809', async () => {
      const c = await paidCashout('43.00');
      const r = await upload(s.url, camt053({
        statementId: `RET2-${backend}-${Date.now()}`, account: { other: `ret-${backend}-2` }, currency: 'BRL', date: TODAY, opening: '0.00',
        movements: [{ amount: '43.00', direction: 'credit', date: TODAY, bankId: 'R-3', reversal: true, claveRastreo: c.bankRef, info: 'DEVOLUCION' }],
      }));
      assert.equal(r.status, 201, r.text);
      assert.equal(r.body.matched, 1, r.text);
      const after = await state(c.id);
      assert.deepEqual([after.status, after.rejection_code], ['REJECTED', '809']);
      await assertLedgerOk(s.ctx.db);
    });
  });
}
