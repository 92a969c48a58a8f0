// Named admin API tokens (src/operators/tokens.ts):
//   GET    /admin/tokens              the tokens (never their secrets)
//   POST   /admin/tokens              {name, scopes} → the token, shown this once
//   POST   /admin/tokens/{id}/rotate  a new secret, shown this once; the old one stops at once
//   DELETE /admin/tokens/{id}         revoked
// All need the 'tokens' scope (the bootstrap CAJA_ADMIN_TOKEN has it). A token mints, rotates or
// revokes only tokens whose scopes are within its own (403 otherwise); 'cli' and 'bootstrap' are
// reserved names.
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../config/context.ts';
import { INT_ID_SCHEMA } from '../../domain/ids.ts';
import { v3Errors, v3TokenError } from '../../http/errors.ts';
import { createAdminToken, isTokenScope, listAdminTokens, revokeAdminToken, rotateAdminToken, TOKEN_SCOPES, TokenError, type TokenView } from '../../operators/tokens.ts';
import { v3ErrorSchema } from '../v3/face.ts';
import { tokenActor } from './auth.ts';

const idParams = { type: 'object', properties: { id: INT_ID_SCHEMA }, required: ['id'] } as const;
const tokenSchema = {
  type: 'object',
  properties: {
    id: { type: 'integer' }, name: { type: 'string' }, scopes: { type: 'array', items: { type: 'string', enum: [...TOKEN_SCOPES] } },
    created_by: { type: 'string' }, created_at: { type: 'string', format: 'date-time' },
    rotated_at: { type: 'string', format: 'date-time', nullable: true }, revoked_at: { type: 'string', format: 'date-time', nullable: true },
  },
} as const;
const withSecret = { type: 'object', properties: { ...tokenSchema.properties, token: { type: 'string', description: 'The bearer token; shown this once' } } } as const;
const errors = { 400: v3ErrorSchema, 401: v3ErrorSchema, 403: v3ErrorSchema, 404: v3ErrorSchema };

const view = (t: TokenView) => ({ ...t, created_at: t.created_at.toISOString(), rotated_at: t.rotated_at?.toISOString() ?? null, revoked_at: t.revoked_at?.toISOString() ?? null });

async function tokenCall<T>(f: () => Promise<T>): Promise<T> {
  try {
    return await f();
  } catch (err) {
    if (err instanceof TokenError) throw v3TokenError(err.kind, err.message);
    throw err;
  }
}

export function registerAdminTokens(app: FastifyInstance, ctx: AppContext): void {
  app.get('/admin/tokens', { schema: { tags: ['admin'], summary: 'The named admin tokens (no secrets)', security: [{ adminToken: [] }], response: { 200: { type: 'object', properties: { tokens: { type: 'array', items: tokenSchema } } }, 401: v3ErrorSchema, 403: v3ErrorSchema } } }, async () => ({
    tokens: (await listAdminTokens(ctx.db)).map(view),
  }));

  app.post<{ Body: { name: string; scopes: string[] } }>(
    '/admin/tokens',
    {
      schema: {
        tags: ['admin'],
        summary: 'Make a named admin token with scopes; its secret is shown once',
        description: "A token makes (rotates, revokes) only tokens whose scopes are within its own: 403 code 107 otherwise. The names 'cli' and 'bootstrap' are reserved (400).",
        security: [{ adminToken: [] }],
        body: {
          type: 'object', required: ['name', 'scopes'], additionalProperties: false,
          properties: { name: { type: 'string', pattern: '^[a-z0-9][a-z0-9_.-]{0,62}$' }, scopes: { type: 'array', minItems: 1, maxItems: TOKEN_SCOPES.length, items: { type: 'string' } } },
          examples: [{ name: 'rates-bot', scopes: ['read', 'rates'] }],
        },
        response: { 201: withSecret, ...errors },
      },
    },
    async (request, reply) => {
      const bad = request.body.scopes.filter((s) => !isTokenScope(s));
      if (bad.length) throw v3Errors.validation(bad.map((s) => `scopes: '${s}' is not one of ${TOKEN_SCOPES.join(', ')}`));
      const made = await tokenCall(() => createAdminToken(ctx.db, ctx.box, request.body.name, request.body.scopes.filter(isTokenScope), tokenActor(request), ctx.now(), request.adminToken!));
      return reply.status(201).send({ ...view(made), token: made.token });
    },
  );

  app.post<{ Params: { id: number } }>(
    '/admin/tokens/:id/rotate',
    { schema: { tags: ['admin'], summary: 'A new secret for the token (shown once); the old one stops working', security: [{ adminToken: [] }], params: idParams, response: { 200: withSecret, ...errors } } },
    async (request) => {
      const t = await tokenCall(() => rotateAdminToken(ctx.db, ctx.box, request.params.id, tokenActor(request), ctx.now(), request.adminToken!));
      return { ...view(t), token: t.token };
    },
  );

  app.delete<{ Params: { id: number } }>(
    '/admin/tokens/:id',
    { schema: { tags: ['admin'], summary: 'Revoke the token', security: [{ adminToken: [] }], params: idParams, response: { 200: tokenSchema, ...errors } } },
    async (request) => view(await tokenCall(() => revokeAdminToken(ctx.db, request.params.id, tokenActor(request), ctx.now(), request.adminToken!))),
  );
}
