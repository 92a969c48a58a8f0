// The Adyen connector's chargebacks: GET /admin/connectors/adyen/disputes (admin token). Its
// PUT/GET /admin/connectors/adyen and …/payments are the kind's (src/connectors/adyen/admin.ts),
// served by src/api/admin/connector-routes.ts.
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../config/context.ts';
import { ADYEN_CONNECTOR } from '../../connectors/adyen/connector.ts';
import { listDisputes } from '../../deposits/disputes.ts';

const when = { type: ['string', 'null'] } as const;

export function registerAdminAdyen(app: FastifyInstance, ctx: AppContext): void {
  // Chargebacks on Adyen payments (src/deposits/disputes.ts), with their defence deadline.
  app.get<{ Querystring: { limit?: number } }>('/admin/connectors/adyen/disputes', {
    schema: {
      tags: ['admin'], summary: 'Chargebacks on Adyen card payments, newest first: status notified | charged | reversed, the return that took the money, defence deadline', security: [{ adminToken: [] }],
      querystring: { type: 'object', properties: { limit: { type: 'integer', minimum: 1, maximum: 500, default: 100 } } },
      response: {
        200: {
          type: 'object', required: ['disputes'],
          properties: {
            disputes: {
              type: 'array',
              items: {
                type: 'object',
                properties: {
                  id: { type: 'integer' }, deposit_id: { type: 'integer' }, payment_reference: { type: 'string' },
                  status: { type: 'string', enum: ['notified', 'charged', 'reversed'] }, reason: when, reason_code: when,
                  disputed_amount: { type: 'string' }, disputed_currency: { type: 'string' },
                  return_id: { type: ['integer', 'null'], description: 'The bank-initiated return (kind chargeback) that took the money, while charged or reversed' },
                  debit: { ...when, description: 'What the return took from the merchant, in debit_currency' }, debit_currency: when,
                  deadline_at: { ...when, description: 'Until when the chargeback may be defended (in the Customer Area)' }, updated_at: { type: 'string' },
                },
              },
            },
          },
        },
      },
    },
  }, async (request) => ({
    disputes: (await listDisputes(ctx.db, ADYEN_CONNECTOR, request.query.limit ?? 100)).map((d) => ({
      id: d.id, deposit_id: d.deposit_id, payment_reference: d.payment_reference, status: d.status, reason: d.reason, reason_code: d.reason_code,
      disputed_amount: d.disputed_amount, disputed_currency: d.disputed_currency, return_id: d.return_id, debit: d.debit, debit_currency: d.debit_currency,
      deadline_at: d.deadline_at?.toISOString() ?? null, updated_at: d.updated_at.toISOString(),
    })),
  }));
}
