// Validation of the operator's Pix configuration (PUT /admin/connectors/pix, `caja connector pix
// set`): every problem is reported at once, as v3 field details.
import { createPrivateKey, X509Certificate } from 'node:crypto';
import { classifyPixKey } from '../../domain/pix.ts';
import type { PixSecrets, PixSettings } from './connector.ts';

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
  if (details.length) return { ok: false, details };
  return {
    ok: true,
    settings: { api_url: apiUrl, token_url: tokenUrl, client_id: clientId, pix_key: pixKey, certificate, ...(ca ? { ca } : {}) },
    secrets: { client_secret: clientSecret, private_key: privateKeyPem },
  };
}

/** The Pix workers' intervals (src/connectors/kind.ts), each read from its own variable. */
export const PIX_INTERVALS = {
  /** The reconciliation poll (GET /pix over the window), to catch lost webhooks. */
  poll: { env: 'CAJA_PIX_POLL_SECONDS', default: 60, min: 1, max: 86400 },
} as const;
