// The signed-in person's account: password and TOTP.
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../config/context.ts';
import { changePassword, confirmTotp, disableTotp, pendingTotpSecret, startTotp } from '../services/auth.ts';
import { otpauthUri } from '../../backoffice/totp.ts';
import type { Ctx, PanelGate } from './gate.ts';
import * as V from '../views/pages.ts';

export function registerAccount(app: FastifyInstance, ctx: AppContext, gate: PanelGate): void {
  const { route: panelRoute, sessionCookie } = gate;

  const accountView = async (c: Ctx, extra: Partial<Parameters<typeof V.accountPage>[1]> = {}) => {
    const secret = await pendingTotpSecret(ctx, c.s);
    return V.accountPage(c.f, {
      totpEnabled: c.s.totpEnabled, totpSecret: secret, totpUri: secret ? otpauthUri(secret, c.s.actor.email) : undefined,
      done: c.query.done === 'password' ? c.f.t.passwordChanged : c.query.done === 'totp' ? c.f.t.totpOn : c.query.done ? c.f.t.done : undefined, ...extra,
    });
  };

  app.get('/panel/account', panelRoute('view', async (c) => accountView(c)));

  app.post('/panel/account/password', panelRoute('view', async (c) => {
    const r = await changePassword(ctx, c.s, c.body.current ?? '', c.body.next ?? '', c.body.confirm ?? '', c.request.headers['user-agent'] ?? null);
    if (!r.ok) return accountView(c, { error: { current: c.f.t.pwCurrent, short: c.f.t.pwShort, mismatch: c.f.t.pwMismatch }[r.error] });
    sessionCookie(c.reply, r.token);
    return { redirect: '/panel/account?done=password' };
  }));

  app.post('/panel/account/totp/start', panelRoute('view', async (c) => {
    if (!c.s.totpEnabled) await startTotp(ctx, c.s);
    return { redirect: '/panel/account' };
  }));

  app.post('/panel/account/totp/confirm', panelRoute('view', async (c) => {
    if (!(await confirmTotp(ctx, c.s, c.body.code ?? ''))) return accountView(c, { totpError: c.f.t.badCode });
    return { redirect: '/panel/account?done=totp' };
  }));

  app.post('/panel/account/totp/disable', panelRoute('view', async (c) => {
    if (!(await disableTotp(ctx, c.s, c.body.password ?? ''))) return accountView(c, { error: c.f.t.pwCurrent });
    return { redirect: '/panel/account?done=1' };
  }));
}
