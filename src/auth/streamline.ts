// Streamline (form-encoded) credentials: x_login and x_trans_key in the body, of the deposits or
// the web-status set depending on the endpoint.
import type { AppContext } from '../context.ts';
import { checkLoginAndKey, depositsLoginOf, type Merchant, signingSecretOf } from '../merchants/merchants.ts';
import { StreamlineError } from '../api/streamline/format.ts';

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
  if (!login || !transKey) throw new StreamlineError(301, 'Empty parameters: x_login and x_trans_key are required');
  for (const set of sets) {
    const found = await checkLoginAndKey(ctx.db, ctx.box, set, login, transKey);
    if (!found) continue;
    const secret = found.secret ?? (await signingSecretOf(ctx.db, ctx.box, found.merchant.id, 'deposits'));
    const depositsLogin = set === 'deposits' ? login : await depositsLoginOf(ctx.db, found.merchant.id);
    if (!secret || !depositsLogin) break;
    return { merchant: found.merchant, secret, depositsLogin };
  }
  throw new StreamlineError(401, 'Invalid credentials');
}
