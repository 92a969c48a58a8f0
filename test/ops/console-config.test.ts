// The console's fee schedules, connector settings and statement uploads over HTTP, as a browser
// posts them: fees per merchant validated box by box and charged to the merchant's next deposit
// (finance may, support may not); the STP and own-accounts configuration with write-only secrets
// (an empty secret keeps the stored one, none is ever on a page), admin only; a statement file
// uploaded as multipart answered with the API's figures (again: nothing changes; malformed: what
// is wrong, nothing imported); a credit matched to several deposits in one resolution. Audited.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { admin, createMerchant, V3Client, type Credentials } from '../helpers/clients.ts';
import { cpf } from '../helpers/documents.ts';
import { backends, startTestServer, type TestServer } from '../helpers/server.ts';
import { ofx } from '../helpers/statements.ts';
import { startStpSimulator, type StpSimulator } from '../helpers/stp-simulator.ts';
import { storedSecrets } from '../../src/connectors/store.ts';
import { makeOperator, signedIn, type OpsClient, type TestOperator } from './helpers.ts';

const payer = { document: cpf('529982247'), first_name: 'Maria', last_name: 'Souza', email: 'maria@example.com' };
const csrfOf = (html: string) => /name="csrf" value="([^"]+)"/.exec(html)?.[1] ?? '';
const audits = async (s: TestServer, action: string) =>
  (await s.ctx.db.query<{ actor: string; detail: Record<string, unknown> }>('SELECT actor, detail FROM operator_audit WHERE action = $1 ORDER BY id', [action])).rows;

