// Streamline (form-encoded) credentials: x_login and x_trans_key in the body, of the deposits or
// the web-status set depending on the endpoint.
import type { AppContext } from '../config/context.ts';
import { checkLoginAndKey, depositsSignerOf, type Merchant } from '../merchants/merchants.ts';

/**
 * The streamline credentials refused: `missing` (x_login or x_trans_key empty) or `invalid` (no
 * credential set of the endpoint's takes them). The streamline face answers it in its own codes.
 */
export class StreamlineAuthError extends Error {
  constructor(readonly kind: 'missing' | 'invalid', message: string) {
    super(message);
    this.name = 'StreamlineAuthError';
  }
}

export interface StreamlineCaller {
  merchant: Merchant;
  /** The deposits signature secret: it keys every streamline control. */
  secret: string;
  /** The deposits login: it is part of the Sign and x_control messages. */
  depositsLogin: string;
}

export async function streamlineAuth(
  ctx: AppContext,
  login: string | undefined,
  transKey: string | undefined,
  sets: ('deposits' | 'web_status')[],
): Promise<StreamlineCaller> {
  if (!login || !transKey) throw new StreamlineAuthError('missing', 'Empty parameters: x_login and x_trans_key are required');
  for (const set of sets) {
    const found = await checkLoginAndKey(ctx.db, ctx.box, set, login, transKey, ctx.cache);
    if (!found) continue;
    if (set === 'deposits' && found.secret) return { merchant: found.merchant, secret: found.secret, depositsLogin: login };
    const signer = await depositsSignerOf(ctx.db, ctx.box, found.merchant.id, ctx.cache);
    if (!signer) break;
    return { merchant: found.merchant, secret: signer.secret, depositsLogin: signer.login };
  }
  throw new StreamlineAuthError('invalid', 'Invalid credentials');
}
