// Starts the API Pix PSP simulator (src/connectors/pix/simulator) as a separate process for a
// test, and drives it through its control port. `config` is exactly the body caja's
// `PUT /admin/connectors/pix` takes (PEM contents, not file names).
//
//   const sim = await startPixSimulator({ tokenTtl: 2 });
//   await put('/admin/connectors/pix', sim.config);
//   ... caja creates a cob ...
//   await sim.control.pay(txid);               // the payer pays; the webhook goes out
//   assert.deepEqual(await sim.violations(), []);
//   await sim.stop();
import { mkdtempSync, readFileSync } from 'node:fs';
import https from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { SimulatorInfo } from '../../src/connectors/pix/simulator/simulator.ts';
import type { Delivery, ViolationRecord } from '../../src/connectors/pix/simulator/store.ts';

import { controlCaller, killChild, ROOT, spawnSimulator, stopChild } from './simulator-process.ts';
import { simulatorArgs } from './programs.ts';

const MAIN = simulatorArgs('pix-simulator', join(ROOT, 'src', 'connectors', 'pix', 'simulator', 'main.ts'));

type Json = any;

/** What caja's operator configures: the body of `PUT /admin/connectors/pix`. */
export interface PixConnectorConfig {
  api_url: string;
  token_url: string;
  client_id: string;
  client_secret: string;
  /** PEM of the client certificate the PSP issued. */
  certificate: string;
  /** PEM of its private key. */
  private_key: string;
  /** PEM of the PSP's certificate authority. */
  ca: string;
  pix_key: string;
}

export interface PixSimulatorOptions {
  /** Access token lifetime in seconds (default 300). */
  tokenTtl?: number;
  /** State directory (default: a fresh temporary one). Reusing one keeps identity and state. */
  dir?: string;
  port?: number;
  controlPort?: number;
  /** File of a PEM CA to trust for https webhook receivers, besides the system's. */
  webhookCaFile?: string;
  /** Webhook retries after the first attempt (default 4) and first backoff (default 250 ms). */
  webhookRetries?: number;
  webhookBackoffMs?: number;
  /** The simulator's stderr: 'inherit' shows it (debugging), default 'pipe' keeps it for errors. */
  stderr?: 'inherit' | 'pipe';
}

export type WebhookMode = 'deliver' | 'drop' | 'duplicate';
export type OutageMode = 'none' | '503' | 'hang' | 'reset';

export interface PixSimulatorState {
  cobs: Json[];
  pix: Json[];
  devolucoes: Json[];
  webhooks: Array<{ chave: string; webhookUrl: string; criacao: string }>;
  tokensIssued: number;
  requests: Array<{ method: string; path: string; query?: string; status: number | null }>;
  deliveries: Delivery[];
  modes: Json;
}

