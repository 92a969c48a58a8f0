// v3 refunds: create (POST /v3/refunds), read (GET /v3/refunds/{id}), and the staging sandbox
// outcomes of a pending refund.
import type { FastifyInstance, FastifyReply } from 'fastify';
import type { AppContext } from '../../config/context.ts';
import { v3HeaderAuth } from '../auth/v3-headers.ts';
import { ACCOUNT_TYPE_MESSAGE, normalizeAccountType } from '../../domain/bank-accounts.ts';
import { findMethod } from '../../domain/catalog.ts';
import { fromDb, parseAmount, type Decimal } from '../../domain/money.ts';
import { toJson } from '../../deposits/json.ts';
import { cardRefundResult } from '../../domain/refund-rules.ts';
import { checkCallbackUrl } from '../../domain/urls.ts';
import { v3Errors } from '../../http/errors.ts';
import { formatDateTime } from '../../domain/payment-info.ts';
import { createRefund, getRefund, RefundError, type RefundBankAccount, type RefundRow, transitionRefund } from '../../refunds/service.ts';
import { requireJsonContentType, v3ErrorSchema } from './face.ts';
import { idempotencyKey } from './deposits.ts';
import { fingerprint } from '../../deposits/service.ts';
import { INT_ID_SCHEMA, readIntId } from '../../domain/ids.ts';

const bankAccountSchema = {
  type: 'object',
  properties: {
    beneficiary: { type: 'string', maxLength: 255 },
    document: { type: 'string', maxLength: 30 },
    document_type: { type: 'string', maxLength: 10 },
    bank_code: { type: ['string', 'integer'], maxLength: 10 },
    branch: { type: ['string', 'integer'], maxLength: 45 },
    account_number: { type: ['string', 'integer'], maxLength: 45 },
    // Checked by the handler so that it is reported with every other failing field.
    account_type: { type: 'string', description: 'SAVING, CHECKING, VISTA, MASTER, SAVING_SET, CHECKING_SET, DEFAULT (or C, S, V, O, P)' },
  },
} as const;

const refundBodySchema = {
  type: 'object',
  properties: {
    deposit_id: { type: ['integer', 'string'], description: 'Id of a completed deposit' },
    invoice_id: { type: 'string', maxLength: 128 },
    amount: { type: ['string', 'number'], description: 'Partial refund in the deposit currency; absent = full refund' },
    bank_account: bankAccountSchema,
    comments: { type: 'string', maxLength: 200 },
    notification_url: { type: 'string', maxLength: 2048 },
  },
} as const;

const refundResponseSchema = {
  type: 'object',
  properties: {
    refund_id: { type: ['integer', 'string'] },
    deposit_id: { type: 'integer' },
    merchant_invoice_id: { type: 'string' },
    refund_info: {
      type: 'object',
      properties: {
        type: { type: 'string' },
        result: { type: 'string' },
        reason: { type: 'string' },
        reason_code: { type: 'string' },
        payment_method: { type: 'string' },
        payment_method_name: { type: 'string' },
        amount: { type: 'number' },
        currency: { type: 'string' },
        created_at: { type: 'string' },
      },
    },
  },
} as const;

const refundStatusSchema = {
  type: 'object',
  properties: {
    refund_id: { type: 'integer' },
    deposit_id: { type: 'integer' },
    merchant_invoice_id: { type: 'string' },
    status: { type: 'string', enum: ['PENDING', 'COMPLETED', 'REJECTED', 'CANCELLED'] },
    amount: { type: 'number' },
    currency: { type: 'string' },
    local_amount: { type: 'number' },
    local_currency: { type: 'string' },
    reason: { type: 'string' },
    reason_code: { type: 'string' },
    comments: { type: 'string' },
    created_at: { type: 'string' },
    updated_at: { type: 'string' },
  },
} as const;

const errors = { 400: v3ErrorSchema, 401: v3ErrorSchema, 404: v3ErrorSchema };

/** Written with toJson, so an amount goes out as a JSON number with exactly its digits (18 + 2). */
function sendExact(reply: FastifyReply, view: unknown) {
  return reply.type('application/json; charset=utf-8').send(toJson(view));
}

