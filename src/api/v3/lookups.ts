// Read-only lookups (Bearer read-only key, safe from a front end): banks, payment methods,
// states and exchange rates per country.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../../config/context.ts';
import { readOnlyKeyAuth } from '../auth/read-only.ts';
import { banksEtag, banksForCountry } from '../../domain/banks.ts';
import { findMethod, methodsForCountry } from '../../domain/catalog.ts';
import { servedMethods } from '../../connectors/registry.ts';
import { ACCEPTED_COUNTRY_CODES, getCountry, isCountryAccepted } from '../../domain/countries.ts';
import { computeCharges } from '../../domain/fees.ts';
import { formatMinor, minorUnits } from '../../domain/currencies.ts';
import { parseAmount } from '../../domain/money.ts';
import { toJson } from '../../deposits/json.ts';
import { v3Errors } from '../../http/errors.ts';
import { convert, usdRate } from '../../lookups/exchange-rates.ts';
import { v3ErrorSchema } from './face.ts';

const countryQuery = {
  type: 'object',
  properties: { country: { type: 'string', description: 'ISO 3166-1 alpha-2 code of an accepted country' } },
  required: ['country'],
} as const;

const errors = { 400: v3ErrorSchema, 401: v3ErrorSchema };

/** What the provider family sends as daily_average and monthly_average of every method. */
const PROVIDER_AVERAGE = 5;

/** The accepted country of the query, upper-cased, or a 201 listing the accepted values. */
export function acceptedCountry(value: unknown, field = 'country'): string {
  const code = typeof value === 'string' ? value.trim().toUpperCase() : '';
  if (!isCountryAccepted(code)) {
    throw v3Errors.validation([`${field}: must be one of ${ACCEPTED_COUNTRY_CODES.join(', ')}`]);
  }
  return code;
}

export function publicLogoUrl(ctx: AppContext, logoPath: string): string {
  return `${ctx.config.publicBaseUrl}${logoPath}`;
}

