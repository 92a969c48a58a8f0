// Validation of the operator's Pix configuration (PUT /admin/connectors/pix, `caja connector pix
// set`): every problem is reported at once, as v3 field details.
import { createPrivateKey, X509Certificate } from 'node:crypto';
import { classifyPixKey } from '../../domain/pix.ts';
import type { PixSecrets, PixSettings } from './connector.ts';
import type { PixPayoutSettings } from './payouts.ts';
import { parseAmount, toFixed } from '../../domain/money.ts';

export type PixConfigResult = { ok: true; settings: PixSettings; secrets: PixSecrets } | { ok: false; details: string[] };

const str = (v: unknown) => (typeof v === 'string' ? v.trim() : '');

/** The certificates of a PEM bundle (a CA file may hold several). */
function pemCertificates(pem: string): X509Certificate[] {
  const blocks = pem.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g) ?? [];
  return blocks.map((b) => new X509Certificate(b));
}

function httpsUrl(name: string, value: string, details: string[]): string {
  if (!value) {
    details.push(`${name}: is required`);
    return '';
  }
  try {
    const u = new URL(value);
    if (u.protocol !== 'https:') details.push(`${name}: must be an https URL (the API Pix is served over mutual TLS only)`);
    else if (u.username || u.password) details.push(`${name}: must not carry credentials`);
    else if (u.search || u.hash) details.push(`${name}: must not carry a query or fragment`);
  } catch {
    details.push(`${name}: is not a URL`);
  }
  return value.replace(/\/+$/, '');
}

export function validatePixConfig(body: unknown): PixConfigResult {
  const b = (typeof body === 'object' && body !== null && !Array.isArray(body) ? body : {}) as Record<string, unknown>;
  const details: string[] = [];
  const apiUrl = httpsUrl('api_url', str(b.api_url), details);
  const tokenUrl = httpsUrl('token_url', str(b.token_url), details);
  const clientId = str(b.client_id);
  if (!clientId) details.push('client_id: is required');
  const clientSecret = typeof b.client_secret === 'string' ? b.client_secret : '';
  if (!clientSecret) details.push('client_secret: is required');
  const pixKey = str(b.pix_key);
  if (!pixKey) details.push('pix_key: is required');
  else {
    const key = classifyPixKey(pixKey, { anyUuidVersion: true });
    if (!key.ok) details.push(`pix_key: ${key.reason}`);
  }

  const certificate = str(b.certificate);
  let cert: X509Certificate | null = null;
  if (!certificate) details.push('certificate: is required (the PEM client certificate the PSP issued)');
  else {
    try {
      const certs = pemCertificates(certificate);
      if (certs.length === 0) throw new Error('no certificate');
      cert = certs[0]!;
      const now = Date.now();
      if (new Date(cert.validTo).getTime() < now) details.push(`certificate: expired on ${new Date(cert.validTo).toISOString()}`);
    } catch {
      details.push('certificate: is not a PEM certificate');
    }
  }
  const privateKeyPem = str(b.private_key);
  if (!privateKeyPem) details.push('private_key: is required (the PEM private key of the certificate)');
  else {
    try {
      const key = createPrivateKey(privateKeyPem);
      if (cert && !cert.checkPrivateKey(key)) details.push('private_key: does not match the certificate');
    } catch {
      details.push('private_key: is not a PEM private key (an encrypted key is not accepted)');
    }
  }
  const ca = b.ca === undefined || b.ca === null ? '' : str(b.ca);
  if (b.ca !== undefined && b.ca !== null && typeof b.ca !== 'string') details.push('ca: must be a PEM string');
  else if (ca) {
    try {
      if (pemCertificates(ca).length === 0) throw new Error('none');
    } catch {
      details.push('ca: is not a PEM certificate bundle');
    }
  }
  const payouts = validatePayouts(b.payouts, pixKey, details);
  if (details.length) return { ok: false, details };
  return {
    ok: true,
    settings: { api_url: apiUrl, token_url: tokenUrl, client_id: clientId, pix_key: pixKey, certificate, ...(ca ? { ca } : {}), ...(payouts ? { payouts: JSON.stringify(payouts) } : {}) },
    secrets: { client_secret: clientSecret, private_key: privateKeyPem },
  };
}

