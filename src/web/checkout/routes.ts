// The hosted checkout, /checkout/<token>: the redirect_url of HOSTED deposits and the link
// NewInvoice answers. Each handler loads the page's view model, asks the checkout service
// (deposits/checkout.ts) to act, and renders a template or redirects with 303 (so reloading a
// result page never re-posts a form):
//
//   GET  /checkout/<token>[?method=XX]   method list, or the payer fields of one method, or the
//                                        card step, or the final state; a chosen non-card method
//                                        goes on to its payment information at /pay/<token>
//   POST /checkout/<token>               method + payer fields
//   POST /checkout/<token>/card          card number, expiry, CVC, holder (staging simulator)
//   POST /checkout/<token>/card/confirm  the 3-D Secure-like confirmation
//   POST /checkout/<token>/cancel        the customer cancels: back_url, or the streamline return
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../config/context.ts';
import {
  allowedMethods, cancelByCustomer, CheckoutError, chooseMethod, confirmCardChallenge, methodSettled, neededPayerFields, payByCard,
} from '../../deposits/checkout.ts';
import { checkCsrf, csrfInput, type FormName } from '../csrf.ts';
import { safeHref } from '../layout.ts';
import type { Loaded } from '../customer/view-model.ts';
import { pageLink } from '../customer/fragments.ts';
import { customerRoute, formRefused, type Rendered } from '../customer/route.ts';
import { cardPage, challengePage, type Csrf, detailsPage, finalPage, methodListPage, noMethodsPage } from './views.ts';

const FORMS: FormName[] = ['method', 'card', 'challenge', 'cancel', 'simulate'];

