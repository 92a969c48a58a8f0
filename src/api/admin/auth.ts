// The admin API's bearer tokens (src/operators/tokens.ts): CAJA_ADMIN_TOKEN, the bootstrap token,
// or a named token holding the scope the route needs. The token that made each call is on the
// request (request.adminToken), in its log line (admin_token) and in the audit rows it writes.
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../../config/context.ts';
import { v3Errors } from '../../http/errors.ts';
import type { OpsAuditEntry } from '../../audit/audit.ts';
import type { OpsActor } from '../../operators/audit.ts';
import { type AdminToken, allows, scopeFor, verifyAdminToken } from '../../operators/tokens.ts';

declare module 'fastify' {
  interface FastifyRequest {
    adminToken?: AdminToken;
  }
}

export function adminAuth(ctx: AppContext) {
  return async function authenticate(request: FastifyRequest, reply: FastifyReply): Promise<void> {
    const m = /^Bearer\s+(\S+)$/i.exec(request.headers.authorization ?? '');
    const token = m ? await verifyAdminToken(ctx.db, ctx.box, ctx.config.adminToken, m[1]!) : null;
    if (!token) throw v3Errors.invalidCredentials('Admin token missing or invalid');
    request.adminToken = token;
    // Both: Fastify's "request completed" line is written through the reply's logger.
    request.log = reply.log = request.log.child({ admin_token: token.id });
    const scope = scopeFor(request.method, request.routeOptions.url ?? request.url);
    if (!allows(token, scope)) throw v3Errors.forbidden(`The token '${token.name}' lacks the scope this call needs (${scope ?? 'bootstrap token only'})`);
  };
}

/** Who made an admin call, for the audit rows its action writes. */
export function tokenActor(request: FastifyRequest): OpsActor {
  const t = request.adminToken!;
  return { kind: 'token', id: t.id, name: t.name, ip: request.ip, requestId: request.id };
}

/**
 * The audit entry of an admin call that changes something, for the service to write in the
 * change's own transaction (never after it commits). Every admin write route passes one: the
 * route table is checked against test/ops/admin-audit.test.ts. No secret goes into `detail`.
 */
export function tokenAudit(request: FastifyRequest, action: string, o: Omit<OpsAuditEntry, 'ops' | 'action'> = {}): OpsAuditEntry {
  return { ops: tokenActor(request), action, ...o };
}
