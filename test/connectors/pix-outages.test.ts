// The API Pix connector with the PSP misbehaving in each way the issue lists (down, hanging,
// resetting connections, killed and restarted, unreadable when its webhook comes, refusing a cob),
// on PGlite and PostgreSQL: the API answers 520/521 (streamline 320/321), nothing is stored, the
// retry works, the poll completes what the webhook could not. And the deposit's life around the
// cob: the hosted checkout creating it (a PSP outage leaves the choice open), the customer
// cancelling (the cob withdrawn), a deposit expiring (a payment after it kept unmatched, one made
// in time still completing in the grace period). Set up by test/helpers/pix-connector.ts.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { backends, type TestServer } from '../helpers/server.ts';
import { admin, formPost, type V3Client, type Credentials } from '../helpers/clients.ts';
import { createHmac } from 'node:crypto';
import { cpf } from '../helpers/documents.ts';
import type { PixSimulator } from '../helpers/pix-simulator.ts';
import { startPixSuite, type PixSuite } from '../helpers/pix-connector.ts';
import { reconcile } from '../../src/deposits/payments.ts';
import { payinConnectorNamed } from '../../src/connectors/registry.ts';
import { expireDueDeposits } from '../../src/deposits/worker.ts';
import { cancelByCustomer } from '../../src/deposits/checkout.ts';
import { until } from '../helpers/until.ts';

