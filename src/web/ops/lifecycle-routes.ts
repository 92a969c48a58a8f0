// The console's routes for operators' lifecycle (src/operators/lifecycle.ts), registered by
// registerOps with its gate: admins disable, enable and reset other operators on the Operators
// page (a reset shows the admin a one-time enrolment link, never a secret); every operator changes
// their own password on My account. Who may act is checked again by
// the service, in the action's transaction; every form carries the CSRF token (the gate checks it).
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../config/context.ts';
import { parseId } from '../../domain/ids.ts';
import { OperatorError, PASSWORD_LENGTH } from '../../operators/accounts.ts';
import { actorOf } from '../../operators/auth.ts';
import { changeOwnPassword, MAX_PASSWORD, resetOperator, setOperatorDisabled } from '../../operators/lifecycle.ts';
import type { OpsAction } from '../../operators/roles.ts';
import { fillText } from '../view-helpers.ts';
import type { OpsStrings } from './i18n.ts';
import { accountPage, enrolmentLinkCard, untilText } from './lifecycle-views.ts';
import type { Ctx, OpsRouteHandler, Result } from './route-types.ts';
import type { operatorsPage, Page } from './views.ts';

export interface LifecycleKit {
  opsRoute(action: OpsAction, handler: (c: Ctx) => Promise<Result>): OpsRouteHandler;
  operatorsView(c: Ctx, o?: Omit<Parameters<typeof operatorsPage>[1], 'operators' | 'tokens'>, status?: number): Promise<Page>;
}

const FAILURE: Record<string, [keyof OpsStrings, number]> = {
  not_found: ['operatorNotFound', 404],
  forbidden: ['forbiddenTitle', 403],
  self: ['selfAction', 409],
  last_admin: ['lastAdmin', 409],
};

export function registerOperatorLifecycle(app: FastifyInstance, ctx: AppContext, kit: LifecycleKit): void {
  const failed = (c: Ctx, err: unknown) => {
    if (!(err instanceof OperatorError) || !FAILURE[err.kind]) throw err;
    const [key, status] = FAILURE[err.kind]!;
    return kit.operatorsView(c, { error: c.f.t[key] }, status);
  };

  app.post('/ops/operators/:id/:what', kit.opsRoute('operators', async (c) => {
    const id = parseId(c.params.id);
    const what = c.params.what;
    if (id === null || !['disable', 'enable', 'reset'].includes(what!)) return kit.operatorsView(c, { error: c.f.t.operatorNotFound }, 404);
    const actor = actorOf(c.s);
    try {
      if (what === 'reset') {
        // The admin is given a one-time enrolment link for the operator, never a password nor a secret.
        const op = await resetOperator(ctx.db, ctx.box, id, actor, ctx.now());
        const text = fillText(c.f.t.resetLink, { email: op.email, until: untilText(op.enrolment.expiresAt) });
        return kit.operatorsView(c, { lifecycle: enrolmentLinkCard(text, `${ctx.config.publicBaseUrl}${op.enrolment.path}`) });
      }
      const op = await setOperatorDisabled(ctx.db, id, what === 'disable', actor, ctx.now());
      return kit.operatorsView(c, { notice: fillText(what === 'disable' ? c.f.t.operatorDisabled : c.f.t.operatorEnabled, { email: op.email }) });
    } catch (err) {
      return failed(c, err);
    }
  }));

  app.get('/ops/account', kit.opsRoute('view', async (c) => accountPage(c.f, {})));

  app.post('/ops/account/password', kit.opsRoute('view', async (c) => {
    const t = c.f.t;
    const str = (k: string) => (typeof c.body[k] === 'string' ? c.body[k]! : '');
    if (str('next') !== str('again')) return accountPage(c.f, { error: t.passwordMismatch, status: 400 });
    const r = await changeOwnPassword(ctx, c.s, str('current'), str('code').trim().slice(0, 20), str('next'));
    if (r.ok) return accountPage(c.f, { notice: t.passwordChanged });
    if (r.reason === 'locked') return { redirect: '/ops/login' };
    const error = {
      invalid: t.wrongPasswordOrCode,
      short: fillText(t.passwordShort, { min: PASSWORD_LENGTH }),
      long: fillText(t.passwordLong, { max: MAX_PASSWORD }),
      same: t.passwordSame,
    }[r.reason];
    return accountPage(c.f, { error, status: r.reason === 'invalid' ? 401 : 400 });
  }));
}
