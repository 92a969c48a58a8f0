// The Adyen connector's money after the checkout, against the Adyen Checkout simulator, with caja in
// production on PGlite and PostgreSQL: boleto and OXXO vouchers paid, expired and withdrawn; an
// answer lost and sent again under the same Idempotency-Key; card refunds settled and failed,
// voucher refunds refused; chargebacks notified, charged, reversed, out of order and posted at
// once; the HMAC key rotated. Set up by test/helpers/adyen-connector.ts; the ledger is checked at
// the end.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { backends, type TestServer } from '../helpers/server.ts';
import { admin, type V3Client, type Credentials } from '../helpers/clients.ts';
import { assertLedgerOk } from '../helpers/ledger.ts';
import type { AdyenSimulator } from '../helpers/adyen-simulator.ts';
import { startAdyenSuite, type AdyenSuite } from '../helpers/adyen-connector.ts';
import { trackConnectorRefunds } from '../../src/refunds/provider-refunds.ts';
import { withdrawCharge } from '../../src/connectors/charges.ts';
import { boletoFromDigitableLine } from '../../src/domain/vouchers.ts';
import { makeOperator, signedIn } from '../ops/helpers.ts';
import { merchantBalances } from '../../src/ledger/ledger.ts';
import { toDb } from '../../src/domain/money.ts';
import { until } from '../helpers/until.ts';
import { PanelClient } from '../panel/helpers.ts';
import { generateDueReports } from '../../src/settlements/service.ts';
import { dayBounds, localDay } from '../../src/settlements/days.ts';