for (const backend of backends()) {
  describe(`console: fees, connectors, statements (${backend})`, () => {
    let s: TestServer;
    let sim: StpSimulator;
    let m: Credentials;
    const ops: Record<string, TestOperator> = {};
    let seq = 0;

    before(async () => {
      sim = await startStpSimulator();
      s = await startTestServer(backend);
      m = await createMerchant(s.url, 'Loja Fees');
      for (const role of ['admin', 'finance', 'support'] as const) ops[role] = await makeOperator(s, role);
    });
    after(async () => {
      await s.close();
      await sim.stop();
    });

    async function pixDeposit(amount = '100.00', currency = 'USD') {
      const r = await V3Client.deposits(s.url, m).post('/v3/deposits', { invoice_id: `cc-${process.pid}-${++seq}`, country: 'BR', currency, amount, payment_method: 'IX', payer });
      assert.equal(r.status, 200, r.text);
      return r.body.deposit_id as number;
    }

    test('fees: boxes checked one by one; the schedule charges the next deposit, not the last; support sees no form', async () => {
      const before = await pixDeposit();
      const f = await signedIn(s, ops.finance!);
      const page = await f.get(`/ops/merchants/${m.merchant_id}`);
      assert.match(page.html, new RegExp(`href="/ops/merchants/${m.merchant_id}/fees">Change fees<`));
      const bad = await f.submit(`/ops/merchants/${m.merchant_id}/fees`, `/ops/merchants/${m.merchant_id}/fees`, { 'fee-BANK_TRANSFER': '100', 'fee-VOUCHER': '1.23456', 'surcharge-VOUCHER': 'abc', 'fee-WALLET': '2.25' });
      assert.equal(bad.status, 400);
      assert.match(bad.html, /3 value\(s\) need correcting; nothing was saved\./);
      assert.match(bad.html, /id="f-fee-BANK_TRANSFER"[^>]*aria-invalid="true"/);
      assert.match(bad.html, /id="f-fee-BANK_TRANSFER-err">must be less than 100</);
      assert.match(bad.html, /id="f-fee-VOUCHER-err">must be a decimal number with at most 4 decimals/);
      assert.match(bad.html, /id="f-surcharge-VOUCHER-err">/);
      assert.match(bad.html, /id="f-fee-WALLET"[^>]*value="2\.25"/, 'what was typed stays');
      assert.equal((await audits(s, 'merchant.fees')).length, 0);

      const ok = await f.submit(`/ops/merchants/${m.merchant_id}/fees`, `/ops/merchants/${m.merchant_id}/fees`, { 'fee-BANK_TRANSFER': '0.75', 'surcharge-VOUCHER': '0' });
      assert.equal(ok.url, `/ops/merchants/${m.merchant_id}/fees?done=saved`);
      assert.match(ok.html, /id="f-fee-BANK_TRANSFER"[^>]*value="0\.75"/);
      const v3 = V3Client.deposits(s.url, m);
      assert.equal((await v3.get(`/v3/deposits/${await pixDeposit()}`)).body.fee_amount, 0.75);
      assert.equal((await v3.get(`/v3/deposits/${before}`)).body.fee_amount, 1.5, 'made before the change: its fee stays');
      const card = await f.get(`/ops/merchants/${m.merchant_id}`);
      assert.match(card.html, /<b>0\.75<\/b><br><span class="hint">own<\/span>/);
      const [row] = await audits(s, 'merchant.fees');
      assert.deepEqual([row!.actor, row!.detail], [ops.finance!.email, { before: {}, after: { fee: { BANK_TRANSFER: '0.75' }, surcharge: { VOUCHER: '0' } } }]);

      const sup = await signedIn(s, ops.support!);
      const seen = await sup.get(`/ops/merchants/${m.merchant_id}/fees`);
      assert.equal(seen.status, 200);
      assert.doesNotMatch(seen.html, /<form method="post" action="\/ops\/merchants\/\d+\/fees"/);
      assert.equal((await sup.submit(`/ops/merchants/${m.merchant_id}/fees`, `/ops/merchants/${m.merchant_id}/fees`, { 'fee-BANK_TRANSFER': '0' })).status, 403);
    });

    test('fees: the chargeback fee box (USD) checked by the API\'s rule, saved as the merchant\'s own, shown on the merchant page and by the admin API', async () => {
      const f = await signedIn(s, ops.finance!);
      const form = await f.get(`/ops/merchants/${m.merchant_id}/fees`);
      assert.match(form.html, /id="f-chargeback-hint">[^<]*15\.00/);
      const bad = await f.submit(`/ops/merchants/${m.merchant_id}/fees`, `/ops/merchants/${m.merchant_id}/fees`, { chargeback: '1.234' });
      assert.equal(bad.status, 400);
      assert.match(bad.html, /id="f-chargeback"[^>]*aria-invalid="true"/);
      assert.match(bad.html, /id="f-chargeback-err">must be a decimal number with at most 2 decimals/);
      const ok = await f.submit(`/ops/merchants/${m.merchant_id}/fees`, `/ops/merchants/${m.merchant_id}/fees`, { chargeback: '12.5' });
      assert.equal(ok.url, `/ops/merchants/${m.merchant_id}/fees?done=saved`);
      assert.match(ok.html, /id="f-chargeback"[^>]*value="12\.50"/);
      assert.match((await f.get(`/ops/merchants/${m.merchant_id}`)).html, /<span id="chargeback-fee"><b>12\.50<\/b> \(own\)<\/span>/);
      const api = await admin(s.url, 'GET', `/admin/merchants/${m.merchant_id}/fees`);
      assert.deepEqual([api.body.chargeback, api.body.overrides.chargeback], ['12.50', '12.50']);
      const row = (await audits(s, 'merchant.fees')).at(-1);
      assert.equal((row!.detail as any).after.chargeback, '12.50');
    });

    test('connectors: STP configured from the console with write-only secrets; own accounts set and removed; admin only', async () => {
      const fin = await signedIn(s, ops.finance!);
      assert.equal((await fin.get('/ops/connectors/stp')).status, 403);
      const a = await signedIn(s, ops.admin!);
      assert.match((await a.get('/ops/connectors')).html, /href="\/ops\/connectors\/stp">Configure STP</);
      const fields = { ...sim.config } as unknown as Record<string, string>;
      const bad = await a.submit('/ops/connectors/stp', '/ops/connectors/stp', { ...fields, api_url: 'http://stp.example', clabe_prefix: '12345' });
      assert.equal(bad.status, 400);
      assert.match(bad.html, /id="f-api_url"[^>]*aria-invalid="true"/);
      assert.match(bad.html, /id="f-clabe_prefix-err">/);
      assert.ok(!bad.html.includes(sim.config.private_key_passphrase) && !bad.html.includes('PRIVATE KEY'), 'a secret was sent back');

      const saved = await a.submit('/ops/connectors/stp', '/ops/connectors/stp', fields);
      assert.equal(saved.url, '/ops/connectors/stp?done=saved', saved.html.slice(0, 500));
      assert.ok(!saved.html.includes(sim.config.private_key_passphrase) && !saved.html.includes('PRIVATE KEY'));
      assert.match(saved.html, /id="f-private_key-hint">Set\. Leave empty to keep it\./);
      const first = await storedSecrets(s.ctx, 'stp');
      // A setting changed, the secrets left empty: the stored ones stay.
      const renamed = await a.submit('/ops/connectors/stp', '/ops/connectors/stp', { ...fields, ordering_name: 'Caja Operadora', private_key: '', private_key_passphrase: '' });
      assert.equal(renamed.url, '/ops/connectors/stp?done=saved', renamed.html.slice(0, 500));
      assert.deepEqual(await storedSecrets(s.ctx, 'stp'), first);
      assert.match(renamed.html, /value="Caja Operadora"/);
      const rows = await audits(s, 'connector.configured');
      assert.deepEqual(rows.map((r) => [r.actor, r.detail.secrets_set]), [[ops.admin!.email, ['private_key', 'private_key_passphrase']], [ops.admin!.email, []]]);
      assert.ok(!JSON.stringify(rows).includes(sim.config.private_key_passphrase));

      const noCnpj = await a.submit('/ops/connectors/own_accounts', '/ops/connectors/own_accounts', { country: 'BR', method: 'BB', beneficiary_name: 'Caja Pagamentos', agency: '0001', account: '12345-6' });
      assert.equal(noCnpj.status, 400);
      assert.match(noCnpj.html, /id="f-document-err">/);
      const put = await a.submit('/ops/connectors/own_accounts', '/ops/connectors/own_accounts', { country: 'br', method: 'bb', beneficiary_name: 'Caja Pagamentos', agency: '0001', account: '12345-6', document: '11.222.333/0001-81' });
      assert.equal(put.url, '/ops/connectors/own_accounts?done=saved', put.html.slice(0, 800));
      assert.match(put.html, /Caja Pagamentos/);
      const mx = await a.submit('/ops/connectors/own_accounts', '/ops/connectors/own_accounts', { country: 'MX', method: 'SE', beneficiary_name: 'Caja MX', account: '002010077777777771' });
      assert.equal(mx.url, '/ops/connectors/own_accounts?done=saved', mx.html.slice(0, 800));
      const removed = await a.request('POST', '/ops/connectors/own_accounts/remove', new URLSearchParams({ csrf: csrfOf(mx.html), country: 'MX', method: 'SE' }));
      assert.equal(removed.url, '/ops/connectors/own_accounts?done=saved');
      assert.doesNotMatch(removed.html, /Caja MX/);
      assert.deepEqual((await audits(s, 'connector.own_account_removed')).map((r) => r.actor), [ops.admin!.email]);
    });

    test('statements: uploaded as multipart with the API figures, again changes nothing, malformed names the problem; a batch match settles two deposits', async () => {
      const f = await signedIn(s, ops.finance!);
      const today = s.ctx.now().toISOString().slice(0, 10);
      // Two completed deposits in BRL that the PSP settles with one credit, less its fee.
      const v3 = V3Client.deposits(s.url, m);
      const ids = [await pixDeposit('100.00', 'BRL'), await pixDeposit('50.00', 'BRL')];
      for (const id of ids) assert.equal((await v3.post(`/v3/sandbox/deposits/${id}/approve`, '')).status, 200);
      const file = ofx({
        statementId: '', account: {}, currency: 'BRL', date: today, opening: '0.00', bankId: '341', branch: '0001', accountId: `psp-${backend}`,
        movements: [{ amount: '147.00', direction: 'credit', date: today, bankId: `psp-batch-${backend}`, info: 'LIQUIDACAO PSP' }],
      });
      const upload = async (c: OpsClient, body: string, name: string, type: string, format = '') => {
        const page = await c.get('/ops/reconciliation');
        const form = new FormData();
        form.set('csrf', csrfOf(page.html));
        form.set('format', format);
        form.set('file', new Blob([body], { type }), name);
        return c.request('POST', '/ops/reconciliation/statements', form);
      };
      const up = await upload(f, file, 'day.ofx', 'application/x-ofx');
      assert.equal(up.status, 201, up.html.slice(0, 500));
      const figures = /day\.ofx: statement (\d+) imported: 1 entries, 0 matched, 1 exceptions/.exec(up.html);
      assert.ok(figures, up.html.slice(0, 2000));
      const again = await upload(f, file, 'day.ofx', 'application/octet-stream', 'ofx');
      assert.equal(again.status, 200);
      assert.match(again.html, new RegExp(`already imported as statement ${figures![1]} \\(1 entries, 0 matched, 1 exceptions\\); nothing changed`));
      const unknown = await upload(f, file, 'day.bin', 'application/octet-stream');
      assert.equal(unknown.status, 400);
      assert.match(unknown.html, /The format cannot be told from the file type \(application\/octet-stream\): choose it\./);
      const broken = await upload(f, '<OFX><BANKTRANLIST><STMTTRN><TRNAMT>abc</TRNAMT></STMTTRN></OFX>', 'broken.ofx', 'application/x-ofx');
      assert.equal(broken.status, 400);
      assert.match(broken.html, /broken\.ofx was not imported \(nothing of it was\): /);
      const noToken = new FormData();
      noToken.set('file', new Blob([file], { type: 'application/x-ofx' }), 'day.ofx');
      assert.equal((await f.request('POST', '/ops/reconciliation/statements', noToken)).status, 403, 'the token is checked inside the multipart body');

      const { rows } = await s.ctx.db.query<{ id: number }>(`SELECT x.id FROM reconciliation_exceptions x JOIN bank_entries e ON e.id = x.entry_id WHERE e.amount = 147 AND x.status = 'open'`);
      const x = rows[0]!.id;
      const batch = (deposits: string) => f.submit('/ops/reconciliation', `/ops/reconciliation/exceptions/${x}/batch`, { prefix: `b${x}`, [`b${x}-deposits`]: deposits, [`b${x}-note`]: 'PSP settlement' });
      assert.match((await f.get('/ops/reconciliation')).html, new RegExp(`action="/ops/reconciliation/exceptions/${x}/batch"`));
      const notIds = await batch('12, abc');
      assert.equal(notIds.status, 400);
      assert.match(notIds.html, /not ids: abc/);
      const short = await batch(String(ids[1]));
      assert.equal(short.status, 409);
      assert.match(short.html, /less than the 147\.00 credited/);
      const ok = await batch(ids.join(', '));
      assert.equal(ok.url, '/ops/reconciliation?done=resolved', ok.html.slice(0, 500));
      const matches = await s.ctx.db.query<{ target_id: number }>(`SELECT target_id FROM reconciliation_matches WHERE entry_id = (SELECT entry_id FROM reconciliation_exceptions WHERE id = $1) ORDER BY target_id`, [x]);
      assert.deepEqual(matches.rows.map((r) => Number(r.target_id)), ids);
      const resolved = await audits(s, 'reconciliation.resolve');
      assert.equal(resolved.at(-1)!.actor, ops.finance!.email);
      assert.equal((await audits(s, 'reconciliation.import')).length >= 1, true);
    });
  });
}
