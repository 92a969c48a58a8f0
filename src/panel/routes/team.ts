// The team (invite, reset, remove) and the audit log.
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../config/context.ts';
import { parseId } from '../../domain/ids.ts';
import { listAudit } from '../services/audit.ts';
import { inviteUser, listTeam, removeUser, resetUser } from '../services/team.ts';
import type { PanelGate, Query } from './gate.ts';
import { PAGE_SIZE } from './lists.ts';
import * as V from '../views/pages.ts';

export function registerTeam(app: FastifyInstance, ctx: AppContext, gate: PanelGate): void {
  const { route: panelRoute, notFound } = gate;

  app.get('/panel/team', panelRoute('team', async (c) => V.teamPage(c.f, { members: await listTeam(ctx, c.s.actor.merchantId), done: c.query.done ? c.f.t.done : undefined })));

  app.post('/panel/team/invite', panelRoute('team', async (c) => {
    const r = await inviteUser(ctx, c.s.actor, c.body.email ?? '', c.body.role ?? '');
    const members = await listTeam(ctx, c.s.actor.merchantId);
    if (!r.ok) {
      const error = r.error === 'taken' ? c.f.t.inviteTaken : c.f.t.inviteBadEmail;
      return V.teamPage(c.f, { members, error, email: c.body.email, role: c.body.role });
    }
    return V.teamPage(c.f, { members, invited: { email: r.email, password: r.password } });
  }));

  app.post('/panel/team/:id/reset', panelRoute('team', async (c) => {
    const id = parseId((c.request.params as Query).id);
    const r = id === null ? null : await resetUser(ctx, c.s.actor, id);
    if (!r) return notFound(c);
    return V.teamPage(c.f, { members: await listTeam(ctx, c.s.actor.merchantId), invited: r, reset: true });
  }));

  app.post('/panel/team/:id/remove', panelRoute('team', async (c) => {
    const id = parseId((c.request.params as Query).id);
    if (id === null || !(await removeUser(ctx, c.s.actor, id))) return notFound(c);
    return { redirect: '/panel/team?done=removed' };
  }));

  app.get('/panel/audit', panelRoute('audit', async (c) => {
    if (c.query.before && parseId(c.query.before) === null) return V.messagePage(c.f, c.f.t.errorTitle, c.f.t.badRequest.replace('{reason}', 'bad cursor'), 400, c.f);
    const { rows, next } = await listAudit(ctx.db, c.s.actor.merchantId, parseId(c.query.before), PAGE_SIZE);
    return V.auditPage(c.f, { rows, next, before: c.query.before });
  }));
}
