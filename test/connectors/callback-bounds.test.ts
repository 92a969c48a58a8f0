// Unauthenticated callbacks cannot make caja do unbounded work at a provider. A 10 KB Pix webhook
// naming 200 payments made 200 sequential PSP reads; now one callback reads at most
// READS_PER_CALLBACK, an id the PSP did not know is not read again for a while, and a payment
// already applied is never read again. A forged STP abono dated far from today triggered a signed
// whole-day query; now such a date is refused without asking STP, unknown and applied transfers
// are not looked up again, and STP answers are read up to a size limit. Counts of provider
// requests are read from the simulators.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { backends, startTestServer, type TestServer } from '../helpers/server.ts';
import { admin, createMerchant, V3Client, type Credentials } from '../helpers/clients.ts';
import { cpf } from '../helpers/documents.ts';
import { startPixSimulator, type PixSimulator } from '../helpers/pix-simulator.ts';
import { startStpSimulator, type StpSimulator } from '../helpers/stp-simulator.ts';
import { READS_PER_CALLBACK, READS_PER_MINUTE, takeRead } from '../../src/connectors/callback-bounds.ts';
import { abonoDateAccepted } from '../../src/connectors/stp/callbacks.ts';
import { StpClient } from '../../src/connectors/stp/client.ts';
import { fechaOperacion } from '../../src/connectors/stp/mapping.ts';
import { ConnectorError } from '../../src/connectors/payin.ts';
import type { AppContext } from '../../src/config/context.ts';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { getJson, RATES_MAX_ANSWER_BYTES, RateSourceError } from '../../src/rates/source.ts';
import { setRates } from '../helpers/four-eyes.ts';
import { until } from '../helpers/until.ts';

const e2e = () => `E00000000${new Date().toISOString().slice(0, 16).replace(/\D/g, '')}${randomBytes(8).toString('hex').slice(0, 11)}`;

test('the per-connector budget of reads a minute, and the window of abono dates', () => {
  let now = new Date('2026-11-27T15:00:00Z');
  const ctx = { now: () => now } as unknown as AppContext;
  let granted = 0;
  for (let i = 0; i < READS_PER_MINUTE + 50; i++) if (takeRead(ctx, 'pix')) granted++;
  assert.equal(granted, READS_PER_MINUTE);
  assert.equal(takeRead(ctx, 'stp'), true, 'each connector has its own');
  now = new Date(now.getTime() + 60_000);
  assert.equal(takeRead(ctx, 'pix'), true, 'the next minute has a new budget');
  // Friday 2026-11-27 in Mexico City: yesterday to Tuesday.
  const at = new Date('2026-11-27T18:00:00Z');
  for (const ok of ['20261126', '20261127', '20261130', '20261201']) assert.ok(abonoDateAccepted(ok, at), ok);
  for (const no of ['20261125', '20261202', '20260101', '99999999']) assert.ok(!abonoDateAccepted(no, at), no);
});

test('a rates source answering more than the limit is a RateSourceError, chunked or declared', async () => {
  const server = http.createServer((req, res) => {
    const big = '[' + '1,'.repeat(RATES_MAX_ANSWER_BYTES) + '1]';
    if (req.url === '/declared') res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(big) }).end(big);
    else if (req.url === '/chunked') {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write(big.slice(0, 1000));
      res.end(big.slice(1000));
    } else res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  try {
    for (const path of ['/declared', '/chunked']) {
      await assert.rejects(getJson('test', base + path, {}, 5000), (e: unknown) => e instanceof RateSourceError && /more than \d+ bytes/.test(e.message));
    }
    assert.deepEqual(await getJson('test', `${base}/small`, {}, 5000), { ok: true });
  } finally {
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  }
});

