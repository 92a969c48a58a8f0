// POST /v3/deposits and GET /v3/deposits/{id} (v3 header auth, deposits key).
//
// The body is validated by the deposit domain validator rather than Ajv: it reports every failing
// field at once and reads amounts exactly whether they arrive as strings or JSON numbers. The
// schema below still describes every field for the OpenAPI document.
import type { FastifyInstance, FastifyReply } from 'fastify';
import type { AppContext } from '../../config/context.ts';
import { v3HeaderAuth } from '../auth/v3-headers.ts';
import { v3Errors } from '../../http/errors.ts';
import { createDeposit, depositNotFound, fingerprint, getDepositStatus, prepareDepositRequest } from '../../deposits/service.ts';
import { creationResponse, statusResponse } from '../../deposits/views.ts';
import { disputesShown } from '../../deposits/disputes.ts';
import { findMethod } from '../../domain/catalog.ts';
import { readCryptoChoice } from '../../domain/crypto.ts';
import { requireJsonContentType, v3ErrorSchema } from './face.ts';
import { parseId } from '../../domain/ids.ts';

const decimal = { anyOf: [{ type: 'string' }, { type: 'number' }], description: 'Decimal with up to 18 integer digits and 2 decimals, as a string or a JSON number' };
const httpsUrl = { type: 'string', maxLength: 2048, format: 'uri' };

export const payerSchema = {
  type: 'object',
  properties: {
    id: { type: 'string', maxLength: 128, description: "The customer's id on the merchant side; generated when absent" },
    document: { type: 'string', maxLength: 30, description: 'Validated with its check digits for the country' },
    document_type: { type: 'string', maxLength: 10, description: 'Detected from the document when absent' },
    first_name: { type: 'string', maxLength: 100 },
    last_name: { type: 'string', maxLength: 100 },
    email: { type: 'string', maxLength: 100 },
    phone: { type: 'string', description: 'International format with a leading +' },
    address: {
      type: 'object',
      properties: {
        street: { type: 'string', maxLength: 255 },
        city: { type: 'string', maxLength: 100 },
        state: { type: 'string', description: 'State code or name of the country' },
        zip_code: { type: 'string', description: "In the country's postal-code format" },
      },
    },
  },
} as const;

const depositBodySchema = {
  type: 'object',
  required: ['country', 'amount'],
  properties: {
    country: { type: 'string', minLength: 2, maxLength: 2, description: 'AR, BR, CL, CM, CN, CO, EC, GH, IN, ID, KE, MY, MX, NG, PA, PE, PH, PY, TH, TZ, UG, UY, VN, ZA' },
    amount: decimal,
    currency: { type: 'string', minLength: 3, maxLength: 3, default: 'USD', description: 'ISO 4217' },
    invoice_id: { type: 'string', maxLength: 128, pattern: '^[A-Za-z0-9-_]*$', description: 'Unique per merchant; generated when absent' },
    request_payer_data_on_validation_failure: { type: 'boolean', default: false },
    payer: payerSchema,
    payment_method: { type: 'string', maxLength: 3 },
    payment_type: { type: 'string', description: 'ALL, BANK_TRANSFER, BANK_DEPOSIT, VOUCHER, CREDIT_CARD, DEBIT_CARD, WALLET or CRYPTO' },
    payment_types: { type: 'array', items: { type: 'string' } },
    reported_info: { type: 'object', additionalProperties: true },
    bank_account: { type: 'object', additionalProperties: true },
    crypto: {
      type: 'object',
      additionalProperties: true,
      description: 'Crypto methods: the coin and network the customer pays with; the address is given by caja',
      properties: {
        currency: { type: 'string', enum: ['USDT', 'BTC'], default: 'USDT' },
        network: { type: 'string', description: 'USDT: TRON (default, also TRC20) or ETHEREUM (ERC20); BTC: BITCOIN' },
      },
    },
    fee_on_payer: { type: 'boolean', default: false },
    surcharge_on_payer: { type: 'boolean', default: true },
    bonus_amount: decimal,
    bonus_relative: { type: 'boolean', default: false },
    strikethrough_price: decimal,
    description: { type: 'string', maxLength: 100 },
    client_ip: { type: 'string', description: 'IPv4 or IPv6 address' },
    device_id: { type: 'string', maxLength: 100 },
    language: { type: 'string', enum: ['es', 'en', 'pt'] },
    back_url: httpsUrl,
    success_url: httpsUrl,
    error_url: httpsUrl,
    notification_url: httpsUrl,
    logo: httpsUrl,
    test: { type: 'boolean', default: false },
    mobile: { type: 'boolean', default: false },
    early_release: { type: 'boolean', default: false },
  },
} as const;

