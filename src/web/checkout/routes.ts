// The hosted checkout, /checkout/<token>: the redirect_url of HOSTED deposits and the link
// NewInvoice answers. Each handler loads the page's view model, asks the checkout service
// (deposits/checkout.ts) to act, and renders a template or redirects with 303 (so reloading a
// result page never re-posts a form):
//
//   GET  /checkout/<token>[?method=XX]   method list, or the payer fields of one method, or the
//                                        final state; a chosen method goes on to its next action:
//                                        its payment information at /pay/<token>, or the page its
//                                        charge redirects to (a card: the provider's card page)
//   POST /checkout/<token>               method + payer fields
//   GET  /checkout/<token>/card          the card page caja serves itself for a connector whose
//                                        kind declares one (src/connectors/kind.ts `cardPage`:
//                                        staging's card network's simulated page)
//   POST /checkout/<token>/card          card number, expiry, CVC, holder (that page's form)
//   POST /checkout/<token>/card/confirm  its 3-D Secure-like confirmation
// The card page hands the customer on to the return leg (src/web/checkout/return-leg.ts), which
// completes the deposit once the network confirms the payment: after a 3-D Secure step, the
// return leg settles it; an authorisation without one the network notifies at once.
//   POST /checkout/<token>/cancel        the customer cancels: back_url, or the streamline return
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../config/context.ts';
import { recordCardRefusal, settleCharge } from '../../deposits/return-leg.ts';
import { allowedMethods, cancelByCustomer, CheckoutError, chooseMethod, methodSettled, neededPayerFields, startCharge } from '../../deposits/checkout.ts';
import { returnPath } from '../../connectors/payin.ts';
import { ownCardPage } from '../../connectors/registry.ts';
import { checkCsrf, csrfInput, type FormName } from '../csrf.ts';
import { safeHref } from '../layout.ts';
import type { Loaded } from '../customer/view-model.ts';
import { pageLink } from '../customer/fragments.ts';
import { customerRoute, formRefused, type Rendered } from '../customer/route.ts';
import { cardPage, challengePage, type Csrf, detailsPage, finalPage, methodListPage, noMethodsPage, providerFormPage } from './views.ts';

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
      // payment_info shows the next action (a code, an account, a voucher) on the pay page.
      if (l.info) return { redirect: pageLink(l, `/pay/${l.d.token}`) };
      return goToAction(l);
    }
    const methods = await allowedMethods(ctx, l.d);
    if (methods.length === 0) return noMethodsPage(l);
    const method = methods.length === 1 ? methods[0] : methods.find((m) => m.code === wanted?.trim().toUpperCase());
    if (!method) return methodListPage(l, methods, csrf, base());
    return detailsPage(l, { method, needed: neededPayerFields(l.d, method), canChange: methods.length > 1 }, csrf, base());
  }

  /** The provider's page the charge's next action names; our own keep the page's language and frame. */
  async function goToAction(l: Loaded): Promise<Rendered> {
    let action;
    try {
      action = await startCharge(ctx, l.d.token);
    } catch (err) {
      if (err instanceof CheckoutError && err.problem === 'provider_unavailable') return noMethodsPage(l, l.t.probProviderUnavailable);
      if (err instanceof CheckoutError && err.problem === 'method_unavailable') return noMethodsPage(l, l.t.probMethodUnavailable);
      return problemRedirect(l, err);
    }
    if (!action || (action.type !== 'redirect' && action.type !== 'challenge')) return noMethodsPage(l, l.t.probMethodUnavailable);
    // Only a web address a browser may be sent to (never javascript: or data:).
    const target = safeHref(action.url);
    if (!target) return noMethodsPage(l, l.t.probMethodUnavailable);
    // A provider's page that takes a form: the customer's browser posts it there.
    if (action.method === 'POST') return providerFormPage(l, target, action.data ?? {});
    // One of caja's own pages (staging's card page) keeps the page's language and frame.
    const url = new URL(target);
    const ours = url.origin === new URL(base()).origin;
    return { redirect: ours ? pageLink(l, url.pathname, Object.fromEntries(url.searchParams)) : target };
  }

  app.get('/checkout/:token', { schema: { hide: true } }, customerRoute(ctx, (l, request) => show(l, request.query.method)));

  /** The deposit's card charge at a connector whose card page caja serves, while that page may take a card. */
  const ownCardCharge = (l: Loaded) => {
    if (l.phase !== 'payable' || l.method?.kind !== 'card' || !l.d.connector || !l.d.connector_reference) return null;
    const page = ownCardPage(ctx.config, l.d.connector);
    return page ? { page, connector: l.d.connector, reference: l.d.connector_reference } : null;
  };

  app.get(
    '/checkout/:token/card',
    { schema: { hide: true } },
    customerRoute(ctx, (l) => {
      if (l.d.checkout_type !== 'HOSTED') return null;
      return ownCardCharge(l) ? cardPage(l, {}, csrfOf(l), base()) : { redirect: here(l) };
    }),
  );

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
        const charge = ownCardCharge(l);
        if (!charge) return { redirect: here(l) };
        const { page, connector, reference } = charge;
        const r = await page.pay(ctx, reference, l.method!.code, { number: body.number, expiry: body.expiry, cvc: body.cvc, holder: body.holder });
        switch (r.kind) {
          case 'authorised':
            // Authorised without a challenge: the network notifies it at once (read back and
            // applied by the deposit service), then the customer returns through the return leg.
            await settleCharge(ctx, connector, l.d.token, {});
            return { redirect: pageLink(l, returnPath(connector, l.d.token)) };
          case 'challenge':
            return challengePage(l, r.detail, csrfOf(l));
          case 'declined':
            // The network's word that it refused the card, as an acquirer notifies a refusal: the
            // deposit stays payable and shows it (card_refusal).
            await recordCardRefusal(ctx, connector, reference, { reason: 'card declined', reasonCode: null });
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
      const charge = ownCardCharge(l);
      if (!charge) return { redirect: here(l) };
      const { page, connector, reference } = charge;
      const detail = await page.openChallenge(ctx, reference);
      if (!detail || !(await page.answerChallenge(ctx, reference, body.decision === 'approve'))) return { redirect: here(l) };
      if (body.decision === 'approve') return { redirect: pageLink(l, returnPath(connector, l.d.token)) };
      await recordCardRefusal(ctx, connector, reference, { reason: '3-D Secure not confirmed', reasonCode: null });
      return cardPage(l, { alert: l.t.challengeFailed, holder: detail.card_holder }, csrfOf(l), base());
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