for (const backend of backends()) {
  describe(`Pix webhooks are bounded (${backend})`, () => {
    let sim: PixSimulator;
    let s: TestServer;
    let m: Credentials;
    before(async () => {
      sim = await startPixSimulator();
      s = await startTestServer(backend, { CAJA_ENV: 'production', CAJA_PIX_POLL_SECONDS: '3600', CAJA_CONNECTOR_TIMEOUT_MS: '1500' });
      assert.equal((await admin(s.url, 'PUT', '/admin/connectors/pix', sim.config)).status, 200);
      await setRates(s, { BRL: '5.00' });
      m = await createMerchant(s.url, 'Pix bounds shop');
    });
    after(async () => {
      await s.close();
      await sim.stop();
    });

    const reads = async () => (await sim.state()).requests.filter((r) => r.method === 'GET' && /\/pix\/[^/?]+$/.test(r.path)).length;
    const post = (ids: string[]) => fetch(`${s.url}/connectors/pix/webhook/pix`, {
      method: 'POST', headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ pix: ids.map((endToEndId) => ({ endToEndId, txid: 'x'.repeat(26), valor: '1.00', horario: new Date().toISOString() })) }),
    });

    test('200 ids in one webhook: at most READS_PER_CALLBACK PSP reads; unknown ids are not read again', async () => {
      const before_ = await reads();
      const ids = Array.from({ length: 200 }, e2e);
      const r = await post(ids);
      assert.equal(r.status, 200, await r.text());
      const made = (await reads()) - before_;
      assert.ok(made <= READS_PER_CALLBACK, `${made} PSP reads for one webhook`);
      assert.ok(made > 0);
      // The same ids again (the first ones the PSP did not know): none of them is read again.
      const again = await reads();
      assert.equal((await post(ids.slice(0, made))).status, 200);
      assert.equal((await reads()) - again, 0);
      // One id named many times is read once.
      const one = e2e();
      const n0 = await reads();
      assert.equal((await post(Array(50).fill(one))).status, 200);
      assert.equal((await reads()) - n0, 1);
    });

    test('a payment already applied is not read again when its webhook is replayed', async () => {
      const v3 = V3Client.deposits(s.url, m);
      const d = await v3.post('/v3/deposits', {
        country: 'BR', amount: '50.00', currency: 'BRL', payment_method: 'IX', invoice_id: `bounds-${backend}-${Date.now()}`,
        payer: { document: cpf('111444777'), first_name: 'Maria', last_name: 'Souza', email: 'maria@example.com' },
      });
      assert.equal(d.status, 200, d.text);
      const txid = (await s.ctx.db.query<{ connector_reference: string }>('SELECT connector_reference FROM deposits WHERE id = $1', [d.body.deposit_id])).rows[0]!.connector_reference;
      const paid = await sim.control.pay(txid);
      await until('completed', async () => (await v3.get(`/v3/deposits/${d.body.deposit_id}`)).body.status, (x) => x === 'COMPLETED');
      await sim.control.webhooksIdle();
      const n0 = await reads();
      for (let i = 0; i < 5; i++) assert.equal((await post([paid.endToEndId])).status, 200);
      assert.equal((await reads()) - n0, 0);
    });
  });

  describe(`STP abonos are bounded (${backend})`, () => {
    let sim: StpSimulator;
    let s: TestServer;
    let m: Credentials;
    before(async () => {
      sim = await startStpSimulator();
      s = await startTestServer(backend, { CAJA_ENV: 'production', CAJA_CONNECTOR_TIMEOUT_MS: '1500' });
      await sim.control.receiver(s.url);
      assert.equal((await admin(s.url, 'PUT', '/admin/connectors/stp', sim.config)).status, 200);
      await setRates(s, { MXN: '18.00' });
      m = await createMerchant(s.url, 'SPEI bounds shop');
    });
    after(async () => {
      await s.close();
      await sim.stop();
    });

    const queries = async () => (await sim.state()).requests.filter((r) => r.path.includes('consOrdenesFech')).length;
    const abono = (fecha: string, clabe: string, claveRastreo: string) => fetch(`${s.url}/connectors/stp/abono`, {
      method: 'POST', headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ id: 1, fechaOperacion: Number(fecha), institucionOrdenante: 40012, claveRastreo, monto: 60, cuentaBeneficiario: clabe }),
    });

    test('forged abonos: a date outside the window is refused unread; an unknown transfer is looked up once; an applied one is answered from the database', async () => {
      const v3 = V3Client.deposits(s.url, m);
      const d = await v3.post('/v3/deposits', {
        country: 'MX', amount: '60.00', currency: 'MXN', payment_method: 'SE', invoice_id: `stp-bounds-${backend}-${Date.now()}`,
        payer: { document: 'GODE561231GR8', first_name: 'Eva', last_name: 'Gómez', email: 'eva@example.com' },
      });
      assert.equal(d.status, 200, d.text);
      const clabe = d.body.payment_info.metadata.account as string;
      const q0 = await queries();
      const old = await abono('20260101', clabe, 'FORGED0001');
      assert.equal(old.status, 400);
      assert.match(await old.text(), /fechaOperacion/);
      assert.equal((await queries()) - q0, 0, 'no query of STP for a date outside the window');
      const today = fechaOperacion(new Date());
      const forged = await abono(today, clabe, 'FORGED0002');
      assert.equal(forged.status, 404);
      assert.equal((await queries()) - q0, 1);
      for (let i = 0; i < 5; i++) assert.equal((await abono(today, clabe, 'FORGED0002')).status, 404);
      assert.equal((await queries()) - q0, 1, 'an unknown transfer is not looked up again at once');
      // A real transfer, applied; the same abono posted again is answered without asking STP.
      const paid = await sim.control.abono({ cuentaBeneficiario: clabe, monto: Number(d.body.payment_info.amount) });
      assert.deepEqual(paid.answers[0]!.answer, { mensaje: 'confirmar' });
      const q1 = await queries();
      const again = await sim.control.repostAbono(paid.order.claveRastreo);
      assert.deepEqual(again.answers[0]!.answer, { mensaje: 'confirmar' });
      assert.equal((await queries()) - q1, 0);
    });

    test('an STP answer larger than the limit is a ConnectorError, not read into memory', async () => {
      const client = new StpClient({ apiUrl: sim.config.api_url, empresa: sim.config.empresa, privateKey: sim.config.private_key, passphrase: sim.config.private_key_passphrase, ca: sim.config.ca, maxAnswerBytes: 20 });
      try {
        await assert.rejects(client.ordersOfDay('R'), (e: unknown) => e instanceof ConnectorError && e.kind === 'invalid_response' && /larger than 20 bytes/.test(e.message));
      } finally {
        client.close();
      }
    });
  });
}
