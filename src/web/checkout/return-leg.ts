// The return leg: GET|POST /connectors/<name>/return/<token>, where a provider's page (a hosted
// card page, a 3-D Secure challenge, staging's simulated card page) sends the customer back. The
// query or form it brings is handed to the connector, never believed: the deposit service reads
// the result back from the provider and completes the deposit (src/deposits/return-leg.ts).
// Then the customer sees the checkout as it now is (paid, or the card page again after a
// decline). A return naming an unknown deposit or connector, or a deposit that connector did not
// charge, is the 404 page; a provider that cannot be read, a 503 page (the customer may reload).
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../config/context.ts';
import { CheckoutError } from '../../deposits/checkout.ts';
import { settleCharge } from '../../deposits/return-leg.ts';
import { html } from '../html.ts';
import { pageLink, pageTop } from '../customer/fragments.ts';
import { customerRoute, type Rendered } from '../customer/route.ts';
import type { Loaded } from '../customer/view-model.ts';

const NAME = /^[a-z0-9_-]{1,32}$/;

/** Only flat text values are handed on (a provider's redirectResult, a payload): nothing else. */
function flatParams(...sources: unknown[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const src of sources) {
    if (!src || typeof src !== 'object') continue;
    for (const [k, v] of Object.entries(src as Record<string, unknown>)) if (typeof v === 'string' && k !== 'lang' && k !== 'iframe_view') out[k] = v;
  }
  return out;
}

export function registerReturnLeg(app: FastifyInstance, ctx: AppContext): void {
  const handler = customerRoute(ctx, async (l: Loaded, request): Promise<Rendered> => {
    const name = String((request.params as { name?: unknown }).name ?? '').toLowerCase();
    if (!NAME.test(name)) return null;
    try {
      await settleCharge(ctx, name, l.d.token, flatParams(request.query, request.body));
    } catch (err) {
      if (!(err instanceof CheckoutError)) throw err;
      if (err.problem === 'provider_unavailable') {
        return { title: l.t.errorTitle, status: 503, body: html`${pageTop(l, `/checkout/${l.d.token}`)}<section class="card"><h1>${l.t.errorTitle}</h1><p>${l.t.probProviderUnavailable}</p></section>` };
      }
      return null;
    }
    return { redirect: pageLink(l, `/checkout/${l.d.token}`) };
  });
  app.get('/connectors/:name/return/:token', { schema: { hide: true } }, handler);
  app.post('/connectors/:name/return/:token', { schema: { hide: true } }, handler);
}
