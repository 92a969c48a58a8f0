// Forgery protection for the customer pages' forms. There is no login and no session: a page is
// reached by its deposit's unguessable token, and may be framed by the merchant, where browsers
// withhold cookies from cross-site frames. So two checks, neither needing a cookie:
// - every form carries a token bound to the deposit and the form (a keyed hash under the master
//   key, the same on every instance), so a post names the page it came from;
// - a post whose Origin header names another site (or the opaque "null" of sandboxed frames and
//   data: pages) is refused, which is what stops a cross-site form from acting for the customer.
import type { FastifyRequest } from 'fastify';
import type { AppContext } from '../config/context.ts';
import { safeEqualText } from '../domain/secrets.ts';
import { html, type SafeHtml } from './html.ts';

export type FormName = 'method' | 'card' | 'challenge' | 'cancel' | 'simulate';

function csrfToken(ctx: AppContext, token: string, form: FormName): string {
  return ctx.box.hash(`csrf|${form}|${token}`);
}

export function csrfInput(ctx: AppContext, token: string, form: FormName): SafeHtml {
  return html`<input type="hidden" name="csrf" value="${csrfToken(ctx, token, form)}">`;
}

/** True when the post comes from our own page for this deposit and form. */
export function checkCsrf(ctx: AppContext, request: FastifyRequest, token: string, form: FormName, sent: string | undefined): boolean {
  const origin = request.headers.origin;
  if (origin !== undefined) {
    const ours = new Set([new URL(ctx.config.publicBaseUrl).origin, `${request.protocol}://${request.headers.host}`]);
    if (!ours.has(origin)) return false;
  }
  return typeof sent === 'string' && safeEqualText(csrfToken(ctx, token, form), sent);
}