function cardView(r: RefundRow, methodName: string) {
  return {
    refund_id: String(r.id),
    deposit_id: r.deposit_id,
    merchant_invoice_id: r.invoice_id,
    refund_info: {
      type: r.payment_type ?? 'CREDIT_CARD',
      result: cardRefundResult(r.status),
      ...(r.status !== 'COMPLETED' && r.reason ? { reason: r.reason } : r.status === 'PENDING' ? { reason: 'The card network is processing the refund' } : {}),
      ...(r.reason_code ? { reason_code: r.reason_code } : {}),
      payment_method: r.payment_method ?? '',
      payment_method_name: methodName,
      amount: fromDb(r.amount),
      currency: r.currency,
      created_at: formatDateTime(r.created_at),
    },
  };
}

export function refundStatusView(r: RefundRow) {
  return {
    refund_id: r.id,
    deposit_id: r.deposit_id,
    merchant_invoice_id: r.invoice_id,
    status: r.status,
    amount: fromDb(r.amount),
    currency: r.currency,
    local_amount: fromDb(r.local_amount),
    local_currency: r.local_currency,
    ...(r.reason ? { reason: r.reason } : {}),
    ...(r.reason_code ? { reason_code: r.reason_code } : {}),
    ...(r.comments ? { comments: r.comments } : {}),
    created_at: formatDateTime(r.created_at),
    updated_at: formatDateTime(r.updated_at),
  };
}

export function v3RefundError(err: unknown): never {
  if (err instanceof RefundError) {
    if (err.kind === 'not_found') throw v3Errors.notFound('deposit_id or invoice_id does not belong to a deposit');
    if (err.kind === 'missing_bank_account') throw v3Errors.missingBankAccount();
    if (err.kind === 'amount') throw v3Errors.invalidAmountToRefund(err.message);
    if (err.kind === 'insufficient_funds') throw v3Errors.insufficientFunds(err.message);
    if (err.kind === 'idempotency_key_used') throw v3Errors.idempotencyKeyUsed();
    if (err.kind === 'no_card_connector' || err.kind === 'no_refund_route') throw v3Errors.featureDisabled(err.message);
    if (err.kind === 'bank_account') throw v3Errors.validation(err.fields.map((f) => `bank_account.${f.field}: ${f.reason}`));
    throw v3Errors.validation([`deposit_id: ${err.message}`]);
  }
  throw err;
}