for (const backend of backends()) {
  describe(`Pix connector with the PSP failing, and deposits around their cob (${backend})`, () => {
    let p: PixSuite;
    let sim: PixSimulator;
    let s: TestServer;
    let m: Credentials;
    let v3: V3Client;

    before(async () => {
      p = await startPixSuite(backend, { configure: true });
      ({ sim, s, m, v3 } = p);
    });

    after(() => p?.close());

    const body = (extra: Record<string, unknown> = {}) => p.body(extra);
    const pixDeposit = (extra: Record<string, unknown> = {}) => p.pixDeposit(extra);
    const status = (id: number) => p.status(id);
    const payments = (txid: string) => p.payments(txid);

    test('PSP down (503, hang, reset) then back: creation refused with 520 and nothing stored, then the retry works', async () => {
      for (const mode of ['503', 'hang', 'reset'] as const) {
        await sim.control.outage(mode);
        const b = body();
        const down = await v3.post('/v3/deposits', b, { 'X-Idempotency-Key': `down-${b.invoice_id}` });
        assert.deepEqual([down.status, down.body.code, down.body.type], [503, 520, 'PAYMENT_PROVIDER_UNAVAILABLE'], `${mode}: ${down.text}`);
        const { rows } = await s.ctx.db.query('SELECT id FROM deposits WHERE invoice_id = $1', [b.invoice_id]);
        assert.deepEqual(rows, []);
        await sim.control.outage('none');
        const back = await v3.post('/v3/deposits', b, { 'X-Idempotency-Key': `down-${b.invoice_id}` });
        assert.equal(back.status, 200, `${mode}: ${back.text}`);
        assert.ok(back.body.payment_info.secondary_metadata.digitable_line);
      }
      // A replay is answered from the deposit, without the PSP (even while it is down), and
      // makes no second cob; a used invoice id is 201 without asking the PSP either.
      const b = body();
      const first = await v3.post('/v3/deposits', b, { 'X-Idempotency-Key': `replay-${b.invoice_id}` });
      assert.equal(first.status, 200, first.text);
      const cobs = (await sim.state()).cobs.length;
      await sim.control.outage('503');
      try {
        const replay = await v3.post('/v3/deposits', b, { 'X-Idempotency-Key': `replay-${b.invoice_id}` });
        assert.equal(replay.status, 200, replay.text);
        assert.equal(replay.headers.get('idempotent-replayed'), 'true');
        assert.equal(replay.body.deposit_id, first.body.deposit_id);
        const used = await v3.post('/v3/deposits', b);
        assert.deepEqual([used.status, used.body.code], [400, 201]);
      } finally {
        await sim.control.outage('none');
      }
      assert.equal((await sim.state()).cobs.length, cobs);
      assert.ok((await admin(s.url, 'GET', '/admin/connectors/pix')).body.health.last_error);
    });

    test('PSP resetting connections with the keep-alive pool full: a creation and the webhook answer 503, never 500', async () => {
      // Eight concurrent creations leave eight kept-alive connections in the client's pool; with
      // the PSP resetting every connection, the next request meets a closed one, and so does its
      // one retry on the next pooled connection.
      const fill = async () => {
        const made = await Promise.all(Array.from({ length: 8 }, () => v3.post('/v3/deposits', body())));
        assert.deepEqual(made.map((r) => r.status), made.map(() => 200));
      };
      await fill();
      await sim.control.outage('reset');
      try {
        const b = body();
        const down = await v3.post('/v3/deposits', b, { 'X-Idempotency-Key': `reset-${b.invoice_id}` });
        assert.deepEqual([down.status, down.body.code, down.body.type], [503, 520, 'PAYMENT_PROVIDER_UNAVAILABLE'], down.text);
        assert.deepEqual((await s.ctx.db.query('SELECT id FROM deposits WHERE invoice_id = $1', [b.invoice_id])).rows, []);
      } finally {
        await sim.control.outage('none');
      }
      // The webhook's read-back through a pool of closed connections: 503 (the PSP retries).
      await fill();
      const d = await pixDeposit();
      await sim.control.outage('reset');
      try {
        const paid = await sim.control.pay(d.txid);
        await sim.control.webhooksIdle();
        const deliveries = (await sim.state()).deliveries.filter((x) => x.endToEndIds.includes(paid.endToEndId));
        assert.ok(deliveries.length >= 1 && deliveries.every((x) => x.status === 503), JSON.stringify(deliveries));
        assert.equal(await status(d.id), 'PENDING');
      } finally {
        await sim.control.outage('none');
      }
      await reconcile(s.ctx, (await payinConnectorNamed(s.ctx, 'pix'))!, 3600, true);
      assert.equal(await status(d.id), 'COMPLETED');
    });

    test('PSP process killed then restarted: creation refused with 520 while it is gone, the first one after works', async () => {
      await sim.kill();
      const b = body();
      const gone = await v3.post('/v3/deposits', b);
      assert.deepEqual([gone.status, gone.body.code], [503, 520], gone.text);
      await sim.restart();
      const back = await v3.post('/v3/deposits', b);
      assert.equal(back.status, 200, back.text);
      const d = await pixDeposit();
      await sim.control.pay(d.txid);
      await until('deposit completed', () => status(d.id), (x) => x === 'COMPLETED');
    });

    test('PSP unreadable when its webhook comes: answered 503 (the PSP retries), nothing credited, the poll completes it later', async () => {
      const d = await pixDeposit();
      await sim.control.outage('503');
      try {
        const paid = await sim.control.pay(d.txid);
        await sim.control.webhooksIdle();
        const deliveries = (await sim.state()).deliveries.filter((x) => x.endToEndIds.includes(paid.endToEndId));
        assert.ok(deliveries.length >= 2 && deliveries.every((x) => x.status === 503), JSON.stringify(deliveries));
        assert.equal(await status(d.id), 'PENDING');
        assert.deepEqual(await payments(d.txid), []);
      } finally {
        await sim.control.outage('none');
      }
      await reconcile(s.ctx, (await payinConnectorNamed(s.ctx, 'pix'))!, 3600, true);
      assert.equal(await status(d.id), 'COMPLETED');
    });

    test('cob creation refused: 521 with the PSP\'s reason, nothing stored, the retry works', async () => {
      await sim.control.failNextCob(400, 1, 'Chave não pertence ao usuário');
      const b = body();
      const refused = await v3.post('/v3/deposits', b);
      assert.deepEqual([refused.status, refused.body.code, refused.body.type], [502, 521, 'PAYMENT_PROVIDER_REFUSED'], refused.text);
      assert.match(refused.body.description, /refused/);
      assert.deepEqual((await s.ctx.db.query('SELECT id FROM deposits WHERE invoice_id = $1', [b.invoice_id])).rows, []);
      assert.equal((await v3.post('/v3/deposits', b)).status, 200);
    });

    test('streamline NewInvoice: a Pix invoice gets the PSP\'s cob; the PSP down is error 320, a refused cob 321, nothing stored', async () => {
      const fields = (invoice: string) => {
        const f: Record<string, string> = {
          x_login: m.deposits.login, x_trans_key: m.deposits.trans_key, x_invoice: invoice, x_amount: '100.00', x_currency: 'BRL',
          x_country: 'BR', x_bank: 'IX', x_iduser: '4411', x_cpf: cpf('529982247'), x_name: 'João da Silva', x_email: 'joao@example.com',
          x_address: 'Rua Augusta 1500', x_zip: '01304-001', x_city: 'São Paulo', x_state: 'SP', x_version: '1.1', type: 'json',
          x_return: 'https://shop.example/return',
        };
        const v = (k: string) => f[k] ?? '';
        f.control = createHmac('sha256', m.deposits.secret_key).update(
          `${v('x_invoice')}V${v('x_amount')}I${v('x_iduser')}2${v('x_bank')}1${v('x_cpf')}H${v('x_bdate')}G${v('x_email')}Y${v('x_zip')}A${v('x_address')}P${v('x_city')}S${v('x_state')}P`, 'utf8',
        ).digest('hex').toUpperCase();
        return f;
      };
      const invoice = `SL-pix-${backend}-${Date.now()}`;
      await sim.control.outage('503');
      try {
        const down = await formPost(s.url, '/api_curl/streamline/NewInvoice', fields(invoice));
        assert.equal(down.status, 200);
        assert.deepEqual([down.body.status, down.body.error_code], ['1', 320], down.text);
      } finally {
        await sim.control.outage('none');
      }
      await sim.control.failNextCob(400);
      const refused = await formPost(s.url, '/api_curl/streamline/NewInvoice', fields(invoice));
      assert.deepEqual([refused.body.status, refused.body.error_code], ['1', 321], refused.text);
      assert.deepEqual((await s.ctx.db.query('SELECT id FROM deposits WHERE invoice_id = $1', [invoice])).rows, []);
      const ok = await formPost(s.url, '/api_curl/streamline/NewInvoice', fields(invoice));
      assert.equal(ok.body.status, '0', ok.text);
      const { rows } = await s.ctx.db.query<{ connector: string; checkout_type: string }>('SELECT connector, checkout_type FROM deposits WHERE invoice_id = $1', [invoice]);
      assert.deepEqual(rows, [{ connector: 'pix', checkout_type: 'ONE_SHOT' }]);
    });

    test('a payment for an expired deposit is kept as unmatched and shown to the operator, never credited', async () => {
      const d = await pixDeposit();
      // Past its expiry and the grace period a deposit charged at the PSP keeps for late news.
      await s.ctx.db.query(`UPDATE deposits SET expires_at = now() - interval '2 hours' WHERE id = $1`, [d.id]);
      await expireDueDeposits(s.ctx);
      // The server's own expiry worker may hold the row (SKIP LOCKED) and commit a moment later.
      await until('expired', () => status(d.id), (x) => x === 'CANCELLED');
      const paid = await sim.control.pay(d.txid, { force: true });
      const listed = await until('unmatched payment listed',
        async () => (await admin(s.url, 'GET', '/admin/connectors/pix/payments?status=unmatched')).body.payments as any[],
        (p) => p.some((x) => x.end_to_end_id === paid.endToEndId));
      const row = listed.find((x) => x.end_to_end_id === paid.endToEndId);
      assert.equal(row.deposit_id, d.id);
      assert.equal(row.txid, d.txid);
      assert.match(row.reason, /CANCELLED/);
      assert.equal(await status(d.id), 'CANCELLED');
      const metrics = await (await fetch(`${s.url}/metrics`)).text();
      assert.match(metrics, /caja_connector_payments_total\{connector="pix",status="unmatched"\} [1-9]/);
    });

    test('paid in time, heard of after the expiry: the deposit is still PENDING during the grace period and completes', async () => {
      await sim.control.webhookMode('drop');
      try {
        const d = await pixDeposit();
        const expiredAt = new Date(Date.now() - 30_000);
        await s.ctx.db.query('UPDATE deposits SET expires_at = $2 WHERE id = $1', [d.id, expiredAt]);
        await expireDueDeposits(s.ctx);
        assert.equal(await status(d.id), 'PENDING', 'within the grace period');
        await sim.control.pay(d.txid, { horario: new Date(expiredAt.getTime() - 5_000).toISOString() });
        await reconcile(s.ctx, (await payinConnectorNamed(s.ctx, 'pix'))!, 3600, true);
        assert.equal(await status(d.id), 'COMPLETED');
        // Another one, paid after its expiry (the PSP still took it): kept for the operator.
        const late = await pixDeposit();
        await s.ctx.db.query('UPDATE deposits SET expires_at = $2 WHERE id = $1', [late.id, new Date(Date.now() - 180_000)]);
        const paid = await sim.control.pay(late.txid);
        await reconcile(s.ctx, (await payinConnectorNamed(s.ctx, 'pix'))!, 3600, true);
        assert.equal(await status(late.id), 'PENDING');
        const row = (await admin(s.url, 'GET', '/admin/connectors/pix/payments?status=unmatched')).body.payments.find((x: any) => x.end_to_end_id === paid.endToEndId);
        assert.match(row.reason, /after the deposit expired/);
      } finally {
        await sim.control.webhookMode('deliver');
      }
    });

    test('hosted checkout: picking Pix creates the cob (a PSP outage leaves the choice open), then the payment completes it', async () => {
      const r = await v3.post('/v3/deposits', { country: 'BR', currency: 'BRL', amount: '50.00', invoice_id: `pix-hosted-${backend}-${Date.now()}`, payment_method: 'IX' });
      assert.equal(r.status, 200, r.text);
      assert.equal(r.body.checkout_type, 'HOSTED');
      const url = r.body.redirect_url as string;
      const token = url.split('/').pop()!;
      const page = await (await fetch(url, { headers: { 'accept-language': 'en' } })).text();
      const csrf = /name="csrf" value="([0-9a-f]+)"/.exec(page)?.[1] ?? '';
      const choose = () => fetch(url, {
        method: 'POST', redirect: 'manual',
        headers: { 'content-type': 'application/x-www-form-urlencoded', origin: s.url, 'accept-language': 'en' },
        body: new URLSearchParams({ csrf, method: 'IX', 'payer.document': cpf('529982247'), 'payer.first_name': 'Ana', 'payer.last_name': 'Silva', 'payer.email': 'ana@example.com' }).toString(),
      });
      await sim.control.outage('503');
      // The connectors' configuration expired from the cache (CAJA_CACHE_SECONDS): the choice reads it
      // again. Read inside the choice's transaction, that waited on PGlite's one connection for ever.
      s.ctx.cache.changed();
      const down = await choose();
      assert.equal(down.status, 200);
      assert.match(await down.text(), /not available right now/);
      const still = (await s.ctx.db.query<{ payment_method: string | null; payment_info: unknown }>('SELECT payment_method, payment_info FROM deposits WHERE id = $1', [r.body.deposit_id])).rows[0]!;
      assert.deepEqual([still.payment_method, still.payment_info], ['IX', null], 'the merchant named the method; nothing was set up');
      await sim.control.outage('none');
      s.ctx.cache.changed();
      const chose = await choose();
      assert.equal(chose.status, 303, await chose.text());
      assert.match(chose.headers.get('location') ?? '', new RegExp(`/pay/${token}`));
      const d = (await s.ctx.db.query<{ connector: string; connector_reference: string; payment_info: any }>('SELECT connector, connector_reference, payment_info FROM deposits WHERE id = $1', [r.body.deposit_id])).rows[0]!;
      assert.equal(d.connector, 'pix');
      const info = typeof d.payment_info === 'string' ? JSON.parse(d.payment_info) : d.payment_info;
      const cob = (await sim.state()).cobs.find((c: any) => c.txid === d.connector_reference);
      assert.equal(info.secondary_metadata.digitable_line, cob.pixCopiaECola);
      assert.deepEqual(cob.devedor, { cpf: cpf('529982247'), nome: 'Ana Silva' });
      await sim.control.pay(d.connector_reference);
      await until('hosted deposit completed', () => status(r.body.deposit_id), (x) => x === 'COMPLETED');
    });

    test('a hosted Pix deposit the customer cancels has its cob withdrawn at the PSP; a payment still made is kept unmatched', async () => {
      const r = await v3.post('/v3/deposits', { country: 'BR', currency: 'BRL', amount: '20.00', invoice_id: `pix-cancel-${backend}-${Date.now()}`, payment_method: 'IX' });
      const url = r.body.redirect_url as string;
      const token = url.split('/').pop()!;
      const page = await (await fetch(url, { headers: { 'accept-language': 'en' } })).text();
      const csrf = /name="csrf" value="([0-9a-f]+)"/.exec(page)?.[1] ?? '';
      const chose = await fetch(url, {
        method: 'POST', redirect: 'manual',
        headers: { 'content-type': 'application/x-www-form-urlencoded', origin: s.url, 'accept-language': 'en' },
        body: new URLSearchParams({ csrf, method: 'IX', 'payer.document': cpf('529982247'), 'payer.first_name': 'Ana', 'payer.last_name': 'Silva', 'payer.email': 'ana@example.com' }).toString(),
      });
      assert.equal(chose.status, 303);
      const txid = (await s.ctx.db.query<{ connector_reference: string }>('SELECT connector_reference FROM deposits WHERE id = $1', [r.body.deposit_id])).rows[0]!.connector_reference;
      await cancelByCustomer(s.ctx, token);
      assert.equal(await status(r.body.deposit_id), 'CANCELLED');
      const cob = (await sim.state()).cobs.find((c: any) => c.txid === txid);
      assert.equal(cob.status, 'REMOVIDA_PELO_USUARIO_RECEBEDOR');
      const paid = await sim.control.pay(txid, { force: true });
      await until('unmatched payment listed',
        async () => (await admin(s.url, 'GET', '/admin/connectors/pix/payments?status=unmatched')).body.payments as any[],
        (p) => p.some((x) => x.end_to_end_id === paid.endToEndId && x.deposit_id === r.body.deposit_id));
      assert.equal(await status(r.body.deposit_id), 'CANCELLED');
    });

    test('every request caja made follows the API Pix document', async () => {
      assert.deepEqual(await sim.violations(), []);
    });
  });
}
