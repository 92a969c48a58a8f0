// Which destinations a notification may be sent to. A merchant-supplied URL must not let anyone
// make caja call its own network (SSRF): in production only https to public unicast addresses;
// staging also takes http and loopback so that merchants can test on their own machine.
// The host is resolved here, every address is checked, and the connection is then made to the
// checked address itself (see http-post.ts), so a DNS answer that changes between the check and
// the connection (rebinding) cannot redirect it.
import { lookup } from 'node:dns/promises';
import ipaddr from 'ipaddr.js';
import type { Capabilities } from '../config/config.ts';
import { addressRange } from '../domain/urls.ts';

/** strict (production): https to public addresses only; relaxed (staging): also http and loopback. */
export type Policy = 'strict' | 'relaxed';

/** Relaxed checks (staging) take http and loopback; otherwise the strict policy (production). */
export function policyFor(c: Pick<Capabilities, 'relaxedChecks'>): Policy {
  return c.relaxedChecks ? 'relaxed' : 'strict';
}

export { addressRange };

/** A public unicast address: what production calls, and whose answers caja may record. */
export function isPublicAddress(address: string): boolean {
  return addressRange(address) === 'unicast';
}

/** Null when the policy allows connecting to this address, else why not. */
export function refuseAddress(address: string, policy: Policy): string | null {
  const range = addressRange(address);
  if (range === null) return `'${address}' is not an IP address`;
  if (range === 'unicast') return null;
  if (range === 'loopback' && policy === 'relaxed') return null;
  return `address ${address} is ${range}, not a public address`;
}

/** Null when the URL's form is acceptable for the policy (scheme, no credentials), else why not. */
export function refuseUrl(url: URL, policy: Policy): string | null {
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && policy === 'relaxed')) {
    return policy === 'strict' ? 'only https URLs are called in production' : 'only http and https URLs are called';
  }
  if (url.username || url.password) return 'URLs with credentials are not called';
  return null;
}

export interface ResolvedTarget {
  url: URL;
  /** Host name without IPv6 brackets, for SNI and certificate checks. */
  hostname: string;
  address: string;
  family: 4 | 6;
}

export class RefusedTarget extends Error {
  /**
   * permanent: true when retrying cannot help (bad URL or scheme); false when DNS may yet change.
   * brief: the message without the addresses a name resolved to, for where production shows it
   * to a merchant (see refusalText).
   */
  constructor(message: string, readonly permanent: boolean, readonly brief?: string) {
    super(message);
  }
}

/**
 * What a merchant is told of a failed call. In production a refused destination is only
 * "refused: private address": naming the address a host resolved to would let a merchant map
 * caja's internal network and DNS through its notification URL. Staging keeps the detail, which
 * is what a developer testing against their own machine needs.
 */
export function refusalText(err: unknown, policy: Policy): string {
  if (err instanceof RefusedTarget && policy === 'strict' && err.brief) return err.brief;
  return (err as Error).message;
}

export type Resolver = (hostname: string) => Promise<{ address: string; family: number }[]>;

const systemResolver: Resolver = (hostname) => lookup(hostname, { all: true, verbatim: true });

/**
 * Parses, resolves and checks a destination. Every address the name resolves to must be
 * allowed: a name that answers with one public and one private address is refused, since the
 * client would be free to pick either.
 */
export async function resolveTarget(rawUrl: string, policy: Policy, resolve: Resolver = systemResolver): Promise<ResolvedTarget> {
  let url: URL;
  try {
    url = new URL(rawUrl);
  } catch {
    throw new RefusedTarget('not a valid URL', true);
  }
  const urlReason = refuseUrl(url, policy);
  if (urlReason) throw new RefusedTarget(urlReason, true);
  const hostname = url.hostname.replace(/^\[(.*)\]$/, '$1');
  let addresses: { address: string; family: number }[];
  if (ipaddr.isValid(hostname)) {
    addresses = [{ address: hostname, family: hostname.includes(':') ? 6 : 4 }];
  } else {
    try {
      addresses = await resolve(hostname);
    } catch (err) {
      throw new RefusedTarget(`cannot resolve ${hostname}: ${(err as { code?: string }).code ?? (err as Error).message}`, false);
    }
    if (addresses.length === 0) throw new RefusedTarget(`cannot resolve ${hostname}`, false);
  }
  for (const a of addresses) {
    const reason = refuseAddress(a.address, policy);
    if (reason) throw new RefusedTarget(`refused: ${hostname} ${reason}`, false, 'refused: private address');
  }
  const first = addresses[0];
  return { url, hostname, address: first.address, family: first.family === 6 ? 6 : 4 };
}
