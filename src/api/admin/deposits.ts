// Operator API for deposits (admin bearer token):
//   GET  /admin/deposits/{id}            any merchant's deposit with its status history
//   POST /admin/deposits/{id}/complete   late payment: CANCELLED (or PENDING/APPROVED) to COMPLETED
//   GET  /admin/limits, PUT /admin/limits   customer limits (USD), see docs/deposits.md
//   GET  /admin/returns                  bank-initiated returns (MED, SPEI returns, chargebacks) with
//                                        their reasons; status=unmatched: those caja could not match
//                                        to a deposit (the operator's exceptions)
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../config/context.ts';
import { formatDateTime } from '../../domain/payment-info.ts';
import { v3Errors } from '../../http/errors.ts';
import { listLimits } from '../../deposits/limits.ts';
import { parseLimitInput } from '../../domain/limit-input.ts';
import { depositNotFound, transitionDeposit } from '../../deposits/service.ts';
import { findDeposit, statusHistory } from '../../deposits/store.ts';
import { toJson } from '../../deposits/json.ts';
import { statusView } from '../../deposits/views.ts';
import { disputesShown } from '../../deposits/disputes.ts';
import { listReturns, type DepositReturnRow } from '../../deposits/returns.ts';
import { acceptAnyBody, depositStatusSchema, parseDepositId, sendJson } from '../v3/deposits.ts';
import { v3ErrorSchema } from '../v3/face.ts';
import { setMerchantLimit } from '../../operators/limits.ts';
import { tokenActor, tokenAudit } from './auth.ts';

const errors = { 400: v3ErrorSchema, 401: v3ErrorSchema, 404: v3ErrorSchema, 409: v3ErrorSchema };
const idParams = { type: 'object', properties: { id: { type: 'string' } }, required: ['id'] } as const;

const limitSchema = {
  type: 'object',
  properties: {
    merchant_id: { type: 'integer', nullable: true, description: 'null: every merchant' },
    country: { type: 'string', description: "Country code, or '*' for every country" },
    payment_method: { type: 'string', description: "Method code, or '*' for every method" },
    currency: { type: 'string', enum: ['USD'] },
    per_transaction: { type: 'string', nullable: true },
    daily: { type: 'string', nullable: true },
    monthly: { type: 'string', nullable: true },
  },
} as const;

const historySchema = {
  type: 'array',
  items: {
    type: 'object',
    properties: {
      from_status: { type: 'string', nullable: true },
      to_status: { type: 'string' },
      cause: { type: 'string' },
      actor: { type: 'string' },
      note: { type: 'string', nullable: true },
      at: { type: 'string' },
    },
  },
} as const;

async function adminView(ctx: AppContext, id: number) {
  const d = await findDeposit(ctx.db, id);
  if (!d) throw depositNotFound();
  const history = await statusHistory(ctx.db, id, d.created_at);
  return toJson({
    ...statusView(d, await disputesShown(ctx.db, d)),
    merchant_id: d.merchant_id,
    source: d.source,
    history: history.map((h) => ({ from_status: h.from_status, to_status: h.to_status, cause: h.cause, actor: h.actor, note: h.note, at: formatDateTime(h.created_at) })),
  });
}

const nullableString = { type: 'string', nullable: true } as const;
const returnSchema = {
  type: 'object',
  properties: {
    id: { type: 'integer' }, merchant_id: { type: 'integer', nullable: true }, deposit_id: { type: 'integer', nullable: true },
    provider: { type: 'string' }, provider_return_id: { type: 'string' }, payment_id: nullableString,
    kind: { type: 'string', enum: ['med', 'spei_return', 'chargeback'] }, reason: { type: 'string' }, description: nullableString,
    amount: { type: 'string' }, currency: { type: 'string' }, fee: nullableString, debit: nullableString, debit_currency: nullableString,
    status: { type: 'string', enum: ['applied', 'reversed', 'unmatched'] }, deadline_at: nullableString, returned_at: nullableString,
    seen_via: { type: 'string' }, created_at: { type: 'string' }, reversed_at: nullableString, reversed_reason: nullableString,
  },
} as const;

const RETURN_STATUSES = ['applied', 'reversed', 'unmatched'] as const;

function returnView(r: DepositReturnRow) {
  const iso = (t: Date | null) => (t ? t.toISOString() : null);
  return { ...r, deadline_at: iso(r.deadline_at), returned_at: iso(r.returned_at), created_at: r.created_at.toISOString(), reversed_at: iso(r.reversed_at) };
}

