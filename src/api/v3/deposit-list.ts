// GET /v3/deposits: the merchant's deposits, newest first, in the status view of
// GET /v3/deposits/{id}, with a cursor. What `caja deposits list` and the SDK read; the panel's
// list runs on the same query (deposits/list.ts).
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../config/context.ts';
import { v3HeaderAuth } from '../auth/v3-headers.ts';
import { DEPOSIT_STATUSES, type DepositStatus } from '../../domain/deposit-states.ts';
import { toJson } from '../../deposits/json.ts';
import { listDeposits } from '../../deposits/list.ts';
import { statusView } from '../../deposits/views.ts';
import { depositStatusSchema, sendJson } from './deposits.ts';
import { v3ErrorSchema } from './face.ts';

export function registerV3DepositList(app: FastifyInstance, ctx: AppContext): void {
  app.get<{ Querystring: { status?: DepositStatus; country?: string; limit: number; before?: string } }>(
    '/v3/deposits',
    {
      preValidation: v3HeaderAuth(ctx, 'deposits'),
      schema: {
        tags: ['deposits'],
        summary: "The merchant's deposits, newest first (the status view of GET /v3/deposits/{id})",
        security: [{ v3Signature: [] }],
        querystring: {
          type: 'object',
          properties: {
            status: { type: 'string', enum: [...DEPOSIT_STATUSES] },
            country: { type: 'string', pattern: '^[A-Z]{2}$' },
            limit: { type: 'integer', minimum: 1, maximum: 100, default: 20 },
            before: { type: 'string', pattern: '^[0-9]{1,10}$', description: 'next_before of the previous page' },
          },
        },
        response: {
          200: {
            type: 'object',
            properties: {
              data: { type: 'array', items: depositStatusSchema },
              next_before: { type: 'integer', nullable: true, description: 'Pass as `before` for the next (older) page; null at the end' },
            },
          },
          400: v3ErrorSchema,
          401: v3ErrorSchema,
        },
      },
    },
    async (request, reply) => {
      const q = request.query;
      const page = await listDeposits(ctx.db, request.merchant!.id, { status: q.status, country: q.country, before: q.before ? Number(q.before) : undefined }, q.limit);
      return sendJson(reply, 200, toJson({ data: page.rows.map((d) => statusView(d)), next_before: page.next }));
    },
  );
}
