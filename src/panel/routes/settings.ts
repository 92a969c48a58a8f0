// Settings → API access: the credential logins, their rotation, the merchant's URLs and framing, a test notification.
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../config/context.ts';
import { checkFrameOrigins, frameOriginsInEffect } from '../../domain/frame-origins.ts';
import { checkCallbackUrl } from '../../domain/urls.ts';
import { getMerchant, MAX_ROTATION_GRACE_HOURS, rotateCredentials, rotationGraceHours, updateMerchant } from '../../merchants/merchants.ts';
import { entry } from '../services/audit.ts';
import { credentialLogins } from '../services/credentials.ts';
import { can, isCredentialSet, rotateAction } from '../services/roles.ts';
import { sendTestNotification } from '../services/test-notification.ts';
import type { Ctx, PanelGate } from './gate.ts';
import * as V from '../views/pages.ts';

export function registerSettings(app: FastifyInstance, ctx: AppContext, gate: PanelGate): void {
  const { route: panelRoute, notFound, forbidden } = gate;

  async function apiView(c: Ctx, extra: Partial<Parameters<typeof V.apiPage>[1]> = {}): Promise<V.Page> {
    const merchant = (await getMerchant(ctx.db, c.s.actor.merchantId))!;
    const logins = await credentialLogins(ctx.db, c.s.actor.merchantId);
    return V.apiPage(c.f, {
      logins,
      urls: {
        notification_url: merchant.notification_url ?? '', return_url: merchant.return_url ?? '', logo_url: merchant.logo_url ?? '',
        frame_origins: merchant.frame_origins === null ? '' : merchant.frame_origins.length ? merchant.frame_origins.join(' ') : 'none',
      },
      frameOriginsInEffect: frameOriginsInEffect(merchant, ctx.config),
      urlErrors: {},
      baseUrl: ctx.config.publicBaseUrl, done: c.query.done ? c.f.t.urlsSaved : undefined, ...extra,
    });
  }

  app.get('/panel/settings/api', panelRoute('api.view', async (c) => apiView(c)));

  // Rotation is the only way a set's secrets are shown: the role table decides per set, for the
  // confirmation page and for the post alike.
  app.get('/panel/settings/api/rotate', panelRoute('api.view', async (c) => {
    const set = c.query.set;
    if (!isCredentialSet(set)) return notFound(c);
    if (!can(c.s.actor.role, rotateAction(set))) return forbidden(c);
    return V.rotateConfirmPage(c.f, set);
  }));

  app.post('/panel/settings/api/rotate', panelRoute('api.view', async (c) => {
    const set = c.body.set;
    if (!isCredentialSet(set)) return notFound(c);
    if (!can(c.s.actor.role, rotateAction(set))) return forbidden(c);
    // The confirm page offers 0 (leaked: at once) to 168 hours; anything else is the default.
    const asked = Number(c.body.grace_hours);
    const grace = rotationGraceHours(set, c.body.grace_hours !== undefined && asked >= 0 && asked <= MAX_ROTATION_GRACE_HOURS ? asked : undefined);
    const r = await rotateCredentials(ctx.db, ctx.box, c.s.actor.merchantId, set, ctx.cache, entry(c.s.actor, 'credentials.rotated', `credentials:${set}`, { grace_hours: grace }, ctx.now()), grace);
    const issued = r!.credentials as Record<string, unknown>;
    const values = (set === 'read_only' ? { read_only_key: issued.read_only_key } : issued[set]) as Record<string, string>;
    return V.rotatedPage(c.f, set, values, r!.previousValidUntil);
  }));

  app.post('/panel/settings/urls', panelRoute('settings.edit', async (c) => {
    const errors: Record<string, string> = {};
    const patch: { notification_url?: string | null; return_url?: string | null; logo_url?: string | null; frame_origins?: string[] | null } = {};
    for (const k of ['notification_url', 'return_url', 'logo_url'] as const) {
      const v = c.body[k]?.trim() ?? '';
      if (v === '') patch[k] = null;
      else {
        const reason = checkCallbackUrl(v, ctx.config);
        if (reason) errors[k] = reason;
        else patch[k] = v;
      }
    }
    // Origins separated by spaces or commas; empty: the default (the URLs' origins); "none": no site.
    const framing = (c.body.frame_origins ?? '').trim();
    if (framing === '') patch.frame_origins = null;
    else if (framing.toLowerCase() === 'none') patch.frame_origins = [];
    else {
      const r = checkFrameOrigins(framing.split(/[\s,]+/).filter(Boolean), ctx.config);
      if ('reasons' in r) errors.frame_origins = r.reasons.join('; ');
      else patch.frame_origins = r.origins;
    }
    if (Object.keys(errors).length) {
      const b = c.body;
      return apiView(c, { urlErrors: errors, urls: { notification_url: b.notification_url ?? '', return_url: b.return_url ?? '', logo_url: b.logo_url ?? '', frame_origins: b.frame_origins ?? '' } });
    }
    await updateMerchant(ctx.db, c.s.actor.merchantId, patch, ctx.cache, entry(c.s.actor, 'settings.urls_changed', null, patch, ctx.now()));
    return { redirect: '/panel/settings/api?done=urls' };
  }));

  app.post('/panel/settings/test-notification', panelRoute('notifications', async (c) => apiView(c, { test: await sendTestNotification(ctx, c.s.actor) })));
}
