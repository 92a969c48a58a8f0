import type { FastifyRequest } from 'fastify';
import type { AppContext } from '../../config/context.ts';
import { v3Errors } from '../../http/errors.ts';
import { safeEqualText } from '../../merchants/secrets.ts';

/** The operator's bearer token (CAJA_ADMIN_TOKEN), compared in constant time. */
export function adminAuth(ctx: AppContext) {
  return async function authenticate(request: FastifyRequest): Promise<void> {
    const m = /^Bearer\s+(\S+)$/i.exec(request.headers.authorization ?? '');
    if (!m || !safeEqualText(m[1], ctx.config.adminToken)) {
      throw v3Errors.invalidCredentials('Admin token missing or invalid');
    }
  };
}
