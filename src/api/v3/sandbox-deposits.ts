// Staging controls: POST /v3/sandbox/deposits/{id}/approve|cancel|expire (v3 header auth with the
// merchant's deposits key). Each makes the transition a real outcome would, through the same
// service call, with the same history, ledger and notifications. Not registered in production,
// where these paths answer 404 like any unknown route.
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../config/context.ts';
import { v3HeaderAuth } from '../auth/v3-headers.ts';
import { depositNotFound } from '../../deposits/service.ts';
import { runSandboxAction } from '../../deposits/sandbox.ts';
import { statusResponse } from '../../deposits/views.ts';
import { acceptAnyBody, depositStatusSchema, parseDepositId, sendJson } from './deposits.ts';
import { v3ErrorSchema } from './face.ts';

const ACTIONS = {
  approve: 'The customer paid: PENDING to COMPLETED (crypto: PENDING to APPROVED, then APPROVED to COMPLETED); a HOSTED deposit whose customer has not chosen a method needs {"payment_method": "<code>"} (else 409/510)',
  cancel: 'The deposit is cancelled before payment: PENDING to CANCELLED',
  expire: 'The customer did not pay in time: PENDING to CANCELLED, as the expiry worker does',
} as const;

export function registerSandboxDeposits(app: FastifyInstance, ctx: AppContext): void {
  if (!ctx.config.sandbox) return;
  for (const [action, summary] of Object.entries(ACTIONS) as [keyof typeof ACTIONS, string][]) {
    app.post<{ Params: { id: string } }>(
      `/v3/sandbox/deposits/:id/${action}`,
      {
        preValidation: v3HeaderAuth(ctx, 'deposits'),
        validatorCompiler: acceptAnyBody,
        schema: {
          tags: ['deposits', 'sandbox'],
          summary: `Staging only. ${summary}`,
          security: [{ v3Signature: [] }],
          params: { type: 'object', properties: { id: { type: 'string' } }, required: ['id'] },
          response: { 200: depositStatusSchema, 400: v3ErrorSchema, 401: v3ErrorSchema, 404: v3ErrorSchema, 409: v3ErrorSchema },
        },
      },
      async (request, reply) => {
        const merchantId = request.merchant!.id;
        const id = parseDepositId(request.params.id);
        if (id === null) throw depositNotFound();
        // approve may name the method of a HOSTED deposit whose customer never chose one.
        const body = request.body as { payment_method?: unknown } | undefined;
        const named = action === 'approve' && typeof body?.payment_method === 'string' ? body.payment_method : undefined;
        const updated = await runSandboxAction(ctx, { id, merchant_id: merchantId }, action, 'sandbox', named);
        return sendJson(reply, 200, statusResponse(updated));
      },
    );
  }
}
