// The console's exchange rates: the board, markups, a manual rate (four eyes outside the band), a fetch.
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../../config/context.ts';
import { ISO_CURRENCIES } from '../../../domain/countries.ts';
import { isPositive, parseAmount } from '../../../domain/money.ts';
import { actorOf } from '../../../operators/auth.ts';
import { parseMarkup } from '../../../rates/markup.ts';
import { fetchRates, rateBoard, setMarkup } from '../../../rates/service.ts';
import { setRatesOrRequest } from '../../../operators/four-eyes.ts';
import { configuredSources } from '../../../rates/sources.ts';
import * as V from '../views.ts';
import type { Ctx, OpsKit } from '../route-types.ts';
import { text } from './common.ts';

export function registerOpsRates(app: FastifyInstance, ctx: AppContext, kit: OpsKit): void {
  const { opsRoute } = kit;
  const sources = configuredSources(ctx.config);

  const ratesView = async (c: Ctx, o: { notice?: string; error?: string; status?: number } = {}) => {
    const b = await rateBoard(ctx, sources);
    return { ...V.ratesPage(c.f, { rates: b.rates, sources: b.sources, markups: b.markups, maxAgeHours: ctx.config.rates.maxAgeHours, ...o }), status: o.status };
  };

  app.get('/ops/rates', opsRoute('view', async (c) => ratesView(c, { notice: c.query.done === 'saved' ? c.f.t.saved : undefined })));

  const currencyOf = (c: Ctx) => {
    const cur = text(c.body.currency, 3).toUpperCase();
    return ISO_CURRENCIES.has(cur) && cur !== 'USD' ? cur : null;
  };

  app.post('/ops/rates/markup', opsRoute('rates.edit', async (c) => {
    const currency = currencyOf(c);
    const markup = parseMarkup(text(c.body.markup, 20));
    if (!currency || !markup.ok) return ratesView(c, { error: [!currency ? `${c.f.t.currency}: not an ISO 4217 currency other than USD` : '', !markup.ok ? `${c.f.t.markup}: ${markup.reason}` : ''].filter(Boolean).join('; '), status: 400 });
    await setMarkup(ctx, currency, markup.value, actorOf(c.s));
    return { redirect: '/ops/rates?done=saved' };
  }));

  app.post('/ops/rates/manual', opsRoute('rates.edit', async (c) => {
    const currency = currencyOf(c);
    const rate = parseAmount(text(c.body.rate, 40), { maxDecimals: 8, maxIntegerDigits: 16 });
    if (!currency || !rate.ok || !isPositive(rate.value)) {
      const wrong = !rate.ok ? `${c.f.t.rate}: ${rate.reason}` : !isPositive(rate.value) ? `${c.f.t.rate}: must be greater than 0` : '';
      return ratesView(c, { error: [!currency ? `${c.f.t.currency}: not an ISO 4217 currency other than USD` : '', wrong].filter(Boolean).join('; '), status: 400 });
    }
    // Production: outside the band around the source's last rate (or with none), a request a second operator approves.
    const done = await setRatesOrRequest(ctx, { [currency]: rate.value }, actorOf(c.s));
    return { redirect: done.pending.length ? '/ops/approvals?done=requested' : '/ops/rates?done=saved' };
  }));

  app.post('/ops/rates/fetch', opsRoute('rates.edit', async (c) => {
    const outcomes = await fetchRates(ctx, sources);
    return ratesView(c, { notice: c.f.t.fetched.replace('{result}', outcomes.map((o) => `${o.currency} ${o.result}${o.error ? ` (${o.error})` : ''}`).join(', ') || '—') });
  }));
}
