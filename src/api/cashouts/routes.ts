// The cashout API (spec endpoints 13 and 14, DESIGN.md create and status): login and pass of
// the cashouts set in the JSON body, `Payload-Signature` over the raw body, errors as
// {code, message} with a non-2xx status.
//
//   POST   /v3/cashout          create → {cashout_id}
//   POST   /v3/cashout/status   by cashout_id and/or external_id → status fields
//   DELETE /v3/cashout/cancel   both ids; PENDING or ON_HOLD → CANCELLED
//   PUT    /v3/cashout/status   {cashout_id, status: PENDING | ON_HOLD}: release or hold
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../config/context.ts';
import { cashoutAuth } from '../auth/cashout-body.ts';
import { CASHOUT_STATUS_CODE, CASHOUT_STATUS_DESCRIPTION, type CashoutTrigger } from '../../domain/cashout-states.ts';
import { validateCashoutRequest } from '../../domain/cashout-request.ts';
import { cashoutErrors } from '../../http/errors.ts';
import { CashoutError, type CashoutIds, type CashoutRow, createCashout, findCashout, transitionCashout } from '../../cashouts/service.ts';
import { cashoutErrorSchema, useCashoutErrors } from './face.ts';
import { requireJsonContentType } from '../v3/face.ts';
import { readIntId } from '../../domain/ids.ts';

/** The error each service failure is, in the cashout face's table. */
export function cashoutFailure(err: unknown): never {
  if (err instanceof CashoutError) {
    switch (err.kind) {
      case 'external_id_used': throw cashoutErrors.externalIdUsed();
      case 'insufficient_funds': throw cashoutErrors.insufficientFunds();
      case 'not_found': throw cashoutErrors.notFound();
      case 'invalid_transition': throw cashoutErrors.invalidTransition(err.message);
      case 'no_rate': throw cashoutErrors.invalidParams(err.message);
      case 'rate_stale': throw cashoutErrors.rateStale(err.message);
      case 'amount': throw cashoutErrors.invalidParams(err.message);
      case 'not_served': throw cashoutErrors.invalidParams(err.message);
    }
  }
  throw err;
}

/** The status answer: what the client libraries read, plus the ids. */
export function cashoutStatusView(c: CashoutRow) {
  return {
    cashout_status: CASHOUT_STATUS_CODE[c.status],
    cashout_status_description: CASHOUT_STATUS_DESCRIPTION[c.status],
    cashout_id: c.id,
    external_id: c.external_id,
    ...(c.status === 'REJECTED' ? { rejection_code: c.rejection_code ?? undefined, rejection_reason: c.rejection_reason ?? undefined } : {}),
  };
}

/** cashout_id arrives as a number or as its digits in a string. */
function readId(v: unknown): number | undefined | null {
  if (v === undefined) return undefined;
  return readIntId(typeof v === 'string' ? v.trim() : v);
}

function readIds(body: Record<string, unknown>, need: 'either' | 'both'): CashoutIds {
  const cashoutId = readId(body.cashout_id);
  if (cashoutId === null) throw cashoutErrors.invalidParams('Invalid params: cashout_id must be a cashout id');
  const external = body.external_id;
  if (external !== undefined && (typeof external !== 'string' || external === '' || external.length > 100)) {
    throw cashoutErrors.invalidParams('Invalid params: external_id must be a string of at most 100 characters');
  }
  const externalId = external as string | undefined;
  if (need === 'both' && (cashoutId === undefined || externalId === undefined)) {
    throw cashoutErrors.invalidParams('Invalid params: cashout_id and external_id are both required');
  }
  if (cashoutId === undefined && externalId === undefined) throw cashoutErrors.invalidParams('Invalid params: cashout_id or external_id is required');
  return { cashoutId, externalId };
}

const statusSchema = {
  type: 'object',
  properties: {
    cashout_status: { type: 'integer', description: '0 Pending, 1 Completed, 2 Canceled, 3 Rejected, 4 Delivered, 5 On hold' },
    cashout_status_description: { type: 'string' },
    cashout_id: { type: 'integer' },
    external_id: { type: 'string' },
    rejection_code: { type: 'string', description: 'REJECTED only: 800–809, see docs/cashouts.md' },
    rejection_reason: { type: 'string' },
  },
  required: ['cashout_status', 'cashout_status_description'],
} as const;

const credentials = {
  login: { type: 'string', maxLength: 32, description: 'cashouts.login' },
  pass: { type: 'string', maxLength: 32, description: 'cashouts.pass' },
} as const;

const createSchema = {
  type: 'object',
  required: ['login', 'pass', 'external_id', 'country', 'amount', 'document_id', 'beneficiary_name', 'bank_account'],
  properties: {
    ...credentials,
    external_id: { type: 'string', maxLength: 100, description: 'Your id for the cashout; unique (511 when reused)' },
    country: { type: 'string', minLength: 2, maxLength: 2 },
    currency: { type: 'string', description: 'USD (default) or the country\'s currency; converted at the current rate, stored with the cashout' },
    amount: { type: ['string', 'number'], description: 'Positive, at most 2 decimals (none in zero-decimal currencies)' },
    document_id: { type: ['string', 'number'], description: 'Beneficiary document, valid for the country' },
    document_type: { type: 'string' },
    beneficiary_name: { type: 'string', maxLength: 100 },
    beneficiary_lastname: { type: 'string', maxLength: 100 },
    bank_code: { type: ['string', 'number'], description: 'A code of GET /v3/banks?country=' },
    bank_account: { type: ['string', 'number'], description: 'Account number in the country\'s format (CLABE, CBU, …), check digits verified' },
    bank_branch: { type: ['string', 'number'] },
    account_type: { type: 'string', description: 'C, S, V, O, P or SAVING, CHECKING, VISTA, MASTER, SAVING_SET, CHECKING_SET, DEFAULT' },
    email: { type: 'string' },
    phone: { type: 'string' },
    address: { type: 'string' },
    notification_url: { type: 'string', description: 'Receives the form notification of every status change' },
    on_hold: { type: ['boolean', 'string'], description: 'true: created ON_HOLD (amount reserved, not processed until released)' },
    comments: { type: 'string', maxLength: 200 },
  },
  examples: [{
    login: 'cashouts-login', pass: 'cashouts-pass', external_id: 'payout-1001', country: 'MX', currency: 'MXN', amount: '1500.00',
    document_id: 'GODE561231GR8', beneficiary_name: 'Elena', beneficiary_lastname: 'Gómez', bank_code: '12',
    bank_account: '012180001234567899', account_type: 'C', notification_url: 'https://shop.example/cashouts',
  }],
} as const;

