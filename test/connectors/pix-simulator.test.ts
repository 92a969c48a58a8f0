// The API Pix PSP simulator, spoken to as caja's connector will speak to it: a plain Node https
// client holding the certificate the simulator issued. Every answer the tests receive from the
// API is also checked here against the OpenAPI document (besides the simulator's own check), and
// each group ends with no violation recorded on the simulator's side.
import { after, before, beforeEach, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TLSSocket } from 'node:tls';
import { loadOrCreatePki } from '../../src/connectors/pix/simulator/certs.ts';
import { parsePixBrCode, verifyPixCrc } from '../../src/domain/pix.ts';
import { PixApiSchemas } from '../../src/connectors/pix/simulator/schema.ts';
import { pixHttps, pixToken, startPixSimulator, type PixHttpResponse, type PixSimulator } from '../helpers/pix-simulator.ts';

type Json = any;
const schemas = PixApiSchemas.load();
const TEMPLATES = ['/cob/{txid}', '/pix/{e2eid}/devolucao/{id}', '/pix/{e2eid}', '/pix', '/webhook/{chave}'];
const E2E = /^E\d{8}\d{12}[a-zA-Z0-9]{11}$/;

function template(path: string): string | undefined {
  const p = path.split('?')[0]!;
  return TEMPLATES.find((t) => new RegExp('^' + t.replace(/\{\w+\}/g, '[^/]+') + '$').test(p));
}

/** A second PKI, with a CA of its own (made with the simulator's code): a stranger's client certificate, a webhook receiver's server certificate. */
let other: ReturnType<typeof loadOrCreatePki> | undefined;
const otherPki = () => (other ??= loadOrCreatePki(mkdtempSync(join(tmpdir(), 'caja-pixsim-other-')), 'stranger'));

let txidSeq = 0;
/** A fresh txid: 26 to 35 letters and digits. */
const newTxid = () => `caja${Date.now().toString(36)}${String(++txidSeq).padStart(6, '0')}`.padEnd(28, 'x');

interface Receiver {
  url: string;
  posts: Array<{ path: string; body: Json }>;
  /** Statuses to answer, in order; 200 once exhausted. */
  answers: number[];
  close(): Promise<void>;
}

