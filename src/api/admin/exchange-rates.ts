// Operator control of the USD exchange rates used for conversions (replaces staging samples; in
// production an override of the rates fetched from their sources, src/rates/).
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../config/context.ts';
import { ISO_CURRENCIES } from '../../domain/countries.ts';
import { type Decimal, isPositive, parseAmount } from '../../domain/money.ts';
import { v3Errors } from '../../http/errors.ts';
import { allUsdRates } from '../../lookups/exchange-rates.ts';
import { parseMarkup } from '../../rates/markup.ts';
import { rateBoard, setMarkups } from '../../rates/service.ts';
import { setRatesOrRequest } from '../../operators/four-eyes.ts';
import { configuredSources } from '../../rates/sources.ts';
import { tokenActor } from './auth.ts';
import { v3ErrorSchema } from '../v3/face.ts';

const ratesSchema = { type: 'object', additionalProperties: { type: 'string' } } as const;

export function registerAdminExchangeRates(app: FastifyInstance, ctx: AppContext): void {
  app.get(
    '/admin/exchange_rates',
    { schema: { tags: ['admin'], summary: 'Units of each currency per 1 USD', security: [{ adminToken: [] }], response: { 200: { type: 'object', properties: { rates: ratesSchema } } } } },
    async () => ({ rates: await allUsdRates(ctx.db, ctx.config) }),
  );
  app.put<{ Body: { rates: Record<string, unknown> } }>(
    '/admin/exchange_rates',
    {
      schema: {
        tags: ['admin'],
        summary: 'Set USD rates, e.g. {"rates": {"BRL": "5.4321"}}; other currencies keep theirs',
        security: [{ adminToken: [] }],
        body: { type: 'object', required: ['rates'], properties: { rates: { type: 'object', additionalProperties: { type: ['string', 'number'] } } } },
        description: 'Production: a rate further than CAJA_RATES_MANUAL_BAND_PERCENT (default 10) from the last rate its source published, or with no ' +
          'source rate, is not applied: it becomes a request a second operator approves in the console (/ops/approvals), answered 202 with `pending`. ' +
          'Rates within the band apply at once. Staging applies every rate at once.',
        response: {
          200: { type: 'object', properties: { rates: ratesSchema } },
          202: {
            type: 'object',
            description: 'Production: some rates wait for a second operator (the others, if any, were applied)',
            properties: {
              rates: ratesSchema,
              pending: { type: 'array', items: { type: 'object', properties: { currency: { type: 'string' }, approval_id: { type: 'integer' }, status: { type: 'string', enum: ['pending'] } } } },
            },
            examples: [{ rates: { BRL: '5.4321', MXN: '17.1' }, pending: [{ currency: 'BRL', approval_id: 19, status: 'pending' }] }],
          },
          400: v3ErrorSchema, 401: v3ErrorSchema,
        },
      },
    },
    async (request, reply) => {
      const details: string[] = [];
      const rates: Record<string, Decimal> = {};
      for (const [currency, value] of Object.entries(request.body.rates)) {
        if (!ISO_CURRENCIES.has(currency)) details.push(`rates.${currency}: not an ISO 4217 currency`);
        const parsed = parseAmount(value, { maxDecimals: 8, maxIntegerDigits: 16 });
        if (!parsed.ok || !isPositive(parsed.value)) details.push(`rates.${currency}: must be a positive decimal with at most 8 decimals`);
        else rates[currency] = parsed.value;
      }
      if ('USD' in request.body.rates) details.push('rates.USD: is always 1');
      if (details.length) throw v3Errors.validation(details);
      // Recorded with source 'manual' and published now: staging's rates, or an override of a source's.
      const done = await setRatesOrRequest(ctx, rates, tokenActor(request));
      const all = await allUsdRates(ctx.db, ctx.config);
      if (done.pending.length) return reply.status(202).send({ rates: all, pending: done.pending.map((p) => ({ currency: p.currency, approval_id: p.approval_id, status: p.status })) });
      return { rates: all };
    },
  );

  const sources = configuredSources(ctx.config).map((x) => ({ name: x.name, currency: x.currency }));
  const stamp = { type: 'string', format: 'date-time', nullable: true } as const;
  app.get(
    '/admin/exchange_rates/sources',
    {
      schema: {
        tags: ['admin'],
        summary: 'Each stored rate with its source, publication time, markup and age; each configured source with its last fetch',
        security: [{ adminToken: [] }],
        response: {
          200: {
            type: 'object',
            properties: {
              max_age_hours: { type: 'integer' },
              rates: { type: 'array', items: { type: 'object', properties: {
                currency: { type: 'string' }, usd_rate: { type: 'string' }, source_rate: { type: 'string' }, markup_percent: { type: 'string' },
                source: { type: 'string', description: "'manual', 'bcb-ptax', 'banxico-fix', …" }, rate_at: stamp, updated_at: stamp, stale: { type: 'boolean' },
              } } },
              sources: { type: 'array', items: { type: 'object', properties: {
                source: { type: 'string' }, currency: { type: 'string' }, last_attempt_at: stamp, last_success_at: stamp, last_error: { type: 'string', nullable: true },
              } } },
              markups: { type: 'object', additionalProperties: { type: 'string' } },
            },
          },
          401: v3ErrorSchema, 403: v3ErrorSchema,
        },
      },
    },
    async () => {
      const b = await rateBoard(ctx, sources);
      return {
        max_age_hours: ctx.config.rates.maxAgeHours,
        rates: b.rates.map((r) => ({
          currency: r.currency, usd_rate: r.usdRate, source_rate: r.sourceRate, markup_percent: r.markupPercent, source: r.source,
          rate_at: r.rateAt.toISOString(), updated_at: r.updatedAt.toISOString(), stale: r.stale,
        })),
        sources: b.sources.map((x) => ({
          source: x.source, currency: x.currency, last_attempt_at: x.lastAttemptAt?.toISOString() ?? null, last_success_at: x.lastSuccessAt?.toISOString() ?? null, last_error: x.lastError,
        })),
        markups: b.markups,
      };
    },
  );
  app.put<{ Body: { markups: Record<string, unknown> } }>(
    '/admin/exchange_rates/markups',
    {
      schema: {
        tags: ['admin'],
        summary: 'Set the operator markup (percent) on the rates fetched for each currency, e.g. {"markups": {"BRL": "0.5"}}',
        security: [{ adminToken: [] }],
        body: { type: 'object', required: ['markups'], additionalProperties: false, properties: { markups: { type: 'object', minProperties: 1, additionalProperties: { type: ['string', 'number'] } } }, examples: [{ markups: { BRL: '0.5' } }] },
        response: { 200: { type: 'object', properties: { markups: { type: 'object', additionalProperties: { type: 'string' } } } }, 400: v3ErrorSchema, 401: v3ErrorSchema, 403: v3ErrorSchema },
      },
    },
    async (request) => {
      const details: string[] = [];
      const parsed: [string, Decimal][] = [];
      for (const [currency, value] of Object.entries(request.body.markups)) {
        if (!ISO_CURRENCIES.has(currency) || currency === 'USD') details.push(`markups.${currency}: not an ISO 4217 currency other than USD`);
        const m = parseMarkup(value);
        if (!m.ok) details.push(`markups.${currency}: ${m.reason}`);
        else parsed.push([currency, m.value]);
      }
      if (details.length) throw v3Errors.validation(details);
      await setMarkups(ctx, parsed, tokenActor(request));
      return { markups: (await rateBoard(ctx, sources)).markups };
    },
  );
}
