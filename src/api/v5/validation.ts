// v5 validation face: POST /v5/account/validate and POST /v5/account/pix_key/validate, signed
// with the cashouts key, each switched on per merchant (DESIGN: features per merchant).
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { AppContext } from '../../config/context.ts';
import { v3HeaderAuth } from '../auth/v3-headers.ts';
import { ACCOUNT_TYPES } from '../../domain/bank-accounts.ts';
import { parseAmount, type Decimal } from '../../domain/money.ts';
import { ApiError, v3Errors } from '../../http/errors.ts';
import { RegistryUnavailableError } from '../../connectors/account-registry.ts';
import { accountRegistryFor } from '../../connectors/registry.ts';
import { ACCOUNT_CHECK_DESCRIPTIONS, MAX_PIX_KEYS_PER_REQUEST, validateAccount, validatePixKeys } from '../../validation/service.ts';
import { acceptedCountry } from '../v3/lookups.ts';
import { requireJsonContentType, v3ErrorSchema } from '../v3/face.ts';

type Feature = 'account_validation' | 'pix_key_validation';

function requireFeature(feature: Feature) {
  return async (request: FastifyRequest) => {
    const m = request.merchant!;
    const on = feature === 'account_validation' ? m.account_validation_enabled : m.pix_key_validation_enabled;
    if (!on) throw v3Errors.featureDisabled(`${feature === 'account_validation' ? 'Account' : 'Pix key'} validation is not enabled for this merchant; ask your account manager to activate it`);
  };
}

function requireJsonBody(kind: 'object' | 'array') {
  return async (request: FastifyRequest) => {
    requireJsonContentType(request);
    const b: unknown = request.body;
    if (b === undefined) throw v3Errors.invalidBody('Request body is empty');
    const isArray = Array.isArray(b);
    if (kind === 'array' ? !isArray : typeof b !== 'object' || b === null || isArray) {
      throw v3Errors.invalidBody(`Request body must be a JSON ${kind}`);
    }
  };
}

const text = (maxLength: number, description?: string) => ({ type: 'string', maxLength, ...(description ? { description } : {}) }) as const;

const accountBodySchema = {
  type: 'object',
  required: ['country', 'document', 'bank_account'],
  properties: {
    country: { type: 'string', minLength: 2, maxLength: 2, description: 'ISO 3166-1 alpha-2' },
    document: text(30, 'Beneficiary document, valid for the country'),
    document_type: text(10),
    first_name: text(255),
    last_name: text(255),
    amount: { type: ['number', 'string'], description: 'Checked against the bank-transfer limits only when sent; at most 2 decimals' },
    currency: { type: 'string', minLength: 3, maxLength: 3, description: 'Currency of amount: USD (default) or the local one' },
    bank_account: {
      type: 'object',
      required: ['account'],
      properties: {
        bank_code: text(10, 'A code from GET /v3/banks?country='),
        account: text(45, 'Account number with its check digit (CLABE, CBU/CVU, CCI, …)'),
        branch: text(45, 'Agency; Brazil: 4 digits, optionally -check digit'),
        account_type: { type: 'string', description: `${ACCOUNT_TYPES.join(', ')} (or C, S, V, O, P)` },
      },
    },
  },
  examples: [
    {
      country: 'BR', document: '529.982.247-25', first_name: 'Maria', last_name: 'Souza', amount: 100, currency: 'USD',
      bank_account: { bank_code: '341', branch: '2545', account: '02366-1', account_type: 'C' },
    },
    { country: 'MX', document: 'GODE561231GR8', bank_account: { bank_code: '40032', account: '032180000118359719' } },
  ],
} as const;

const pixBodySchema = {
  type: 'array',
  maxItems: MAX_PIX_KEYS_PER_REQUEST,
  description: `Up to ${MAX_PIX_KEYS_PER_REQUEST} items \`{"pix": "<key>"}\`; a malformed item answers valid: false`,
  items: { description: '{"pix": "<CPF, CNPJ, e-mail, +55 mobile or random key>"}' },
  examples: [[{ pix: '529.982.247-25' }, { pix: 'maria@example.com' }, { pix: '+5511987654321' }, { pix: 'unknown@example.com' }]],
} as const;

