// The API Pix connector and the deposit's life around the cob, on PGlite and PostgreSQL: the
// hosted checkout creating the cob (a PSP outage leaves the choice open), the customer cancelling
// (the cob withdrawn), a deposit expiring (a payment after it kept unmatched, one made in time
// still completing in the grace period). Set up by test/helpers/pix-connector.ts.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { backends, type TestServer } from '../helpers/server.ts';
import { admin, type V3Client } from '../helpers/clients.ts';
import { cpf } from '../helpers/documents.ts';
import type { PixSimulator } from '../helpers/pix-simulator.ts';
import { startPixSuite, type PixSuite } from '../helpers/pix-connector.ts';
import { reconcile } from '../../src/deposits/payments.ts';
import { payinConnectorNamed } from '../../src/connectors/registry.ts';
import { expireDueDeposits } from '../../src/deposits/worker.ts';
import { cancelByCustomer } from '../../src/deposits/checkout.ts';
import { until } from '../helpers/until.ts';

for (const backend of backends()) {
  describe(`Pix deposits around their cob: checkout, cancel, expiry (${backend})`, () => {
    let p: PixSuite;
    let sim: PixSimulator;
    let s: TestServer;
    let v3: V3Client;

    before(async () => {
      p = await startPixSuite(backend, { configure: true });
      ({ sim, s, v3 } = p);
    });

    after(() => p?.close());

    const pixDeposit = (extra: Record<string, unknown> = {}) => p.pixDeposit(extra);
    const status = (id: number) => p.status(id);

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
