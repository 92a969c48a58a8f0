// GET/PUT /admin/merchants/{id}/fees: a merchant's own fee and surcharge percentages per method
// type (src/merchants/fees.ts); the rule that checks them is src/domain/fees.ts validateFeeOverrides.
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../config/context.ts';
import { PAYMENT_TYPES } from '../../domain/catalog.ts';
import { validateFeeOverrides } from '../../domain/fees.ts';
import { INT_ID_SCHEMA } from '../../domain/ids.ts';
import { v3Errors } from '../../http/errors.ts';
import { merchantFeesView, setMerchantFees } from '../../merchants/fees.ts';
import { getMerchant } from '../../merchants/merchants.ts';
import { v3ErrorSchema } from '../v3/face.ts';
import { tokenAudit } from './auth.ts';

const idParams = { type: 'object', properties: { id: INT_ID_SCHEMA }, required: ['id'] } as const;
const errors = { 400: v3ErrorSchema, 401: v3ErrorSchema, 404: v3ErrorSchema };
const percents = (description: string) => ({
  type: 'object', description,
  properties: Object.fromEntries(PAYMENT_TYPES.map((t) => [t, { type: 'string', example: '1.5' }])),
});
const percentsIn = (description: string) => ({
  type: 'object', description,
  properties: Object.fromEntries(PAYMENT_TYPES.map((t) => [t, { type: ['string', 'number', 'null'], description: 'Percent of the amount, 0 to less than 100, at most 4 decimals; "" or null: the global schedule\'s' }])),
});

const feesSchema = {
  type: 'object',
  properties: {
    merchant_id: { type: 'integer' },
    fee: percents('Fee percent in effect per method type'),
    surcharge: percents('Surcharge percent in effect per method type ("0": none)'),
    chargeback: { type: 'string', example: '15.00', description: 'The chargeback fee in effect, USD: taken with each chargeback of a card deposit (converted to the settlement currency as the deposit was), not given back when the chargeback is reversed' },
    overrides: {
      type: 'object', description: 'What the merchant has of its own; {}: the global schedule throughout',
      properties: { fee: percents('Fee overrides'), surcharge: percents('Surcharge overrides'), chargeback: { type: 'string', description: 'Chargeback fee override, USD' } },
    },
    updated_at: { type: 'string', format: 'date-time' },
  },
} as const;

export function registerAdminMerchantFees(app: FastifyInstance, ctx: AppContext): void {
  app.get<{ Params: { id: number } }>(
    '/admin/merchants/:id/fees',
    { schema: { tags: ['admin'], summary: "A merchant's fee and surcharge percentages per method type (its own, or the global schedule's)", security: [{ adminToken: [] }], params: idParams, response: { 200: feesSchema, ...errors } } },
    async (request) => {
      const m = await getMerchant(ctx.db, request.params.id);
      if (!m) throw v3Errors.notFound('Merchant not found');
      return merchantFeesView(m);
    },
  );

  app.put<{ Params: { id: number }; Body: unknown }>(
    '/admin/merchants/:id/fees',
    {
      schema: {
        tags: ['admin'],
        summary: "Set a merchant's own fee and surcharge percentages and chargeback fee: {fee: {TYPE: percent}, surcharge: {TYPE: percent}, chargeback: \"USD\"}",
        description:
          'Replaces the overrides: a type (or the chargeback fee) left out follows the global schedule, `{}` goes back to it throughout. Deposits created from now on are charged by it (their chargebacks too); ' +
          'existing deposits keep the schedule they were created under (a method chosen later on the hosted page included). Audited.',
        security: [{ adminToken: [] }],
        params: idParams,
        body: {
          type: 'object',
          properties: {
            fee: percentsIn('Fee percent per method type'), surcharge: percentsIn('Surcharge percent per method type'),
            chargeback: { type: ['string', 'number', 'null'], description: 'Chargeback fee in USD, 0 to less than 1000000, at most 2 decimals; "" or null: the global price (15.00)' },
          },
        },
        response: { 200: feesSchema, ...errors },
      },
    },
    async (request) => {
      const v = validateFeeOverrides(request.body);
      if (!v.ok) throw v3Errors.validation(v.details, 'Invalid fee schedule');
      const id = request.params.id;
      const m = await setMerchantFees(ctx.db, id, v.value, (before) =>
        tokenAudit(request, 'merchant.fees', { merchantId: id, subject: `merchant:${id}`, detail: { before, after: v.value }, at: ctx.now() }), ctx.cache);
      if (!m) throw v3Errors.notFound('Merchant not found');
      return merchantFeesView(m);
    },
  );
}
