// Validation of the operator's Adyen configuration (PUT /admin/connectors/adyen, `caja connector
// adyen set`): every problem is reported at once, as v3 field details.
//
//   api_key          the Checkout API key (X-API-Key): secret
//   merchant_account the merchant account payments are made to (and notifications name)
//   hmac_key         the notification HMAC key (hex, as the Customer Area shows it): secret
//   hmac_key_next    optional second HMAC key while rotating (both verify): secret
//   endpoint         "test" (checkout-test.adyen.com) or "live" (then live_prefix, the
//                    Customer Area's live endpoint prefix); api_url instead names the base
//                    itself (a proxy; tests: the simulator)
//   methods          which catalog methods it serves per country: {"BR": ["VI","MC","BL"], "MX": ["VI","MC","OX"]}
//   ca               optional PEM of the API's certificate authority (never needed for Adyen itself)
import type { AdyenSecrets, AdyenSettings } from './connector.ts';
import { ADYEN_METHODS } from './mapping.ts';

export type AdyenConfigResult = { ok: true; settings: AdyenSettings; secrets: AdyenSecrets } | { ok: false; details: string[] };

const str = (v: unknown) => (typeof v === 'string' ? v.trim() : '');

export const TEST_API_URL = 'https://checkout-test.adyen.com/v71';
export const liveApiUrl = (prefix: string) => `https://${prefix}-checkout-live.adyenpayments.com/checkout/v71`;

function hexKey(name: string, v: unknown, required: boolean, details: string[]): string {
  const s = str(v);
  if (!s) {
    if (required) details.push(`${name}: is required (the HMAC key of the notification webhook, hex)`);
    return '';
  }
  if (!/^[0-9a-fA-F]+$/.test(s) || s.length % 2 !== 0 || s.length < 32) details.push(`${name}: must be the hex HMAC key the Customer Area shows (an even number of hex digits, at least 32)`);
  return s.toUpperCase();
}

export function validateAdyenConfig(body: unknown): AdyenConfigResult {
  const b = (typeof body === 'object' && body !== null && !Array.isArray(body) ? body : {}) as Record<string, unknown>;
  const details: string[] = [];
  const apiKey = typeof b.api_key === 'string' ? b.api_key.trim() : '';
  if (!apiKey) details.push('api_key: is required (the Checkout API key)');
  const merchantAccount = str(b.merchant_account);
  if (!merchantAccount) details.push('merchant_account: is required');
  else if (!/^[A-Za-z0-9_.-]{1,80}$/.test(merchantAccount)) details.push('merchant_account: letters, digits, "_", "-" and "." only');
  const hmac = hexKey('hmac_key', b.hmac_key, true, details);
  const hmacNext = b.hmac_key_next === null ? '' : hexKey('hmac_key_next', b.hmac_key_next, false, details);

  // endpoint test|live names Adyen's base; api_url names another (a proxy; tests: the simulator).
  // Both may be given when they agree (a form shows the stored api_url back).
  const endpoint = str(b.endpoint);
  const givenUrl = b.api_url === undefined || b.api_url === null ? '' : str(b.api_url).replace(/\/+$/, '');
  let apiUrl = '';
  let livePrefix = '';
  if (endpoint === 'test') apiUrl = TEST_API_URL;
  else if (endpoint === 'live') {
    livePrefix = str(b.live_prefix);
    if (!/^[A-Za-z0-9]+-[A-Za-z0-9]+$/.test(livePrefix)) details.push('live_prefix: is required for endpoint live (the Customer Area\'s prefix, e.g. 1797a841fbb37ca7-AdyenDemo)');
    else apiUrl = liveApiUrl(livePrefix);
  } else if (endpoint !== '' && endpoint !== 'custom') details.push('endpoint: must be "test" or "live" (or give api_url)');
  if (givenUrl && apiUrl && givenUrl !== apiUrl) details.push(`api_url: endpoint ${endpoint} is ${apiUrl}; give either endpoint or another api_url, not both`);
  else if (givenUrl && !apiUrl && (endpoint === '' || endpoint === 'custom')) {
    try {
      const u = new URL(givenUrl);
      if (u.protocol !== 'https:') details.push('api_url: must be an https URL');
      else if (u.username || u.password || u.search || u.hash) details.push('api_url: must carry no credentials, query or fragment');
      else if (!/\/v71$/.test(u.pathname)) details.push('api_url: must end in /v71 (the Checkout API version caja speaks)');
      apiUrl = givenUrl;
    } catch {
      details.push('api_url: is not a URL');
    }
  } else if (!apiUrl && (endpoint === '' || endpoint === 'custom')) details.push('endpoint: must be "test" or "live" (or give api_url)');

  const methods: Record<string, string[]> = {};
  // An object, or (a form's text box) its JSON.
  let m = b.methods;
  if (typeof m === 'string') {
    try {
      m = JSON.parse(m);
    } catch {
      m = null;
    }
  }
  if (!m || typeof m !== 'object' || Array.isArray(m)) details.push(`methods: is required, e.g. {"BR": ["VI","MC","BL"], "MX": ["VI","MC","OX"]}`);
  else {
    for (const [country, list] of Object.entries(m as Record<string, unknown>)) {
      const cc = country.trim().toUpperCase();
      const allowed = ADYEN_METHODS[cc];
      if (!allowed) {
        details.push(`methods.${country}: Adyen serves ${Object.keys(ADYEN_METHODS).join(' and ')} here`);
        continue;
      }
      if (!Array.isArray(list) || list.length === 0 || !list.every((c) => typeof c === 'string')) {
        details.push(`methods.${country}: must be a non-empty list of method codes`);
        continue;
      }
      const codes = [...new Set(list.map((c: string) => c.trim().toUpperCase()))];
      const unknown = codes.filter((c) => !allowed[c]);
      if (unknown.length) details.push(`methods.${country}: ${unknown.join(', ')} not served through Adyen (one of ${Object.keys(allowed).join(', ')})`);
      methods[cc] = codes.filter((c) => allowed[c]).sort();
    }
    if (Object.keys(m as object).length === 0) details.push('methods: names no country');
  }
  const ca = b.ca === undefined || b.ca === null ? '' : str(b.ca);
  if (ca && !/-----BEGIN CERTIFICATE-----/.test(ca)) details.push('ca: is not a PEM certificate bundle');
  if (details.length) return { ok: false, details };
  return {
    ok: true,
    settings: {
      merchant_account: merchantAccount, endpoint: apiUrl === TEST_API_URL ? 'test' : livePrefix ? 'live' : 'custom', api_url: apiUrl,
      ...(livePrefix ? { live_prefix: livePrefix } : {}), methods: JSON.stringify(methods), hmac_keys: hmacNext ? '2' : '1', ...(ca ? { ca } : {}),
    },
    secrets: { api_key: apiKey, hmac_key: hmac, ...(hmacNext ? { hmac_key_next: hmacNext } : {}) },
  };
}