for (const backend of backends()) {
  describe(`Adyen vouchers, refunds and chargebacks through the Adyen simulator (${backend})`, () => {
    let a: AdyenSuite;
    let sim: AdyenSimulator;
    let s: TestServer;
    let m: Credentials;
    let v3: V3Client;

    before(async () => {
      a = await startAdyenSuite(backend, { configure: true });
      ({ sim, s, m, v3 } = a);
    });

    after(() => a?.close());

    const status = (id: number) => a.status(id);
    const row = (id: number) => a.row(id);
    const completions = (id: number) => a.completions(id);
    const payments = (ref: string) => a.payments(ref);
    const deposit = (country: 'BR' | 'MX', method: string, amount?: string, extra?: Record<string, unknown>) => a.deposit(country, method, amount, extra);
    const cardCheckout = (method?: string, country?: 'BR' | 'MX', amount?: string, extra?: Record<string, unknown>) => a.cardCheckout(method, country, amount, extra);
    const comeBack = (url: string) => a.comeBack(url);

    test('boleto: the acquirer\'s voucher (digitable line, bar code, download URL, expiry) shown; paid days later through the notification; its refund refused clearly', async () => {
      const d = await deposit('BR', 'BL', '250.00');
      const info = d.body.payment_info;
      const psp = d.body.payment_info.metadata.psp_reference as string;
      const voucher = (await sim.state()).payments.find((p: any) => p.pspReference === psp);
      assert.equal(info.metadata.digitable_line, voucher.voucher.reference, 'the acquirer\'s number, not caja\'s');
      assert.equal(info.metadata.bar_code.length, 44);
      assert.ok(boletoFromDigitableLine(info.metadata.digitable_line).ok);
      assert.equal(info.metadata.receipt_url, voucher.voucher.downloadUrl);
      await sim.control.payVoucher(psp);
      await until('boleto paid', () => status(d.id), (v) => v === 'COMPLETED');
      const refund = await v3.post('/v3/refunds', { deposit_id: d.id, amount: '50.00', comments: 'x' });
      assert.ok(refund.status >= 400 && refund.status < 500, refund.text);
      assert.match(refund.text, /Adyen does not refund boleto/);
    });

    test('OXXO: expired (OFFER_CLOSED) cancels the deposit', async () => {
      const d = await deposit('MX', 'OX', '300.00');
      const psp = d.body.payment_info.metadata.psp_reference as string;
      assert.match(d.body.payment_info.metadata.digitable_line, /^\d{15}$/);
      await sim.control.expireVoucher(psp);
      await until('cancelled', () => status(d.id), (v) => v === 'CANCELLED');
    });

    test('a voucher withdrawn (its deposit cancelled: withdrawCharge) is cancelled at Adyen, so it can no longer be paid', async () => {
      const d = await deposit('MX', 'OX', '90.00');
      const psp = d.body.payment_info.metadata.psp_reference as string;
      const r = await row(d.id);
      await withdrawCharge(s.ctx, { id: d.id, connector: r.connector, connector_reference: r.connector_reference });
      await until('cancelled at Adyen', async () => (await sim.state()).payments.find((p: any) => p.pspReference === psp).status, (v) => v === 'cancelled');
      assert.ok((await sim.state()).requests.some((r) => r.method === 'POST' && r.path === `/checkout/v71/payments/${psp}/cancels` && r.status === 201));
    });

    test('card refunds: partial settled by REFUND, another failed by REFUND_FAILED; the balance follows', async () => {
      const d = await cardCheckout('VI', 'BR', '200.00');
      const paid = await sim.control.pay(d.sessionId, { number: '4111111145551142', holder: 'Ana Silva' });
      await comeBack(paid.redirect!);
      assert.equal(await status(d.id), 'COMPLETED');
      const refunds = v3;
      const r1 = await refunds.post('/v3/refunds', { deposit_id: d.id, amount: '50.00', comments: 'partial' });
      assert.equal(r1.status, 200, r1.text);
      const id1 = r1.body.refund_id ?? r1.body.id;
      await until('refund completed', async () => (await refunds.get(`/v3/refunds/${id1}`)).body.status, (v) => v === 'COMPLETED');
      await sim.control.refundOutcome('fail');
      try {
        const r2 = await refunds.post('/v3/refunds', { deposit_id: d.id, amount: '30.00', comments: 'second' });
        assert.equal(r2.status, 200, r2.text);
        const id2 = r2.body.refund_id ?? r2.body.id;
        await until('refund rejected', async () => {
          await trackConnectorRefunds(s.ctx);
          return (await refunds.get(`/v3/refunds/${id2}`)).body.status;
        }, (v) => v === 'REJECTED');
      } finally {
        await sim.control.refundOutcome('settle');
      }
      const st = await sim.state();
      const p = st.payments.find((x: any) => x.merchantReference === d.ref && x.status === 'authorised');
      assert.equal(p.refunded, 5000, 'only the settled refund stays refunded at the acquirer');
    });

    test('chargebacks: notified (deadline shown, no money), charged once with the merchant\'s chargeback fee (duplicate and second notice), reversed (given back, not the fee), second chargeback charged again; shown in the API, notification, panel, console and settlement report', async () => {
      // The merchant's own chargeback fee (USD), copied onto its deposits at creation as the other fees are.
      const priced = await admin(s.url, 'PUT', `/admin/merchants/${m.merchant_id}/fees`, { chargeback: '20' });
      assert.equal(priced.status, 200, priced.text);
      assert.deepEqual([priced.body.chargeback, priced.body.overrides.chargeback], ['20.00', '20.00']);
      const badFee = await admin(s.url, 'PUT', `/admin/merchants/${m.merchant_id}/fees`, { chargeback: '-1' });
      assert.equal(badFee.status, 400, badFee.text);
      assert.match(badFee.body.details.join(' '), /^chargeback: /);
      const d = await cardCheckout('VI', 'BR', '150.00', { notification_url: 'https://shop.example/notify' });
      const view = async () => (await v3.get(`/v3/deposits/${d.id}`)).body;
      const cents = (x: string | number) => Math.round(Number(x) * 100);
      const paid = await sim.control.pay(d.sessionId, { number: '4111111145551142', holder: 'Ana Silva' });
      await comeBack(paid.redirect!);
      assert.equal(await status(d.id), 'COMPLETED');
      const psp = (await payments(d.ref))[0]!.payment_id;
      const mId = (await s.ctx.db.query<{ merchant_id: number }>('SELECT merchant_id FROM deposits WHERE id = $1', [d.id])).rows[0]!.merchant_id;
      const available = async () => (await merchantBalances(s.ctx.db, mId)).map((b) => [b.currency, toDb(b.available)]);
      const dispute = async () => (await admin(s.url, 'GET', '/admin/connectors/adyen/disputes')).body.disputes.find((x: any) => x.deposit_id === d.id);
      const start = await available();

      await sim.control.dispute(psp, 'NOTIFICATION_OF_CHARGEBACK', { defensePeriodEndsAt: '2027-01-15T00:00:00Z', reasonCode: '10.4' });
      const notified = await until('notified', dispute, (x) => x?.status === 'notified');
      assert.equal(notified.deadline_at, '2027-01-15T00:00:00.000Z');
      assert.equal(notified.reason_code, '10.4');
      assert.deepEqual(await available(), start, 'no money moves on the notice');
      const open = (await view()).disputes;
      assert.deepEqual(open.map((x: any) => [x.status, x.reason_code, x.reason, x.amount, x.currency, x.defense_deadline, x.closed_at, x.fee]),
        [['OPEN', '10.4', 'Fraudulent transaction', 150, 'BRL', '2027-01-15 00:00:00', null, null]]);
      assert.match(open[0].opened_at, /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/);
      // The panel's and the console's deposit pages show it with its deadline.
      const panel = new PanelClient(s.url);
      assert.equal((await panel.signIn(m.panel.email, m.panel.password)).status, 200);
      const pp = await panel.get(`/panel/deposits/${d.id}`);
      assert.equal(pp.status, 200);
      const panelDisputes = /<section class="card" id="disputes">([\s\S]*?)<\/section>/.exec(pp.html)?.[1] ?? '';
      assert.match(panelDisputes, /Open/);
      assert.match(panelDisputes, /10\.4 · Fraudulent transaction/);
      assert.match(panelDisputes, /<time datetime="2027-01-15T00:00:00.000Z">/);
      const support = await signedIn(s, await makeOperator(s, 'support', `support-adyen-${backend}`));
      const cp = await support.get(`/ops/deposits/${d.id}`);
      assert.equal(cp.status, 200, cp.html.slice(0, 300));
      assert.match(/id="disputes">([\s\S]*?)<\/section>/.exec(cp.html)?.[1] ?? '', /2027-01-15T00:00:00.000Z[\s\S]*Open|Open[\s\S]*2027-01-15T00:00:00.000Z/);
      assert.match(cp.html, /VISA \*{12}1142/);

      await sim.control.delivery('duplicate');
      await sim.control.dispute(psp, 'CHARGEBACK');
      await sim.control.delivery('deliver');
      const charged = await until('charged', dispute, (x) => x?.status === 'charged');
      const taken = charged.debit;
      assert.ok(charged.return_id);
      assert.ok(Number(taken) > 0);
      const after1 = await available();
      const [cur, startAmt] = start[0]!;
      assert.equal(cur, 'USD', 'the merchant settles in USD');
      assert.equal(after1[0]![0], cur);
      // The charged-back share and the merchant's chargeback fee (20.00 USD), once.
      assert.equal(cents(after1[0]![1]), cents(startAmt) - cents(taken) - 2000, 'taken once, with the fee');
      const cb = (await view()).disputes[0];
      assert.deepEqual([cb.status, cents(cb.debit), cb.fee, cb.debit_currency, cb.closed_at], ['CHARGED_BACK', cents(taken), 20, 'USD', null]);
      const tx = (await v3.get('/v3/balance/transactions?limit=10')).body;
      const debitTx = (tx.data ?? tx.transactions ?? []).find((x: any) => x.type === 'deposit_return.debit');
      assert.ok(debitTx, JSON.stringify(tx).slice(0, 500));
      assert.deepEqual([cents(debitTx.amount), cents(debitTx.fee)], [-cents(taken) - 2000, 2000], 'the fee is a fee of the movement');

      await sim.control.dispute(psp, 'CHARGEBACK_REVERSED');
      await until('reversed', dispute, (x) => x?.status === 'reversed');
      assert.equal(cents((await available())[0]![1]), cents(startAmt) - 2000, 'the amount given back, not the fee');
      const won = (await view()).disputes[0];
      assert.equal(won.status, 'REVERSED');
      assert.match(won.closed_at, /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/);

      await sim.control.dispute(psp, 'SECOND_CHARGEBACK');
      await until('charged again', dispute, (x) => x?.status === 'charged');
      assert.equal(cents((await available())[0]![1]), cents(startAmt) - cents(taken) - 4000, 'charged again, with a second fee');
      assert.deepEqual([(await view()).disputes[0].status, (await view()).disputes[0].fee], ['CHARGED_BACK', 40]);
      // Every change of the dispute notified the merchant, naming the dispute (v3 body {deposit_id, dispute}).
      const bodies = await until('the dispute notifications', async () => (await v3.get('/v3/notifications?limit=100')).body.notifications
        .filter((x: any) => x.subject_id === d.id).map((x: any) => JSON.parse(x.body)).filter((b: any) => b.dispute).reverse(),
      (x: any[]) => x.length === 4);
      assert.deepEqual(bodies.map((b: any) => [b.deposit_id, b.dispute.status]), [[d.id, 'OPEN'], [d.id, 'CHARGED_BACK'], [d.id, 'REVERSED'], [d.id, 'CHARGED_BACK']]);
      // The day's settlement report shows the chargeback fees as fees.
      const tz = (await s.ctx.db.query<{ timezone: string }>('SELECT timezone FROM merchants WHERE id = $1', [m.merchant_id])).rows[0]!.timezone;
      const today = localDay(new Date(), tz);
      await generateDueReports(s.ctx, { now: new Date(dayBounds(today, tz).end.getTime() + 61 * 60_000), delayMinutes: 60 });
      const report = await v3.get(`/v3/settlements/USD/${today}`);
      assert.equal(report.status, 200, report.text);
      const returnLines = report.body.lines.filter((l: any) => l.type === 'deposit_return.debit' || l.type === 'deposit_return.reverse');
      assert.deepEqual(returnLines.slice(-3).map((l: any) => [l.type, cents(l.fee)]),
        [['deposit_return.debit', 2000], ['deposit_return.reverse', 0], ['deposit_return.debit', 2000]]);
      const events = (await s.ctx.db.query<{ type: string }>(`SELECT type FROM events WHERE subject_type = 'deposit' AND subject_id = $1 AND (type LIKE 'deposit.dispute%' OR type LIKE 'deposit.return%') ORDER BY id`, [d.id])).rows.map((r) => r.type);
      assert.deepEqual(events, ['deposit.dispute_opened', 'deposit.returned', 'deposit.return_reversed', 'deposit.returned']);
      // The money moved as bank-initiated returns of kind chargeback (src/deposits/returns.ts).
      const returns = (await s.ctx.db.query<{ kind: string; status: string; deadline_at: Date | null }>('SELECT kind, status, deadline_at FROM deposit_returns WHERE deposit_id = $1 ORDER BY id', [d.id])).rows;
      assert.deepEqual(returns.map((r) => [r.kind, r.status, r.deadline_at !== null]), [['chargeback', 'reversed', true], ['chargeback', 'applied', true]]);
      // The merchant reads them (GET /v3/events), with the defence deadline.
      // (The feed is in commit order: it may hold the newest back a moment on PostgreSQL.)
      // The feed pages oldest first (500 at most a page): read it to its end with the cursor.
      const feed = async () => {
        const all: any[] = [];
        for (let after = '0'; ;) {
          const page = (await v3.get(`/v3/events?limit=500&after=${after}`)).body;
          all.push(...page.events);
          if (page.events.length < 500) return all;
          after = page.next_cursor;
        }
      };
      const seen = await until('the merchant\'s events', async () => (await feed()).filter((e: any) => e.subject_id === d.id && (e.type.startsWith('deposit.dispute') || e.type.startsWith('deposit.return'))), (x: any[]) => x.length === 4);
      assert.equal(seen[0].data.deadline_at, '2027-01-15T00:00:00.000Z');
      assert.equal(seen[1].data.kind, 'chargeback');
      await assertLedgerOk(s.ctx.db);
    });

    test('HMAC key rotation: notifications under a new key are refused until it is configured as hmac_key_next; both verify then', async () => {
      const { hmac_key: next } = await sim.control.rotateHmac();
      try {
        const d = await cardCheckout('VI');
        await sim.control.pay(d.sessionId, { number: '4111111145551142', holder: 'Ana Silva' });
        const st = await sim.state();
        const last = st.deliveries.at(-1)!;
        assert.equal(last.status, 401, 'signed with a key caja does not know yet');
        assert.equal(await status(d.id), 'PENDING');
        const put = await admin(s.url, 'PUT', '/admin/connectors/adyen', sim.config({ hmac_key_next: next }));
        assert.equal(put.status, 200, put.text);
        assert.equal(put.body.hmac_key_next, '(set)');
        assert.ok(!put.text.includes(next));
        // Adyen retries the refused batch: posted again, now accepted.
        const again = await fetch(`${s.url}/connectors/adyen/notifications`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(last.body) });
        assert.equal(await again.text(), '[accepted]');
        assert.equal(await status(d.id), 'COMPLETED');
      } finally {
        // The rotation done: the new key alone.
        await admin(s.url, 'PUT', '/admin/connectors/adyen', sim.config({ hmac_key: next }));
      }
    });

    test('an answer lost (timeout): sent again under the same Idempotency-Key, Adyen replays the first: one session, one voucher', async () => {
      await sim.control.loseAnswers(1);
      const d = await cardCheckout('VI');
      const st = await sim.state();
      assert.equal(st.sessions.filter((x: any) => x.reference === d.ref).length, 1, 'one session for the charge');
      assert.equal(st.sessions.find((x: any) => x.reference === d.ref).id, d.sessionId);
      await sim.control.loseAnswers(1);
      const v = await deposit('MX', 'OX', '120.00');
      const vref = (await row(v.id)).connector_reference;
      const vouchers = (await sim.state()).payments.filter((p: any) => p.merchantReference === vref);
      assert.equal(vouchers.length, 1, 'one voucher for the charge');
      assert.equal(vouchers[0].pspReference, v.body.payment_info.metadata.psp_reference);
    });

    test('out of order: a chargeback arriving before its notice, then the notice: charged once, still charged', async () => {
      const d = await cardCheckout('MC', 'MX', '500.00');
      const paid = await sim.control.pay(d.sessionId, { number: '5555341244441115', holder: 'Luis Perez' });
      await comeBack(paid.redirect!);
      const psp = (await payments(d.ref))[0]!.payment_id;
      await sim.control.delivery('hold');
      // The acquirer's reason text is shown escaped on the pages.
      const hostile = '<img src=x onerror=alert(1)> & "q"';
      try {
        await sim.control.dispute(psp, 'NOTIFICATION_OF_CHARGEBACK', { reason: hostile, reasonCode: '<b>4837</b>' });
        await sim.control.dispute(psp, 'CHARGEBACK', { reason: hostile, reasonCode: '<b>4837</b>' });
      } finally {
        await sim.control.delivery('deliver');
      }
      assert.deepEqual(await sim.control.release(), { released: 2 });
      const { rows } = await s.ctx.db.query<{ status: string; n: number }>(
        `SELECT d.status, (SELECT count(*)::integer FROM deposit_returns r WHERE r.deposit_id = d.deposit_id) AS n FROM deposit_disputes d WHERE d.deposit_id = $1`, [d.id]);
      assert.deepEqual(rows, [{ status: 'charged', n: 1 }]);
      const panel = new PanelClient(s.url);
      await panel.signIn(m.panel.email, m.panel.password);
      const ops = await signedIn(s, await makeOperator(s, 'support', `support-ooo-${backend}`));
      for (const page of [await panel.get(`/panel/deposits/${d.id}`), await ops.get(`/ops/deposits/${d.id}`)]) {
        assert.equal(page.status, 200);
        assert.ok(!page.html.includes('<img src=x') && !page.html.includes('<b>4837'), 'escaped');
        assert.match(page.html, /&lt;b&gt;4837&lt;\/b&gt; · &lt;img src=x onerror=alert\(1\)&gt; &amp; &quot;q&quot;/);
        assert.match(page.html, /Charged back/);
      }
      // Another merchant's deposit is not found on the panel; an unknown id on the console is a 404 page.
      assert.equal((await ops.get('/ops/deposits/999999999')).status, 404);
      assert.equal((await ops.get('/ops/deposits/abc')).status, 404);
    });

    test('the same notification posted 8 times at once: one completion, one payment; the same chargeback 8 times: taken once', async () => {
      const d = await cardCheckout('VI', 'BR', '180.00');
      await sim.control.delivery('drop');
      let auth: any;
      try {
        await sim.control.pay(d.sessionId, { number: '4111111145551142', holder: 'Ana Silva' });
        auth = (await sim.state()).deliveries.filter((x) => x.answer === 'dropped').at(-1)!.body;
      } finally {
        await sim.control.delivery('deliver');
      }
      const post = (body: unknown) => fetch(`${s.url}/connectors/adyen/notifications`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }).then(async (r) => [r.status, await r.text()]);
      const answers = await Promise.all(Array.from({ length: 8 }, () => post(auth)));
      assert.deepEqual(answers, Array.from({ length: 8 }, () => [200, '[accepted]']));
      assert.equal(await status(d.id), 'COMPLETED');
      assert.equal(await completions(d.id), 1);
      assert.equal((await payments(d.ref)).length, 1);
      const psp = (await payments(d.ref))[0]!.payment_id;
      await sim.control.delivery('drop');
      let cb: any;
      try {
        await sim.control.dispute(psp, 'CHARGEBACK');
        cb = (await sim.state()).deliveries.filter((x) => x.answer === 'dropped').at(-1)!.body;
      } finally {
        await sim.control.delivery('deliver');
      }
      const cbAnswers = await Promise.all(Array.from({ length: 8 }, () => post(cb)));
      assert.deepEqual(cbAnswers, Array.from({ length: 8 }, () => [200, '[accepted]']));
      const { rows } = await s.ctx.db.query<{ n: number }>(
        `SELECT count(*)::integer AS n FROM deposit_returns WHERE deposit_id = $1`, [d.id]);
      assert.equal(rows[0]!.n, 1, 'taken once');
    });
  });
}
