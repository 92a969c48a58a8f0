// Operator API for merchants: create (credentials shown once), read, update, rotate.
import { usdRate } from '../../lookups/exchange-rates.ts';
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../config/context.ts';
import { checkFrameOrigins, MAX_FRAME_ORIGINS } from '../../domain/frame-origins.ts';
import { checkCallbackUrl } from '../../domain/urls.ts';
import { v3Errors } from '../../http/errors.ts';
import {
  CREDENTIAL_SETS, credentialOverlaps, type CredentialSet, createMerchant, credentialsView, DEFAULT_ROTATION_GRACE_HOURS, getMerchant, MAX_ROTATION_GRACE_HOURS, merchantView,
  rotateCredentials, rotationGraceHours, updateMerchant,
} from '../../merchants/merchants.ts';
import { v3ErrorSchema } from '../v3/face.ts';
import { INT_ID_SCHEMA } from '../../domain/ids.ts';
import { tokenAudit } from './auth.ts';
import { isTimeZone } from '../../settlements/days.ts';

const credentialsSchema = {
  type: 'object',
  properties: {
    merchant_id: { type: 'integer' },
    name: { type: 'string' },
    environment: { type: 'string' },
    deposits: { type: 'object', properties: { login: { type: 'string' }, trans_key: { type: 'string' }, secret_key: { type: 'string' } } },
    web_status: { type: 'object', properties: { login: { type: 'string' }, trans_key: { type: 'string' } } },
    cashouts: { type: 'object', properties: { login: { type: 'string' }, pass: { type: 'string' }, secret_key: { type: 'string' } } },
    read_only_key: { type: 'string' },
    panel: { type: 'object', properties: { email: { type: 'string' }, password: { type: 'string' } } },
    previous_valid_until: {
      type: ['string', 'null'], format: 'date-time',
      description: 'After a rotation: until when the values it replaced keep working (null: they stopped at once)',
    },
  },
} as const;

const merchantSchema = {
  type: 'object',
  properties: {
    merchant_id: { type: 'integer' },
    name: { type: 'string' },
    environment: { type: 'string' },
    notification_url: { type: 'string', nullable: true },
    return_url: { type: 'string', nullable: true },
    logo_url: { type: 'string', nullable: true, description: 'Logo of the hosted checkout, unless a deposit sends its own `logo`' },
    features: { type: 'object', properties: { account_validation: { type: 'boolean' }, pix_key_validation: { type: 'boolean' } } },
    settlement_currency: { type: 'string', description: 'Currency the balance is kept in (USD unless configured)' },
    require_svc2: { type: 'boolean', description: 'v3/v5 calls must be signed with SVC2 (method and path covered); see docs/security.md' },
    newinvoice_currencies: { type: 'array', items: { type: 'string' }, nullable: true, description: 'The currencies a streamline NewInvoice may be priced in (x_currency is not covered by its control); null: any' },
    sandbox_chaos: { type: 'boolean', description: 'Staging: notifications duplicated, delayed and reordered (docs/notifications.md)' },
    timezone: { type: 'string', description: 'The IANA timezone whose days the settlement reports cover' },
    payer_must_match: { type: 'boolean', description: 'Payments only from the customer\'s own account (the payer document the provider reports must equal the deposit\'s; otherwise the payment is sent back), payouts only to the beneficiary\'s own key or account. docs/connectors.md, "The payer rule"' },
    frame_origins: {
      type: 'array', nullable: true, items: { type: 'string' },
      description: 'Origins allowed to frame the customer pages opened with `iframe_view=1`, as set; null: the default (the origins of notification_url and return_url)',
    },
    frame_origins_in_effect: {
      type: 'array', items: { type: 'string' },
      description: 'The CSP `frame-ancestors` of those pages: frame_origins, or the default; empty: no site may frame them',
    },
    credential_overlaps: {
      type: 'array', description: 'Credential sets in a rotation\'s overlap: until when the values replaced still work',
      items: { type: 'object', properties: { set: { type: 'string', enum: CREDENTIAL_SETS }, previous_valid_until: { type: 'string', format: 'date-time' } } },
    },
    created_at: { type: 'string', format: 'date-time' },
    updated_at: { type: 'string', format: 'date-time' },
  },
} as const;

const idParams = { type: 'object', properties: { id: INT_ID_SCHEMA }, required: ['id'] } as const;
const errors = { 400: v3ErrorSchema, 401: v3ErrorSchema, 404: v3ErrorSchema };

