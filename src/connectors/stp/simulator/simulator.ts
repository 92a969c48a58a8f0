// The STP simulator's servers: the API port (HTTPS with its own CA and server certificate,
// ordenPago/registra and the consultations) and the control port (plain HTTP on 127.0.0.1, for
// tests: transfers received, state changes, outages, errors, what happened). Callbacks (abono,
// estado) are posted to the receiver the control port names. docs/connectors.md, "The STP simulator".
import { createPublicKey, generateKeyPairSync, randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Fastify from 'fastify';
import { loadOrCreatePki } from '../../pix/simulator/certs.ts';
import { Bank, type Identity, today } from './bank.ts';
import { statementOfDay } from './statement.ts';

type Json = any;
export type OutageMode = 'none' | '503' | 'hang' | 'reset';
export type Delivery = 'deliver' | 'drop' | 'duplicate';

export interface StpSimulatorInfo {
  api_url: string;
  control_url: string;
  ca_file: string;
  private_key_file: string;
  public_key_file: string;
  passphrase: string;
  empresa: string;
  clabe_prefix: string;
  ordering_clabe: string;
}

function clabeWithDigit(first17: string): string {
  const w = [3, 7, 1];
  let sum = 0;
  for (let i = 0; i < 17; i++) sum += (Number(first17[i]) * w[i % 3]!) % 10;
  return first17 + ((10 - (sum % 10)) % 10);
}

/** The operator's key pair (as registered with STP) and the company's identity, kept in `dir`. */
function loadOrCreateIdentity(dir: string): { identity: Identity; privateFile: string; publicFile: string } {
  const privateFile = join(dir, 'operator-key.pem');
  const publicFile = join(dir, 'operator-public.pem');
  const idFile = join(dir, 'identity.json');
  if (existsSync(privateFile) && existsSync(publicFile) && existsSync(idFile)) {
    return { identity: JSON.parse(readFileSync(idFile, 'utf8')) as Identity, privateFile, publicFile };
  }
  const passphrase = randomBytes(12).toString('hex');
  const { privateKey, publicKey } = generateKeyPairSync('rsa', {
    modulusLength: 2048,
    privateKeyEncoding: { type: 'pkcs8', format: 'pem', cipher: 'aes-256-cbc', passphrase },
    publicKeyEncoding: { type: 'spki', format: 'pem' },
  });
  const company = String(1000 + Math.floor(Math.random() * 9000));
  const identity: Identity = {
    empresa: `CAJA${company}`,
    clabe_prefix: `646180${company}`,
    ordering_clabe: clabeWithDigit(`646180${company}0000000`.slice(0, 17)),
    passphrase,
  };
  writeFileSync(privateFile, privateKey, { mode: 0o600 });
  writeFileSync(publicFile, publicKey);
  writeFileSync(idFile, JSON.stringify(identity));
  return { identity, privateFile, publicFile };
}

export interface StpSimulatorOptions {
  dir: string;
  port?: number;
  controlPort?: number;
}

export async function startStpSimulator(opts: StpSimulatorOptions): Promise<{ info: StpSimulatorInfo; close(): Promise<void> }> {
  mkdirSync(opts.dir, { recursive: true });
  const pki = loadOrCreatePki(opts.dir, 'caja-stp');
  const { identity, privateFile, publicFile } = loadOrCreateIdentity(opts.dir);
  const bank = new Bank(identity, createPublicKey(readFileSync(publicFile, 'utf8')));
  const modes = { outage: 'none' as OutageMode, hangRegistra: 0 };
  const receiver = { url: '', secret: '' };
  const requests: Array<{ method: string; path: string; status: number | null; claveRastreo?: string }> = [];
  const deliveries: Array<{ kind: 'abono' | 'estado'; body: Json; status: number | null; answer: Json; at: string }> = [];

  const api = Fastify({ logger: false, forceCloseConnections: true, https: { key: pki.server.key, cert: pki.server.cert } });
  api.addHook('onRequest', async (req, reply) => {
    if (modes.outage === 'none') return;
    requests.push({ method: req.method, path: req.url, status: modes.outage === '503' ? 503 : null });
    if (modes.outage === '503') return reply.code(503).send({ message: 'Servicio no disponible' });
    if (modes.outage === 'reset') req.raw.socket.destroy();
    return new Promise(() => undefined); // hang: never answered
  });
  const route = (method: 'PUT' | 'POST', path: string, handle: (b: Json) => Json) => {
    api.route({
      method, url: path,
      handler: async (req, reply) => {
        const body = req.body as Json;
        if (method === 'PUT' && modes.hangRegistra > 0) {
          // The order is registered, the answer never comes (a lost answer, a caller killed mid-call).
          modes.hangRegistra--;
          handle(body);
          requests.push({ method, path, status: null, claveRastreo: body?.claveRastreo });
          return new Promise(() => undefined);
        }
        const answer = handle(body);
        requests.push({ method, path, status: 200, claveRastreo: body?.claveRastreo });
        return reply.code(200).send(answer);
      },
    });
  };
  route('PUT', '/speiws/rest/ordenPago/registra', (b) => bank.registra(b));
  route('POST', '/speiws/rest/ordenPago/consOrdEnvRastreo', (b) => bank.sentByRastreo(b));
  route('POST', '/speiws/rest/ordenPago/consOrdenesFech', (b) => bank.ordersOfDay(b));
  await api.listen({ host: '127.0.0.1', port: opts.port ?? 0 });
  const apiPort = (api.server.address() as { port: number }).port;

  /** Posts a callback to the receiver; STP retries a failed post twice. */
  async function post(kind: 'abono' | 'estado', body: Json): Promise<{ status: number | null; answer: Json }> {
    if (!receiver.url) throw new Error('no receiver: POST /control/receiver first');
    let last: { status: number | null; answer: Json } = { status: null, answer: null };
    for (let attempt = 0; attempt < 3; attempt++) {
      try {
        const res = await fetch(`${receiver.url}/connectors/stp/${kind}`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', ...(receiver.secret ? { 'x-stp-webhook-secret': receiver.secret } : {}) },
          body: JSON.stringify(body),
          signal: AbortSignal.timeout(10_000),
        });
        const text = await res.text();
        let answer: Json = text;
        try {
          answer = JSON.parse(text);
        } catch {
          // kept as text
        }
        last = { status: res.status, answer };
      } catch (err) {
        last = { status: null, answer: String(err) };
      }
      deliveries.push({ kind, body, ...last, at: new Date().toISOString() });
      if (last.status === 200 || (last.status !== null && last.status < 500 && last.status !== 404)) break;
      await new Promise((r) => setTimeout(r, 150 * (attempt + 1)));
    }
    return last;
  }

  const control = Fastify({ logger: false, forceCloseConnections: true });
  const bad = (error: string) => ({ error });
  const delivery = (v: unknown): Delivery | null => (v === undefined ? 'deliver' : v === 'deliver' || v === 'drop' || v === 'duplicate' ? v : null);

  const info: StpSimulatorInfo = {
    api_url: `https://127.0.0.1:${apiPort}/speiws/rest`,
    control_url: '',
    ca_file: pki.files.ca,
    private_key_file: privateFile,
    public_key_file: publicFile,
    passphrase: identity.passphrase,
    empresa: identity.empresa,
    clabe_prefix: identity.clabe_prefix,
    ordering_clabe: identity.ordering_clabe,
  };
  control.get('/control/info', async () => info);
  control.post('/control/receiver', async (req, reply) => {
    const b = (req.body ?? {}) as Json;
    if (typeof b.url !== 'string' || !/^https?:\/\//.test(b.url)) return reply.code(400).send(bad('url must be an http(s) URL'));
    receiver.url = b.url.replace(/\/+$/, '');
    receiver.secret = typeof b.secret === 'string' ? b.secret : '';
    return { ok: true };
  });
  control.post('/control/abono', async (req, reply) => {
    const b = (req.body ?? {}) as Json;
    const how = delivery(b.delivery);
    if (typeof b.cuentaBeneficiario !== 'string' || typeof b.monto !== 'number' || !how) return reply.code(400).send(bad('cuentaBeneficiario (string), monto (number), delivery deliver|drop|duplicate'));
    const order = bank.receive(b);
    const answers = [];
    if (how !== 'drop') answers.push(await post('abono', bank.abonoBody(order)));
    if (how === 'duplicate') answers.push(await post('abono', bank.abonoBody(order)));
    const first = answers[0]?.answer;
    if (first && typeof first === 'object' && first.mensaje) order.respuesta = first.mensaje === 'devolver' ? `devolver ${String(first.id)}` : String(first.mensaje);
    return { order, answers };
  });
  control.post('/control/repost-abono', async (req, reply) => {
    const b = (req.body ?? {}) as Json;
    const order = bank.received.find((o) => o.claveRastreo === b.claveRastreo);
    if (!order) return reply.code(404).send(bad('no such received order'));
    return { answers: [await post('abono', bank.abonoBody(order))] };
  });
  control.post('/control/estado', async (req, reply) => {
    const b = (req.body ?? {}) as Json;
    const how = delivery(b.delivery);
    if (typeof b.claveRastreo !== 'string' || !['LQ', 'CN', 'D'].includes(b.estado) || !how) return reply.code(400).send(bad('claveRastreo, estado LQ|CN|D, delivery deliver|drop|duplicate'));
    const body = bank.changeState(b.claveRastreo, b.estado, typeof b.causaDevolucion === 'number' ? b.causaDevolucion : undefined);
    if (!body) return reply.code(404).send(bad('no such order'));
    const answers = [];
    if (how !== 'drop') answers.push(await post('estado', body));
    if (how === 'duplicate') answers.push(await post('estado', body));
    return { order: bank.orders.get(b.claveRastreo), answers };
  });
  control.post('/control/outage', async (req, reply) => {
    const mode = ((req.body ?? {}) as Json).mode;
    if (!['none', '503', 'hang', 'reset'].includes(mode)) return reply.code(400).send(bad('mode: none|503|hang|reset'));
    modes.outage = mode;
    return { ok: true };
  });
  control.post('/control/registra-errors', async (req, reply) => {
    const errors = ((req.body ?? {}) as Json).errors;
    if (!Array.isArray(errors) || !errors.every((e) => Number.isInteger(e?.id) && typeof e?.descripcionError === 'string')) return reply.code(400).send(bad('errors: [{id, descripcionError}]'));
    bank.nextErrors.push(...errors);
    return { queued: bank.nextErrors.length };
  });
  control.post('/control/registra-hang', async (req, reply) => {
    const count = ((req.body ?? {}) as Json).count ?? 1;
    if (!Number.isInteger(count) || count < 0) return reply.code(400).send(bad('count: a whole number'));
    modes.hangRegistra = count;
    return { ok: true };
  });
  control.post('/control/registra-next-day', async (req, reply) => {
    const count = ((req.body ?? {}) as Json).count ?? 1;
    if (!Number.isInteger(count) || count < 0) return reply.code(400).send(bad('count: a whole number'));
    bank.datedNextDay = count;
    return { ok: true };
  });
  /** The ordering account's camt.053 of an operation day (default today, Mexico City): received and sent orders. */
  control.get('/control/statement', async (req, reply) => {
    const q = (req.query ?? {}) as Record<string, string | undefined>;
    const date = q.date ?? String(today()).replace(/^(\d{4})(\d{2})(\d{2})$/, '$1-$2-$3');
    const opening = q.opening ?? '0.00';
    if (!/^\d{4}-\d\d-\d\d$/.test(date)) return reply.code(400).send(bad('date: YYYY-MM-DD'));
    if (!/^-?\d{1,12}\.\d{2}$/.test(opening)) return reply.code(400).send(bad('opening: an amount with two decimals'));
    return reply.type('application/xml').send(statementOfDay(bank, date, opening));
  });
  control.get('/control/state', async () => ({
    orders: [...bank.orders.values()], received: bank.received, requests, deliveries, signatureFailures: bank.signatureFailures, modes,
  }));
  await control.listen({ host: '127.0.0.1', port: opts.controlPort ?? 0 });
  info.control_url = `http://127.0.0.1:${(control.server.address() as { port: number }).port}`;

  return {
    info,
    async close() {
      await Promise.allSettled([api.close(), control.close()]);
    },
  };
}