const pixResponseSchema = {
  type: 'array',
  items: { type: 'object', properties: { pix: { type: 'string' }, valid: { type: 'boolean' } } },
  examples: [[{ pix: '529.982.247-25', valid: true }, { pix: 'maria@example.com', valid: true }, { pix: '+5511987654321', valid: true }, { pix: 'unknown@example.com', valid: false }]],
} as const;

const errors = { 400: v3ErrorSchema, 401: v3ErrorSchema, 403: v3ErrorSchema, 503: v3ErrorSchema };

const checksTable = Object.entries(ACCOUNT_CHECK_DESCRIPTIONS).map(([check, what]) => `\`${check}\` ${what}`).join('; ');

function unavailable(err: unknown): never {
  if (err instanceof RegistryUnavailableError) throw v3Errors.serviceUnavailable(err.message);
  throw err;
}

export function registerV5Validation(app: FastifyInstance, ctx: AppContext): void {
  const auth = v3HeaderAuth(ctx, 'cashouts');
  // The connector is chosen once, by the connector registry: simulated providers (staging) use the simulated registry.
  const registry = accountRegistryFor(ctx.config);

  app.post<{ Body: Record<string, any> }>(
    '/v5/account/validate',
    {
      preValidation: [auth, requireFeature('account_validation'), requireJsonBody('object')],
      schema: {
        tags: ['validation'],
        summary: 'Validate a beneficiary bank account before a cashout; 204 when every check passes',
        description:
          'Checks, in order: document (300), account/branch/type format, check digits and bank (302), account exists (302), ' +
          `belongs to the beneficiary (302), amount within limits when sent (201), can receive funds (302). 302 description names the check: ${checksTable}. ` +
          'See docs/validation.md for staging magic values.',
        security: [{ v3Signature: [] }],
        body: accountBodySchema,
        response: { 204: { type: 'null', description: 'Every check passed' }, ...errors },
      },
    },
    async (request, reply) => {
      const b = request.body;
      const details: string[] = [];
      let country = '';
      try {
        country = acceptedCountry(b.country);
      } catch (err) {
        details.push(...((err as ApiError).details ?? []));
      }
      let amount: Decimal | undefined;
      if (b.amount !== undefined) {
        const parsed = parseAmount(b.amount, { maxDecimals: 2 });
        if (!parsed.ok) details.push(`amount: ${parsed.reason}`);
        else if (parsed.value.units <= 0n) details.push('amount: must be positive');
        else amount = parsed.value;
      }
      if (details.length) throw v3Errors.validation(details);
      const a = b.bank_account;
      const result = await validateAccount(ctx, registry, {
        country,
        document: b.document,
        documentType: b.document_type,
        firstName: b.first_name,
        lastName: b.last_name,
        amount,
        currency: typeof b.currency === 'string' ? b.currency.toUpperCase() : 'USD',
        bankAccount: { account: a.account, bankCode: a.bank_code, branch: a.branch, accountType: a.account_type },
      }).catch(unavailable);
      if (result.ok) return reply.status(204).send();
      switch (result.kind) {
        case 'document':
          throw v3Errors.invalidDocument('Invalid document', [`document: ${result.reason}`]);
        case 'bank_account':
          throw v3Errors.invalidBankAccount(`Invalid bank account: ${result.check}`, [`bank_account.${result.field}: ${result.reason}`]);
        default:
          throw v3Errors.validation([`${result.kind}: ${result.reason}`]);
      }
    },
  );

  app.post<{ Body: unknown[] }>(
    '/v5/account/pix_key/validate',
    {
      preValidation: [auth, requireFeature('pix_key_validation'), requireJsonBody('array')],
      schema: {
        tags: ['validation'],
        summary: `Validate up to ${MAX_PIX_KEYS_PER_REQUEST} Pix keys; answers one {pix, valid} per item, in order`,
        description: 'Types detected: CPF and CNPJ (check digits, formatted or not), e-mail, +55 mobile phone, random key (UUID v4). See docs/validation.md for staging magic values.',
        security: [{ v3Signature: [] }],
        body: pixBodySchema,
        response: { 200: pixResponseSchema, ...errors },
      },
    },
    async (request) => validatePixKeys(registry, request.body).catch(unavailable),
  );
}