export function registerLookups(app: FastifyInstance, ctx: AppContext): void {
  const preValidation = readOnlyKeyAuth(ctx);
  const security = [{ readOnlyKey: [] }];

  app.get<{ Querystring: { country: string } }>(
    '/v3/banks',
    {
      preValidation,
      schema: {
        tags: ['lookups'],
        summary: "A country's banks; send the chosen code as bank_code",
        security,
        querystring: countryQuery,
        response: {
          200: { type: 'array', items: { type: 'object', properties: { code: { type: 'integer' }, name: { type: 'string' } } } },
          304: { type: 'null', description: 'If-None-Match holds the current ETag: the list has not changed' },
          ...errors,
        },
      },
    },
    async (request, reply) => {
      const country = acceptedCountry(request.query.country);
      // Revalidated on every use (no-cache), so additions and removals show at once; private
      // because the request carries the merchant's key.
      const etag = banksEtag(country);
      reply.header('etag', etag).header('cache-control', 'private, no-cache');
      const wanted = request.headers['if-none-match'];
      if (wanted && wanted.split(',').some((t) => t.trim().replace(/^W\//, '') === etag)) return reply.status(304).send();
      return banksForCountry(country).map((b) => ({ code: b.code, name: b.name }));
    },
  );

  app.get<{ Querystring: { country: string } }>(
    '/v3/payment_methods',
    {
      preValidation,
      schema: {
        tags: ['lookups'],
        summary: "A country's payment methods with their amount limits: those a payment provider collects in this environment (staging: all)",
        security,
        querystring: countryQuery,
        response: {
          200: {
            type: 'array',
            items: {
              type: 'object',
              properties: {
                country: { type: 'string' },
                code: { type: 'string' },
                name: { type: 'string' },
                type: { type: 'string' },
                status: { type: 'string' },
                logo: { type: 'string' },
                currency: { type: 'string' },
                min_amount: { type: 'string' },
                max_amount: { type: 'string' },
                required_fields: { type: 'array', items: { type: 'string' } },
                daily_average: { type: 'integer', description: 'Always 5, as the provider family sends it (the client libraries read it; it has no meaning in caja)' },
                monthly_average: { type: 'integer', description: 'Always 5, as daily_average' },
              },
            },
          },
          ...errors,
        },
      },
    },
    async (request) => {
      const country = acceptedCountry(request.query.country);
      // Production lists only what some connector collects (src/connectors/registry.ts).
      const served = await servedMethods(ctx, country);
      return methodsForCountry(country).filter((m) => served.has(m.code)).map((m) => ({
        country: m.country,
        code: m.code,
        name: m.name,
        type: m.type,
        status: 'OK',
        logo: publicLogoUrl(ctx, m.logo),
        currency: m.currency,
        min_amount: m.minAmount,
        max_amount: m.maxAmount,
        required_fields: [...m.requiredPayerFields],
        daily_average: PROVIDER_AVERAGE,
        monthly_average: PROVIDER_AVERAGE,
      }));
    },
  );

  app.get<{ Querystring: { country: string } }>(
    '/v3/states',
    {
      preValidation,
      schema: {
        tags: ['lookups'],
        summary: "A country's states with the codes payer.address.state takes",
        security,
        querystring: countryQuery,
        response: {
          200: {
            type: 'array',
            items: { type: 'object', properties: { code: { type: 'string' }, iso: { type: 'string', description: 'The same code, under the name the client libraries read' }, name: { type: 'string' } } },
          },
          ...errors,
        },
      },
    },
    async (request) => getCountry(acceptedCountry(request.query.country))!.states.map((st) => ({ code: st.code, iso: st.code, name: st.name })),
  );

  app.get<{ Querystring: { country: string; amount?: string; payment_method?: string } }>(
    '/v3/exchange_rates',
    {
      preValidation,
      schema: {
        tags: ['lookups'],
        summary: 'Converts a USD amount to the local currency of a country',
        security,
        querystring: {
          type: 'object',
          properties: {
            country: { type: 'string' },
            amount: { type: 'string', description: 'USD amount, default 1' },
            payment_method: { type: 'string', description: "A method of the country: `fee` is that method's; default the bank-transfer fee" },
          },
          required: ['country'],
        },
        response: {
          200: {
            type: 'object',
            properties: {
              country: { type: 'string' },
              currency: { type: 'string' },
              fx_rate: { type: 'number' },
              amount: { type: 'number' },
              converted_amount: { type: 'number' },
              converted_amount_text: { type: 'string' },
              fee: { type: 'number', description: 'USD: the fee the merchant would pay on a deposit of `amount` (fee rule of docs/deposits.md)' },
            },
          },
          ...errors,
        },
      },
    },
    async (request: FastifyRequest<{ Querystring: { country: string; amount?: string; payment_method?: string } }>, reply: FastifyReply) => {
      const details: string[] = [];
      let country = '';
      try {
        country = acceptedCountry(request.query.country);
      } catch (err) {
        details.push(...((err as { details?: string[] }).details ?? []));
      }
      const parsed = parseAmount(request.query.amount ?? '1');
      if (!parsed.ok) details.push(`amount: ${parsed.reason}`);
      const code = request.query.payment_method?.trim();
      const method = code && country ? findMethod(country, code) : undefined;
      if (code && country && !method) details.push(`payment_method: '${code}' is not offered in ${country}`);
      if (details.length || !parsed.ok) throw v3Errors.validation(details);
      const currency = getCountry(country)!.currency;
      const rate = await usdRate(ctx.db, ctx.config, currency);
      const converted = await convert(ctx.db, ctx.config, parsed.value, 'USD', currency, minorUnits(currency));
      if (!rate || !converted) throw v3Errors.notFound(`No exchange rate for ${currency}`);
      // Decimals written with their exact digits: an 18-digit amount is not rounded as a double.
      // The merchant bears the fee (fee_on_payer false), as on a deposit created with defaults; by its own schedule when it has one.
      const fee = computeCharges(parsed.value, method?.type ?? null, { feeOnPayer: false, surchargeOnPayer: true }, 2, request.merchant?.fee_schedule ?? null).fee;
      const body = { country, currency, fx_rate: rate, amount: parsed.value, converted_amount: converted, converted_amount_text: formatMinor(converted, currency), fee };
      return reply.type('application/json; charset=utf-8').send(toJson(body));
    },
  );
}
