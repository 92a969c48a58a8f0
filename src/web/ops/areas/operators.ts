// The console's operators and admin tokens: the list, a new operator (an enrolment link), tokens
// made, rotated and revoked. The operators' view is handed back for their lifecycle's actions.
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../../config/context.ts';
import { createOperator, listOperators, OperatorError } from '../../../operators/accounts.ts';
import { actorOf } from '../../../operators/auth.ts';
import { isOperatorRole } from '../../../operators/roles.ts';
import { createAdminToken, isTokenScope, listAdminTokens, revokeAdminToken, rotateAdminToken, TokenError } from '../../../operators/tokens.ts';
import * as V from '../views.ts';
import type { Ctx, OpsKit } from '../route-types.ts';
import { idOf, text } from './common.ts';

export function registerOpsOperators(app: FastifyInstance, ctx: AppContext, kit: OpsKit) {
  const { opsRoute, notFound } = kit;

  const operatorsView = async (c: Ctx, o: Omit<Parameters<typeof V.operatorsPage>[1], 'operators' | 'tokens'> = {}, status?: number) => ({
    ...V.operatorsPage(c.f, { operators: await listOperators(ctx.db), tokens: await listAdminTokens(ctx.db), ...o }),
    status,
  });

  app.get('/ops/operators', opsRoute('operators', async (c) => operatorsView(c)));

  app.post('/ops/operators', opsRoute('operators', async (c) => {
    const role = c.body.role;
    if (!isOperatorRole(role)) return operatorsView(c, { error: `${c.f.t.role}: ?` }, 400);
    try {
      const op = await createOperator(ctx.db, ctx.box, text(c.body.email, 320), role, actorOf(c.s), ctx.now());
      // The creator is given a one-time enrolment link, never the password nor the authenticator secret.
      return operatorsView(c, { made: { email: op.email, link: `${ctx.config.publicBaseUrl}${op.enrolment.path}`, until: op.enrolment.expiresAt } });
    } catch (err) {
      if (!(err instanceof OperatorError)) throw err;
      return operatorsView(c, { error: err.message }, 400);
    }
  }));

  app.post('/ops/tokens', opsRoute('operators', async (c) => {
    const name = text(c.body.name, 63);
    const scopes = text(c.body.scopes, 200).split(/[\s,]+/).filter(Boolean);
    if (!/^[a-z0-9][a-z0-9_.-]{0,62}$/.test(name) || scopes.length === 0 || !scopes.every(isTokenScope)) {
      return operatorsView(c, { error: `${c.f.t.name} / ${c.f.t.scopes}: ?` }, 400);
    }
    try {
      const t = await createAdminToken(ctx.db, ctx.box, name, scopes, actorOf(c.s), ctx.now());
      return operatorsView(c, { token: t.token });
    } catch (err) {
      if (!(err instanceof TokenError)) throw err;
      return operatorsView(c, { error: err.message }, 400);
    }
  }));

  for (const what of ['rotate', 'revoke'] as const) {
    app.post(`/ops/tokens/:id/${what}`, opsRoute('operators', async (c) => {
      const id = idOf(c);
      if (id === null) return notFound(c);
      try {
        if (what === 'rotate') return operatorsView(c, { token: (await rotateAdminToken(ctx.db, ctx.box, id, actorOf(c.s), ctx.now())).token });
        await revokeAdminToken(ctx.db, id, actorOf(c.s), ctx.now());
        return { redirect: '/ops/operators' };
      } catch (err) {
        if (!(err instanceof TokenError)) throw err;
        return notFound(c);
      }
    }));
  }

  return { operatorsView };
}