const metadataSchema = { type: 'object', additionalProperties: { type: 'string' } } as const;

const creationSchema = {
  type: 'object',
  properties: {
    checkout_type: { type: 'string', enum: ['HOSTED', 'ONE_SHOT'] },
    redirect_url: { type: 'string' },
    iframe: { type: 'boolean' },
    deposit_id: { type: 'integer' },
    user_id: { type: 'string' },
    merchant_invoice_id: { type: 'string' },
    payment_info: {
      type: 'object',
      properties: {
        type: { type: 'string' },
        payment_method: { type: 'string' },
        payment_method_name: { type: 'string' },
        amount: { type: 'number' },
        currency: { type: 'string' },
        expiration_date: { type: 'string', description: 'YYYY-MM-DD HH:mm:ss (UTC)' },
        created_at: { type: 'string', description: 'YYYY-MM-DD HH:mm:ss (UTC)' },
        metadata: metadataSchema,
        secondary_metadata: metadataSchema,
      },
    },
  },
} as const;

const timesSchema = {
  type: 'object',
  properties: Object.fromEntries(['created_at', 'updated_at', 'expiration_date', 'approved_at', 'completed_at', 'cancelled_at'].map((k) => [k, { type: 'string' }])),
} as const;

export const depositStatusSchema = {
  type: 'object',
  properties: {
    deposit_id: { type: 'integer' },
    invoice_id: { type: 'string' },
    user_id: { type: 'string' },
    country: { type: 'string' },
    currency: { type: 'string', description: 'Local currency of local_amount' },
    usd_amount: { type: 'number' },
    local_amount: { type: 'number' },
    amount: { type: 'number', description: 'The amount requested, in amount_currency' },
    amount_currency: { type: 'string' },
    bonus_amount: { type: 'number', description: 'Display only, as sent at creation; 0 when not sent' },
    bonus_relative: { type: 'boolean' },
    payment_method: { type: 'string', nullable: true },
    payment_type: { type: 'string', nullable: true },
    status: { type: 'string', enum: ['PENDING', 'APPROVED', 'COMPLETED', 'CANCELLED'] },
    checkout_type: { type: 'string' },
    payer: payerSchema,
    card_detail: {
      type: 'object',
      nullable: true,
      description: 'Card deposits, once paid on the hosted checkout; null otherwise',
      properties: {
        card_holder: { type: 'string' },
        masked_card: { type: 'string', description: 'Never the full number: first 6 and last 4 digits (staging, 411111******1111), or the last 4 only from an acquirer (************1111)' },
        brand: { type: 'string' },
        expiration: { type: 'string', description: 'MM/YY' },
      },
    },
    card_refusal: {
      type: 'object',
      nullable: true,
      description: 'Card deposits: the last card the acquirer refused. The deposit stays PENDING: the customer may pay with another card on the hosted checkout until it expires (then CANCELLED). null when no card was refused',
      properties: {
        reason: { type: 'string', description: "The acquirer's refusal reason (Adyen's refusalReason, e.g. Not enough balance, CVC Declined, 3D Not Authenticated)" },
        reason_code: { type: ['string', 'null'], description: "The acquirer's code for it (Adyen's refusalReasonCode), when given" },
        refused_at: { type: 'string', description: 'YYYY-MM-DD HH:mm:ss (UTC)' },
        attempts: { type: 'integer', description: 'Refused attempts so far' },
      },
    },
    crypto: {
      type: 'object',
      nullable: true,
      description: 'Crypto deposits: what the customer was shown, fixed at creation; null otherwise',
      properties: {
        currency: { type: 'string', description: 'USDT or BTC' },
        wallet: { type: 'string', description: 'The address the customer pays to' },
        network: { type: 'string', description: 'TRON, ETHEREUM or BITCOIN' },
        crypto_fx: { type: 'number', description: 'USD price of one coin' },
        crypto_amount: { type: 'number', description: 'Coins to send' },
      },
    },
    fee_amount: { type: 'number' },
    fee_currency: { type: 'string' },
    refunded: { type: 'boolean' },
    refunded_amount: { type: 'number', description: 'Sum of the completed refunds, in the deposit currency' },
    returned: {
      type: ['string', 'null'], enum: ['PARTIALLY_RETURNED', 'RETURNED', null],
      description: 'Money the payer\'s bank took back without the merchant asking (a Pix MED devolução, a SPEI return, a chargeback): PARTIALLY_RETURNED or RETURNED (the whole paid amount); null when none. The status stays COMPLETED; a deposit.returned event and the deposit notification announce each return.',
    },
    returned_amount: { type: 'number', description: 'Sum of the bank-initiated returns, in the local currency (currency)' },
    payer_checked: {
      type: ['boolean', 'null'],
      description: 'With the merchant\'s payer_must_match on: true when the provider reported the payer\'s document and it is the deposit\'s payer document; false when the provider did not report who paid (never pretended); null when the rule was off',
    },
    test: { type: 'boolean' },
    times: timesSchema,
    disputes: {
      type: 'array',
      description: "The deposit's disputes (card chargebacks), oldest first; [] when none. Not in the deposit list (GET /v3/deposits): read the deposit.",
      items: {
        type: 'object',
        properties: {
          dispute_id: { type: 'integer' },
          status: { type: 'string', enum: ['OPEN', 'CHARGED_BACK', 'REVERSED'], description: 'OPEN: the cardholder\'s bank disputes the payment, no money moved yet (defend before defense_deadline); CHARGED_BACK: the amount and the chargeback fee were taken from the balance; REVERSED: the merchant won, the amount was given back (the fee is not)' },
          reason: { type: ['string', 'null'], description: "The acquirer's reason text" },
          reason_code: { type: ['string', 'null'], description: "The card scheme's reason code (e.g. 10.4)" },
          amount: { type: 'number', description: 'The disputed amount, in currency' },
          currency: { type: 'string' },
          defense_deadline: { type: ['string', 'null'], description: 'YYYY-MM-DD HH:mm:ss (UTC): until when a defence is accepted (submitted in the acquirer\'s own portal)' },
          opened_at: { type: 'string' },
          closed_at: { type: ['string', 'null'], description: 'When it was reversed in the merchant\'s favour; null while open or charged back' },
          debit: { type: ['number', 'null'], description: 'What its applied chargeback takes from the balance now, in debit_currency (without the fee)' },
          fee: { type: ['number', 'null'], description: 'The chargeback fees charged, in debit_currency (each chargeback, not given back when reversed)' },
          debit_currency: { type: ['string', 'null'], description: 'The settlement currency of the balance it was taken from' },
        },
      },
    },
  },
} as const;