export function registerCheckout(app: FastifyInstance, ctx: AppContext): void {
  const base = () => ctx.config.publicBaseUrl;
  const csrfOf = (l: Loaded): Csrf => Object.fromEntries(FORMS.map((f) => [f, csrfInput(ctx, l.d.token, f)])) as Csrf;
  const here = (l: Loaded) => pageLink(l, `/checkout/${l.d.token}`);

  /** Where a finished checkout sends the customer next: the state of things, on this page. */
  const problemRedirect = (l: Loaded, err: unknown): Rendered => {
    if (!(err instanceof CheckoutError)) throw err;
    return { redirect: here(l) };
  };

  async function show(l: Loaded, wanted: string | undefined): Promise<Rendered> {
    if (l.d.checkout_type !== 'HOSTED') return null;
    if (l.phase !== 'payable') return finalPage(l, base());
    const csrf = csrfOf(l);
    if (methodSettled(l.d)) {
      if (l.method?.kind !== 'card') return { redirect: pageLink(l, `/pay/${l.d.token}`) };
      return l.staging ? cardPage(l, {}, csrf, base()) : noMethodsPage(l, l.t.probMethodUnavailable);
    }
    const methods = await allowedMethods(ctx, l.d);
    if (methods.length === 0) return noMethodsPage(l);
    const method = methods.length === 1 ? methods[0] : methods.find((m) => m.code === wanted?.trim().toUpperCase());
    if (!method) return methodListPage(l, methods, csrf, base());
    return detailsPage(l, { method, needed: neededPayerFields(l.d, method), canChange: methods.length > 1 }, csrf, base());
  }

  app.get('/checkout/:token', { schema: { hide: true } }, customerRoute(ctx, (l, request) => show(l, request.query.method)));

  app.post(
    '/checkout/:token',
    { schema: { hide: true } },
    customerRoute(ctx, async (l, request) => {
      const body = request.body ?? {};
      if (l.d.checkout_type !== 'HOSTED') return null;
      if (!checkCsrf(ctx, request, l.d.token, 'method', body.csrf)) return formRefused(l);
      try {
        const r = await chooseMethod(ctx, l.d.token, body.method ?? '', body);
        if (r.ok) return { redirect: pageLink(l, r.deposit.payment_info ? `/pay/${l.d.token}` : `/checkout/${l.d.token}`) };
        const methods = await allowedMethods(ctx, l.d);
        const method = methods.find((m) => m.code === body.method?.trim().toUpperCase())!;
        const values = body as Record<string, string | undefined>;
        return detailsPage(l, { method, needed: neededPayerFields(l.d, method), canChange: methods.length > 1, values, errors: r.errors }, csrfOf(l), base());
      } catch (err) {
        // The spec's error_url: where the customer goes when a method cannot be set up.
        // The method's provider refused or did not answer: nothing was set; the customer may retry.
        if (err instanceof CheckoutError && err.problem === 'provider_unavailable') {
          return methodListPage(l, await allowedMethods(ctx, l.d), csrfOf(l), base(), l.t.probProviderUnavailable);
        }
        if (err instanceof CheckoutError && err.problem === 'method_unavailable') {
          const out = safeHref(l.d.error_url);
          return out ? { redirect: out } : methodListPage(l, await allowedMethods(ctx, l.d), csrfOf(l), base(), l.t.probMethodUnavailable);
        }
        return problemRedirect(l, err);
      }
    }),
  );

  app.post(
    '/checkout/:token/card',
    { schema: { hide: true } },
    customerRoute(ctx, async (l, request) => {
      const body = request.body ?? {};
      if (l.d.checkout_type !== 'HOSTED') return null;
      if (!checkCsrf(ctx, request, l.d.token, 'card', body.csrf)) return formRefused(l);
      try {
        const r = await payByCard(ctx, l.d.token, { number: body.number, expiry: body.expiry, cvc: body.cvc, holder: body.holder });
        switch (r.kind) {
          case 'approved':
            return { redirect: here(l) };
          case 'challenge':
            return challengePage(l, r.challenge, csrfOf(l));
          case 'declined':
            return cardPage(l, { alert: l.t.cardDeclined, holder: body.holder, expiry: body.expiry }, csrfOf(l), base());
          case 'invalid':
            return cardPage(l, { errors: r.errors, holder: body.holder, expiry: body.expiry }, csrfOf(l), base());
        }
      } catch (err) {
        return problemRedirect(l, err);
      }
    }),
  );

  app.post(
    '/checkout/:token/card/confirm',
    { schema: { hide: true } },
    customerRoute(ctx, async (l, request) => {
      const body = request.body ?? {};
      if (l.d.checkout_type !== 'HOSTED') return null;
      if (!checkCsrf(ctx, request, l.d.token, 'challenge', body.csrf)) return formRefused(l);
      const detail = { card_holder: body.card_holder ?? '', masked_card: body.masked_card ?? '', brand: body.brand ?? '', expiration: body.expiration ?? '' };
      try {
        const r = await confirmCardChallenge(ctx, l.d.token, { detail, proof: body.proof ?? '' }, body.decision === 'approve');
        if (r.kind === 'approved') return { redirect: here(l) };
        return cardPage(l, { alert: l.t.challengeFailed, holder: detail.card_holder }, csrfOf(l), base());
      } catch (err) {
        return problemRedirect(l, err);
      }
    }),
  );

  app.post(
    '/checkout/:token/cancel',
    { schema: { hide: true } },
    customerRoute(ctx, async (l, request) => {
      const body = request.body ?? {};
      if (l.d.checkout_type !== 'HOSTED') return null;
      if (!checkCsrf(ctx, request, l.d.token, 'cancel', body.csrf)) return formRefused(l);
      try {
        await cancelByCustomer(ctx, l.d.token);
      } catch (err) {
        return problemRedirect(l, err);
      }
      // Streamline deposits (and merchants with a return URL) get the signed POST to x_return.
      if (l.d.return_url || l.merchantReturnUrl) return { redirect: `${base()}/return/${l.d.token}` };
      return { redirect: safeHref(l.d.back_url) ?? here(l) };
    }),
  );
}
