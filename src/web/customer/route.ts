// The route every customer page runs through: loads the view model by the page's token, renders
// or redirects with the page's security headers, and answers any failure with a page in the
// customer's language.
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../../config/context.ts';
import { frameAncestors } from '../../domain/frame-origins.ts';
import { unavailableAnswer } from '../../http/errors.ts';
import { langFromAcceptLanguage, strings, type Lang } from '../i18n.ts';
import { html, type SafeHtml } from '../html.ts';
import { newNonce, renderPage, safeHref, sendHtml } from '../layout.ts';
import { load, type Loaded } from './view-model.ts';
import { pageTop } from './fragments.ts';

/** A post without a valid form token, or from another site. */
export function formRefused(l: Loaded): Rendered {
  return { title: l.t.errorTitle, status: 403, body: html`${pageTop(l, `/pay/${l.d.token}`)}<section class="card"><h1>${l.t.errorTitle}</h1><p>${l.t.formExpired}</p></section>` };
}

function messagePage(lang: Lang, title: string, text: string, nonce: string): SafeHtml {
  return renderPage({ lang, title, nonce, body: html`<section class="card"><h1>${title}</h1><p>${text}</p></section>` });
}

/** What a page handler answers: a page, a redirect (303, so a POST becomes a GET), or 404. */
export type Rendered = { title: string; body: SafeHtml; status?: number; script?: boolean } | { redirect: string } | null;

type TokenRequest = FastifyRequest<{ Params: { token: string }; Querystring: Record<string, string | undefined>; Body: Record<string, string | undefined> }>;

/** Origins our forms' posts may go or redirect to: the merchant's URLs for this deposit, and the provider's page its next action posts to. */
function redirectOrigins(l: Loaded): string[] {
  const a = l.nextAction;
  const urls = [l.d.back_url, l.d.success_url, l.d.error_url, a.type === 'redirect' || a.type === 'challenge' ? a.url : null];
  const origins = urls.map((u) => safeHref(u)).filter((u): u is string => !!u).map((u) => new URL(u).origin);
  return [...new Set(origins)];
}

/**
 * A customer page route: loads the view model (404 for an unknown token), renders or redirects,
 * and turns any failure into a page in the customer's language, never a stack trace.
 */
export function customerRoute(
  ctx: AppContext,
  handler: (l: Loaded, request: TokenRequest) => Promise<Rendered> | Rendered,
): (request: TokenRequest, reply: FastifyReply) => Promise<FastifyReply> {
  return async (request, reply) => {
    const nonce = newNonce();
    const fallbackLang = langFromAcceptLanguage(request.headers['accept-language']);
    const input = { ...request.query, ...(request.body && typeof request.body === 'object' ? request.body : {}) };
    try {
      const l = await load(ctx, request.params.token, {
        lang: input.lang,
        acceptLanguage: request.headers['accept-language'],
        iframe: /^(1|true)$/i.test(input.iframe_view ?? ''),
      });
      const out = l ? await handler(l, request) : null;
      if (!l || out === null) {
        const t = strings(l?.lang ?? fallbackLang);
        return sendHtml(reply, messagePage(l?.lang ?? fallbackLang, t.notFoundTitle, t.notFound, nonce), { status: 404, nonce });
      }
      if ('redirect' in out) return reply.status(303).header('cache-control', 'no-store').header('referrer-policy', 'same-origin').redirect(out.redirect, 303);
      const html = renderPage({
        lang: l.lang, title: `${out.title} · ${l.merchantName}`, body: out.body, nonce, script: out.script,
        embedded: l.embedded,
      });
      const logo = safeHref(l.merchantLogo);
      return sendHtml(reply, html, {
        status: out.status,
        nonce,
        // Only the merchant's own sites may frame it (its setting, else the origins of its
        // notification and return URLs); without any, nobody: 'none' and X-Frame-Options DENY.
        frameAncestors: l.embedded ? frameAncestors(l.frameOrigins) : undefined,
        formAction: ["'self'", ...redirectOrigins(l)],
        imgSources: logo ? [new URL(logo).origin] : [],
      });
    } catch (err) {
      const t = strings(fallbackLang);
      // The database is unavailable (failover): the page says to try again in a moment, as a 503.
      const unavailable = unavailableAnswer(err);
      if (unavailable) {
        request.log.warn({ err }, 'database unavailable');
        reply.header('retry-after', String(unavailable.retryAfterSeconds));
        return sendHtml(reply, messagePage(fallbackLang, t.errorTitle, t.error, nonce), { status: unavailable.status, nonce });
      }
      // Never a stack trace to a customer; the log has it.
      request.log.error({ err }, 'customer page failed');
      return sendHtml(reply, messagePage(fallbackLang, t.errorTitle, t.error, nonce), { status: 500, nonce });
    }
  };
}
