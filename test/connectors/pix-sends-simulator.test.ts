// The Pix simulator's Efí send API on its own (src/connectors/pix/simulator/sends.ts), as a client
// would see it: mTLS and scopes, idEnvio idempotency, Efí's refusals, processing → made / not
// made, the document masked, a return, the webhook's notification, state kept across a restart.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { cpf } from '../helpers/documents.ts';
import { pixHttps, pixToken, startPixSimulator, type PixSimulator } from '../helpers/pix-simulator.ts';

const DOC = cpf('529982247');

describe('Pix simulator: Efí\'s send API', () => {
  let sim: PixSimulator;
  let hook: http.Server;
  const posted: any[] = [];

  before(async () => {
    sim = await startPixSimulator({ webhookRetries: 0 });
    hook = http.createServer((req, res) => {
      let body = '';
      req.on('data', (d) => (body += d));
      req.on('end', () => {
        posted.push(JSON.parse(body));
        res.end('200');
      });
    });
    await new Promise<void>((r) => hook.listen(0, '127.0.0.1', r));
  });
  after(async () => {
    await sim.stop();
    await new Promise((r) => hook.close(r));
  });

  const call = async (method: string, path: string, body?: unknown, token?: string) => pixHttps(sim.config, {
    method, url: `${sim.config.api_url}${path}`,
    headers: { authorization: `Bearer ${token ?? (await pixToken(sim.config))}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const byAccount = (valor = '10.00') => ({
    valor, pagador: { chave: sim.config.pix_key, infoPagador: 'teste' },
    favorecido: { contaBanco: { nome: 'Maria', cpf: DOC, codigoBanco: '18236120', agencia: '1', conta: '123456', tipoConta: 'cacc' } },
  });

  test('mTLS and scopes: no certificate fails the handshake; a token without pix.send gets 403', async () => {
    await assert.rejects(pixHttps(sim.config, { method: 'PUT', url: `${sim.config.api_url}/gn/pix/abc`, tls: null }), /certificate required|socket hang up|ECONNRESET|alert/i);
    const readOnly = await pixToken(sim.config, 'gn.pix.send.read');
    assert.equal((await call('PUT', '/gn/pix/abc1', byAccount(), readOnly)).status, 403);
    assert.equal((await call('GET', '/gn/pix/enviados/id-envio/abc1', undefined, await pixToken(sim.config, 'pix.send'))).status, 403);
  });

  test('a send: 201 processing, made after the delay and notified; the same idEnvio again 409; the look-up masks the document; a return shows', async () => {
    await call('PUT', `/webhook/${encodeURIComponent(sim.config.pix_key)}`, { webhookUrl: `http://127.0.0.1:${(hook.address() as AddressInfo).port}/hook` });
    const put = await call('PUT', '/gn/pix/sim1', byAccount());
    assert.equal(put.status, 201, JSON.stringify(put.body));
    assert.equal(put.body.status, 'EM_PROCESSAMENTO');
    assert.match(put.body.e2eId, /^E\d{8}\d{12}[A-Za-z0-9]{11}$/);
    assert.deepEqual((await call('PUT', '/gn/pix/sim1', byAccount('99.00'))).body, { nome: 'id_envio_duplicado', mensagem: 'O id de envio informado já foi utilizado em outro pagamento' });
    await sim.control.webhooksIdle();
    const got = await (async () => {
      for (let i = 0; i < 600; i++) {
        const g = await call('GET', '/gn/pix/enviados/id-envio/sim1');
        if (g.body.status === 'REALIZADO') return g;
        await new Promise((r) => setTimeout(r, 50));
      }
      assert.fail('not made');
    })();
    assert.equal(got.body.valor, '10.00', 'the first send, not the refused second');
    assert.deepEqual(got.body.favorecido.contaBanco, { nome: 'Maria', cpf: `***.${DOC.slice(3, 6)}.${DOC.slice(6, 9)}-**`, agencia: '1', conta: '123456', tipoConta: 'cacc' });
    await sim.control.webhooksIdle();
    const note = posted.flatMap((p) => p.pix).find((x: any) => x.gnExtras?.idEnvio === 'sim1');
    assert.equal(note?.status, 'REALIZADO');
    await sim.control.returnSend('sim1', { valor: '4.00' });
    assert.equal((await call('GET', '/gn/pix/enviados/id-envio/sim1')).body.devolucoes[0].valor, '4.00');
    assert.equal((await call('GET', '/gn/pix/enviados/id-envio/nope')).status, 404);
  });

  test('refusals in Efí\'s form: payer key, unknown beneficiary key, key of another document, bad amount, bad body; NAO_REALIZADO with a motivo', async () => {
    const refused = async (body: unknown) => (await call('PUT', `/gn/pix/r${Date.now()}${Math.floor(Math.random() * 1000)}`, body)).body.nome;
    assert.equal(await refused({ ...byAccount(), pagador: { chave: 'outra@example.com' } }), 'chave_invalida');
    assert.equal(await refused({ ...byAccount(), favorecido: { chave: 'ninguem@example.com' } }), 'chave_invalida');
    await sim.control.dict('joao@example.com', { nome: 'Joao', cpf: cpf('111444777') });
    assert.equal(await refused({ ...byAccount(), favorecido: { chave: 'joao@example.com', cpf: DOC } }), 'chave_nao_pertence_ao_documento');
    assert.equal(await refused(byAccount('0.00')), 'valor_invalido');
    assert.equal(await refused({ ...byAccount(), favorecido: {} }), 'json_invalido');
    await sim.control.sendMood({ outcome: 'NAO_REALIZADO', motivo: 'AC07 Conta encerrada', settle: 'manual' });
    assert.equal((await call('PUT', '/gn/pix/sim2', byAccount())).status, 201);
    assert.equal((await call('GET', '/gn/pix/enviados/id-envio/sim2')).body.status, 'EM_PROCESSAMENTO');
    await sim.control.settleSends({ idEnvio: 'sim2', outcome: 'NAO_REALIZADO', motivo: 'AC07 Conta encerrada' });
    const g = await call('GET', '/gn/pix/enviados/id-envio/sim2');
    assert.deepEqual([g.body.status, g.body.motivo], ['NAO_REALIZADO', 'AC07 Conta encerrada']);
    await sim.control.sendMood({ outcome: 'REALIZADO', settle: 'immediate' });
  });

  test('sends kept across a restart', async () => {
    await sim.restart();
    assert.equal((await call('GET', '/gn/pix/enviados/id-envio/sim1')).body.status, 'REALIZADO');
    assert.equal((await call('PUT', '/gn/pix/sim1', byAccount())).status, 409);
    assert.deepEqual(await sim.violations(), []);
  });
});
