// URLs that caja calls or sends customers to must be HTTPS; staging also takes http:// on
// loopback hosts so merchants can test on their own machine (DESIGN.md "Running"). Production
// also refuses, when the URL is set, a host it can never reach for a merchant or a customer: an
// address (in any spelling the URL parser accepts) that is loopback, private, link-local, unique
// local or otherwise not public, and `localhost` names. A name that resolves to such an address
// is refused at each call (src/notifications/address-guard.ts), since DNS may change.
import ipaddr from 'ipaddr.js';
import type { Capabilities } from '../config/config.ts';

const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);

const RANGE_TEXT: Record<string, string> = { linkLocal: 'link-local', uniqueLocal: 'unique local', carrierGradeNat: 'carrier-grade NAT' };

/**
 * ipaddr.js's range name of an address ('unicast' for public ones; 'private', 'loopback',
 * 'linkLocal' (includes 169.254.169.254, the cloud metadata address), 'carrierGradeNat',
 * 'uniqueLocal', 'reserved', ...), with IPv4-mapped IPv6 addresses judged as the IPv4 they carry.
 * Null when the text is not an IP address.
 */
export function addressRange(address: string): string | null {
  if (!ipaddr.isValid(address)) return null;
  const parsed = ipaddr.process(address);
  // IPv4-compatible IPv6 (::/96, deprecated: `[::127.0.0.1]`) reaches the IPv4 it carries on
  // some stacks, yet ipaddr.js calls it unicast: judge the IPv4.
  if (parsed.kind() === 'ipv6') {
    const parts = (parsed as ipaddr.IPv6).parts;
    if (parts.slice(0, 6).every((p) => p === 0) && (parts[6] !== 0 || parts[7]! > 1)) {
      return ipaddr.IPv4.parse(`${parts[6]! >> 8}.${parts[6]! & 255}.${parts[7]! >> 8}.${parts[7]! & 255}`).range();
    }
  }
  return parsed.range();
}

/** Why production can never reach this URL's host (loopback, private, …), or null. */
function unreachableHost(url: URL): string | null {
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1').toLowerCase();
  if (host === 'localhost' || host.endsWith('.localhost') || host === 'localhost.') return `${host} is loopback, not a public address`;
  const range = addressRange(host);
  if (range === null || range === 'unicast') return null;
  return `${host} is ${RANGE_TEXT[range] ?? range}, not a public address`;
}

/**
 * Null when acceptable, else the reason. `relaxedChecks` (staging) takes http on loopback hosts
 * and does not refuse internal addresses; without it (production) both are refused.
 */
export function checkCallbackUrl(value: unknown, c: Pick<Capabilities, 'relaxedChecks'>, maxLength = 2048): string | null {
  if (typeof value !== 'string') return 'must be a string';
  if (value.length > maxLength) return `must be at most ${maxLength} characters`;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return 'must be a valid URL';
  }
  if (url.protocol === 'https:') {
    const unreachable = c.relaxedChecks ? null : unreachableHost(url);
    return unreachable ? `must reach a public address in production: ${unreachable}` : null;
  }
  if (url.protocol === 'http:' && c.relaxedChecks && LOOPBACK_HOSTS.has(url.hostname)) return null;
  return c.relaxedChecks ? 'must be an HTTPS URL (http is accepted only for localhost in staging)' : 'must be an HTTPS URL';
}
