// The console's four-eyes queue: held cash-outs, open requests, their approval or rejection.
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../../config/context.ts';
import { ApprovalError, decide, heldCashouts, listApprovals, requestCashoutRelease } from '../../../operators/approvals.ts';
import { actorOf } from '../../../operators/auth.ts';
import * as V from '../views.ts';
import type { Ctx, OpsKit } from '../route-types.ts';
import { idOf, text } from './common.ts';

export function registerOpsApprovals(app: FastifyInstance, ctx: AppContext, kit: OpsKit): void {
  const { opsRoute, notFound } = kit;

  const approvalsView = async (c: Ctx, o: { notice?: string; error?: string } = {}) => {
    const [held, open, decided] = await Promise.all([heldCashouts(ctx.db), listApprovals(ctx.db, { status: 'pending' }), listApprovals(ctx.db, { status: 'decided', limit: 50 })]);
    return V.approvalsPage(c.f, { held, open, decided, ...o });
  };
  const approvalFailure = async (c: Ctx, err: unknown) => {
    if (!(err instanceof ApprovalError)) throw err;
    const page = await approvalsView(c, { error: err.message });
    return { ...page, status: err.kind === 'not_found' ? 404 : 409 };
  };

  app.get('/ops/approvals', opsRoute('view', async (c) => approvalsView(c, {
    notice: c.query.done === 'approve' ? c.f.t.approvedNotice : c.query.done === 'reject' ? c.f.t.rejectedNotice : c.query.done === 'requested' ? c.f.t.requested : undefined,
  })));

  app.post('/ops/approvals/cashouts/:id/request', opsRoute('money.request', async (c) => {
    const id = idOf(c);
    if (id === null) return notFound(c);
    try {
      await requestCashoutRelease(ctx, actorOf(c.s), id, text(c.body.note, 500));
      return { redirect: '/ops/approvals?done=requested' };
    } catch (err) {
      return approvalFailure(c, err);
    }
  }));

  for (const decision of ['approve', 'reject'] as const) {
    app.post(`/ops/approvals/:id/${decision}`, opsRoute('money.approve', async (c) => {
      const id = idOf(c);
      if (id === null) return notFound(c);
      try {
        await decide(ctx, actorOf(c.s), id, decision);
        return { redirect: `/ops/approvals?done=${decision}` };
      } catch (err) {
        return approvalFailure(c, err);
      }
    }));
  }
}