export function registerAdminDeposits(app: FastifyInstance, ctx: AppContext): void {
  app.get<{ Querystring: Record<string, string | undefined> }>(
    '/admin/returns',
    {
      schema: {
        tags: ['admin', 'deposits'],
        summary: 'Bank-initiated returns (Pix MED devoluções, SPEI returns, chargebacks), newest first, with their reasons',
        description: 'status=unmatched lists the returns caja could not match to a completed deposit: money the provider took back that no merchant balance gave, for the operator to resolve. merchant_id narrows to one merchant; limit (1-500, default 100).',
        security: [{ adminToken: [] }],
        querystring: { type: 'object', properties: { status: { type: 'string' }, merchant_id: { type: 'string' }, limit: { type: 'string' } } },
        response: { 200: { type: 'object', properties: { data: { type: 'array', items: returnSchema } } }, ...errors },
      },
    },
    async (request) => {
      const q = request.query;
      const bad: string[] = [];
      if (q.status !== undefined && !(RETURN_STATUSES as readonly string[]).includes(q.status)) bad.push(`status: one of ${RETURN_STATUSES.join(', ')}`);
      const merchantId = q.merchant_id === undefined ? undefined : /^[1-9]\d{0,8}$/.test(q.merchant_id) ? Number(q.merchant_id) : NaN;
      if (Number.isNaN(merchantId)) bad.push('merchant_id: a merchant id');
      const limit = q.limit === undefined ? 100 : /^[1-9]\d{0,2}$/.test(q.limit) && Number(q.limit) <= 500 ? Number(q.limit) : NaN;
      if (Number.isNaN(limit)) bad.push('limit: 1 to 500');
      if (bad.length) throw v3Errors.validation(bad);
      const rows = await listReturns(ctx.db, { status: q.status as (typeof RETURN_STATUSES)[number] | undefined, merchantId, limit });
      return { data: rows.map(returnView) };
    },
  );

  app.get<{ Params: { id: string } }>(
    '/admin/deposits/:id',
    {
      schema: {
        tags: ['admin', 'deposits'],
        summary: 'A deposit of any merchant, with its status history',
        security: [{ adminToken: [] }],
        params: idParams,
        response: { 200: { ...depositStatusSchema, properties: { ...depositStatusSchema.properties, merchant_id: { type: 'integer' }, source: { type: 'string' }, history: historySchema } }, ...errors },
      },
    },
    async (request, reply) => {
      const id = parseDepositId(request.params.id);
      if (id === null) throw depositNotFound();
      return sendJson(reply, 200, await adminView(ctx, id));
    },
  );

  app.post<{ Params: { id: string } }>(
    '/admin/deposits/:id/complete',
    {
      validatorCompiler: acceptAnyBody,
      schema: {
        tags: ['admin', 'deposits'],
        summary: 'Complete a deposit the customer paid late or with a wrong amount (CANCELLED to COMPLETED, the only exit from a final state)',
        security: [{ adminToken: [] }],
        params: idParams,
        body: { type: 'object', properties: { note: { type: 'string', maxLength: 500 } } },
        response: { 200: depositStatusSchema, ...errors },
      },
    },
    async (request, reply) => {
      const id = parseDepositId(request.params.id);
      if (id === null) throw depositNotFound();
      const body = (request.body ?? {}) as Record<string, unknown>;
      if (typeof body !== 'object' || Array.isArray(body)) throw v3Errors.invalidBody('Request body must be a JSON object');
      if (body.note !== undefined && (typeof body.note !== 'string' || body.note.length > 500)) {
        throw v3Errors.validation(['note: must be a string of at most 500 characters']);
      }
      const d = await transitionDeposit(ctx, id, 'COMPLETED', 'late_payment', {
        actor: 'operator', note: body.note as string | undefined,
        audit: (dep) => tokenAudit(request, 'deposit.completed', { merchantId: dep.merchant_id, subject: `deposit:${dep.id}`, detail: { cause: 'late_payment', note: body.note ?? null } }),
      });
      return sendJson(reply, 200, toJson(statusView(d)));
    },
  );

  app.get(
    '/admin/limits',
    {
      schema: {
        tags: ['admin', 'deposits'],
        summary: 'Customer limits in force (USD)',
        security: [{ adminToken: [] }],
        response: { 200: { type: 'array', items: limitSchema }, 401: v3ErrorSchema },
      },
    },
    async () => listLimits(ctx.db),
  );

  app.put(
    '/admin/limits',
    {
      validatorCompiler: acceptAnyBody,
      schema: {
        tags: ['admin', 'deposits'],
        summary: 'Set the customer limits (USD) of a merchant/country/method; all three null or absent removes the rule',
        security: [{ adminToken: [] }],
        body: {
          type: 'object',
          properties: {
            merchant_id: { type: 'integer', description: 'Absent: every merchant' },
            country: { type: 'string', description: "Absent or '*': every country" },
            payment_method: { type: 'string', description: "Absent or '*': every method" },
            per_transaction: { anyOf: [{ type: 'string' }, { type: 'number' }] },
            daily: { anyOf: [{ type: 'string' }, { type: 'number' }] },
            monthly: { anyOf: [{ type: 'string' }, { type: 'number' }] },
          },
        },
        response: { 200: { ...limitSchema, nullable: true }, ...errors },
      },
    },
    async (request, reply) => {
      const body = request.body;
      if (typeof body !== 'object' || body === null || Array.isArray(body)) throw v3Errors.invalidBody('Request body must be a JSON object');
      const b = body as Record<string, unknown>;
      const input = parseLimitInput(b);
      if (!input.ok) throw v3Errors.validation(input.details);
      const { merchantId } = input.value;
      if (merchantId) {
        const { rows } = await ctx.db.query('SELECT 1 FROM merchants WHERE id = $1', [merchantId]);
        if (rows.length === 0) throw v3Errors.notFound('Merchant not found');
      }
      // Stored and audited together; in force at once in this process.
      const saved = await setMerchantLimit(ctx, input.value, tokenActor(request));
      return reply.status(200).send(saved);
    },
  );
}
