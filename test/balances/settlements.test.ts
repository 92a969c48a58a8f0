// Daily settlement reports: what a merchant is owed per currency and day of its timezone, every
// movement with its reference, opening + lines = closing = the ledger's balance, each closing the
// next opening, immutable once made (a late movement is a correction line of the next report);
// from the API as JSON and CSV, the merchant's own only.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { backends, startTestServer, type TestServer } from '../helpers/server.ts';
import { admin, cashoutRequest, createMerchant, type Credentials, V3Client } from '../helpers/clients.ts';
import { creditBalance } from '../helpers/merchants.ts';
import { cpf } from '../helpers/documents.ts';
import { parseCsv } from '../../src/panel/services/csv.ts';
import { PanelClient } from '../panel/helpers.ts';
import { makeOperator, signedIn } from '../ops/helpers.ts';
import { generateDueReports } from '../../src/settlements/service.ts';
import { dayBounds, localDay, nextDay } from '../../src/settlements/days.ts';
import { cajaAccount, merchantAccount, transfer } from '../../src/ledger/ledger.ts';
import { fromDb } from '../../src/domain/money.ts';

const TZ = 'America/Sao_Paulo';
const cents = (v: number | string) => Math.round(Number(v) * 100);

for (const backend of backends()) {
  describe(`settlement reports (${backend})`, () => {
    let s: TestServer;
    let m: Credentials;
    let other: Credentials;
    let v3: V3Client;
    before(async () => {
      s = await startTestServer(backend, { CAJA_CASHOUT_DELAY_SECONDS: '3600' });
      m = await createMerchant(s.url, 'Settles');
      other = await createMerchant(s.url, 'Someone else');
      v3 = V3Client.deposits(s.url, m);
    });
    after(() => s?.close());

    /** What the worker does once the day (and its delay) is over, at `now`. */
    const runWorker = (now: Date) => generateDueReports(s.ctx, { now, delayMinutes: 60 });

    test('a day of deposits, a refund, a cashout and an adjustment reconciles to the ledger to the cent', async () => {
      const bad = await admin(s.url, 'PATCH', `/admin/merchants/${m.merchant_id}`, { timezone: 'Mars/Olympus' });
      assert.deepEqual([bad.status, bad.body.details], [400, ['timezone: must be an IANA timezone, e.g. America/Sao_Paulo']]);
      const tz = await admin(s.url, 'PATCH', `/admin/merchants/${m.merchant_id}`, { timezone: TZ });
      assert.equal(tz.status, 200, tz.text);
      assert.equal(tz.body.timezone, TZ);

      await creditBalance(s.url, m, '100.00', 'USD', 'opening funds');
      const invoice = `settle-${backend}-${Date.now()}`;
      const d = await v3.post('/v3/deposits', {
        country: 'BR', amount: '50.00', currency: 'BRL', invoice_id: invoice, payment_method: 'VI',
        payer: { document: cpf('111444777'), first_name: 'Maria', last_name: 'Souza', email: 'maria@example.com' },
      });
      assert.equal(d.status, 200, d.text);
      assert.equal((await v3.post(`/v3/sandbox/deposits/${d.body.deposit_id}/approve`, '')).status, 200);
      const refund = await v3.post('/v3/refunds', { deposit_id: d.body.deposit_id, amount: '20.00' });
      assert.equal(refund.status, 200, refund.text);
      const external = `co-${backend}-${Date.now()}`;
      const cashout = await cashoutRequest(s.url, m, 'POST', '/v3/cashout', {
        external_id: external, country: 'BR', currency: 'USD', amount: '15.00', document_id: cpf('529982247'), beneficiary_name: 'Maria',
        beneficiary_lastname: 'Souza', bank_code: '260', bank_account: '12345-6', bank_branch: '0001', account_type: 'C',
      });
      assert.equal(cashout.status, 200, cashout.text);

      const today = localDay(new Date(), TZ);
      // Not due before the day is over, nor within the delay after it.
      assert.equal(await runWorker(new Date(dayBounds(today, TZ).end.getTime() + 30 * 60_000)), 0);
      assert.equal((await v3.get('/v3/settlements')).body.data.length, 0);
      const notYet = await v3.get(`/v3/settlements/USD/${today}`);
      assert.deepEqual([notYet.status, notYet.body.code], [404, 208]);

      assert.equal(await runWorker(new Date(dayBounds(today, TZ).end.getTime() + 61 * 60_000)), 1);
      assert.equal(await runWorker(new Date(dayBounds(today, TZ).end.getTime() + 120 * 60_000)), 0, 'made once');
      const list = await v3.get('/v3/settlements');
      assert.equal(list.status, 200, list.text);
      assert.deepEqual(list.body.data.map((r: { currency: string; date: string }) => [r.currency, r.date]), [['USD', today]]);

      const r = await v3.get(`/v3/settlements/USD/${today}`);
      assert.equal(r.status, 200, r.text);
      const report = r.body;
      assert.equal(report.timezone, TZ);
      assert.equal(report.period_start, dayBounds(today, TZ).start.toISOString());
      assert.deepEqual(report.opening, { available: 0, reserved: 0, fees: 0 });
      const byType = (t: string) => report.lines.filter((l: { type: string }) => l.type === t);
      assert.equal(byType('adjustment.credit')[0].reference, 'opening funds');
      assert.equal(byType('deposit.credit')[0].reference, invoice);
      assert.equal(byType('deposit.credit')[0].source.id, d.body.deposit_id);
      assert.ok(byType('refund.reserve').length + byType('refund.post').length >= 1);
      for (const l of [...byType('refund.reserve'), ...byType('refund.post')]) assert.equal(l.reference, invoice, 'a refund names its deposit\'s invoice');
      assert.equal(byType('cashout.reserve')[0].reference, external);
      assert.equal(byType('cashout.reserve')[0].available, -15);
      assert.equal(report.line_count, report.lines.length);
      assert.deepEqual(report.lines.map((l: { line: number }) => l.line), report.lines.map((_: unknown, i: number) => i + 1));
      // opening + lines = closing, and closing = the ledger's balance (nothing moved since).
      for (const k of ['available', 'reserved'] as const) {
        const sum = report.lines.reduce((a: number, l: Record<string, number>) => a + cents(l[k]!), 0);
        assert.equal(cents(report.opening[k]) + sum, cents(report.closing[k]), k);
      }
      assert.equal(report.lines.reduce((a: number, l: { fee: number }) => a + cents(l.fee), 0), cents(report.closing.fees));
      const balance = (await v3.get('/v3/balance')).body.balances.find((b: { currency: string }) => b.currency === 'USD');
      assert.equal(cents(report.closing.available), cents(balance.available));
      assert.equal(cents(report.closing.reserved), cents(balance.reserved));

      // CSV: the opening row, the lines, the closing row; numbers as written in JSON.
      const csv = await v3.get(`/v3/settlements/USD/${today}?format=csv`);
      assert.equal(csv.status, 200);
      assert.match(csv.headers.get('content-type') ?? '', /^text\/csv/);
      assert.match(csv.headers.get('content-disposition') ?? '', new RegExp(`settlement-${m.merchant_id}-USD-${today}\\.csv`));
      const rows = parseCsv(csv.text);
      assert.deepEqual(rows[0], ['row', 'booked_at', 'type', 'source_type', 'source_id', 'reference', 'available', 'reserved', 'fee', 'correction']);
      assert.equal(rows[1]![0], 'opening_balance');
      assert.equal(rows.at(-1)![0], 'closing_balance');
      assert.equal(cents(rows.at(-1)![6]!), cents(report.closing.available));
      assert.equal(rows.length, report.lines.length + 3);
      assert.ok(rows.some((row) => row[5] === invoice));

      // Another merchant sees nothing of it.
      const theirs = await V3Client.deposits(s.url, other).get(`/v3/settlements/USD/${today}`);
      assert.equal(theirs.status, 404);
      assert.deepEqual((await V3Client.deposits(s.url, other).get('/v3/settlements')).body.data, []);
    });

    test('the next day opens at the last closing; a movement booked into a reported day is a correction of the next report; reports never change', async () => {
      const today = localDay(new Date(), TZ);
      const tomorrow = nextDay(today);
      const first = (await v3.get(`/v3/settlements/USD/${today}`)).body;
      // A movement back-dated into the reported day (a repair): the report stays as it was.
      const backDated = new Date(dayBounds(today, TZ).start.getTime() + 3600_000);
      await s.ctx.db.tx((q) => transfer(q, {
        merchantId: m.merchant_id, kind: 'adjustment.credit', subjectType: 'adjustment', subjectId: 900_000 + Math.floor(Math.random() * 99_999), description: 'late repair',
        postings: [merchantAccount(m.merchant_id, 'USD', 'available', fromDb('1.25')), cajaAccount('USD', 'settlement', fromDb('-1.25'))], at: backDated,
      }));
      assert.equal(await generateDueReports(s.ctx, { now: new Date(dayBounds(tomorrow, TZ).end.getTime() + 61 * 60_000), delayMinutes: 60 }), 1);
      assert.deepEqual((await v3.get(`/v3/settlements/USD/${today}`)).body, first, 'a made report never changes');
      const second = (await v3.get(`/v3/settlements/USD/${tomorrow}`)).body;
      assert.deepEqual(second.opening, first.closing);
      assert.equal(second.lines.length, 1);
      assert.deepEqual([second.lines[0].type, second.lines[0].reference, second.lines[0].available, second.lines[0].correction], ['adjustment.credit', 'late repair', 1.25, true]);
      assert.equal(cents(second.closing.available), cents(first.closing.available) + 125);
      // Reports are immutable in the database itself.
      await assert.rejects(s.ctx.db.query(`UPDATE settlement_reports SET closing_available = 0 WHERE merchant_id = $1`, [m.merchant_id]), /immutable/);
      await assert.rejects(s.ctx.db.query(`DELETE FROM settlement_report_lines WHERE merchant_id = $1`, [m.merchant_id]), /immutable/);
    });

    test('the panel lists the reports on the balance page and downloads one as the API\'s CSV', async () => {
      const today = localDay(new Date(), TZ);
      const panel = new PanelClient(s.url);
      const signed = await panel.signIn(m.panel.email, m.panel.password);
      assert.equal(signed.status, 200, signed.html.slice(0, 300));
      const page = await panel.get('/panel/balance?currency=USD');
      assert.equal(page.status, 200);
      assert.match(page.html, /Daily settlement reports/);
      assert.match(page.html, new RegExp(`href="/panel/balance/settlements/USD/${today}\\.csv"`));
      assert.match(page.html, /America\/Sao_Paulo/);
      const csv = await panel.get(`/panel/balance/settlements/USD/${today}.csv`);
      assert.equal(csv.status, 200);
      assert.match(csv.headers.get('content-disposition') ?? '', /settlement-USD-/);
      assert.equal(csv.html, (await v3.get(`/v3/settlements/USD/${today}?format=csv`)).text);
      assert.equal((await panel.get('/panel/balance/settlements/USD/1999-01-01.csv')).status, 404);
      assert.equal((await panel.get('/panel/balance/settlements/usd/x.csv')).status, 400);
    });

    test('the console shows the reports of a merchant and one report\'s movements', async () => {
      const today = localDay(new Date(), TZ);
      const ops = await signedIn(s, await makeOperator(s, 'support', `support-${backend}`));
      const merchantPage = await ops.get(`/ops/merchants/${m.merchant_id}`);
      assert.match(merchantPage.html, new RegExp(`href="/ops/merchants/${m.merchant_id}/settlements"`));
      const list = await ops.get(`/ops/merchants/${m.merchant_id}/settlements`);
      assert.equal(list.status, 200);
      assert.match(list.html, new RegExp(`href="/ops/merchants/${m.merchant_id}/settlements/USD/${today}"`));
      assert.match(list.html, /America\/Sao_Paulo/);
      const one = await ops.get(`/ops/merchants/${m.merchant_id}/settlements/USD/${today}`);
      assert.equal(one.status, 200);
      assert.match(one.html, /opening funds/);
      assert.match(one.html, /cashout\.reserve/);
      assert.match(one.html, /download="settlement-\d+-USD-/);
      assert.equal((await ops.get(`/ops/merchants/${m.merchant_id}/settlements/USD/1999-01-01`)).status, 404);
      assert.equal((await ops.get(`/ops/merchants/${m.merchant_id}/settlements/usd/<script>`)).status, 404);
    });

    test('bad dates and currencies are refused in the API\'s format', async () => {
      for (const [path, detail] of [
        ['/v3/settlements/usd/2026-11-27', 'currency: must be an ISO 4217 code'],
        ['/v3/settlements/USD/2026-13-01', 'date: must be a date YYYY-MM-DD'],
        ['/v3/settlements?from=yesterday', 'from: must be a date YYYY-MM-DD'],
        ['/v3/settlements?limit=0', 'limit: must be an integer from 1 to 366'],
      ] as const) {
        const r = await v3.get(path);
        assert.deepEqual([r.status, r.body.code, r.body.details], [400, 201, [detail]], path);
      }
    });
  });
}
