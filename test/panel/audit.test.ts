// The panel's audit rows are part of their action's transaction (issue 28, item 4): when the
// audit row cannot be written the money action does not happen either (the table is made to
// refuse every new row with a CHECK that is always false, on this server's own database), a
// refused action writes no row, and each audited action leaves exactly one.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { cashoutRequest, V3Client, type Credentials } from '../helpers/clients.ts';
import { backends, type TestServer } from '../helpers/server.ts';
import { startWithMerchants } from '../helpers/merchants.ts';
import { cpf } from '../helpers/documents.ts';
import { PanelClient } from './helpers.ts';

const BR_CASHOUT = (over: Record<string, unknown> = {}) => ({
  country: 'BR', currency: 'USD', amount: '10.00', document_id: cpf('529982247'), beneficiary_name: 'Maria', beneficiary_lastname: 'Souza',
  bank_code: '260', bank_account: '12345-6', bank_branch: '0001', account_type: 'C', ...over,
});
const BANK = { beneficiary: 'Maria Souza', bank_code: '341', branch: '0001', account_number: '12345-4', account_type: 'CHECKING' };
const PAYER = { document: '529.982.247-25', first_name: 'Ana', last_name: 'Silva', email: 'ana@example.com' };
const IMPORT_HEADER = 'external_id,country,currency,amount,document_id,beneficiary_name,beneficiary_lastname,bank_code,bank_branch,bank_account,account_type';

