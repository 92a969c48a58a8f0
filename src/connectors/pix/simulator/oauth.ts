// OAuth 2.0 client credentials (RFC 6749 §4.4), as PSPs run it for the API Pix: the client
// authenticates with HTTP Basic (client_id:client_secret) over the mTLS channel and receives a
// bearer token that expires after `ttlSeconds`. The token endpoint answers RFC 6749 errors
// (`{error, error_description}`); the API answers a missing, unknown or expired token with a 401
// problem, and a token without the operation's scope with 403 AcessoNegado.
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { problem, type Problema } from './problems.ts';
import type { Store } from './store.ts';

/** The scopes of the operations the simulator serves (the document's `security` of each). */
export const SCOPES = ['cob.write', 'cob.read', 'pix.write', 'pix.read', 'webhook.write', 'webhook.read',
  // Efí's send API (./sends.ts).
  'pix.send', 'gn.pix.send.read'];

export interface TokenAnswer {
  status: number;
  body: Record<string, unknown>;
  headers: Record<string, string>;
}

const digest = (s: string) => createHash('sha256').update(s).digest();
const same = (a: string, b: string) => timingSafeEqual(digest(a), digest(b));

export class OAuth {
  constructor(
    private readonly store: Store,
    private readonly clientId: string,
    private readonly clientSecret: string,
    private readonly ttlSeconds: number,
  ) {}

  /** POST token_url with the raw `application/x-www-form-urlencoded` body. */
  token(authorization: string | undefined, contentType: string | undefined, rawBody: string): TokenAnswer {
    const noStore = { 'cache-control': 'no-store', pragma: 'no-cache' };
    const fail = (status: number, error: string, description: string, extra: Record<string, string> = {}): TokenAnswer => ({
      status,
      body: { error, error_description: description },
      headers: { ...noStore, ...extra },
    });
    const basic = /^Basic\s+(\S+)$/i.exec(authorization ?? '');
    const decoded = basic ? Buffer.from(basic[1]!, 'base64').toString('utf8') : '';
    const colon = decoded.indexOf(':');
    const id = colon >= 0 ? decodeURIComponent(decoded.slice(0, colon)) : '';
    const secret = colon >= 0 ? decodeURIComponent(decoded.slice(colon + 1)) : '';
    if (!basic || colon < 0 || !same(id, this.clientId) || !same(secret, this.clientSecret)) {
      return fail(401, 'invalid_client', 'Client authentication failed (HTTP Basic client_id:client_secret).', {
        'www-authenticate': 'Basic realm="pix"',
      });
    }
    if (!/^application\/x-www-form-urlencoded\b/i.test(contentType ?? '')) {
      return fail(400, 'invalid_request', 'The body must be application/x-www-form-urlencoded.');
    }
    const form = new URLSearchParams(rawBody);
    if (form.get('grant_type') !== 'client_credentials') {
      return fail(400, 'unsupported_grant_type', 'Only grant_type=client_credentials is supported.');
    }
    const asked = (form.get('scope') ?? '').split(/\s+/).filter(Boolean);
    const unknown = asked.filter((s) => !SCOPES.includes(s));
    if (unknown.length) return fail(400, 'invalid_scope', `Unknown scope: ${unknown.join(' ')}`);
    const scope = (asked.length ? asked : SCOPES).join(' ');
    const accessToken = randomBytes(24).toString('base64url');
    const s = this.store.state;
    s.tokens[accessToken] = { expiresAt: Date.now() + this.ttlSeconds * 1000, scope };
    s.tokensIssued++;
    for (const [t, v] of Object.entries(s.tokens)) if (v.expiresAt < Date.now()) delete s.tokens[t];
    this.store.save();
    return {
      status: 200,
      body: { access_token: accessToken, token_type: 'Bearer', expires_in: this.ttlSeconds, scope },
      headers: noStore,
    };
  }

  /** null when the bearer token is valid and carries every scope in `required`; otherwise the problem to answer. */
  check(authorization: string | undefined, required: string[]): { problem: Problema; headers: Record<string, string> } | null {
    const m = /^Bearer\s+(\S+)$/i.exec(authorization ?? '');
    const token = m ? this.store.state.tokens[m[1]!] : undefined;
    if (!token || token.expiresAt <= Date.now()) {
      const why = !m ? 'Token de acesso ausente.' : !token ? 'Token de acesso desconhecido.' : 'Token de acesso expirado.';
      return {
        problem: problem('NaoAutorizado', why),
        headers: { 'www-authenticate': `Bearer realm="pix"${m ? ', error="invalid_token"' : ''}` },
      };
    }
    const granted = token.scope.split(' ');
    const missing = required.filter((s) => !granted.includes(s));
    if (missing.length) {
      return { problem: problem('AcessoNegado', `O token não tem o escopo ${missing.join(' ')}.`), headers: {} };
    }
    return null;
  }

  expireAll(): void {
    this.store.state.tokens = {};
    this.store.save();
  }
}
