// The signature debugger (staging only): what caja computed when a signature does not match, so
// an integrator can diff it against their own string to sign. Never a key, never the expected
// signature: those would let anyone holding a login forge requests.
import { createHash } from 'node:crypto';
import type { AppContext } from '../config/context.ts';
import { findSigningSecret } from '../merchants/merchants.ts';

/** Bodies longer than this are shown by their start; length and hash identify the whole. */
const SHOWN_BYTES = 2048;

function describeBody(raw: Buffer): string {
  return `${raw.length} bytes, sha256 ${createHash('sha256').update(raw).digest('hex')}`;
}

/** JSON-quoted, so spaces, line ends and escapes show exactly; cut at SHOWN_BYTES. */
function quoted(message: Buffer): string {
  const shown = message.subarray(0, SHOWN_BYTES).toString('utf8');
  return JSON.stringify(shown) + (message.length > SHOWN_BYTES ? ` (first ${SHOWN_BYTES} of ${message.length} bytes)` : '');
}

/** Detail lines of a v3/v5 102: the string to sign, the body, the X-Date skew, the key's set. */
export function v3SignatureDetails(set: 'deposits' | 'cashouts', message: Buffer, rawBody: Buffer, xDate: Date, now: Date): string[] {
  return [
    `string_to_sign: ${quoted(message)}`,
    `string_to_sign is X-Date + X-Login + raw body; body: ${describeBody(rawBody)}`,
    `x_date_skew_seconds: ${Math.round((now.getTime() - xDate.getTime()) / 1000)} (server time minus X-Date)`,
    `credential_set: ${set} (expected Authorization: SVC <hex HMAC-SHA256 of string_to_sign keyed with ${set}.secret_key>)`,
  ];
}

/** Detail lines of a 100: whether the login belongs to the other signing set. */
export async function v3LoginDetails(ctx: AppContext, set: 'deposits' | 'cashouts', xLogin: string): Promise<string[]> {
  const other = set === 'deposits' ? 'cashouts' : 'deposits';
  if (await findSigningSecret(ctx.db, ctx.box, other, xLogin)) {
    return [`credential_set: X-Login is a ${other}.login; this endpoint takes the ${set}.login (and ${set}.secret_key)`];
  }
  return [`credential_set: X-Login is not a ${set}.login of any merchant (rotated, or from another environment?)`];
}

/** Text added to a cashout 401 for a wrong Payload-Signature: what the HMAC was computed over. */
export function payloadSignatureHint(rawBody: Buffer): string {
  return ` (staging: caja computed HMAC-SHA256 keyed with cashouts.secret_key over the raw body as received, ${describeBody(rawBody)})`;
}
