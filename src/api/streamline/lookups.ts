// get_banks_by_country (the payment methods of a country) and webcurrencyexchange (USD to the
// country's currency).
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../config/context.ts';
import { streamlineAuth } from '../../auth/streamline.ts';
import { methodsForCountry } from '../../domain/catalog.ts';
import { servedMethods } from '../../connectors/registry.ts';
import { getCountry, isCountryAccepted } from '../../domain/countries.ts';
import { formatMinor, minorUnits } from '../../domain/currencies.ts';
import { parseAmount, toFixed, toPlainString } from '../../domain/money.ts';
import { convert, usdRate } from '../../lookups/exchange-rates.ts';
import { publicLogoUrl } from '../v3/lookups.ts';
import { type Form, formatOf, optional, required, send, sendRecord } from './face.ts';
import { renderList, StreamlineError } from './format.ts';

function country(form: Form, field: string): string {
  const code = required(form, field).trim().toUpperCase();
  if (!isCountryAccepted(code)) throw new StreamlineError(505, `Country not found: ${code}`);
  return code;
}

export function registerStreamlineLookups(app: FastifyInstance, ctx: AppContext): void {
  app.post<{ Body: Form }>(
    '/api_curl/apd/get_banks_by_country',
    { config: { streamline: { defaultFormat: 'xml', errorShape: 'standard' } }, schema: { hide: true } },
    async (request, reply) => {
      const form = request.body;
      await streamlineAuth(ctx, form.x_login, form.x_trans_key, ['deposits']);
      const code = country(form, 'country_code');
      // Production lists only what some connector collects (src/connectors/registry.ts).
      const served = await servedMethods(ctx, code);
      const records = methodsForCountry(code).filter((m) => served.has(m.code)).map((m) => [
        ['code', m.code],
        ['name', m.name],
        ['logo', publicLogoUrl(ctx, m.logo)],
        ['payment_type', m.streamlinePaymentType],
      ] as [string, string][]);
      return send(reply, renderList(records, formatOf(request), 'banks', 'bank'));
    },
  );

  app.post<{ Body: Form }>(
    '/apd/webcurrencyexchange',
    { config: { streamline: { defaultFormat: 'json', errorShape: 'standard' } }, schema: { hide: true } },
    async (request, reply) => {
      const form = request.body;
      await streamlineAuth(ctx, form.x_login, form.x_trans_key, ['web_status', 'deposits']);
      const code = country(form, 'x_country');
      const amountText = optional(form, 'x_amount', 20) || '1';
      const amount = parseAmount(amountText.trim());
      if (!amount.ok) throw new StreamlineError(300, `Invalid parameter: x_amount ${amount.reason}`);
      const currency = getCountry(code)!.currency;
      const rate = await usdRate(ctx.db, ctx.config, currency);
      const local = await convert(ctx.db, ctx.config, amount.value, 'USD', currency, minorUnits(currency));
      if (!rate || !local) throw new StreamlineError(506, `No exchange rate for ${currency}`);
      return sendRecord(request, reply, [
        ['x_country', code],
        ['x_amount', toFixed(amount.value, 2)],
        ['currency', currency],
        ['rate', toPlainString(rate)],
        ['local_amount', formatMinor(local, currency)],
      ]);
    },
  );
}