export interface PixSimulatorControl {
  /** The payer pays the cob (default: its original amount, now); answers the end-to-end id. */
  pay(txid: string, opts?: { valor?: string; horario?: string; infoPagador?: string; force?: boolean }): Promise<{ endToEndId: string; pix: Json }>;
  /** A Pix straight to the key, no cob, no txid (listed by GET /pix; no webhook). */
  payKey(valor: string, opts?: { horario?: string; infoPagador?: string }): Promise<{ endToEndId: string; pix: Json }>;
  webhookMode(mode: WebhookMode): Promise<void>;
  outage(mode: OutageMode): Promise<void>;
  /** The next `count` (default 1) cob creations are refused with `status` and a problem body. */
  failNextCob(status: number, count?: number, detail?: string): Promise<void>;
  expireTokens(): Promise<void>;
  devolucao(opts: { outcome?: 'DEVOLVIDO' | 'NAO_REALIZADO'; settle?: 'manual' | 'immediate' }): Promise<void>;
  settleDevolucoes(): Promise<{ settled: number }>;
  /** Moves an ATIVA cob to REMOVIDA_PELO_PSP. */
  removeCob(txid: string): Promise<void>;
  /** Resolves when every webhook delivery under way, retries included, has ended. */
  webhooksIdle(): Promise<void>;
  /** The PSP account's camt.053 of a day (default today, UTC), as the simulator writes it. */
  statement(date?: string, opening?: string): Promise<string>;
  reset(): Promise<void>;
  // Efí's send API (src/connectors/pix/simulator/sends.ts): the receiving side and the PSP's moods.
  /** A key in the DICT and its holder. */
  dict(chave: string, holder: { nome: string; cpf?: string; cnpj?: string }): Promise<void>;
  /** An account a receiving bank knows, with its holder (another document is refused BE01). */
  account(a: { codigoBanco: string; agencia: string; conta: string; nome: string; cpf?: string; cnpj?: string }): Promise<void>;
  sendMood(mood: { outcome?: 'REALIZADO' | 'NAO_REALIZADO'; motivo?: string; settle?: 'immediate' | 'manual'; delayMs?: number; hang?: number;
    refuse?: { status: number; nome: string; mensagem?: string; count?: number; headers?: Record<string, string> } | null }): Promise<void>;
  settleSends(o?: { idEnvio?: string; outcome?: 'REALIZADO' | 'NAO_REALIZADO'; motivo?: string }): Promise<{ settled: number }>;
  /** The receiving bank returns a made send (all of it unless valor). */
  returnSend(idEnvio: string, o?: { valor?: string; motivo?: string }): Promise<Json>;
  /** Every send as GET …/enviados/id-envio shows it, with `puts` (PUTs that named its idEnvio). */
  sends(): Promise<Json[]>;
  resetSends(): Promise<void>;
}

export interface PixSimulator {
  config: PixConnectorConfig;
  /** The JSON line the simulator printed (file names, control_url). */
  info: SimulatorInfo;
  dir: string;
  control: PixSimulatorControl;
  state(): Promise<PixSimulatorState>;
  violations(): Promise<ViolationRecord[]>;
  /** SIGTERM, waits for the exit. */
  stop(): Promise<void>;
  /** SIGKILL, waits for the exit. */
  kill(): Promise<void>;
  /** Stops it if running and starts it again on the same directory and ports: same config, same charges. */
  restart(): Promise<void>;
}

const spawnPixSimulator = (args: string[], stderr: 'inherit' | 'pipe') => spawnSimulator<SimulatorInfo>('Pix simulator', MAIN, args, stderr);