const errors = { 400: cashoutErrorSchema, 401: cashoutErrorSchema, 404: cashoutErrorSchema };
const docs = (summary: string, description: string) => ({ tags: ['cashouts'], summary, description, security: [{ payloadSignature: [] }] });

export function registerCashouts(app: FastifyInstance, ctx: AppContext): void {
  useCashoutErrors(app);
  // Payload-Signature covers the bytes, not the Content-Type header that says how to read them:
  // the bytes are read as JSON only, so no unsigned header can make them spell other fields.
  app.addHook('preValidation', async (request) => requireJsonContentType(request));
  const auth = cashoutAuth(ctx);

  app.post<{ Body: Record<string, unknown> }>(
    '/v3/cashout',
    {
      preValidation: auth,
      // Checked by the domain validator, which reports every failing field at once.
      validatorCompiler: () => () => true,
      schema: {
        ...docs('Create a cashout', 'Reserves the amount from the available balance in the same transaction (514 when it does not cover it). PENDING cashouts are picked up by the bank after CAJA_CASHOUT_DELAY_SECONDS; with on_hold they wait as ON_HOLD.'),
        body: createSchema,
        response: { 200: { type: 'object', properties: { cashout_id: { type: 'integer' } }, required: ['cashout_id'] }, ...errors },
      },
    },
    async (request) => {
      const checked = validateCashoutRequest(request.body, ctx.config);
      if (!checked.ok) throw cashoutErrors.invalidParams(`Invalid params: ${checked.details.join('; ')}`);
      try {
        const c = await createCashout(ctx, request.merchant!, checked.value);
        return { cashout_id: c.id };
      } catch (err) {
        cashoutFailure(err);
      }
    },
  );

  app.post<{ Body: Record<string, unknown> }>(
    '/v3/cashout/status',
    {
      preValidation: auth,
      validatorCompiler: () => () => true,
      schema: {
        ...docs('A cashout\'s status', 'By cashout_id, external_id or both (both must name the same cashout); 509 when it is not one of yours.'),
        body: { type: 'object', properties: { ...credentials, cashout_id: { type: ['integer', 'string'] }, external_id: { type: 'string' } } },
        response: { 200: statusSchema, ...errors },
      },
    },
    async (request) => {
      const c = await findCashout(ctx.db, request.merchant!.id, readIds(request.body, 'either'));
      if (!c) throw cashoutErrors.notFound();
      return cashoutStatusView(c);
    },
  );

  const change = async (merchantId: number, ids: CashoutIds, trigger: CashoutTrigger) => {
    const c = await findCashout(ctx.db, merchantId, ids);
    if (!c) throw cashoutErrors.notFound();
    try {
      return cashoutStatusView(await transitionCashout(ctx, c.id, trigger, { actor: 'merchant', cause: `merchant ${trigger}`, merchantId }));
    } catch (err) {
      cashoutFailure(err);
    }
  };

  app.delete<{ Body: Record<string, unknown> }>(
    '/v3/cashout/cancel',
    {
      preValidation: auth,
      validatorCompiler: () => () => true,
      schema: {
        ...docs('Cancel a cashout', 'Both ids are required. Only PENDING and ON_HOLD cashouts can be cancelled (510 otherwise); the reserved amount returns to available.'),
        body: { type: 'object', required: ['login', 'pass', 'cashout_id', 'external_id'], properties: { ...credentials, cashout_id: { type: ['integer', 'string'] }, external_id: { type: 'string' } } },
        response: { 200: statusSchema, ...errors },
      },
    },
    async (request) => change(request.merchant!.id, readIds(request.body, 'both'), 'cancel'),
  );

  app.put<{ Body: Record<string, unknown> }>(
    '/v3/cashout/status',
    {
      preValidation: auth,
      validatorCompiler: () => () => true,
      schema: {
        ...docs('Hold or release a cashout', 'status ON_HOLD holds a PENDING cashout; status PENDING releases an ON_HOLD one (the bank\'s wait starts again). Any other transition is 510.'),
        body: {
          type: 'object',
          required: ['login', 'pass', 'cashout_id', 'status'],
          properties: { ...credentials, cashout_id: { type: ['integer', 'string'] }, status: { type: 'string', enum: ['PENDING', 'ON_HOLD'] } },
        },
        response: { 200: statusSchema, ...errors },
      },
    },
    async (request) => {
      const status = request.body.status;
      if (status !== 'PENDING' && status !== 'ON_HOLD') throw cashoutErrors.invalidParams('Invalid params: status must be PENDING or ON_HOLD');
      const ids = readIds(request.body, 'either');
      return change(request.merchant!.id, ids, status === 'ON_HOLD' ? 'hold' : 'release');
    },
  );
}