export function registerV3Refunds(app: FastifyInstance, ctx: AppContext): void {
  const auth = v3HeaderAuth(ctx, 'deposits');

  app.post<{ Body: Record<string, any> }>(
    '/v3/refunds',
    {
      // A refund moves money: a signature already accepted is a replay, whatever else changed.
      config: { replayRule: 'signature' },
      // An empty or non-object body is 502 INVALID_REQUEST_BODY, as for deposits, not a schema 201.
      preValidation: [
        auth,
        async (request) => {
          requireJsonContentType(request);
          const b: unknown = request.body;
          if (b === undefined) throw v3Errors.invalidBody('Request body is empty');
          if (typeof b !== 'object' || b === null || Array.isArray(b)) throw v3Errors.invalidBody('Request body must be a JSON object');
        },
      ],
      schema: {
        tags: ['refunds'],
        summary: 'Refund a completed deposit, fully or partly',
        description: 'Without `amount`, refunds what remains of the deposit (a full refund, or the rest after partial ones); nothing left is 802. A request whose signature (the Authorization value, SVC, D24 or SVC2, either hex case) was already accepted for this merchant within the X-Date window is a replay, whatever its path spelling, query or X-Idempotency-Key: it answers the first response with `Idempotent-Replayed: true` and moves no money. Optional header X-Idempotency-Key (also read as X-Idempontency-Key) adds protection across signatures: the same key with the same body replays the first response with `Idempotent-Replayed: true`; with another body, error 104. Error 514 INSUFFICIENT_FUNDS when the available balance does not cover the refund\'s share of the deposit credit. Error 106 FEATURE_NOT_ENABLED (HTTP 403) when no provider can make the refund (production: a card refund without a card connector, a deposit collected into the operator\'s own account, a payment the provider cannot send back); nothing is created or reserved.',
        security: [{ v3Signature: [] }],
        body: refundBodySchema,
        response: { 200: refundResponseSchema, ...errors, 403: v3ErrorSchema },
      },
    },
    async (request, reply) => {
      const b = request.body;
      const details: string[] = [];
      let depositId: number | undefined;
      if (b.deposit_id !== undefined) {
        const n = readIntId(b.deposit_id);
        if (n === null) details.push('deposit_id: must be a deposit id');
        else depositId = n;
      }
      const invoiceId: string | undefined = b.invoice_id;
      if (depositId === undefined && invoiceId === undefined && !details.length) details.push('deposit_id: deposit_id or invoice_id is required');
      let amount: Decimal | undefined;
      if (b.amount !== undefined) {
        const parsed = parseAmount(b.amount);
        if (!parsed.ok) details.push(`amount: ${parsed.reason}`);
        else amount = parsed.value;
      }
      if (b.notification_url !== undefined) {
        const reason = checkCallbackUrl(b.notification_url, ctx.config);
        if (reason) details.push(`notification_url: ${reason}`);
      }
      let bankAccount: RefundBankAccount | undefined;
      if (b.bank_account !== undefined) {
        const a = b.bank_account;
        const accountType = a.account_type === undefined ? null : normalizeAccountType(String(a.account_type));
        bankAccount = {
          beneficiary: a.beneficiary,
          document: a.document,
          document_type: a.document_type,
          bank_code: a.bank_code === undefined ? undefined : String(a.bank_code),
          branch: a.branch === undefined ? undefined : String(a.branch),
          account_number: a.account_number === undefined ? undefined : String(a.account_number),
          account_type: accountType ?? undefined,
        };
        if (a.account_type !== undefined && !accountType) {
          details.push(`bank_account.account_type: ${ACCOUNT_TYPE_MESSAGE}`);
        }
        if (!a.beneficiary) details.push('bank_account.beneficiary: is required');
        if (!a.account_number) details.push('bank_account.account_number: is required');
        if (!a.bank_code) details.push('bank_account.bank_code: is required');
      }
      // The document and the account are checked against the deposit's country by the refunds
      // service (RefundError 'bank_account', rendered below as 201 details).
      if (details.length) throw v3Errors.validation(details);
      const key = idempotencyKey(request.headers);
      let refund: RefundRow;
      try {
        let replayed: boolean;
        ({ refund, replayed } = await createRefund(ctx, request.merchant!.id, {
          source: 'v3',
          depositId,
          invoiceId,
          amount,
          amountInLocal: false,
          bankAccount,
          comments: b.comments,
          notificationUrl: b.notification_url,
          idempotency: key ? { key, fingerprint: fingerprint(request.rawBody ?? '') } : undefined,
        }));
        if (replayed) reply.header('Idempotent-Replayed', 'true');
      } catch (err) {
        v3RefundError(err);
      }
      if (!refund.card) return { refund_id: refund.id };
      return sendExact(reply, cardView(refund, findMethod(refund.country, refund.payment_method ?? '')?.name ?? ''));
    },
  );

  app.get<{ Params: { id: number } }>(
    '/v3/refunds/:id',
    {
      preValidation: auth,
      schema: {
        tags: ['refunds'],
        summary: 'A refund and its status',
        security: [{ v3Signature: [] }],
        params: { type: 'object', properties: { id: INT_ID_SCHEMA } },
        response: { 200: refundStatusSchema, ...errors },
      },
    },
    async (request, reply) => {
      const r = await getRefund(ctx.db, request.merchant!.id, request.params.id);
      if (!r) throw v3Errors.notFound('Refund not found');
      return sendExact(reply, refundStatusView(r));
    },
  );

  for (const action of ['complete', 'reject'] as const) {
    app.post<{ Params: { id: number } }>(
      `/v3/sandbox/refunds/:id/${action}`,
      {
        preValidation: auth,
        schema: {
          tags: ['sandbox'],
          summary: `Staging only: the bank ${action === 'complete' ? 'completes' : 'rejects'} a pending refund`,
          security: [{ v3Signature: [] }],
          params: { type: 'object', properties: { id: INT_ID_SCHEMA } },
          response: { 200: refundStatusSchema, ...errors, 409: v3ErrorSchema },
        },
      },
      async (request, reply) => {
        if (!ctx.config.sandbox) throw v3Errors.notFound('Route not found');
        // A status that does not allow it (RefundTransitionError) answers 409/510 through the v3
        // face's one mapping (http/errors.ts v3SharedError), as for deposits and cashouts.
        const r = await transitionRefund(
          ctx,
          request.merchant!.id,
          request.params.id,
          action === 'complete' ? 'COMPLETED' : 'REJECTED',
          `sandbox ${action}`,
          action === 'reject' ? 'The beneficiary bank rejected the refund (sandbox)' : undefined,
          action === 'reject' ? 'SANDBOX_REJECTED' : undefined,
        );
        if (!r) throw v3Errors.notFound('Refund not found');
        return sendExact(reply, refundStatusView(r));
      },
    );
  }
}