const errorResponses = { 400: v3ErrorSchema, 401: v3ErrorSchema, 404: v3ErrorSchema };

/** The body is checked by the domain validator (all details at once, exact amounts), not Ajv. */
export const acceptAnyBody = () => () => true;

export function sendJson(reply: FastifyReply, status: number, json: string) {
  return reply.status(status).type('application/json; charset=utf-8').send(json);
}

export function idempotencyKey(headers: Record<string, string | string[] | undefined>): string | undefined {
  const raw = headers['x-idempotency-key'] ?? headers['x-idempontency-key'];
  const v = (Array.isArray(raw) ? raw[0] : raw)?.trim();
  if (!v) return undefined;
  if (v.length > 255) throw v3Errors.validation(['X-Idempotency-Key: must be at most 255 characters']);
  return v;
}

/** Path ids: anything that is not a deposit id of ours is simply not found. */
export function parseDepositId(raw: string): number | null {
  return parseId(raw);
}

export function registerV3Deposits(app: FastifyInstance, ctx: AppContext): void {
  app.post(
    '/v3/deposits',
    {
      preValidation: v3HeaderAuth(ctx, 'deposits'),
      // Identical requests are distinct deposits (docs/security.md, Replay).
      config: { replayRule: 'none' },
      validatorCompiler: acceptAnyBody,
      schema: {
        tags: ['deposits'],
        summary: 'Create a deposit: HOSTED (customer completes details on our checkout) or ONE_SHOT (payment_info returned)',
        description: 'Two identical requests, even the same signed bytes sent twice, create two deposits. To make a retry safe, send X-Idempotency-Key (also read as X-Idempontency-Key): the same key with the same body replays the first response with `Idempotent-Replayed: true`; with another body, error 104. An invoice_id is also used once per merchant (201 when taken).',
        security: [{ v3Signature: [] }],
        body: depositBodySchema,
        response: { 200: creationSchema, ...errorResponses },
      },
    },
    async (request, reply) => {
      requireJsonContentType(request);
      const body = request.body;
      if (body === undefined) throw v3Errors.invalidBody('Request body is empty');
      if (typeof body !== 'object' || body === null || Array.isArray(body)) throw v3Errors.invalidBody('Request body must be a JSON object');
      const key = idempotencyKey(request.headers);
      const validated = await prepareDepositRequest(ctx, body, { merchantId: request.merchant!.id });
      // The coin and network of a crypto method, reported together with every other detail.
      const fields = body as Record<string, unknown>;
      const method = typeof fields.country === 'string' && typeof fields.payment_method === 'string' ? findMethod(fields.country, fields.payment_method) : undefined;
      const crypto = method?.kind === 'crypto' ? readCryptoChoice(fields.crypto) : null;
      if (!validated.ok || (crypto && !crypto.ok)) {
        throw v3Errors.validation([...(validated.ok ? [] : validated.details), ...(crypto && !crypto.ok ? crypto.details : [])]);
      }
      const result = await createDeposit(ctx, request.merchant!, validated.value, {
        source: 'v3',
        idempotency: key ? { key, fingerprint: fingerprint(request.rawBody ?? '') } : undefined,
      });
      if (result.replayed) reply.header('Idempotent-Replayed', 'true');
      return sendJson(reply, 200, creationResponse(ctx.config.publicBaseUrl, result.deposit));
    },
  );

  app.get<{ Params: { id: string } }>(
    '/v3/deposits/:id',
    {
      preValidation: v3HeaderAuth(ctx, 'deposits'),
      schema: {
        tags: ['deposits'],
        summary: "A deposit's status; deposits of other merchants are not found (208)",
        security: [{ v3Signature: [] }],
        params: { type: 'object', properties: { id: { type: 'string' } }, required: ['id'] },
        response: { 200: depositStatusSchema, ...errorResponses },
      },
    },
    async (request, reply) => {
      const id = parseDepositId(request.params.id);
      const d = id === null ? null : await getDepositStatus(ctx, request.merchant!.id, id);
      if (!d) throw depositNotFound();
      return sendJson(reply, 200, statusResponse(d, await disputesShown(ctx.db, d)));
    },
  );
}
