// Operator endpoints for balances and the ledger:
//   POST /admin/merchants/{id}/balance_adjustments   credit or debit, with reason; in production a
//                                                    request a second operator approves (202)
//   GET  /admin/merchants/{id}/balance               the merchant's balances
//   GET  /admin/ledger/check[?full=true]             the ledger's invariants (200 ok, 409 broken)
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../config/context.ts';
import { toJson } from '../../deposits/json.ts';
import { minorUnits } from '../../domain/currencies.ts';
import { add, parseAmount, toFixed } from '../../domain/money.ts';
import { formatDateTime } from '../../domain/payment-info.ts';
import { v3Errors } from '../../http/errors.ts';
import { checkLedger } from '../../ledger/check.ts';
import { InsufficientFunds, merchantBalances } from '../../ledger/ledger.ts';
import { getMerchant } from '../../merchants/merchants.ts';
import { actorName } from '../../operators/audit.ts';
import { adjustOrRequest } from '../../operators/four-eyes.ts';
import { sendJson } from '../v3/deposits.ts';
import { v3ErrorSchema } from '../v3/face.ts';
import { INT_ID_SCHEMA } from '../../domain/ids.ts';
import { tokenActor, tokenAudit } from './auth.ts';

const idParams = { type: 'object', properties: { id: INT_ID_SCHEMA }, required: ['id'] } as const;

export function registerAdminBalance(app: FastifyInstance, ctx: AppContext): void {
  app.post<{ Params: { id: number }; Body: Record<string, unknown> }>(
    '/admin/merchants/:id/balance_adjustments',
    {
      schema: {
        tags: ['admin'],
        summary: 'Credit or debit a merchant balance (in production: a request a second operator approves)',
        description: 'Production: nothing is booked; the answer is 202 with the approval request, which another operator approves or rejects in the console ' +
          '(/ops/approvals; never the operator who made this token). Staging (test money): booked at once, 201. The actor recorded is the token (token:NAME); ' +
          'a debit beyond the available balance is 514 (in production, when approved).',
        security: [{ adminToken: [] }],
        params: idParams,
        body: {
          type: 'object',
          required: ['direction', 'amount', 'currency', 'reason'],
          properties: {
            direction: { type: 'string', enum: ['credit', 'debit'] },
            amount: { type: ['string', 'number'] },
            currency: { type: 'string', pattern: '^[A-Z]{3}$' },
            reason: { type: 'string', minLength: 1, maxLength: 500 },
          },
          additionalProperties: false,
          examples: [{ direction: 'credit', amount: '250.00', currency: 'USD', reason: 'Settlement correction, ticket 4411' }],
        },
        response: {
          201: {
            type: 'object',
            description: 'The adjustment as recorded',
            properties: {
              adjustment_id: { type: 'integer' }, merchant_id: { type: 'integer' }, direction: { type: 'string', enum: ['credit', 'debit'] },
              amount: { type: 'string' }, currency: { type: 'string' }, reason: { type: 'string' }, actor: { type: 'string' },
              created_at: { type: 'string', description: 'YYYY-MM-DD HH:mm:ss (UTC)' }, transfer_id: { type: 'integer', description: 'The ledger transfer' },
            },
          },
          202: {
            type: 'object',
            description: 'Production: the request waiting for a second operator; the balance is unchanged until it is approved',
            properties: {
              approval_id: { type: 'integer' }, status: { type: 'string', enum: ['pending'] }, merchant_id: { type: 'integer' },
              direction: { type: 'string', enum: ['credit', 'debit'] }, amount: { type: 'string' }, currency: { type: 'string' }, reason: { type: 'string' },
              requested_by: { type: 'string', description: 'token:NAME' },
            },
            examples: [{ approval_id: 17, status: 'pending', merchant_id: 3, direction: 'credit', amount: '250.00', currency: 'USD', reason: 'Settlement correction, ticket 4411', requested_by: 'token:finance-bot' }],
          },
          400: v3ErrorSchema, 401: v3ErrorSchema, 404: v3ErrorSchema,
        },
      },
    },
    async (request, reply) => {
      const b = request.body;
      const currency = String(b.currency);
      const amount = parseAmount(b.amount, { maxDecimals: minorUnits(currency) });
      if (!amount.ok) throw v3Errors.validation([`amount: ${amount.reason}`]);
      if (!(await getMerchant(ctx.db, request.params.id))) throw v3Errors.notFound('Merchant not found');
      // The actor is the authenticated token, never a header.
      const by = tokenActor(request);
      const ask = { direction: b.direction as 'credit' | 'debit', amount: amount.value, currency, reason: String(b.reason).trim() };
      try {
        const done = await adjustOrRequest(ctx, by, request.params.id, ask, (r) => tokenAudit(request, 'balance.adjusted', {
          merchantId: r.merchant_id, subject: `adjustment:${r.id}`, detail: { direction: r.direction, amount: r.amount, currency: r.currency, reason: r.reason },
        }));
        if (done.status === 'pending') {
          return sendJson(reply, 202, toJson({
            approval_id: done.approval_id, status: 'pending', merchant_id: request.params.id, direction: ask.direction, amount: toFixed(amount.value, minorUnits(currency)),
            currency, reason: ask.reason, requested_by: actorName(by),
          }));
        }
        const row = done.row;
        return sendJson(reply, 201, toJson({ adjustment_id: row.id, ...row, id: undefined, created_at: formatDateTime(row.created_at) }));
      } catch (err) {
        if (err instanceof InsufficientFunds) throw v3Errors.insufficientFunds('The debit exceeds the available balance');
        throw err;
      }
    },
  );

  app.get<{ Params: { id: number } }>(
    '/admin/merchants/:id/balance',
    { schema: { tags: ['admin'], summary: 'A merchant\'s balances', security: [{ adminToken: [] }], params: idParams } },
    async (request, reply) => {
      const m = await getMerchant(ctx.db, request.params.id);
      if (!m) throw v3Errors.notFound('Merchant not found');
      const balances = await merchantBalances(ctx.db, m.id);
      return sendJson(reply, 200, toJson({
        merchant_id: m.id,
        settlement_currency: m.settlement_currency,
        balances: balances.map((x) => ({ currency: x.currency, available: x.available, reserved: x.reserved, total: add(x.available, x.reserved), fees: x.fees })),
      }));
    },
  );

  app.get<{ Querystring: { full?: boolean } }>('/admin/ledger/check', {
    schema: {
      tags: ['admin'],
      summary: 'Check the ledger\'s invariants',
      description: 'What changed since the last check that passed; `full=true` reads every row (docs/balance.md, "Checking the ledger").',
      security: [{ adminToken: [] }],
      querystring: { type: 'object', properties: { full: { type: 'boolean', description: 'Check every transfer, refund and cashout, not only what changed' } } },
    },
  }, async (request, reply) => {
    const report = await checkLedger(ctx.db, { full: request.query.full === true });
    return reply.status(report.ok ? 200 : 409).send(report);
  });
}
