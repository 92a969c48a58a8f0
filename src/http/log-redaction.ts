// Page tokens are bearer secrets: whoever holds /pay/<token> sees the payer's payment details,
// and /checkout/<token> lets them act on the deposit; /ops/enrol/<token> sets up an operator; a connector's return leg names the page token. Request logs keep the route, never the
// token (nor the page's query string, which may carry it again). A page is recognised on the
// canonical path, the one the router matched, so `//pay/<token>` or `/%70ay/<token>` is redacted
// like `/pay/<token>`.
import { canonicalPath } from './canonical-path.ts';

const TOKEN_PAGES = new Set(['pay', 'checkout', 'return', 'vouchers']);

export function redactUrl(url: string): string {
  const path = canonicalPath(url);
  // A target the router cannot read reaches no page, but may still hold a token: not logged.
  if (path === null) return '[unreadable request target]';
  const [, page, token, ...rest] = path.split('/');
  // An operator's enrolment link, /ops/enrol/<token>, is a credential too.
  if (page === 'ops' && token === 'enrol' && rest.length) return `/ops/enrol/[token]${url.includes('?') ? '?[query]' : ''}`;
  // A connector's return leg, /connectors/<name>/return/<token>, names the deposit's page token.
  if (page === 'connectors' && rest[0] === 'return' && rest.length > 1) return `/connectors/${token}/return/[token]${url.includes('?') ? '?[query]' : ''}`;
  if (page === undefined || !TOKEN_PAGES.has(page) || !token) return url;
  return `/${page}/[token]${rest.length ? `/${rest.join('/')}` : ''}${url.includes('?') ? '?[query]' : ''}`;
}

/** pino serializer of the request Fastify logs ("incoming request"): its fields, URL redacted. */
export function requestSerializer(req: { method?: string; url?: string; hostname?: string; host?: string; ip?: string; socket?: { remotePort?: number } }) {
  return {
    method: req.method,
    url: req.url === undefined ? undefined : redactUrl(req.url),
    host: req.host ?? req.hostname,
    remoteAddress: req.ip,
    remotePort: req.socket?.remotePort,
  };
}
