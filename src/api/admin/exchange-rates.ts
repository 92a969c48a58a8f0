// Operator control of the USD exchange rates used for conversions (replaces staging samples).
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../config/context.ts';
import { ISO_CURRENCIES } from '../../domain/countries.ts';
import { type Decimal, isPositive, parseAmount } from '../../domain/money.ts';
import { v3Errors } from '../../http/errors.ts';
import { allUsdRates, setUsdRates } from '../../lookups/exchange-rates.ts';
import { v3ErrorSchema } from '../v3/face.ts';

const ratesSchema = { type: 'object', additionalProperties: { type: 'string' } } as const;

export function registerAdminExchangeRates(app: FastifyInstance, ctx: AppContext): void {
  app.get(
    '/admin/exchange_rates',
    { schema: { tags: ['admin'], summary: 'Units of each currency per 1 USD', security: [{ adminToken: [] }], response: { 200: { type: 'object', properties: { rates: ratesSchema } } } } },
    async () => ({ rates: await allUsdRates(ctx.db, ctx.config.env) }),
  );
  app.put<{ Body: { rates: Record<string, unknown> } }>(
    '/admin/exchange_rates',
    {
      schema: {
        tags: ['admin'],
        summary: 'Set USD rates, e.g. {"rates": {"BRL": "5.4321"}}; other currencies keep theirs',
        security: [{ adminToken: [] }],
        body: { type: 'object', required: ['rates'], properties: { rates: { type: 'object', additionalProperties: { type: ['string', 'number'] } } } },
        response: { 200: { type: 'object', properties: { rates: ratesSchema } }, 400: v3ErrorSchema, 401: v3ErrorSchema },
      },
    },
    async (request) => {
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
      await ctx.db.tx((q) => setUsdRates(q, rates));
      // Deposit creation reads rates through the cache: the new ones apply from now on.
      ctx.cache.changed();
      return { rates: await allUsdRates(ctx.db, ctx.config.env) };
    },
  );
}
