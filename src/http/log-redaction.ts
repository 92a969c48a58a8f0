// Page tokens are bearer secrets: whoever holds /pay/<token> sees the payer's payment details,
// and /checkout/<token> lets them act on the deposit. Request logs keep the route, never the
// token (nor the page's query string, which may carry it again).
const TOKEN_PATH = /^\/(pay|checkout|return|vouchers)\/[^/?#]+/i;

export function redactUrl(url: string): string {
  const [path, query] = [url.split('?')[0]!, url.includes('?')];
  if (!TOKEN_PATH.test(path)) return url;
  return `${path.replace(TOKEN_PATH, (_, page: string) => `/${page.toLowerCase()}/[token]`)}${query ? '?[query]' : ''}`;
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
