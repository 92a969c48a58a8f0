// Wires the simulated PSP together: identity and certificates (kept in the state directory, so a
// restart keeps them), the state store, the API port (mTLS) and the control port (plain HTTP).
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import { buildApi, type OutageMode } from './api.ts';
import { loadOrCreatePki } from './certs.ts';
import { buildControl } from './control.ts';
import { evpKey } from './ids.ts';
import { OAuth } from './oauth.ts';
import { Psp } from './psp.ts';
import { PixApiSchemas } from './schema.ts';
import { Store } from './store.ts';
import { registerSendControl, registerSendRoutes, Sends } from './sends.ts';
import { WebhookSender } from './webhooks.ts';

export interface SimulatorOptions {
  dir: string;
  /** API port (mTLS); 0 picks a free one. */
  port?: number;
  controlPort?: number;
  /** Lifetime of access tokens, seconds (default 300). */
  tokenTtl?: number;
  /** PEM CA trusted, besides the system's, for https webhook receivers. */
  webhookCa?: string;
  webhookRetries?: number;
  webhookBackoffMs?: number;
}

/** The line printed on stdout once listening: what caja's operator would get from the PSP. */
export interface SimulatorInfo {
  api_url: string;
  token_url: string;
  control_url: string;
  client_id: string;
  client_secret: string;
  pix_key: string;
  ca_file: string;
  certificate_file: string;
  private_key_file: string;
}

interface Identity {
  client_id: string;
  client_secret: string;
  pix_key: string;
  cnpj: string;
}

/** A CNPJ with valid check digits (the receiving user's, shown in GET /webhook). */
function randomCnpj(): string {
  const base = [...randomBytes(8)].map((b) => b % 10).concat([0, 0, 0, 1]);
  const digit = (ds: number[]) => {
    const weights = ds.length === 12 ? [5, 4, 3, 2, 9, 8, 7, 6, 5, 4, 3, 2] : [6, 5, 4, 3, 2, 9, 8, 7, 6, 5, 4, 3, 2];
    const r = ds.reduce((s, d, i) => s + d * weights[i]!, 0) % 11;
    return r < 2 ? 0 : 11 - r;
  };
  const d1 = digit(base);
  const d2 = digit([...base, d1]);
  return [...base, d1, d2].join('');
}

function loadOrCreateIdentity(dir: string): Identity {
  const file = join(dir, 'identity.json');
  if (existsSync(file)) return JSON.parse(readFileSync(file, 'utf8'));
  const id: Identity = {
    client_id: 'caja-' + randomBytes(6).toString('hex'),
    client_secret: randomBytes(24).toString('base64url'),
    pix_key: evpKey(),
    cnpj: randomCnpj(),
  };
  writeFileSync(file, JSON.stringify(id, null, 2), { mode: 0o600 });
  return id;
}

export interface RunningSimulator {
  info: SimulatorInfo;
  close(): Promise<void>;
}

export async function startSimulator(opts: SimulatorOptions): Promise<RunningSimulator> {
  mkdirSync(opts.dir, { recursive: true });
  const identity = loadOrCreateIdentity(opts.dir);
  const pki = loadOrCreatePki(opts.dir, identity.client_id);
  const schemas = PixApiSchemas.load();
  const store = new Store(opts.dir);
  const tokenTtl = opts.tokenTtl ?? 300;
  const webhooks = new WebhookSender(store, schemas, {
    retries: opts.webhookRetries,
    backoffMs: opts.webhookBackoffMs,
    // The PSP's own certificate (server and client use), presented to https webhook receivers.
    clientCert: { cert: pki.server.cert, key: pki.server.key },
    extraCa: opts.webhookCa,
  });
  const outage: { mode: OutageMode } = { mode: 'none' };
  const oauth = new OAuth(store, identity.client_id, identity.client_secret, tokenTtl);

  // The payload location names the API's host and port, known only once it listens; the PSP
  // object reads it lazily through this holder.
  const location = { base: '' };
  const receiver = { pixKey: identity.pix_key, cnpj: identity.cnpj, ispb: '99999004', merchantName: 'Caja Recebedor Ltda', merchantCity: 'Sao Paulo' };
  const psp = new Psp(store, receiver, webhooks, location);
  const api = buildApi({ tls: { key: pki.server.key, cert: pki.server.cert, ca: pki.ca.cert }, psp, oauth, store, schemas, outage: () => outage.mode });
  // Efí's send API beside the API Pix; the account's key is the payer key it debits.
  const sends = new Sends(opts.dir, webhooks, identity.pix_key);
  registerSendRoutes(api, { oauth, sends });
  await api.listen({ host: '127.0.0.1', port: opts.port ?? 0 });
  const apiPort = (api.server.address() as AddressInfo).port;
  location.base = `localhost:${apiPort}/qr/v2`;

  const info: SimulatorInfo = {
    api_url: `https://127.0.0.1:${apiPort}/v2`,
    token_url: `https://127.0.0.1:${apiPort}/oauth/token`,
    control_url: '',
    client_id: identity.client_id,
    client_secret: identity.client_secret,
    pix_key: identity.pix_key,
    ca_file: pki.files.ca,
    certificate_file: pki.files.clientCert,
    private_key_file: pki.files.clientKey,
  };
  const control = buildControl({ psp, oauth, store, webhooks, outage, info: info as unknown as Record<string, string> });
  registerSendControl(control, sends);
  try {
    await control.listen({ host: '127.0.0.1', port: opts.controlPort ?? 0 });
  } catch (err) {
    await api.close();
    throw err;
  }
  info.control_url = `http://127.0.0.1:${(control.server.address() as AddressInfo).port}`;

  return {
    info,
    async close() {
      webhooks.stop();
      sends.stop();
      await Promise.all([api.close(), control.close()]);
      store.save();
    },
  };
}
