// The console's connectors list, reconciliation (imports, matches, exceptions and resolving one)
// and the operators' audit log. The reconciliation view is handed back for the statement uploads.
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../../config/context.ts';
import { parseId } from '../../../domain/ids.ts';
import { allConnectorViews } from '../../../connectors/store.ts';
import { stoppedOrders } from '../../../cashouts/payouts.ts';
import { listOpsAudit } from '../../../operators/audit.ts';
import { listExceptions, listImports, listMatches, matchesPerRule } from '../../../reconciliation/service.ts';
import * as V from '../views.ts';
import { resolveFromConsole } from '../statements.ts';
import type { Ctx, OpsKit, Result } from '../route-types.ts';
import { idOf, text } from './common.ts';

const AUDIT_PAGE = 50;

export type ReconView = (c: Ctx, o?: { notice?: string; error?: string; status?: number }) => Promise<Result>;

export function registerOpsReconciliation(app: FastifyInstance, ctx: AppContext, kit: OpsKit): { reconView: ReconView } {
  const { opsRoute, notFound } = kit;

  app.get('/ops/connectors', opsRoute('view', async (c) => V.connectorsPage(c.f, {
    connectors: (await allConnectorViews(ctx)).map((x) => ({ name: x.name, updatedAt: x.updatedAt, health: x.health as unknown as Record<string, unknown> })),
    stopped: await stoppedOrders(ctx.db),
  })));

  // ------------------------------------------------------------------ reconciliation (src/reconciliation/)

  const reconView = async (c: Ctx, o: { notice?: string; error?: string; status?: number } = {}) => {
    const [imports, perRule, matches, exceptions, resolved] = await Promise.all([
      listImports(ctx.db, { limit: 20 }), matchesPerRule(ctx.db), listMatches(ctx.db, { limit: 20 }),
      listExceptions(ctx.db, { status: 'open', limit: 100 }), listExceptions(ctx.db, { status: 'resolved', limit: 20 }),
    ]);
    const page = V.reconciliationPage(c.f, { imports: imports.rows, perRule, matches: matches.rows, exceptions: exceptions.rows, resolved: resolved.rows, ...o });
    return { ...page, status: o.status };
  };

  app.get('/ops/reconciliation', opsRoute('view', async (c) => reconView(c, { notice: c.query.done === 'resolved' ? c.f.t.resolvedNotice : undefined })));

  app.post('/ops/reconciliation/exceptions/:id/resolve', opsRoute('reconciliation', async (c) => {
    const id = idOf(c);
    if (id === null) return notFound(c);
    // The forms name their fields after the exception (several on one page): read them back by that prefix.
    const prefix = /^x\d{1,10}$/.test(c.body.prefix ?? '') ? c.body.prefix! : '';
    const at = (k: string) => text(c.body[`${prefix}-${k}`], 500);
    const action = c.body.action === 'match' ? 'match' : at('action');
    const body = action === 'match'
      ? { action, target: { type: at('type'), id: /^\d{1,10}$/.test(at('target')) ? Number(at('target')) : at('target') } }
      : { action, ...(at('reason') ? { reason: at('reason') } : {}) };
    return resolveFromConsole(ctx, c, id, body, reconView);
  }));

  app.get('/ops/audit', opsRoute('view', async (c) => {
    const before = c.query.before ? parseId(c.query.before) : undefined;
    if (before === null) return notFound(c);
    const rows = await listOpsAudit(ctx.db, { before, limit: AUDIT_PAGE + 1 });
    return V.auditPage(c.f, { rows: rows.slice(0, AUDIT_PAGE), next: rows.length > AUDIT_PAGE ? rows[AUDIT_PAGE - 1]!.id : null });
  }));

  return { reconView };
}