for (const backend of backends()) {
  describe(`panel audit in the action's transaction (${backend})`, () => {
    let s: TestServer;
    let a: Credentials;
    let c: PanelClient;
    let n = 0;
    const ext = () => `au-${backend}-${++n}-${Date.now()}`;

    before(async () => {
      ({ s, merchants: [a] } = await startWithMerchants(backend, { CAJA_CASHOUT_DELAY_SECONDS: '600' }, [{ name: 'Audited shop', funds: '1000.00' }]));
      c = new PanelClient(s.url);
      assert.equal((await c.signIn(a.panel.email, a.panel.password)).url, '/panel');
    });
    after(() => s.close());

    const one = async <T = any>(sql: string, params: unknown[] = []) => (await s.ctx.db.query<T>(sql, params)).rows[0];
    const auditRows = async (action: string, subject?: string) =>
      Number((await one<{ n: number }>(
        'SELECT count(*)::int AS n FROM panel_audit WHERE merchant_id = $1 AND action = $2 AND ($3::text IS NULL OR subject = $3)',
        [a.merchant_id, action, subject ?? null],
      ))!.n);
    const allAuditRows = async () => Number((await one<{ n: number }>('SELECT count(*)::int AS n FROM panel_audit WHERE merchant_id = $1', [a.merchant_id]))!.n);

    /** Runs fn while panel_audit refuses every new row; answers what fn answered. */
    async function auditRefused<T>(fn: () => Promise<T>): Promise<T> {
      await s.ctx.db.exec('ALTER TABLE panel_audit ADD CONSTRAINT audit_refused CHECK (false) NOT VALID');
      try {
        return await fn();
      } finally {
        await s.ctx.db.exec('ALTER TABLE panel_audit DROP CONSTRAINT audit_refused');
      }
    }

    const pendingDeposit = async (): Promise<number> => {
      const dep = await V3Client.deposits(s.url, a).post('/v3/deposits', { country: 'BR', amount: '10.00', payment_method: 'IX', payer: PAYER });
      assert.equal(dep.status, 200, dep.text);
      return dep.body.deposit_id;
    };
    const completedDeposit = async (): Promise<number> => {
      const id = await pendingDeposit();
      assert.equal((await V3Client.deposits(s.url, a).post(`/v3/sandbox/deposits/${id}/approve`, {})).status, 200);
      return id;
    };
    const apiCashout = async (): Promise<number> => {
      const r = await cashoutRequest(s.url, a, 'POST', '/v3/cashout', BR_CASHOUT({ external_id: ext() }));
      assert.equal(r.status, 200, r.text);
      return r.body.cashout_id;
    };
    const depositStatus = async (id: number) => (await one<{ status: string }>('SELECT status FROM deposits WHERE id = $1', [id]))!.status;
    const cashoutStatus = async (id: number) => (await one<{ status: string }>('SELECT status FROM cashouts WHERE id = $1', [id]))!.status;
    const upload = async (text: string) => {
      const csrf = /name="csrf" value="([^"]+)"/.exec((await c.get('/panel/cashouts/import')).html)![1]!;
      const fd = new FormData();
      fd.set('csrf', csrf);
      fd.set('file', new Blob([text], { type: 'text/csv' }), 'batch.csv');
      return c.request('POST', '/panel/cashouts/import', fd);
    };
    const importLine = (e: string) => `${e},BR,USD,5.00,${cpf('529982247')},Maria,Souza,260,0001,12345-6,C`;

    test('when the audit row cannot be written, the action does not happen', async () => {
      const audited = await allAuditRows();

      // A refund: no refund, no reservation, no event.
      const paid = await completedDeposit();
      const refund = await auditRefused(() => c.submit(`/panel/deposits/${paid}`, `/panel/deposits/${paid}/refund`, { amount: '2.00', ...BANK }));
      assert.equal(refund.status, 500);
      assert.equal((await one('SELECT count(*)::int AS n FROM refunds WHERE deposit_id = $1', [paid]))!.n, 0, 'no refund');
      assert.equal((await one(`SELECT count(*)::int AS n FROM events WHERE merchant_id = $1 AND type = 'refund.created'`, [a.merchant_id]))!.n, 0, 'no refund event');

      // A cashout: not created, its funds not reserved, its external_id still free.
      const external = ext();
      const created = await auditRefused(() => c.submit('/panel/cashouts/new', '/panel/cashouts', BR_CASHOUT({ external_id: external })));
      assert.equal(created.status, 500);
      assert.equal((await one('SELECT count(*)::int AS n FROM cashouts WHERE merchant_id = $1 AND external_id = $2', [a.merchant_id, external]))!.n, 0, 'no cashout');
      const again = await c.submit('/panel/cashouts/new', '/panel/cashouts', BR_CASHOUT({ external_id: external }));
      assert.match(again.url, /^\/panel\/cashouts\/\d+\?done=created$/, 'the external_id was never used');

      // Hold and cancel: the cashout keeps its status and its history.
      for (const trigger of ['hold', 'cancel']) {
        const id = await apiCashout();
        const r = await auditRefused(() => c.submit(`/panel/cashouts/${id}`, `/panel/cashouts/${id}/${trigger}`));
        assert.equal(r.status, 500, trigger);
        assert.equal(await cashoutStatus(id), 'PENDING', trigger);
        assert.equal((await one('SELECT count(*)::int AS n FROM cashout_status_changes WHERE cashout_id = $1', [id]))!.n, 1, trigger);
      }

      // A cashout import: no cashout of the file.
      const rows = [ext(), ext()];
      const imported = await auditRefused(() => upload([IMPORT_HEADER, ...rows.map(importLine)].join('\n')));
      assert.equal(imported.status, 500);
      assert.equal((await one('SELECT count(*)::int AS n FROM cashouts WHERE merchant_id = $1 AND external_id = ANY($2)', [a.merchant_id, rows]))!.n, 0);

      // Staging's simulated outcomes of a deposit and of a refund.
      for (const action of ['approve', 'cancel']) {
        const id = await pendingDeposit();
        const r = await auditRefused(() => c.submit(`/panel/deposits/${id}`, `/panel/deposits/${id}/sandbox/${action}`));
        assert.equal(r.status, 500, action);
        assert.equal(await depositStatus(id), 'PENDING', action);
      }
      const pendingRefund = await V3Client.deposits(s.url, a).post('/v3/refunds', { deposit_id: paid, amount: '1.00', bank_account: BANK });
      assert.equal(pendingRefund.status, 200, pendingRefund.text);
      const rid = pendingRefund.body.refund_id;
      assert.equal((await auditRefused(() => c.submit(`/panel/deposits/${paid}`, `/panel/refunds/${rid}/complete`))).status, 500);
      assert.equal((await one<{ status: string }>('SELECT status FROM refunds WHERE id = $1', [rid]))!.status, 'PENDING');

      // Credentials, settings, a notification resent, a team invitation.
      const creds = () => one('SELECT login, secret_hash, secret_enc FROM credentials WHERE merchant_id = $1 AND set_name = $2', [a.merchant_id, 'deposits']);
      const before = await creds();
      assert.equal((await auditRefused(() => c.submit('/panel/settings/api/rotate?set=deposits', '/panel/settings/api/rotate', { set: 'deposits' }))).status, 500);
      assert.deepEqual(await creds(), before, 'the old credentials stand');
      assert.equal((await auditRefused(() => c.submit('/panel/settings/api', '/panel/settings/urls', { notification_url: '', return_url: 'https://shop.example/back', logo_url: '' }))).status, 500);
      assert.equal((await one('SELECT return_url FROM merchants WHERE id = $1', [a.merchant_id]))!.return_url, null);
      await c.submit('/panel/settings/api', '/panel/settings/urls', { notification_url: 'http://127.0.0.1:9/hook', return_url: '', logo_url: '' });
      const notified = await completedDeposit();
      const note = await one<{ id: number }>(`SELECT id FROM notifications WHERE merchant_id = $1 ORDER BY id DESC LIMIT 1`, [a.merchant_id]);
      assert.ok(note, 'a notification of the approved deposit');
      assert.equal((await auditRefused(() => c.submit(`/panel/deposits/${notified}`, `/panel/notifications/${note.id}/resend`))).status, 500);
      assert.equal((await one('SELECT resent_at FROM notifications WHERE id = $1', [note.id]))!.resent_at, null, 'not resent');
      const email = `invited-${backend}@example.com`;
      assert.equal((await auditRefused(() => c.submit('/panel/team', '/panel/team/invite', { email, role: 'support' }))).status, 500);
      assert.equal((await one('SELECT count(*)::int AS n FROM panel_users WHERE merchant_id = $1 AND email = $2', [a.merchant_id, email]))!.n, 0);

      // The rows written here are those of the actions done with the audit working: the retried
      // cashout and the settings change.
      assert.equal(await allAuditRows(), audited + 2);
    });

    test('each audited panel action leaves exactly one row; a refused action none', async () => {
      const paid = await completedDeposit();
      const refund = await c.submit(`/panel/deposits/${paid}`, `/panel/deposits/${paid}/refund`, { amount: '2.00', ...BANK });
      assert.match(refund.url, /done=refund/);
      assert.equal(await auditRows('refund.created', `deposit:${paid}`), 1);
      const tooMuch = await c.submit(`/panel/deposits/${paid}`, `/panel/deposits/${paid}/refund`, { amount: '500.00', ...BANK });
      assert.equal(tooMuch.status, 422);
      assert.equal(await auditRows('refund.created', `deposit:${paid}`), 1, 'the refused refund wrote none');

      const rid = Number(/refund=(\d+)/.exec(refund.url)![1]);
      await c.submit(`/panel/deposits/${paid}`, `/panel/refunds/${rid}/complete`);
      assert.equal(await auditRows('refund.sandbox_complete', `refund:${rid}`), 1);
      await c.submit(`/panel/deposits/${paid}`, `/panel/refunds/${rid}/reject`);
      assert.equal(await auditRows('refund.sandbox_reject', `refund:${rid}`), 0, 'a completed refund cannot be rejected: no row');

      const created = await c.submit('/panel/cashouts/new', '/panel/cashouts', BR_CASHOUT({ external_id: ext() }));
      const cid = Number(/\/panel\/cashouts\/(\d+)/.exec(created.url)![1]);
      assert.equal(await auditRows('cashout.created', `cashout:${cid}`), 1);
      for (const trigger of ['hold', 'release', 'cancel']) {
        await c.submit(`/panel/cashouts/${cid}`, `/panel/cashouts/${cid}/${trigger}`);
        assert.equal(await auditRows(`cashout.${trigger}`, `cashout:${cid}`), 1, trigger);
      }
      assert.equal(await cashoutStatus(cid), 'CANCELLED');
      const twice = await c.submit(`/panel/cashouts/${cid}`, `/panel/cashouts/${cid}/cancel`);
      assert.equal(twice.status, 409);
      assert.equal(await auditRows('cashout.cancel', `cashout:${cid}`), 1, 'the refused cancellation wrote none');

      const rows = [ext(), ext()];
      const imported = await upload([IMPORT_HEADER, ...rows.map(importLine)].join('\n'));
      assert.match(imported.html, /2 cashouts created/);
      const ids = (await s.ctx.db.query<{ id: number }>('SELECT id FROM cashouts WHERE merchant_id = $1 AND external_id = ANY($2)', [a.merchant_id, rows])).rows;
      for (const { id } of ids) assert.equal(await auditRows('cashout.created', `cashout:${id}`), 1, 'each imported cashout, in its own transaction');
      assert.equal(await auditRows('cashouts.imported'), 1);

      for (const action of ['approve', 'cancel']) {
        const id = await pendingDeposit();
        await c.submit(`/panel/deposits/${id}`, `/panel/deposits/${id}/sandbox/${action}`);
        assert.equal(await auditRows(`deposit.sandbox_${action}`, `deposit:${id}`), 1, action);
        await c.submit(`/panel/deposits/${id}`, `/panel/deposits/${id}/sandbox/${action}`);
        assert.equal(await auditRows(`deposit.sandbox_${action}`, `deposit:${id}`), 1, `${action} again is refused and wrote none`);
      }

      const urls = await auditRows('settings.urls_changed');
      await c.submit('/panel/settings/api', '/panel/settings/urls', { notification_url: 'http://127.0.0.1:9/hook', return_url: '', logo_url: '' });
      assert.equal(await auditRows('settings.urls_changed'), urls + 1);
      await c.submit('/panel/settings/api', '/panel/settings/urls', { notification_url: 'javascript:alert(1)', return_url: '', logo_url: '' });
      assert.equal(await auditRows('settings.urls_changed'), urls + 1, 'refused URLs wrote none');
      await completedDeposit();
      const note = (await one<{ id: number }>(`SELECT id FROM notifications WHERE merchant_id = $1 ORDER BY id DESC LIMIT 1`, [a.merchant_id]))!;
      await c.submit('/panel/notifications', `/panel/notifications/${note.id}/resend`);
      assert.equal(await auditRows('notification.resent', `notification:${note.id}`), 1);
      await c.submit('/panel/notifications', '/panel/notifications/99999999/resend');
      assert.equal(await auditRows('notification.resent', 'notification:99999999'), 0);
      // Last: the API client's deposits credentials stop working.
      await c.submit('/panel/settings/api/rotate?set=deposits', '/panel/settings/api/rotate', { set: 'deposits' });
      assert.equal(await auditRows('credentials.rotated', 'credentials:deposits'), 1);
    });
  });
}
