// Validation of the operator's STP configuration (PUT /admin/connectors/stp, `caja connector stp
// set`): every problem is reported at once, as v3 field details. The private key must open with
// its passphrase (it is what signs every order), the CLABEs must carry valid check digits.
import { createPrivateKey, X509Certificate } from 'node:crypto';
import { isValidClabe } from '../../domain/clabe.ts';

/** What is shown back to the operator (no secret). */
export interface StpSettings {
  api_url: string;
  empresa: string;
  clabe_prefix: string;
  ordering_clabe: string;
  ordering_name: string;
  ordering_rfc: string;
  ca?: string;
  /** Whether a webhook_secret is required of STP's posts (the secret itself is sealed). */
  webhook_secret_set: 'true' | 'false';
}

/** Sealed with the master key; never answered. */
export interface StpSecrets {
  private_key: string;
  private_key_passphrase: string;
  webhook_secret?: string;
}

export type StpConfigResult = { ok: true; settings: StpSettings; secrets: StpSecrets } | { ok: false; details: string[] };

const str = (v: unknown) => (typeof v === 'string' ? v.trim() : '');

export function validateStpConfig(body: unknown): StpConfigResult {
  const b = (typeof body === 'object' && body !== null && !Array.isArray(body) ? body : {}) as Record<string, unknown>;
  const details: string[] = [];
  const need = (name: string) => {
    const v = str(b[name]);
    if (!v) details.push(`${name}: is required`);
    return v;
  };

  const apiUrl = need('api_url').replace(/\/+$/, '');
  if (apiUrl) {
    try {
      const u = new URL(apiUrl);
      if (u.protocol !== 'https:') details.push('api_url: must be an https URL');
      else if (u.username || u.password) details.push('api_url: must not carry credentials');
      else if (u.search || u.hash) details.push('api_url: must not carry a query or fragment');
    } catch {
      details.push('api_url: is not a URL');
    }
  }
  const empresa = need('empresa');
  if (empresa && !/^[A-Za-z0-9_]{1,15}$/.test(empresa)) details.push('empresa: 1-15 letters, digits or underscores (the company name STP assigned)');

  const privateKey = typeof b.private_key === 'string' ? b.private_key.trim() : '';
  const passphrase = typeof b.private_key_passphrase === 'string' ? b.private_key_passphrase : '';
  if (!privateKey) details.push('private_key: is required (the PEM RSA key registered with STP)');
  if (b.private_key_passphrase !== undefined && typeof b.private_key_passphrase !== 'string') details.push('private_key_passphrase: must be a string');
  if (privateKey) {
    try {
      const key = createPrivateKey({ key: privateKey, passphrase });
      if (key.asymmetricKeyType !== 'rsa') details.push('private_key: must be an RSA key (STP verifies RSA-SHA256 signatures)');
    } catch {
      details.push('private_key: is not a PEM private key that opens with private_key_passphrase');
    }
  }

  const prefix = need('clabe_prefix');
  if (prefix && !/^\d{10}$/.test(prefix)) details.push('clabe_prefix: must be 10 digits (646, the plaza, the company\'s 4 digits)');
  else if (prefix && !prefix.startsWith('646')) details.push('clabe_prefix: must start with 646 (STP\'s CLABE code)');

  const orderingClabe = need('ordering_clabe');
  if (orderingClabe && !isValidClabe(orderingClabe)) details.push('ordering_clabe: must be an 18-digit CLABE with a valid check digit');
  const orderingName = need('ordering_name');
  if (orderingName.length > 39) details.push('ordering_name: at most 39 characters (SPEI\'s limit)');
  const orderingRfc = need('ordering_rfc').toUpperCase();
  if (orderingRfc && !/^[A-ZÑ&]{3,4}\d{6}[A-Z0-9]{3}$/.test(orderingRfc)) details.push('ordering_rfc: is not an RFC (12 characters for a company, 13 for a person)');

  let webhookSecret: string | undefined;
  if (b.webhook_secret !== undefined && b.webhook_secret !== null) {
    if (typeof b.webhook_secret !== 'string' || b.webhook_secret.length < 16 || b.webhook_secret.length > 200) details.push('webhook_secret: 16-200 characters when given');
    else webhookSecret = b.webhook_secret;
  }
  let ca = '';
  if (b.ca !== undefined && b.ca !== null) {
    if (typeof b.ca !== 'string') details.push('ca: must be a PEM string');
    else if (b.ca.trim()) {
      ca = b.ca.trim();
      try {
        const blocks = ca.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g) ?? [];
        if (blocks.length === 0) throw new Error('none');
        for (const block of blocks) new X509Certificate(block);
      } catch {
        details.push('ca: is not a PEM certificate bundle');
      }
    }
  }
  if (details.length) return { ok: false, details };
  return {
    ok: true,
    settings: { api_url: apiUrl, empresa, clabe_prefix: prefix, ordering_clabe: orderingClabe, ordering_name: orderingName, ordering_rfc: orderingRfc, ...(ca ? { ca } : {}), webhook_secret_set: webhookSecret ? 'true' : 'false' },
    secrets: { private_key: privateKey, private_key_passphrase: passphrase, ...(webhookSecret ? { webhook_secret: webhookSecret } : {}) },
  };
}

/** The STP workers' intervals (src/connectors/kind.ts), each read from its own variable. */
export const STP_INTERVALS = {
  /** The received orders of the days in the window (consOrdenesFech), to catch lost abono posts. */
  poll: { env: 'CAJA_STP_POLL_SECONDS', default: 120, min: 1, max: 7 * 86400 },
  /** How long a sent order may go unheard of before it is looked up (consOrdEnvRastreo). */
  orderCheck: { env: 'CAJA_STP_ORDER_CHECK_SECONDS', default: 600, min: 1, max: 86400 },
} as const;
