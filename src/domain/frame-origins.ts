// Which sites may frame a merchant's customer pages opened with iframe_view=1 (CSP
// frame-ancestors). A merchant setting: a list of origins; unset, the origins of the merchant's
// notification and return URLs; an empty list, no site. Pure: checked here, used by the admin
// API, the panel and the page renderer (web/customer/route.ts).
import type { Capabilities } from '../config/config.ts';

/** `relaxedChecks` (staging) also takes http on loopback hosts. */
type Checks = Pick<Capabilities, 'relaxedChecks'>;

export const MAX_FRAME_ORIGINS = 20;

const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);
// A DNS name (letters, digits, hyphens, dots; IDNs arrive as punycode from the URL parser) or an
// IPv4 address: nothing that could end or extend a CSP source expression (`;`, `,`, `'`, `*`, …).
const HOST = /^(?=.{1,253}$)[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*$/;

/** The origin (scheme, host, port) a value names, or why it is not one caja accepts. */
export function checkFrameOrigin(value: unknown, c: Checks): { origin: string } | { reason: string } {
  if (typeof value !== 'string' || value.length === 0 || value.length > 300) return { reason: 'must be an origin such as https://shop.example' };
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return { reason: 'must be an origin such as https://shop.example' };
  }
  const rest = value.replace(/^[a-z][a-z0-9+.-]*:\/\//i, '');
  if (url.username || url.password || /[?#@\\]/.test(rest) || /\/./.test(rest)) {
    return { reason: 'must be an origin only (scheme, host and port), without a path, query or credentials' };
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return { reason: 'must be https' };
  const loopback = LOOPBACK_HOSTS.has(url.hostname);
  if (!(url.hostname === '[::1]' || HOST.test(url.hostname))) return { reason: 'must name a host by its DNS name or IPv4 address' };
  if (url.protocol === 'https:') return { origin: url.origin };
  if (url.protocol === 'http:' && c.relaxedChecks && loopback) return { origin: url.origin };
  return { reason: c.relaxedChecks ? 'must be https (http is accepted only for localhost in staging)' : 'must be https' };
}

/** A whole list, normalised and without repeats, or the reasons (one per bad entry). */
export function checkFrameOrigins(values: unknown, c: Checks): { origins: string[] } | { reasons: string[] } {
  if (!Array.isArray(values)) return { reasons: ['must be a list of origins'] };
  if (values.length > MAX_FRAME_ORIGINS) return { reasons: [`at most ${MAX_FRAME_ORIGINS} origins`] };
  const origins: string[] = [];
  const reasons: string[] = [];
  for (const v of values) {
    const r = checkFrameOrigin(v, c);
    if ('reason' in r) reasons.push(`${String(v).slice(0, 100)}: ${r.reason}`);
    else if (!origins.includes(r.origin)) origins.push(r.origin);
  }
  return reasons.length ? { reasons } : { origins };
}

/**
 * The origins in effect: the setting when there is one, else those of the notification and
 * return URLs (already checked as callback URLs: https, or loopback http in staging).
 */
export function frameOriginsInEffect(m: { frame_origins: string[] | null; notification_url: string | null; return_url: string | null }, c: Checks): string[] {
  if (m.frame_origins) return m.frame_origins;
  const out: string[] = [];
  for (const u of [m.notification_url, m.return_url]) {
    if (!u) continue;
    const r = checkFrameOrigin(safeOrigin(u), c);
    if ('origin' in r && !out.includes(r.origin)) out.push(r.origin);
  }
  return out;
}

function safeOrigin(u: string): string {
  try {
    return new URL(u).origin;
  } catch {
    return '';
  }
}

/** The CSP frame-ancestors value, or undefined for "never framed" ('none' and X-Frame-Options DENY). */
export function frameAncestors(origins: string[]): string | undefined {
  return origins.length ? origins.join(' ') : undefined;
}
