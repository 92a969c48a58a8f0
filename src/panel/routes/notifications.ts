// Notifications: the list and a resend.
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../config/context.ts';
import { listNotifications, resendNotification } from '../../notifications/store.ts';
import { parseId } from '../../domain/ids.ts';
import { entry } from '../services/audit.ts';
import type { PanelGate, Query } from './gate.ts';
import { PAGE_SIZE } from './lists.ts';
import * as V from '../views/pages.ts';

export function registerNotifications(app: FastifyInstance, ctx: AppContext, gate: PanelGate): void {
  const { route: panelRoute, notFound } = gate;

  app.get('/panel/notifications', panelRoute('notifications', async (c) => {
    const status = c.query.status;
    if (status && status !== 'pending' && status !== 'delivered' && status !== 'failed') {
      return V.messagePage(c.f, c.f.t.errorTitle, c.f.t.badRequest.replace('{reason}', 'unknown status'), 400, c.f);
    }
    const rows = await listNotifications(ctx.db, { merchantId: c.s.actor.merchantId, status: status || undefined, before: parseId(c.query.before) ?? undefined, limit: PAGE_SIZE + 1 });
    const next = rows.length > PAGE_SIZE ? Number(rows[PAGE_SIZE - 1]!.id) : null;
    return V.notificationsPage(c.f, { rows: rows.slice(0, PAGE_SIZE), next, q: c.query });
  }));

  app.post('/panel/notifications/:id/resend', panelRoute('notifications', async (c) => {
    const id = parseId((c.request.params as Query).id);
    const ok = id !== null && (await resendNotification(ctx.db, id, c.s.actor.merchantId, entry(c.s.actor, 'notification.resent', `notification:${id}`, {}, ctx.now())));
    if (!ok) return notFound(c);
    const deposit = parseId(c.query.deposit);
    return { redirect: deposit ? `/panel/deposits/${deposit}?done=resend` : '/panel/notifications?done=resend' };
  }));
}
