// Cashout operations: login and pass in the JSON body, plus `Payload-Signature`, the hex
// HMAC-SHA256 of the raw body keyed with the cashouts secret.
import type { FastifyRequest } from 'fastify';
import type { AppContext } from '../../config/context.ts';
import { verifyHmacHex } from '../../domain/signatures.ts';
import { cashoutErrors } from '../../http/errors.ts';
import { checkLoginAndKey } from '../../merchants/merchants.ts';
import { payloadSignatureHint } from '../../auth/signature-debug.ts';

export function cashoutAuth(ctx: AppContext) {
  return async function authenticate(request: FastifyRequest): Promise<void> {
    const body = request.body as Record<string, unknown> | undefined;
    if (!body || typeof body !== 'object' || Array.isArray(body)) throw cashoutErrors.invalidParams('Body must be a JSON object');
    const { login, pass } = body;
    if (typeof login !== 'string' || login === '' || typeof pass !== 'string' || pass === '') {
      throw cashoutErrors.invalidCredentials('login and pass are required');
    }
    const found = await checkLoginAndKey(ctx.db, ctx.box, 'cashouts', login, pass, ctx.cache);
    if (!found?.secret) throw cashoutErrors.invalidCredentials();
    const signature = request.headers['payload-signature'];
    if (typeof signature !== 'string' || signature.trim() === '') throw cashoutErrors.invalidCredentials('Missing Payload-Signature header');
    // Some client libraries put the v3 scheme word before the hash ("D24 <hex>"); it carries nothing.
    const hash = signature.trim().replace(/^(?:D24|SVC)\s+/i, '');
    const rawBody = request.rawBody ?? Buffer.alloc(0);
    if (!verifyHmacHex(found.secret, rawBody, hash)) {
      // The body holds the pass, so staging describes it (length, hash) rather than echoing it.
      throw cashoutErrors.invalidCredentials(`Invalid Payload-Signature${ctx.config.relaxedChecks ? payloadSignatureHint(rawBody) : ''}`);
    }
    request.merchant = found.merchant;
  };
}
