// Staging controls for cashouts: POST /v3/sandbox/cashouts/{id}/deliver|complete|reject (v3
// header auth with the merchant's deposits key, as the other sandbox calls). Each makes the
// transition the bank would, through the same service call, with the same ledger movement and
// notification. Not registered in production, where these paths answer 404.
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../config/context.ts';
import { v3HeaderAuth } from '../auth/v3-headers.ts';
import { type CashoutRow, findCashout, transitionCashout } from '../../cashouts/service.ts';
import { payoutConnector } from '../../cashouts/connector.ts';
import { isRejectionCode, REJECTIONS, type RejectionCode } from '../../domain/cashout-states.ts';
import { v3Errors } from '../../http/errors.ts';
import { cashoutStatusView } from '../cashouts/routes.ts';
import { acceptAnyBody, parseDepositId } from './deposits.ts';
import { v3ErrorSchema } from './face.ts';

const ACTIONS = {
  deliver: 'The bank picks the cashout up now: PENDING to DELIVERED (no longer cancellable)',
  complete: 'The bank paid the beneficiary: DELIVERED to COMPLETED (the reservation is posted)',
  reject: 'The bank rejects it: DELIVERED to REJECTED (the reservation is voided), or COMPLETED to REJECTED when it bounces back later (the money returns to available). Optional body {"rejection_code": "800"…"809"}',
} as const;

const viewSchema = {
  type: 'object',
  properties: {
    cashout_status: { type: 'integer' }, cashout_status_description: { type: 'string' },
    cashout_id: { type: 'integer' }, external_id: { type: 'string' },
    rejection_code: { type: 'string' }, rejection_reason: { type: 'string' },
    status: { type: 'string' }, bank_reference_id: { type: 'string' },
  },
} as const;

export function registerSandboxCashouts(app: FastifyInstance, ctx: AppContext): void {
  if (!ctx.config.sandbox) return;
  for (const [action, summary] of Object.entries(ACTIONS) as [keyof typeof ACTIONS, string][]) {
    app.post<{ Params: { id: string }; Body: unknown }>(
      `/v3/sandbox/cashouts/:id/${action}`,
      {
        preValidation: v3HeaderAuth(ctx, 'deposits'),
        validatorCompiler: acceptAnyBody,
        schema: {
          tags: ['cashouts', 'sandbox'],
          summary: `Staging only. ${summary}`,
          security: [{ v3Signature: [] }],
          params: { type: 'object', properties: { id: { type: 'string' } }, required: ['id'] },
          response: { 200: viewSchema, 400: v3ErrorSchema, 401: v3ErrorSchema, 404: v3ErrorSchema, 409: v3ErrorSchema },
        },
      },
      async (request) => {
        const merchantId = request.merchant!.id;
        const id = parseDepositId(request.params.id);
        const c = id === null ? null : await findCashout(ctx.db, merchantId, { cashoutId: id });
        if (!c) throw v3Errors.notFound('Cashout not found');
        let rejection: RejectionCode | undefined;
        const body = request.body as Record<string, unknown> | undefined;
        if (action === 'reject' && body && typeof body === 'object' && body.rejection_code !== undefined) {
          const code = String(body.rejection_code);
          if (!isRejectionCode(code)) throw v3Errors.validation([`rejection_code: must be one of ${Object.keys(REJECTIONS).join(', ')}`]);
          rejection = code;
        }
        const bankReference = action === 'deliver' ? (await payoutConnector(ctx.config)!.submit({
          cashoutId: c.id, country: c.country, amount: c.local_amount, currency: c.local_currency, bankCode: c.bank_code,
          bankAccount: c.bank_account, bankBranch: c.bank_branch, accountType: c.account_type, documentId: c.document_id,
          beneficiaryName: c.beneficiary_name,
        })).bankReference : undefined;
        // A transition the status forbids (CashoutError invalid_transition) answers 409/510
        // through the v3 face's one mapping (http/errors.ts v3SharedError).
        const updated: CashoutRow = await transitionCashout(ctx, c.id, action, {
          actor: 'sandbox', cause: `sandbox ${action}`, merchantId, rejection, bankReference,
          // A sandbox delivery waits for the sandbox's answer, not the staging bank's.
          outcomeAt: action === 'deliver' ? new Date('9999-12-31T00:00:00Z') : undefined,
        });
        return { ...cashoutStatusView(updated), status: updated.status, bank_reference_id: updated.bank_reference_id ?? undefined };
      },
    );
  }
}