/**
 * The optional `payouts` block: BR cashouts are paid as Pix sends through the same PSP (its send
 * API, the same credentials). payer_key (default pix_key: the key the PSP debits, whose webhook
 * caja registers), max_amount (BRL per payout, required), daily_limit (BRL a day, optional), check_seconds (a send not heard of is
 * looked up after it; default 60), info_pagador (shown to the beneficiary).
 */
function validatePayouts(raw: unknown, pixKey: string, details: string[]): PixPayoutSettings | null {
  if (raw === undefined || raw === null || raw === false || (typeof raw === 'string' && raw.trim() === '')) return null;
  // The console's form and a stored configuration give it as JSON text.
  if (typeof raw === 'string') {
    try {
      raw = JSON.parse(raw);
    } catch {
      details.push('payouts: is not JSON');
      return null;
    }
  }
  if (typeof raw !== 'object' || Array.isArray(raw)) {
    details.push('payouts: must be an object ({max_amount, daily_limit?, payer_key?, check_seconds?, info_pagador?})');
    return null;
  }
  const p = raw as Record<string, unknown>;
  for (const k of Object.keys(p)) if (!['payer_key', 'max_amount', 'daily_limit', 'check_seconds', 'info_pagador'].includes(k)) details.push(`payouts.${k}: is not a setting of payouts`);
  let payerKey = pixKey;
  if (p.payer_key !== undefined && p.payer_key !== null) {
    const key = typeof p.payer_key === 'string' ? classifyPixKey(p.payer_key, { anyUuidVersion: true }) : { ok: false as const, reason: 'must be a string' };
    if (!key.ok) details.push(`payouts.payer_key: ${key.reason}`);
    else payerKey = p.payer_key.toString().trim();
  }
  let maxAmount = '';
  const max = p.max_amount === undefined || p.max_amount === null ? null : parseAmount(p.max_amount, { maxDecimals: 2 });
  if (!max) details.push('payouts.max_amount: is required (the largest payout in BRL the PSP allows)');
  else if (!max.ok) details.push(`payouts.max_amount: ${max.reason}`);
  else if (Number(toFixed(max.value, 2)) <= 0) details.push('payouts.max_amount: must be positive');
  else maxAmount = toFixed(max.value, 2);
  let dailyLimit: string | undefined;
  if (p.daily_limit !== undefined && p.daily_limit !== null) {
    const d = parseAmount(p.daily_limit, { maxDecimals: 2 });
    if (!d.ok) details.push(`payouts.daily_limit: ${d.reason}`);
    else if (Number(toFixed(d.value, 2)) <= 0) details.push('payouts.daily_limit: must be positive');
    else dailyLimit = toFixed(d.value, 2);
  }
  let checkSeconds = 60;
  if (p.check_seconds !== undefined && p.check_seconds !== null) {
    if (typeof p.check_seconds !== 'number' || !Number.isInteger(p.check_seconds) || p.check_seconds < 1 || p.check_seconds > 86400) {
      details.push('payouts.check_seconds: must be a whole number of seconds from 1 to 86400');
    } else checkSeconds = p.check_seconds;
  }
  let info: string | undefined;
  if (p.info_pagador !== undefined && p.info_pagador !== null) {
    if (typeof p.info_pagador !== 'string' || p.info_pagador.length > 140) details.push('payouts.info_pagador: must be a string of at most 140 characters');
    else if (p.info_pagador.trim()) info = p.info_pagador.trim();
  }
  return { payer_key: payerKey, max_amount: maxAmount, ...(dailyLimit ? { daily_limit: dailyLimit } : {}), check_seconds: checkSeconds, ...(info ? { info_pagador: info } : {}) };
}

/** The Pix workers' intervals (src/connectors/kind.ts), each read from its own variable. */
export const PIX_INTERVALS = {
  /** The reconciliation poll (GET /pix over the window), to catch lost webhooks. */
  poll: { env: 'CAJA_PIX_POLL_SECONDS', default: 60, min: 1, max: 86400 },
} as const;
