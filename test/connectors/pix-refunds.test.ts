// Refunds of Pix deposits as devoluções at the PSP simulator, on PGlite and PostgreSQL: sent once
// under a random id stored first, completed or rejected by the PSP's outcome, never adopted when the
// PSP shows another valor under the id, never stepped twice while a PUT is in flight, looked up
// (not sent again) when an answer was lost. Set up by test/helpers/pix-connector.ts.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { backends, startTestServer, type TestServer } from '../helpers/server.ts';
import { admin, createMerchant, V3Client } from '../helpers/clients.ts';
import type { PixSimulator } from '../helpers/pix-simulator.ts';
import { startPixSuite, type PixSuite } from '../helpers/pix-connector.ts';
import { resendStoppedRefund, trackConnectorRefunds } from '../../src/refunds/provider-refunds.ts';
import { setRates } from '../helpers/four-eyes.ts';
import { until } from '../helpers/until.ts';

for (const backend of backends()) {
  describe(`Pix refunds as devoluções (${backend})`, () => {
    let p: PixSuite;
    let sim: PixSimulator;
    let s: TestServer;
    let v3: V3Client;

    before(async () => {
      p = await startPixSuite(backend, { configure: true });
      ({ sim, s, v3 } = p);
    });

    after(() => p?.close());

    const body = (extra: Record<string, unknown> = {}) => p.body(extra);
    const paidDeposit = () => p.paidDeposit();
    const refundStatus = (id: number) => p.refundStatus(id);
    const devolucaoId = (id: number) => p.devolucaoId(id);

    test('devolução settled: the refund needs no bank account, is sent once and completes', async () => {
      const d = await paidDeposit();
      const r = await v3.post('/v3/refunds', { deposit_id: d.id, amount: '30.00' });
      assert.equal(r.status, 200, r.text);
      const id = r.body.refund_id as number;
      assert.equal(await refundStatus(id), 'PENDING');
      const devId = await devolucaoId(id);
      assert.match(devId, /^cajadev[a-zA-Z0-9]{25}$/, 'a random devolução id, stored with the refund');
      const dev = await until('devolução at the PSP', async () => (await sim.state()).devolucoes.filter((x: any) => x.id === devId), (x) => x.length === 1);
      assert.equal(dev[0].valor, '30.00');
      await sim.control.settleDevolucoes();
      await until('refund completed', () => refundStatus(id), (x) => x === 'COMPLETED');
      assert.equal((await sim.state()).devolucoes.filter((x: any) => x.id === devId).length, 1);
    });

    test('a devolução found under the refund\'s id that is not the refund\'s (another valor) is never adopted: stopped, on /metrics', async () => {
      const d = await paidDeposit();
      const first = await v3.post('/v3/refunds', { deposit_id: d.id, amount: '30.00' });
      assert.equal(first.status, 200, first.text);
      const firstDev = await devolucaoId(first.body.refund_id);
      await until('devolução at the PSP', async () => (await sim.state()).devolucoes.filter((x: any) => x.id === firstDev).length, (x) => x === 1);
      // The first refund's devolução is returned; the second's stays in process at the PSP.
      await sim.control.settleDevolucoes();
      await until('first refund completed', () => refundStatus(first.body.refund_id), (x) => x === 'COMPLETED');
      const second = await v3.post('/v3/refunds', { deposit_id: d.id, amount: '20.00' });
      assert.equal(second.status, 200, second.text);
      const id = second.body.refund_id as number;
      const rowOf = async () => (await s.ctx.db.query<{ state: string; last_error: string }>('SELECT state, last_error FROM connector_refunds WHERE refund_id = $1', [id])).rows[0]!;
      await until('sent', async () => (await rowOf()).state, (x) => x === 'sent');
      // Its row names the first refund's devolução (as a row restored with a reference used since
      // would; the first refund's own row is then not in the restored database: moved aside here,
      // a reference names one row).
      await s.ctx.db.query(`UPDATE connector_refunds SET reference = 'gone' || refund_id WHERE refund_id = $1`, [first.body.refund_id]);
      await s.ctx.db.query(`UPDATE connector_refunds SET reference = $2 WHERE refund_id = $1`, [id, firstDev]);
      const row = await until('looked up', async () => {
        await s.ctx.db.query(`UPDATE connector_refunds SET next_check_at = now() - interval '1 second' WHERE refund_id = $1 AND state = 'sent'`, [id]);
        await trackConnectorRefunds(s.ctx);
        return rowOf();
      }, (x) => x.state !== 'sent');
      assert.equal(row.state, 'stopped');
      assert.match(row.last_error, /valor 30\.00 \(the refund's is 20\.00\)/);
      assert.equal(await refundStatus(id), 'PENDING', 'not COMPLETED by the first refund\'s devolução');
      assert.match(await (await fetch(`${s.url}/metrics`)).text(), /caja_connector_orders_stopped\{connector="pix",kind="refund"\} 1/);
      // Stopped rows are never stepped again.
      await s.ctx.db.query(`UPDATE connector_refunds SET next_check_at = now() - interval '1 second' WHERE refund_id = $1`, [id]);
      await trackConnectorRefunds(s.ctx);
      assert.equal(await refundStatus(id), 'PENDING');
      // The operator sends it again under a new devolução id (`caja connector pix resend`).
      const actor = { kind: 'token' as const, id: 0, name: 'cli', ip: null };
      const resent = (await resendStoppedRefund(s.ctx.db, id, actor))!;
      assert.equal(resent.from, firstDev);
      assert.equal(await resendStoppedRefund(s.ctx.db, id, actor), null, 'once');
      await until('its own devolução at the PSP', async () => {
        await trackConnectorRefunds(s.ctx);
        return (await sim.state()).devolucoes.filter((x: any) => x.id === resent.to);
      }, (x) => x.length === 1 && x[0].valor === '20.00');
      await sim.control.settleDevolucoes();
      await until('refund completed', () => refundStatus(id), (x) => x === 'COMPLETED');
    });

    test('devolução refused (NAO_REALIZADO): the refund is rejected and its reservation voided', async () => {
      await sim.control.devolucao({ outcome: 'NAO_REALIZADO' });
      try {
        const d = await paidDeposit();
        const r = await v3.post('/v3/refunds', { deposit_id: d.id, amount: '100.00', bank_account: { beneficiary: 'Maria Souza', bank_code: '341', branch: '0001', account_number: '12345-4', account_type: 'CHECKING' } });
        assert.equal(r.status, 200, r.text);
        const id = r.body.refund_id as number;
        const devId = await devolucaoId(id);
        await until('devolução at the PSP', async () => (await sim.state()).devolucoes.filter((x: any) => x.id === devId).length, (x) => x === 1);
        await sim.control.settleDevolucoes();
        await until('refund rejected', () => refundStatus(id), (x) => x === 'REJECTED');
        // The whole amount can be refunded again: nothing is held any more.
        const again = await v3.post('/v3/refunds', { deposit_id: d.id, amount: '100.00' });
        assert.equal(again.status, 200, again.text);
      } finally {
        await sim.control.devolucao({ outcome: 'DEVOLVIDO' });
      }
    });

    test('the lease is held for the whole PUT: a worker pass while the devolução is being sent runs no second step', async () => {
      // A PSP slower than the first backoff (2 s): the connector waits up to 12 s for it (long
      // enough that the PUT is still in flight through the whole check on a loaded machine).
      const slow = await startTestServer(backend, { CAJA_ENV: 'production', CAJA_CONNECTOR_TIMEOUT_MS: '12000', CAJA_MASTER_KEY: s.ctx.config.masterKey.toString('base64') });
      try {
        await setRates(slow, { BRL: '5.00' });
        assert.equal((await admin(slow.url, 'PUT', '/admin/connectors/pix', sim.config)).status, 200);
        const sm = await createMerchant(slow.url, 'Slow PSP shop');
        const sv3 = V3Client.deposits(slow.url, sm);
        const created = await sv3.post('/v3/deposits', body({ amount: '40.00' }));
        assert.equal(created.status, 200, created.text);
        const txid = (await slow.ctx.db.query<{ connector_reference: string }>('SELECT connector_reference FROM deposits WHERE id = $1', [created.body.deposit_id])).rows[0]!.connector_reference;
        await sim.control.pay(txid);
        await until('deposit completed', async () => (await sv3.get(`/v3/deposits/${created.body.deposit_id}`)).body.status, (x) => x === 'COMPLETED');
        await sim.control.outage('hang');
        const r = await sv3.post('/v3/refunds', { deposit_id: created.body.deposit_id, amount: '10.00' });
        assert.equal(r.status, 200, r.text);
        const id = r.body.refund_id as number;
        // Its first PUT in flight: 'sending' with the lease held.
        await until('sending', async () => (await slow.ctx.db.query<{ state: string; leased: boolean }>('SELECT state, leased_until > now() AS leased FROM connector_refunds WHERE refund_id = $1', [id])).rows[0]!, (x) => x.state === 'sending' && x.leased);
        const requestsBefore = (await sim.state()).requests.length;
        // Past the first backoff, the PUT still unanswered: the worker's pass must leave the row alone.
        await new Promise((res) => setTimeout(res, 2300));
        assert.equal(await trackConnectorRefunds(slow.ctx), 0, 'a second step took the row while its PUT was in flight');
        // Other servers share the PSP (token renewals, polls): only this refund's devolução counts.
        const reference = (await slow.ctx.db.query<{ reference: string }>('SELECT reference FROM connector_refunds WHERE refund_id = $1', [id])).rows[0]!.reference;
        const during = (await sim.state()).requests.slice(requestsBefore).filter((q: { path: string }) => q.path.includes(reference));
        assert.equal(during.length, 0, `nothing asked of the PSP about this devolução alongside the PUT: ${JSON.stringify(during)}`);
        await sim.control.outage('none');
      } finally {
        await sim.control.outage('none');
        await slow.close();
        assert.equal((await admin(s.url, 'PUT', '/admin/connectors/pix', sim.config)).status, 200);
      }
    });

    test('a devolução whose answer was lost is looked up, not sent again', async () => {
      const d = await paidDeposit();
      // The PSP hangs: the PUT times out after (maybe) reaching it; the refund stays PENDING.
      await sim.control.outage('hang');
      const r = await v3.post('/v3/refunds', { deposit_id: d.id, amount: '10.00' });
      assert.equal(r.status, 200, r.text);
      const id = r.body.refund_id as number;
      await until('sending', async () => (await s.ctx.db.query<{ state: string; attempts: number }>('SELECT state, attempts FROM connector_refunds WHERE refund_id = $1', [id])).rows[0]!,
        (x) => x.state === 'sending' && x.attempts >= 1, 30_000);
      await sim.control.outage('none');
      await until('devolução sent', async () => (await s.ctx.db.query<{ state: string }>('SELECT state FROM connector_refunds WHERE refund_id = $1', [id])).rows[0]!.state, (x) => x === 'sent');
      await sim.control.settleDevolucoes();
      await until('refund completed', () => refundStatus(id), (x) => x === 'COMPLETED');
      const devId = await devolucaoId(id);
      assert.equal((await sim.state()).devolucoes.filter((x: any) => x.id === devId).length, 1);
      const puts = (await sim.state()).requests.filter((q) => q.method === 'PUT' && q.path.endsWith(`/devolucao/${devId}`) && q.status !== null && q.status < 300);
      assert.ok(puts.length <= 1, JSON.stringify(puts));
    });

    test('every request caja made follows the API Pix document', async () => {
      assert.deepEqual(await sim.violations(), []);
    });
  });
}