function checkUrls(body: Record<string, unknown>, ctx: AppContext): string[] {
  const details: string[] = [];
  for (const field of ['notification_url', 'return_url', 'logo_url']) {
    if (body[field] === undefined) continue;
    const reason = checkCallbackUrl(body[field], ctx.config);
    if (reason) details.push(`${field}: ${reason}`);
  }
  return details;
}

export function registerAdminMerchants(app: FastifyInstance, ctx: AppContext): void {
  app.post<{ Body: { name: string; notification_url?: string; return_url?: string; logo_url?: string } }>(
    '/admin/merchants',
    {
      schema: {
        tags: ['admin'],
        summary: 'Create a merchant; answers its credentials, shown only this once',
        security: [{ adminToken: [] }],
        body: {
          type: 'object',
          required: ['name'],
          properties: {
            name: { type: 'string', minLength: 1, maxLength: 100 },
            notification_url: { type: 'string', maxLength: 2048 },
            return_url: { type: 'string', maxLength: 2048 },
            logo_url: { type: 'string', maxLength: 2048 },
          },
        },
        response: { 201: credentialsSchema, ...errors },
      },
    },
    async (request, reply) => {
      const details = checkUrls(request.body, ctx);
      if (details.length) throw v3Errors.validation(details);
      const { merchant, credentials } = await createMerchant(ctx.db, ctx.box, ctx.config, request.body, (m) =>
        tokenAudit(request, 'merchant.created', { merchantId: m.id, subject: `merchant:${m.id}`, detail: { name: m.name } }));
      request.log.info({ merchant_id: merchant.id }, 'merchant created');
      return reply.status(201).send(credentialsView(merchant, credentials));
    },
  );

  app.get<{ Params: { id: number } }>(
    '/admin/merchants/:id',
    { schema: { tags: ['admin'], summary: 'A merchant, without secrets', security: [{ adminToken: [] }], params: idParams, response: { 200: merchantSchema, ...errors } } },
    async (request) => {
      const merchant = await getMerchant(ctx.db, request.params.id);
      if (!merchant) throw v3Errors.notFound('Merchant not found');
      const overlaps = await credentialOverlaps(ctx.db, merchant.id);
      return { ...merchantView(merchant), credential_overlaps: overlaps.map((o) => ({ set: o.set, previous_valid_until: o.previousValidUntil })) };
    },
  );

  app.patch<{ Params: { id: number }; Body: Record<string, any> }>(
    '/admin/merchants/:id',
    {
      schema: {
        tags: ['admin'],
        summary: 'Change settings and features (account and Pix key validation)',
        security: [{ adminToken: [] }],
        params: idParams,
        body: {
          type: 'object',
          properties: {
            name: { type: 'string', minLength: 1, maxLength: 100 },
            notification_url: { type: 'string', maxLength: 2048 },
            return_url: { type: 'string', maxLength: 2048 },
            logo_url: { type: 'string', maxLength: 2048 },
            features: { type: 'object', properties: { account_validation: { type: 'boolean' }, pix_key_validation: { type: 'boolean' } }, additionalProperties: false },
            settlement_currency: { type: 'string', pattern: '^[A-Z]{3}$', description: 'Currency of the balance from now on: USD, or a currency caja has a rate for. Balances already held stay in their currency.' },
            require_svc2: { type: 'boolean', description: 'Refuse v3/v5 calls not signed with SVC2' },
            newinvoice_currencies: {
              type: 'array', items: { type: 'string', pattern: '^[A-Z]{3}$' }, maxItems: 10, uniqueItems: true,
              description: 'Refuse a streamline NewInvoice whose x_currency (absent: USD) is not one of these; x_currency is outside its control, so pinning it is what keeps a captured form from being re-priced. [] unpins: any currency caja has a rate for',
            },
            sandbox_chaos: { type: 'boolean', description: 'Staging only: duplicate, delay and reorder this merchant\'s notifications (docs/notifications.md)' },
            timezone: { type: 'string', maxLength: 64, description: 'IANA timezone (e.g. America/Sao_Paulo) whose days the daily settlement reports cover; default UTC' },
            payer_must_match: { type: 'boolean', description: 'Accept payments only from the customer\'s own account and pay cashouts only to the beneficiary\'s own (default false). docs/connectors.md, "The payer rule"' },
            frame_origins: {
              type: ['array', 'string'], maxItems: MAX_FRAME_ORIGINS, items: { type: 'string', maxLength: 300 },
              description:
                'Origins (scheme, host and optional port, no path: `https://shop.example`) allowed to frame the checkout and payment pages opened with `iframe_view=1` ' +
                '(CSP `frame-ancestors`). https only in production; staging also accepts http on localhost, 127.0.0.1 and [::1]. `[]`: no site may frame them. ' +
                '`"default"`: back to the default, the origins of the merchant\'s notification_url and return_url. See docs/security.md, "Embedding".',
            },
          },
          additionalProperties: false,
        },
        response: { 200: merchantSchema, ...errors },
      },
    },
    async (request) => {
      const details = checkUrls(request.body, ctx);
      const b = request.body;
      if (b.settlement_currency !== undefined && !(await usdRate(ctx.db, ctx.config, b.settlement_currency))) {
        details.push(`settlement_currency: no exchange rate is known for ${b.settlement_currency}`);
      }
      if (b.sandbox_chaos !== undefined && !ctx.config.sandbox) details.push('sandbox_chaos: staging only');
      if (b.timezone !== undefined && !isTimeZone(b.timezone)) details.push('timezone: must be an IANA timezone, e.g. America/Sao_Paulo');
      for (const currency of (b.newinvoice_currencies ?? []) as string[]) {
        if (!(await usdRate(ctx.db, ctx.config, currency))) details.push(`newinvoice_currencies: no exchange rate is known for ${currency}`);
      }
      let frameOrigins: string[] | null | undefined;
      if (b.frame_origins === 'default') frameOrigins = null;
      else if (typeof b.frame_origins === 'string') details.push('frame_origins: must be a list of origins, or "default"');
      else if (b.frame_origins !== undefined) {
        const r = checkFrameOrigins(b.frame_origins, ctx.config);
        if ('reasons' in r) details.push(...r.reasons.map((x) => `frame_origins: ${x}`));
        else frameOrigins = r.origins;
      }
      if (details.length) throw v3Errors.validation(details);
      const merchant = await updateMerchant(ctx.db, request.params.id, {
        name: b.name,
        notification_url: b.notification_url,
        return_url: b.return_url,
        logo_url: b.logo_url,
        account_validation_enabled: b.features?.account_validation,
        pix_key_validation_enabled: b.features?.pix_key_validation,
        settlement_currency: b.settlement_currency,
        require_svc2: b.require_svc2,
        newinvoice_currencies: b.newinvoice_currencies === undefined ? undefined : b.newinvoice_currencies.length ? b.newinvoice_currencies : null,
        sandbox_chaos: b.sandbox_chaos,
        frame_origins: frameOrigins,
        timezone: b.timezone,
        payer_must_match: b.payer_must_match,
      }, ctx.cache, tokenAudit(request, 'merchant.settings', { merchantId: request.params.id, subject: `merchant:${request.params.id}`, detail: b }));
      if (!merchant) throw v3Errors.notFound('Merchant not found');
      return merchantView(merchant);
    },
  );

  app.post<{ Params: { id: number }; Body: { set: CredentialSet; grace_hours?: number } }>(
    '/admin/merchants/:id/rotate',
    {
      schema: {
        tags: ['admin'],
        summary: 'Replace one credential set; the old values keep working for grace_hours',
        description: `The values replaced keep working for \`grace_hours\` (default ${DEFAULT_ROTATION_GRACE_HOURS}; 0: they stop at once, as after a leak), so the integration can switch without downtime; notifications carry a Caja-Signature with each valid secret meanwhile. The panel password is replaced at once.`,
        security: [{ adminToken: [] }],
        params: idParams,
        body: {
          type: 'object', required: ['set'],
          properties: { set: { type: 'string', enum: CREDENTIAL_SETS }, grace_hours: { type: 'number', minimum: 0, maximum: MAX_ROTATION_GRACE_HOURS } },
        },
        response: { 200: credentialsSchema, ...errors },
      },
    },
    async (request) => {
      const { set, grace_hours } = request.body;
      const grace = rotationGraceHours(set, grace_hours);
      const rotated = await rotateCredentials(ctx.db, ctx.box, request.params.id, set, ctx.cache,
        tokenAudit(request, 'merchant.rotated', { merchantId: request.params.id, subject: `merchant:${request.params.id}`, detail: { set, grace_hours: grace } }), grace);
      if (!rotated) throw v3Errors.notFound('Merchant not found');
      request.log.info({ merchant_id: rotated.merchant.id, set, grace_hours: grace }, 'credentials rotated');
      return { ...credentialsView(rotated.merchant, rotated.credentials), previous_valid_until: rotated.previousValidUntil };
    },
  );
}
