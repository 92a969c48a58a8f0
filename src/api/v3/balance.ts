// The merchant's balance (v3 header auth, deposits credentials):
//   GET /v3/balance                 per currency available, reserved and total
//   GET /v3/balance/transactions    the movements, newest first, with a cursor
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../config/context.ts';
import { v3HeaderAuth } from '../auth/v3-headers.ts';
import { listTransactions } from '../../balances/service.ts';
import { toJson } from '../../deposits/json.ts';
import { add } from '../../domain/money.ts';
import { formatDateTime } from '../../domain/payment-info.ts';
import { merchantBalances } from '../../ledger/ledger.ts';
import { v3Errors } from '../../http/errors.ts';
import { sendJson } from './deposits.ts';
import { v3ErrorSchema } from './face.ts';

const errors = { 400: v3ErrorSchema, 401: v3ErrorSchema };

const balanceSchema = {
  type: 'object',
  properties: {
    balances: {
      type: 'array',
      items: {
        type: 'object',
        properties: {
          currency: { type: 'string' },
          available: { type: 'number', description: 'What cashouts and refunds can use now' },
          reserved: { type: 'number', description: 'Held by open cashouts and pending refunds' },
          total: { type: 'number', description: 'available + reserved' },
          fees: { type: 'number', description: 'Fees charged so far (net of fees returned with refunds)' },
        },
      },
    },
  },
} as const;

const transactionSchema = {
  type: 'object',
  properties: {
    data: {
      type: 'array',
      items: {
        type: 'object',
        properties: {
          id: { type: 'integer', description: 'Also the cursor: pass it as starting_after for the next page' },
          type: { type: 'string', description: 'deposit.credit, refund.reserve, refund.post, refund.void, cashout.reserve, cashout.post, cashout.void, cashout.return, adjustment.credit, adjustment.debit' },
          currency: { type: 'string' },
          amount: { type: 'number', description: 'Change of the available balance' },
          reserved: { type: 'number', description: 'Change of the reserved balance' },
          fee: { type: 'number', description: 'Fees charged by this movement (negative: returned)' },
          source: { type: 'object', properties: { type: { type: 'string' }, id: { type: 'integer' } } },
          pending: { type: 'boolean', description: 'A reservation waiting to be posted or voided' },
          description: { type: 'string' },
          created_at: { type: 'string' },
        },
      },
    },
    has_more: { type: 'boolean' },
    next_cursor: { type: 'integer' },
  },
} as const;

export function registerBalance(app: FastifyInstance, ctx: AppContext): void {
  const auth = v3HeaderAuth(ctx, 'deposits');

  app.get(
    '/v3/balance',
    {
      preValidation: auth,
      schema: {
        tags: ['balance'],
        summary: 'The merchant balance per currency: available, reserved and total',
        security: [{ v3Signature: [] }],
        response: { 200: balanceSchema, ...errors },
      },
    },
    async (request, reply) => {
      const balances = await merchantBalances(ctx.db, request.merchant!.id);
      return sendJson(reply, 200, toJson({
        balances: balances.map((b) => ({ currency: b.currency, available: b.available, reserved: b.reserved, total: add(b.available, b.reserved), fees: b.fees })),
      }));
    },
  );

  app.get<{ Querystring: { starting_after?: string; limit?: string; currency?: string } }>(
    '/v3/balance/transactions',
    {
      preValidation: auth,
      schema: {
        tags: ['balance'],
        summary: 'Balance movements, newest first',
        description: 'Cursor pagination: pass the last id of a page as `starting_after` for the next one (`next_cursor`).',
        security: [{ v3Signature: [] }],
        querystring: {
          type: 'object',
          properties: {
            starting_after: { type: 'string', description: 'The id of the last movement already seen' },
            limit: { type: 'string', description: '1 to 100, default 25' },
            currency: { type: 'string', description: 'Only movements in this currency' },
          },
        },
        response: { 200: transactionSchema, ...errors },
      },
    },
    async (request, reply) => {
      const q = request.query;
      const details: string[] = [];
      const before = q.starting_after === undefined ? undefined : /^\d{1,15}$/.test(q.starting_after) ? Number(q.starting_after) : NaN;
      if (Number.isNaN(before)) details.push('starting_after: must be a movement id');
      const limit = q.limit === undefined ? 25 : /^\d{1,3}$/.test(q.limit) ? Number(q.limit) : NaN;
      if (!(limit >= 1 && limit <= 100)) details.push('limit: must be an integer from 1 to 100');
      if (q.currency !== undefined && !/^[A-Z]{3}$/.test(q.currency)) details.push('currency: must be an ISO 4217 code');
      if (details.length) throw v3Errors.validation(details);
      const page = await listTransactions(ctx.db, request.merchant!.id, { before, limit, currency: q.currency });
      return sendJson(reply, 200, toJson({
        data: page.data.map((t) => ({ ...t, description: t.description ?? undefined, created_at: formatDateTime(t.created_at) })),
        has_more: page.hasMore,
        next_cursor: page.hasMore ? page.data.at(-1)!.id : undefined,
      }));
    },
  );
}