async function webhookReceiver(): Promise<Receiver> {
  const r: Receiver = { url: '', posts: [], answers: [], close: async () => {} };
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (d) => (body += d));
    req.on('end', () => {
      r.posts.push({ path: req.url!, body: JSON.parse(body) });
      res.statusCode = r.answers.shift() ?? 200;
      res.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  r.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/connectors/pix/webhook`;
  r.close = () => new Promise((resolve) => server.close(() => resolve()));
  return r;
}

describe('API Pix PSP simulator', () => {
  let sim: PixSimulator;
  let token: string;
  let hook: Receiver;

  /** One API call with the issued certificate and the current token; the answer is checked against the document. */
  async function api(method: string, path: string, body?: unknown, o: { token?: string | null; raw?: string; contentType?: string } = {}): Promise<PixHttpResponse> {
    const t = o.token === undefined ? token : o.token;
    const payload = o.raw ?? (body === undefined ? undefined : JSON.stringify(body));
    const res = await pixHttps(sim.config, {
      method,
      url: sim.config.api_url + path,
      headers: {
        ...(t ? { authorization: `Bearer ${t}` } : {}),
        ...(payload !== undefined ? { 'content-type': o.contentType ?? 'application/json' } : {}),
      },
      body: payload,
    });
    const tpl = template(path);
    if (tpl) {
      const errors = schemas.validateResponse(method, tpl, res.status, res.headers['content-type'] as string | undefined, res.body === '' ? undefined : res.body);
      assert.deepEqual(errors, [], `${method} ${path} → ${res.status} breaks the document`);
    }
    return res;
  }

  const cobBody = (over: Json = {}) => ({
    calendario: { expiracao: 3600 },
    devedor: { cpf: '12345678909', nome: 'Fulano de Tal' },
    valor: { original: '10.50' },
    chave: sim.config.pix_key,
    solicitacaoPagador: 'Pedido 42',
    ...over,
  });

  async function createCob(over: Json = {}): Promise<Json> {
    const txid = newTxid();
    const res = await api('PUT', `/cob/${txid}`, cobBody(over));
    assert.equal(res.status, 201, JSON.stringify(res.body));
    return res.body;
  }

  /** No schema violation on the simulator's side (its responses and webhooks), and none from requests unless expected. */
  async function assertNoViolations(requestViolationsExpected = 0) {
    const v = await sim.violations();
    assert.deepEqual(v.filter((x) => x.side !== 'request'), []);
    assert.equal(v.filter((x) => x.side === 'request').length, requestViolationsExpected, JSON.stringify(v));
  }

  before(async () => {
    sim = await startPixSimulator({ webhookBackoffMs: 50 });
    hook = await webhookReceiver();
  });
  after(async () => {
    await sim?.stop();
    await hook?.close();
  });
  beforeEach(async () => {
    await sim.control.reset();
    hook.posts.length = 0;
    hook.answers.length = 0;
    token = await pixToken(sim.config);
    assert.equal((await api('PUT', `/webhook/${sim.config.pix_key}`, { webhookUrl: hook.url })).status, 200);
  });

  test('prints a usable configuration: PEM contents, https URLs, an EVP key', () => {
    const c = sim.config;
    assert.match(c.api_url, /^https:\/\/127\.0\.0\.1:\d+\/v2$/);
    assert.match(c.token_url, /^https:\/\/127\.0\.0\.1:\d+\/oauth\/token$/);
    assert.match(c.certificate, /^-----BEGIN CERTIFICATE-----/);
    assert.match(c.private_key, /^-----BEGIN PRIVATE KEY-----/);
    assert.match(c.ca, /^-----BEGIN CERTIFICATE-----/);
    assert.match(c.pix_key, /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    assert.ok(c.client_id && c.client_secret);
  });

  describe('mutual TLS', () => {
    test('a client without a certificate fails the handshake, on the API and the token endpoint', async () => {
      for (const url of [sim.config.api_url + '/cob/' + newTxid(), sim.config.token_url]) {
        await assert.rejects(pixHttps(sim.config, { method: 'GET', url, tls: null }), /certificate required|socket hang up|ECONNRESET|alert/i);
      }
    });

    test('a certificate from another CA fails the handshake; the issued one passes', async () => {
      const other = otherPki();
      await assert.rejects(
        pixHttps(sim.config, { method: 'POST', url: sim.config.token_url, tls: { cert: other.client.cert, key: other.client.key } }),
        /unknown ca|certificate|alert|ECONNRESET|hang up/i,
      );
      assert.ok(await pixToken(sim.config));
    });

    test('the server certificate is for 127.0.0.1 and chains to the CA the configuration carries', async () => {
      // pixHttps verifies the server against config.ca with Node's default hostname checks.
      const res = await api('GET', `/cob/${newTxid()}`);
      assert.equal(res.status, 404);
    });
  });

  describe('OAuth2 client credentials', () => {
    const basic = (id: string, secret: string) => 'Basic ' + Buffer.from(`${id}:${secret}`).toString('base64');
    const tokenCall = (headers: Record<string, string>, body = 'grant_type=client_credentials') =>
      pixHttps(sim.config, { method: 'POST', url: sim.config.token_url, headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers }, body });

    test('good credentials get a bearer token with expires_in and scope', async () => {
      const res = await tokenCall({ authorization: basic(sim.config.client_id, sim.config.client_secret) });
      assert.equal(res.status, 200);
      assert.equal(res.body.token_type, 'Bearer');
      assert.equal(res.body.expires_in, 300);
      assert.ok(res.body.access_token.length >= 20);
      assert.match(res.body.scope, /cob\.write/);
      assert.equal(res.headers['cache-control'], 'no-store');
    });

    test('wrong or missing client credentials: 401 invalid_client; a wrong grant: 400', async () => {
      for (const headers of [{ authorization: basic(sim.config.client_id, 'wrong') }, { authorization: basic('someone', sim.config.client_secret) }, {}] as Array<Record<string, string>>) {
        const res = await tokenCall(headers);
        assert.equal(res.status, 401);
        assert.equal(res.body.error, 'invalid_client');
      }
      const res = await tokenCall({ authorization: basic(sim.config.client_id, sim.config.client_secret) }, 'grant_type=password');
      assert.equal(res.status, 400);
      assert.equal(res.body.error, 'unsupported_grant_type');
    });

    test('the API refuses a missing, unknown or revoked token with a 401 problem', async () => {
      const txid = (await createCob()).txid;
      for (const t of [null, 'not-a-token']) {
        const res = await api('GET', `/cob/${txid}`, undefined, { token: t });
        assert.equal(res.status, 401);
        assert.equal(res.body.status, 401);
        assert.match(res.body.type, /^https:\/\/pix\.bcb\.gov\.br\/api\/v2\/error\//);
        assert.match(String(res.headers['www-authenticate']), /^Bearer/);
      }
      await sim.control.expireTokens();
      assert.equal((await api('GET', `/cob/${txid}`)).status, 401);
      token = await pixToken(sim.config);
      assert.equal((await api('GET', `/cob/${txid}`)).status, 200);
      assert.equal((await sim.state()).tokensIssued, 2);
    });

    test('a token lacks the scopes it was not granted: 403 AcessoNegado', async () => {
      const readOnly = await pixToken(sim.config, 'cob.read');
      const res = await api('PUT', `/cob/${newTxid()}`, cobBody(), { token: readOnly });
      assert.equal(res.status, 403);
      assert.equal(res.body.type, 'https://pix.bcb.gov.br/api/v2/error/AcessoNegado');
    });

    test('tokens expire after --token-ttl', async () => {
      const short = await startPixSimulator({ tokenTtl: 1 });
      try {
        const t = await pixToken(short.config);
        const get = () =>
          pixHttps(short.config, { method: 'GET', url: `${short.config.api_url}/webhook/${short.config.pix_key}`, headers: { authorization: `Bearer ${t}` } });
        assert.equal((await get()).status, 404); // valid token, no webhook yet
        await new Promise((r) => setTimeout(r, 1200));
        const res = await get();
        assert.equal(res.status, 401);
        assert.match(res.body.detail, /expirado/);
      } finally {
        await short.stop();
      }
    });
  });

  describe('cob', () => {
    test('PUT creates an ATIVA charge whose pixCopiaECola is a dynamic BR Code pointing at its location', async () => {
      const cob = await createCob();
      assert.equal(cob.status, 'ATIVA');
      assert.equal(cob.revisao, 0);
      assert.equal(cob.calendario.expiracao, 3600);
      assert.ok(!Number.isNaN(Date.parse(cob.calendario.criacao)));
      assert.equal(cob.valor.original, '10.50');
      assert.equal(cob.chave, sim.config.pix_key);
      assert.equal(cob.loc.tipoCob, 'cob');
      assert.equal(cob.loc.location, cob.location);
      assert.ok(verifyPixCrc(cob.pixCopiaECola));
      const parsed = parsePixBrCode(cob.pixCopiaECola);
      assert.ok(parsed.ok, !parsed.ok ? parsed.reason : '');
      assert.equal(parsed.value.url, cob.location);
      assert.equal(parsed.value.amount, '10.50');
      assert.equal(parsed.value.currency, '986');
      assert.equal(parsed.value.merchantCity, 'Sao Paulo');
      assert.ok(parsed.value.merchantName);
      assert.ok(parsed.value.fields.some((f) => f.id === '26' && f.value.includes('br.gov.bcb.pix')));
      assert.equal(parsed.value.fields.find((f) => f.id === '01')?.value, '12');

      const got = await api('GET', `/cob/${cob.txid}`);
      assert.equal(got.status, 200);
      assert.deepEqual(got.body, cob);
      await assertNoViolations();
    });

    test('PUT again with the same body keeps the revision; PATCH revises; GET ?revisao= reads an old one', async () => {
      const cob = await createCob();
      const again = await api('PUT', `/cob/${cob.txid}`, cobBody());
      assert.equal(again.status, 201);
      assert.equal(again.body.revisao, 0);
      const patched = await api('PATCH', `/cob/${cob.txid}`, { valor: { original: '12.00' } });
      assert.equal(patched.status, 200);
      assert.equal(patched.body.revisao, 1);
      assert.equal(parsePixBrCode(patched.body.pixCopiaECola).ok && (parsePixBrCode(patched.body.pixCopiaECola) as Json).value.amount, '12.00');
      const old = await api('GET', `/cob/${cob.txid}?revisao=0`);
      assert.equal(old.body.valor.original, '10.50');
      assert.equal((await api('GET', `/cob/${cob.txid}?revisao=7`)).status, 400);
      await assertNoViolations();
    });

    test('PATCH status REMOVIDA_PELO_USUARIO_RECEBEDOR removes it; with other changes it is refused; a removed cob cannot change', async () => {
      const cob = await createCob();
      const both = await api('PATCH', `/cob/${cob.txid}`, { status: 'REMOVIDA_PELO_USUARIO_RECEBEDOR', valor: { original: '1.00' } });
      assert.equal(both.status, 400);
      const removed = await api('PATCH', `/cob/${cob.txid}`, { status: 'REMOVIDA_PELO_USUARIO_RECEBEDOR' });
      assert.equal(removed.status, 200);
      assert.equal(removed.body.status, 'REMOVIDA_PELO_USUARIO_RECEBEDOR');
      const put = await api('PUT', `/cob/${cob.txid}`, cobBody());
      assert.equal(put.status, 400);
      assert.equal(put.body.type, 'https://pix.bcb.gov.br/api/v2/error/CobOperacaoInvalida');
      assert.equal((await api('PATCH', `/cob/${newTxid()}`, { status: 'REMOVIDA_PELO_USUARIO_RECEBEDOR' })).status, 404);
      await assertNoViolations();
    });

    test('an invalid body is answered 400 with violacoes naming each property, and recorded', async () => {
      const res = await api('PUT', `/cob/${newTxid()}`, { valor: { original: '10.5' }, chave: sim.config.pix_key, devedor: { nome: 'Sem documento' } });
      assert.equal(res.status, 400);
      assert.equal(res.headers['content-type'], 'application/problem+json; charset=utf-8');
      assert.equal(res.body.type, 'https://pix.bcb.gov.br/api/v2/error/CobOperacaoInvalida');
      const props = res.body.violacoes.map((v: Json) => v.propriedade);
      assert.ok(props.includes('cob.valor.original'), props.join());
      assert.ok(props.includes('cob.calendario'), props.join());
      assert.ok(props.some((p: string) => p.startsWith('cob.devedor')), props.join());
      assert.equal(res.body.violacoes.find((v: Json) => v.propriedade === 'cob.valor.original').valor, '10.5');
      const v = await sim.violations();
      assert.equal(v.length, 1);
      assert.equal(v[0]!.side, 'request');
      assert.equal(v[0]!.method, 'PUT');
    });

    test('semantic refusals: a key that is not the receiver\'s, zero amount, a bad CPF, a bad txid, not JSON', async () => {
      const cases: Array<[Json, string]> = [
        [cobBody({ chave: 'outra@chave.com' }), 'cob.chave'],
        [cobBody({ valor: { original: '0.00' } }), 'cob.valor.original'],
        [cobBody({ devedor: { cpf: '12345678900', nome: 'X' } }), 'cob.devedor'],
        [cobBody({ calendario: { expiracao: 0 } }), 'cob.calendario.expiracao'],
      ];
      for (const [body, prop] of cases) {
        const res = await api('PUT', `/cob/${newTxid()}`, body);
        assert.equal(res.status, 400, prop);
        assert.ok(res.body.violacoes.some((x: Json) => x.propriedade === prop), JSON.stringify(res.body));
      }
      await assertNoViolations(0); // semantic errors are caja's data, not schema breaks

      for (const txid of ['short', 'x'.repeat(36), 'has-a-dash-aaaaaaaaaaaaaaaaaaaaaa']) {
        const res = await api('PUT', `/cob/${txid}`, cobBody());
        assert.equal(res.status, 400, txid);
        assert.equal(res.body.violacoes[0].propriedade, 'txid');
      }
      const notJson = await api('PUT', `/cob/${newTxid()}`, undefined, { raw: '{"valor":' });
      assert.equal(notJson.status, 400);
      const form = await api('PUT', `/cob/${newTxid()}`, undefined, { raw: 'a=1', contentType: 'application/x-www-form-urlencoded' });
      assert.equal(form.status, 400);
      await assertNoViolations(5);
    });

    test('fail-next-cob refuses the next creations with the given status and a problem body', async () => {
      await sim.control.failNextCob(503, 2);
      for (let i = 0; i < 2; i++) {
        const res = await api('PUT', `/cob/${newTxid()}`, cobBody());
        assert.equal(res.status, 503);
        assert.equal(res.body.type, 'https://pix.bcb.gov.br/api/v2/error/ServicoIndisponivel');
      }
      await createCob();
      await sim.control.failNextCob(400, 1, 'Chave bloqueada');
      const res = await api('PUT', `/cob/${newTxid()}`, cobBody());
      assert.equal(res.status, 400);
      assert.equal(res.body.detail, 'Chave bloqueada');
      assert.equal((await sim.state()).cobs.length, 1);
      await assertNoViolations();
    });
  });

  describe('payment and webhook', () => {
    test('deliver: paying posts {pix:[…]} to <webhookUrl>/pix; the cob is CONCLUIDA and the Pix readable', async () => {
      const cob = await createCob();
      const { endToEndId } = await sim.control.pay(cob.txid, { infoPagador: 'Obrigado' });
      assert.match(endToEndId, E2E);
      assert.equal(endToEndId.length, 32);
      await sim.control.webhooksIdle();
      assert.equal(hook.posts.length, 1);
      assert.equal(hook.posts[0]!.path, '/connectors/pix/webhook/pix');
      const [p] = hook.posts[0]!.body.pix;
      assert.equal(p.endToEndId, endToEndId);
      assert.equal(p.txid, cob.txid);
      assert.equal(p.valor, '10.50');
      assert.equal(p.chave, sim.config.pix_key);
      assert.equal(p.infoPagador, 'Obrigado');
      assert.deepEqual(schemas.validateWebhookPix(hook.posts[0]!.body), []);

      const got = await api('GET', `/cob/${cob.txid}`);
      assert.equal(got.body.status, 'CONCLUIDA');
      assert.equal(got.body.pix[0].endToEndId, endToEndId);
      const pix = await api('GET', `/pix/${endToEndId}`);
      assert.equal(pix.status, 200);
      assert.equal(pix.body.txid, cob.txid);
      assert.equal((await api('GET', `/pix/E99999008202001010000aaaaaaaaaaa`)).status, 404);
      assert.deepEqual((await sim.state()).deliveries.map((d) => d.status), [200]);
      await assertNoViolations();
    });

    test('drop: nothing is posted, the drop is recorded; duplicate: the same notification twice', async () => {
      await sim.control.webhookMode('drop');
      const a = await createCob();
      const paidA = await sim.control.pay(a.txid);
      await sim.control.webhooksIdle();
      assert.equal(hook.posts.length, 0);
      const dropped = (await sim.state()).deliveries;
      assert.equal(dropped.length, 1);
      assert.equal(dropped[0]!.dropped, true);
      assert.deepEqual(dropped[0]!.endToEndIds, [paidA.endToEndId]);

      await sim.control.webhookMode('duplicate');
      const b = await createCob();
      const paidB = await sim.control.pay(b.txid);
      await sim.control.webhooksIdle();
      assert.equal(hook.posts.length, 2);
      assert.deepEqual(hook.posts[0]!.body, hook.posts[1]!.body);
      assert.equal(hook.posts[0]!.body.pix[0].endToEndId, paidB.endToEndId);
      await assertNoViolations();
    });

    test('a non-2xx answer is retried with backoff until accepted', async () => {
      hook.answers.push(500, 503);
      const cob = await createCob();
      await sim.control.pay(cob.txid);
      await sim.control.webhooksIdle();
      assert.equal(hook.posts.length, 3);
      const d = (await sim.state()).deliveries;
      assert.deepEqual(d.map((x) => [x.attempt, x.status]), [[1, 500], [2, 503], [3, 200]]);
    });

    test('a late payment: an expired cob is paid all the same; a paid one cannot be paid twice; amount and time can be set', async () => {
      const cob = await createCob({ calendario: { expiracao: 1 } });
      await new Promise((r) => setTimeout(r, 1100));
      const { endToEndId } = await sim.control.pay(cob.txid, { valor: '9.99', horario: '2026-01-02T03:04:05.000Z' });
      assert.match(endToEndId, /^E\d{8}202601020304/);
      const pix = await api('GET', `/pix/${endToEndId}`);
      assert.equal(pix.body.valor, '9.99');
      assert.equal(pix.body.horario, '2026-01-02T03:04:05.000Z');
      await assert.rejects(sim.control.pay(cob.txid), /409/);
      const removed = await createCob();
      await sim.control.removeCob(removed.txid);
      assert.equal((await api('GET', `/cob/${removed.txid}`)).body.status, 'REMOVIDA_PELO_PSP');
      await assert.rejects(sim.control.pay(removed.txid), /409/);
      assert.match((await sim.control.pay(removed.txid, { force: true })).endToEndId, E2E);
      await assertNoViolations();
    });

    test('webhook registration: GET answers it, DELETE removes it (no more posts), a foreign key is refused', async () => {
      const got = await api('GET', `/webhook/${sim.config.pix_key}`);
      assert.equal(got.status, 200);
      assert.equal(got.body.webhookUrl, hook.url);
      assert.match(got.body.cnpj, /^\d{14}$/);
      assert.equal((await api('DELETE', `/webhook/${sim.config.pix_key}`)).status, 204);
      assert.equal((await api('GET', `/webhook/${sim.config.pix_key}`)).status, 404);
      assert.equal((await api('DELETE', `/webhook/${sim.config.pix_key}`)).status, 404);
      const cob = await createCob();
      await sim.control.pay(cob.txid);
      await sim.control.webhooksIdle();
      assert.equal(hook.posts.length, 0);
      const foreign = await api('PUT', '/webhook/outra@chave.com', { webhookUrl: hook.url });
      assert.equal(foreign.status, 400);
      assert.equal(foreign.body.type, 'https://pix.bcb.gov.br/api/v2/error/WebhookOperacaoInvalida');
      const remote = await api('PUT', `/webhook/${sim.config.pix_key}`, { webhookUrl: 'http://example.com/hook' });
      assert.equal(remote.status, 400);
      await assertNoViolations();
    });

    test('https webhooks: the receiver is checked against --webhook-ca, and the simulator presents its certificate', async () => {
      const pki = otherPki();
      const posts: Json[] = [];
      let peer: Json;
      const server = https.createServer({ key: pki.server.key, cert: pki.server.cert, requestCert: true, rejectUnauthorized: false }, (req, res) => {
        peer = (req.socket as TLSSocket).getPeerCertificate();
        let body = '';
        req.on('data', (d) => (body += d));
        req.on('end', () => {
          posts.push(JSON.parse(body));
          res.end();
        });
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      const url = `https://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
      const trusting = await startPixSimulator({ webhookCaFile: pki.files.ca });
      try {
        const t = await pixToken(trusting.config);
        const call = (method: string, path: string, body: Json) =>
          pixHttps(trusting.config, { method, url: trusting.config.api_url + path, headers: { authorization: `Bearer ${t}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
        assert.equal((await call('PUT', `/webhook/${trusting.config.pix_key}`, { webhookUrl: url })).status, 200);
        const txid = newTxid();
        assert.equal((await call('PUT', `/cob/${txid}`, { calendario: { expiracao: 60 }, valor: { original: '1.00' }, chave: trusting.config.pix_key })).status, 201);
        await trusting.control.pay(txid);
        await trusting.control.webhooksIdle();
        assert.equal(posts.length, 1);
        assert.equal(posts[0].pix[0].txid, txid);
        assert.equal(peer.issuer.CN, 'caja Pix PSP simulator CA');
        assert.deepEqual(await trusting.violations(), []);

        // A simulator that does not trust the receiver's CA fails every attempt.
        assert.equal((await api('PUT', `/webhook/${sim.config.pix_key}`, { webhookUrl: url })).status, 200);
        const cob = await createCob();
        await sim.control.pay(cob.txid);
        await sim.control.webhooksIdle();
        const d = (await sim.state()).deliveries;
        assert.equal(d.length, 5);
        assert.ok(d.every((x) => x.status === null && /certificate/i.test(x.error ?? '')), JSON.stringify(d[0]));
        assert.equal(posts.length, 1);
      } finally {
        await trusting.stop();
        await new Promise((resolve) => server.close(resolve));
      }
    });
  });

  describe('GET /pix', () => {
    test('pages through many payments in a window, with parametros.paginacao', async () => {
      const base = Date.parse('2026-03-01T12:00:00.000Z');
      const paid: string[] = [];
      for (let i = 0; i < 23; i++) {
        const cob = await createCob({ valor: { original: `${i + 1}.00` } });
        paid.push((await sim.control.pay(cob.txid, { horario: new Date(base + i * 60_000).toISOString() })).endToEndId);
      }
      const outside = await createCob();
      await sim.control.pay(outside.txid, { horario: '2026-03-02T12:00:00.000Z' });

      const inicio = '2026-03-01T00:00:00Z';
      const fim = '2026-03-01T23:59:59Z';
      const seen: string[] = [];
      for (let page = 0; page < 3; page++) {
        const res = await api('GET', `/pix?inicio=${inicio}&fim=${fim}&paginacao.paginaAtual=${page}&paginacao.itensPorPagina=10`);
        assert.equal(res.status, 200);
        assert.deepEqual(res.body.parametros.paginacao, { paginaAtual: page, itensPorPagina: 10, quantidadeDePaginas: 3, quantidadeTotalDeItens: 23 });
        assert.equal(res.body.parametros.inicio, inicio);
        assert.equal(res.body.pix.length, page < 2 ? 10 : 3);
        seen.push(...res.body.pix.map((p: Json) => p.endToEndId));
      }
      assert.deepEqual(seen, paid); // every one once, in time order
      const beyond = await api('GET', `/pix?inicio=${inicio}&fim=${fim}&paginacao.paginaAtual=5&paginacao.itensPorPagina=10`);
      assert.deepEqual(beyond.body.pix, []);
      const defaults = await api('GET', `/pix?inicio=${inicio}&fim=2026-03-03T00:00:00Z`);
      assert.equal(defaults.body.parametros.paginacao.itensPorPagina, 100);
      assert.equal(defaults.body.pix.length, 24);
      const one = await api('GET', `/pix?inicio=${inicio}&fim=2026-03-03T00:00:00Z&txid=${outside.txid}`);
      assert.equal(one.body.pix.length, 1);
      assert.equal(one.body.parametros.txid, outside.txid);
      const empty = await api('GET', `/pix?inicio=2025-01-01T00:00:00Z&fim=2025-01-02T00:00:00Z`);
      assert.deepEqual(empty.body.parametros.paginacao, { paginaAtual: 0, itensPorPagina: 100, quantidadeDePaginas: 1, quantidadeTotalDeItens: 0 });
      await assertNoViolations();
    });

    test('a Pix to the key without a charge: listed (txIdPresente=false), no webhook; the request log keeps each query', async () => {
      const cob = await createCob();
      await sim.control.pay(cob.txid);
      const { endToEndId } = await sim.control.payKey('3.33', { infoPagador: 'sem cobrança' });
      await sim.control.webhooksIdle();
      assert.equal(hook.posts.length, 1); // the charge's only
      const window = 'inicio=2020-01-01T00:00:00Z&fim=2099-01-01T00:00:00Z';
      const without = await api('GET', `/pix?${window}&txIdPresente=false`);
      assert.deepEqual(without.body.pix.map((p: Json) => [p.endToEndId, p.txid, p.valor]), [[endToEndId, undefined, '3.33']]);
      assert.equal(without.body.parametros.txIdPresente, false);
      assert.equal((await api('GET', `/pix?${window}&txIdPresente=true`)).body.pix[0].txid, cob.txid);
      const polls = (await sim.state()).requests.filter((r) => r.path === '/v2/pix');
      assert.deepEqual(polls.map((r) => r.query), [`${window}&txIdPresente=false`, `${window}&txIdPresente=true`]);
      await assertNoViolations();
    });

    test('bad queries: 400 PixConsultaInvalida', async () => {
      for (const q of ['fim=2026-01-01T00:00:00Z', 'inicio=2026-01-02T00:00:00Z&fim=2026-01-01T00:00:00Z', 'inicio=ontem&fim=2026-01-01T00:00:00Z', 'inicio=2026-01-01T00:00:00Z&fim=2026-01-02T00:00:00Z&paginacao.itensPorPagina=0']) {
        const res = await api('GET', `/pix?${q}`);
        assert.equal(res.status, 400, q);
        assert.equal(res.body.type, 'https://pix.bcb.gov.br/api/v2/error/PixConsultaInvalida');
        assert.ok(res.body.violacoes.length > 0);
      }
      await assertNoViolations(3); // the fim-before-inicio one is semantic
    });
  });

  describe('devolução', () => {
    async function paidPix(valor = '10.00'): Promise<string> {
      const cob = await createCob({ valor: { original: valor } });
      return (await sim.control.pay(cob.txid)).endToEndId;
    }

    test('EM_PROCESSAMENTO, then DEVOLVIDO when settled; the webhook carries the devolução', async () => {
      const e2e = await paidPix();
      hook.posts.length = 0;
      const res = await api('PUT', `/pix/${e2e}/devolucao/dev1`, { valor: '4.00' });
      assert.equal(res.status, 201);
      assert.equal(res.body.status, 'EM_PROCESSAMENTO');
      assert.equal(res.body.id, 'dev1');
      assert.match(res.body.rtrId, /^D\d{20}[a-zA-Z0-9]{11}$/);
      assert.equal((await api('GET', `/pix/${e2e}/devolucao/dev1`)).body.status, 'EM_PROCESSAMENTO');
      assert.deepEqual(await sim.control.settleDevolucoes(), { settled: 1 });
      const got = await api('GET', `/pix/${e2e}/devolucao/dev1`);
      assert.equal(got.body.status, 'DEVOLVIDO');
      assert.ok(got.body.horario.liquidacao);
      assert.equal((await api('GET', `/pix/${e2e}`)).body.devolucoes[0].status, 'DEVOLVIDO');
      await sim.control.webhooksIdle();
      assert.equal(hook.posts.at(-1)!.body.pix[0].devolucoes[0].status, 'DEVOLVIDO');
      assert.equal((await sim.state()).devolucoes.length, 1);
      await assertNoViolations();
    });

    test('NAO_REALIZADO carries a motivo and frees the amount; the sum of devoluções never exceeds the Pix', async () => {
      const e2e = await paidPix('10.00');
      await sim.control.devolucao({ outcome: 'NAO_REALIZADO' });
      assert.equal((await api('PUT', `/pix/${e2e}/devolucao/a1`, { valor: '10.00' })).status, 201);
      const over = await api('PUT', `/pix/${e2e}/devolucao/a2`, { valor: '0.01' });
      assert.equal(over.status, 400);
      assert.equal(over.body.type, 'https://pix.bcb.gov.br/api/v2/error/PixDevolucaoInvalida');
      assert.equal(over.body.violacoes[0].propriedade, 'devolucao.valor');
      await sim.control.settleDevolucoes();
      const refused = await api('GET', `/pix/${e2e}/devolucao/a1`);
      assert.equal(refused.body.status, 'NAO_REALIZADO');
      assert.ok(refused.body.motivo);
      await sim.control.devolucao({ outcome: 'DEVOLVIDO', settle: 'immediate' });
      assert.equal((await api('PUT', `/pix/${e2e}/devolucao/a3`, { valor: '6.00' })).body.status, 'EM_PROCESSAMENTO');
      await new Promise((r) => setTimeout(r, 50));
      assert.equal((await api('GET', `/pix/${e2e}/devolucao/a3`)).body.status, 'DEVOLVIDO');
      assert.equal((await api('PUT', `/pix/${e2e}/devolucao/a4`, { valor: '4.01' })).status, 400);
      assert.equal((await api('PUT', `/pix/${e2e}/devolucao/a4`, { valor: '4.00' })).status, 201);
      await assertNoViolations();
    });

    test('the same id again: the same devolução if the body is the same, refused if not; unknown ones 404', async () => {
      const e2e = await paidPix();
      const first = await api('PUT', `/pix/${e2e}/devolucao/r1`, { valor: '1.00' });
      const again = await api('PUT', `/pix/${e2e}/devolucao/r1`, { valor: '1.00' });
      assert.equal(again.status, 201);
      assert.deepEqual(again.body, first.body);
      assert.equal((await api('PUT', `/pix/${e2e}/devolucao/r1`, { valor: '2.00' })).status, 400);
      assert.equal((await api('GET', `/pix/${e2e}/devolucao/nope`)).status, 404);
      assert.equal((await api('PUT', `/pix/E99999008202001010000aaaaaaaaaaa/devolucao/r1`, { valor: '1.00' })).status, 404);
      const bad = await api('PUT', `/pix/${e2e}/devolucao/r2`, { valor: '1,00' });
      assert.equal(bad.status, 400);
      assert.equal(bad.body.violacoes[0].propriedade, 'devolucao.valor');
      await assertNoViolations(1);
    });
  });

  describe('outages', () => {
    test('503: the API and the token endpoint answer ServicoIndisponivel until back to none', async () => {
      await sim.control.outage('503');
      const res = await api('GET', `/cob/${newTxid()}`);
      assert.equal(res.status, 503);
      assert.equal(res.body.type, 'https://pix.bcb.gov.br/api/v2/error/ServicoIndisponivel');
      await assert.rejects(pixToken(sim.config), /503/);
      await sim.control.outage('none');
      assert.ok(await pixToken(sim.config));
      await assertNoViolations();
    });

    test('hang: accepted, never answered; reset: the connection is cut', async () => {
      await sim.control.outage('hang');
      await assert.rejects(pixHttps(sim.config, { method: 'GET', url: `${sim.config.api_url}/cob/${newTxid()}`, timeoutMs: 400 }), /timeout/);
      await sim.control.outage('reset');
      await assert.rejects(pixHttps(sim.config, { method: 'POST', url: sim.config.token_url }), /ECONNRESET|socket hang up/);
      await sim.control.outage('none');
      const cob = await createCob();
      const requests = (await sim.state()).requests;
      assert.deepEqual(requests.slice(-3).map((r) => r.status), [null, null, 201]);
      assert.equal(cob.status, 'ATIVA');
    });
  });

  test('kill and restart on the same directory: same configuration, charges and payments kept', async () => {
    const cob = await createCob();
    const { endToEndId } = await sim.control.pay(cob.txid);
    const before = sim.config;
    await sim.kill();
    await assert.rejects(pixToken(sim.config));
    await sim.restart();
    assert.deepEqual(sim.config, before);
    assert.equal((await api('GET', `/cob/${cob.txid}`)).body.status, 'CONCLUIDA'); // the old token still works
    assert.equal((await api('GET', `/pix/${endToEndId}`)).status, 200);
    await assertNoViolations();
  });
});

describe('reading the API Pix OpenAPI document', () => {
  test('patterns match whole values; the CPF pattern written as /…/ works', () => {
    const amount = (original: string) => schemas.validateComponent('CobValor', { original }, 'valor');
    assert.deepEqual(amount('10.50'), []);
    for (const bad of ['10.5', '10.555', 'R$10.50', '10,50']) assert.equal(amount(bad).length, 1, bad);
    assert.deepEqual(schemas.validateComponent('PessoaFisica', { cpf: '12345678909', nome: 'A' }), []);
    assert.equal(schemas.validateComponent('PessoaFisica', { cpf: '123.456.789-09', nome: 'A' }).length, 1);
    assert.equal(schemas.validateComponent('TxId', 'a'.repeat(36)).length, 1);
  });

  test('the document\'s own examples of a saque and of a payload location validate (oneOf and location readings)', () => {
    const doc = schemas.doc;
    const cob = doc.components.examples.cobBody6.value;
    assert.ok(cob.valor.retirada.saque);
    assert.deepEqual(schemas.validateRequestBody('PUT', '/cob/{txid}', { calendario: { expiracao: 3600 }, ...cob }, 'cob'), []);
    assert.equal(schemas.validateComponent('CobValor', { original: '1.00', retirada: { saque: {}, troco: {} } }).length > 0, true);
    assert.deepEqual(schemas.validateComponent('PayloadLocation', { id: 1, location: 'pix.example.com/qr/v2/9d36b84fc70b478fb95c12729b90ca25', tipoCob: 'cob', criacao: '2020-03-11T21:19:51.013Z' }), []);
  });

  test('GET /pix answers are read with `pix`, not the `cobs` the schema requires by mistake', () => {
    assert.ok(schemas.doc.components.schemas.PixConsultados.required.includes('cobs'));
    const parametros = { inicio: '2020-01-01T00:00:00Z', fim: '2020-01-02T00:00:00Z', paginacao: { paginaAtual: 0, itensPorPagina: 100, quantidadeDePaginas: 1, quantidadeTotalDeItens: 0 } };
    assert.deepEqual(schemas.validateResponse('GET', '/pix', 200, 'application/json', { parametros, pix: [] }), []);
    assert.notDeepEqual(schemas.validateResponse('GET', '/pix', 418, 'application/json', {}), []);
  });
});
