// HTTP clients that sign requests the way a merchant's integration does, computed here
// independently of the server's code.
import { createHmac } from 'node:crypto';
import { ADMIN_TOKEN } from './server.ts';

export interface Credentials {
  merchant_id: number;
  name: string;
  environment: string;
  deposits: { login: string; trans_key: string; secret_key: string };
  web_status: { login: string; trans_key: string };
  cashouts: { login: string; pass: string; secret_key: string };
  read_only_key: string;
  panel: { email: string; password: string };
}

export interface Res<T = any> {
  status: number;
  headers: Headers;
  body: T;
  text: string;
}

async function toRes(r: Response): Promise<Res> {
  const text = await r.text();
  let body: any = text;
  try {
    body = text ? JSON.parse(text) : undefined;
  } catch {
    /* not JSON */
  }
  return { status: r.status, headers: r.headers, body, text };
}

export const hmac = (key: string, msg: string | Buffer) => createHmac('sha256', key).update(msg).digest('hex');

export function xDateNow(offsetSeconds = 0): string {
  return new Date(Date.now() + offsetSeconds * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/**
 * X-Date with milliseconds (accepted by caja): two identical refunds or sandbox calls sent in the
 * same second then carry two signatures, not one signed request replayed (docs/security.md).
 */
export function xDateNowMs(): string {
  return new Date().toISOString();
}

export async function admin(base: string, method: string, path: string, body?: unknown, token = ADMIN_TOKEN): Promise<Res> {
  return toRes(
    await fetch(base + path, {
      method,
      headers: { authorization: `Bearer ${token}`, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
      body: body !== undefined ? JSON.stringify(body) : undefined,
    }),
  );
}

export async function createMerchant(base: string, name = 'Acme', extra: Record<string, unknown> = {}): Promise<Credentials> {
  const r = await admin(base, 'POST', '/admin/merchants', { name, ...extra });
  if (r.status !== 201) throw new Error(`merchant creation failed: ${r.status} ${r.text}`);
  return r.body;
}

/** A v3 (deposits key) or v5 (cashouts key) client. */
export class V3Client {
  constructor(
    readonly base: string,
    readonly login: string,
    readonly secret: string,
  ) {}

  static deposits(base: string, c: Credentials) {
    return new V3Client(base, c.deposits.login, c.deposits.secret_key);
  }

  static cashouts(base: string, c: Credentials) {
    return new V3Client(base, c.cashouts.login, c.cashouts.secret_key);
  }

  async request(method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<Res> {
    const raw = body === undefined ? '' : typeof body === 'string' ? body : JSON.stringify(body);
    const xDate = headers['X-Date'] ?? xDateNowMs();
    const signature = hmac(this.secret, xDate + this.login + raw);
    return toRes(
      await fetch(this.base + path, {
        method,
        headers: {
          'X-Date': xDate,
          'X-Login': this.login,
          Authorization: `SVC ${signature}`,
          ...(raw ? { 'Content-Type': 'application/json' } : {}),
          ...headers,
        },
        body: raw || undefined,
      }),
    );
  }

  get(path: string, headers?: Record<string, string>) {
    return this.request('GET', path, undefined, headers);
  }

  post(path: string, body: unknown, headers?: Record<string, string>) {
    return this.request('POST', path, body, headers);
  }
}

/** Cashout operations: login/pass in the body and Payload-Signature over the raw body. */
export async function cashoutRequest(base: string, c: Credentials, method: string, path: string, body: Record<string, unknown>): Promise<Res> {
  const raw = JSON.stringify({ login: c.cashouts.login, pass: c.cashouts.pass, ...body });
  return toRes(
    await fetch(base + path, {
      method,
      headers: { 'Content-Type': 'application/json', 'Payload-Signature': hmac(c.cashouts.secret_key, raw) },
      body: raw,
    }),
  );
}

export async function bearer(base: string, key: string, path: string): Promise<Res> {
  return toRes(await fetch(base + path, { headers: { Authorization: `Bearer ${key}` } }));
}

/** A streamline (form-encoded) POST; fields are sent in the given order. */
export async function formPost(base: string, path: string, fields: Record<string, string>): Promise<Res> {
  return toRes(
    await fetch(base + path, {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams(fields).toString(),
    }),
  );
}