export async function startPixSimulator(opts: PixSimulatorOptions = {}): Promise<PixSimulator> {
  const dir = opts.dir ?? mkdtempSync(join(tmpdir(), 'caja-pixsim-'));
  const flags = (port: number, controlPort: number) => {
    const a = ['--dir', dir, '--port', String(port), '--control-port', String(controlPort)];
    if (opts.tokenTtl !== undefined) a.push('--token-ttl', String(opts.tokenTtl));
    if (opts.webhookRetries !== undefined) a.push('--webhook-retries', String(opts.webhookRetries));
    if (opts.webhookBackoffMs !== undefined) a.push('--webhook-backoff-ms', String(opts.webhookBackoffMs));
    if (opts.webhookCaFile) a.push('--webhook-ca', opts.webhookCaFile);
    return a;
  };
  const stderr = opts.stderr ?? 'pipe';
  let { child, info } = await spawnPixSimulator(flags(opts.port ?? 0, opts.controlPort ?? 0), stderr);
  const config: PixConnectorConfig = {
    api_url: info.api_url,
    token_url: info.token_url,
    client_id: info.client_id,
    client_secret: info.client_secret,
    certificate: readFileSync(info.certificate_file, 'utf8'),
    private_key: readFileSync(info.private_key_file, 'utf8'),
    ca: readFileSync(info.ca_file, 'utf8'),
    pix_key: info.pix_key,
  };

  const call = controlCaller('Pix simulator', () => info.control_url);

  const control: PixSimulatorControl = {
    pay: (txid, o = {}) => call('POST', '/control/pay', { txid, ...o }),
    payKey: (valor, o = {}) => call('POST', '/control/pay', { valor, ...o }),
    webhookMode: async (mode) => void (await call('POST', '/control/webhook-mode', { mode })),
    outage: async (mode) => void (await call('POST', '/control/outage', { mode })),
    failNextCob: async (status, count = 1, detail) => void (await call('POST', '/control/fail-next-cob', { status, count, ...(detail ? { detail } : {}) })),
    expireTokens: async () => void (await call('POST', '/control/expire-tokens', {})),
    devolucao: async (o) => void (await call('POST', '/control/devolucao', o)),
    settleDevolucoes: () => call('POST', '/control/settle-devolucoes', {}),
    removeCob: async (txid) => void (await call('POST', '/control/remove-cob', { txid })),
    webhooksIdle: async () => void (await call('POST', '/control/webhooks-idle', {})),
    reset: async () => void (await call('POST', '/control/reset', {})),
    dict: async (chave, holder) => void (await call('POST', '/control/dict', { chave, ...holder })),
    account: async (a) => void (await call('POST', '/control/accounts', a)),
    sendMood: async (mood) => void (await call('POST', '/control/sends/mood', mood)),
    settleSends: (o = {}) => call('POST', '/control/sends/settle', o),
    returnSend: (idEnvio, o = {}) => call('POST', '/control/sends/return', { idEnvio, ...o }),
    sends: () => call('GET', '/control/sends'),
    resetSends: async () => void (await call('POST', '/control/sends/reset', {})),
    async statement(date, opening) {
      const q = new URLSearchParams({ ...(date ? { date } : {}), ...(opening ? { opening } : {}) });
      const r = await fetch(`${info.control_url}/control/statement?${q}`);
      if (r.status !== 200) throw new Error(`statement: ${r.status} ${await r.text()}`);
      return r.text();
    },
  };

  const sim: PixSimulator = {
    config,
    info,
    dir,
    control,
    state: () => call('GET', '/control/state'),
    violations: () => call('GET', '/control/violations'),
    stop: () => stopChild(child),
    kill: () => killChild(child),
    async restart() {
      await sim.stop();
      const port = Number(new URL(info.api_url).port);
      const controlPort = Number(new URL(info.control_url).port);
      ({ child, info } = await spawnPixSimulator(flags(port, controlPort), stderr));
      sim.info = info;
    },
  };
  return sim;
}

export interface PixHttpResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  /** Parsed JSON when the answer is JSON, else the text. */
  body: Json;
}

/**
 * One HTTPS request to the simulator's API port as a client holding `tls` (the issued
 * certificate and key; `null` to connect without one). For tests of the simulator itself and of
 * what caja should see; caja's own connector has its own client.
 */
export function pixHttps(
  config: PixConnectorConfig,
  req: { method: string; url: string; headers?: Record<string, string>; body?: string; tls?: { cert: string; key: string } | null; timeoutMs?: number },
): Promise<PixHttpResponse> {
  const tls = req.tls === undefined ? { cert: config.certificate, key: config.private_key } : req.tls;
  return new Promise((resolve, reject) => {
    const r = https.request(
      req.url,
      {
        method: req.method,
        headers: { ...(req.body !== undefined ? { 'content-length': String(Buffer.byteLength(req.body)) } : {}), ...req.headers },
        ca: config.ca,
        ...(tls ?? {}),
        agent: false,
        timeout: req.timeoutMs ?? 10_000,
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (d) => (text += d));
        res.on('end', () => {
          const type = String(res.headers['content-type'] ?? '');
          resolve({ status: res.statusCode!, headers: res.headers, body: /json/.test(type) && text ? JSON.parse(text) : text });
        });
        res.on('error', reject);
      },
    );
    r.on('timeout', () => r.destroy(new Error('timeout')));
    r.on('error', reject);
    r.end(req.body);
  });
}

/** Obtains an access token (client credentials, HTTP Basic) from the simulator. */
export async function pixToken(config: PixConnectorConfig, scope?: string): Promise<string> {
  const res = await pixHttps(config, {
    method: 'POST',
    url: config.token_url,
    headers: {
      authorization: 'Basic ' + Buffer.from(`${encodeURIComponent(config.client_id)}:${encodeURIComponent(config.client_secret)}`).toString('base64'),
      'content-type': 'application/x-www-form-urlencoded',
    },
    body: new URLSearchParams({ grant_type: 'client_credentials', ...(scope ? { scope } : {}) }).toString(),
  });
  if (res.status !== 200) throw new Error(`token: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.access_token;
}
