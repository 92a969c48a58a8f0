// Lookup endpoints take the merchant's read-only key as a bearer token; it is safe in a front end.
import type { FastifyRequest } from 'fastify';
import type { AppContext } from '../../config/context.ts';
import { v3Errors } from '../../http/errors.ts';
import { findByReadOnlyKey } from '../../merchants/merchants.ts';

export function readOnlyKeyAuth(ctx: AppContext) {
  return async function authenticate(request: FastifyRequest): Promise<void> {
    const value = request.headers.authorization;
    if (value === undefined) throw v3Errors.missingHeader('Authorization');
    const m = /^Bearer\s+(\S+)$/i.exec(value.trim());
    if (!m) {
      if (value.trim() === '') throw v3Errors.emptyHeader('Authorization');
      throw v3Errors.invalidCredentials("Authorization must be 'Bearer <read-only key>'");
    }
    const merchant = await findByReadOnlyKey(ctx.db, ctx.box, m[1], ctx.cache);
    if (!merchant) throw v3Errors.invalidCredentials();
    request.merchant = merchant;
  };
}
