// The home page (today's figures and the balances) and the payment methods page.
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../config/context.ts';
import { isCountryAccepted } from '../../domain/countries.ts';
import { methodsForCountry } from '../../domain/catalog.ts';
import { servedMethods } from '../../connectors/registry.ts';
import { merchantBalances } from '../../ledger/ledger.ts';
import { allUsdRates } from '../../lookups/exchange-rates.ts';
import { homeStats } from '../services/stats.ts';
import type { PanelGate } from './gate.ts';
import { countryOptions } from './lists.ts';
import * as V from '../views/pages.ts';

export function registerHome(app: FastifyInstance, ctx: AppContext, gate: PanelGate): void {
  const { route: panelRoute } = gate;

  app.get('/panel', panelRoute('view', async (c) => {
    const [stats, balances] = await Promise.all([homeStats(ctx.db, c.s.actor.merchantId, ctx.now()), merchantBalances(ctx.db, c.s.actor.merchantId)]);
    return V.homePage(c.f, { stats, balances });
  }));

  app.get('/panel/methods', panelRoute('view', async (c) => {
    const country = c.query.country && isCountryAccepted(c.query.country.toUpperCase()) ? c.query.country.toUpperCase() : 'BR';
    const served = await servedMethods(ctx, country);
    return V.methodsPage(c.f, { country, countries: countryOptions(), methods: methodsForCountry(country).filter((m) => served.has(m.code)), rates: await allUsdRates(ctx.db, ctx.config) });
  }));
}
