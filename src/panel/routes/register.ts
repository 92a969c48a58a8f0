// The merchant panel at /panel: server-rendered pages for a merchant's staff. Every handler
// loads a view model through the services (src/panel/services/, the deposits, cashouts, refunds,
// ledger and notifications services) and renders a template from src/panel/views/; no SQL and no
// business rule lives here. One module per area (sign-in, home, deposits, notifications,
// cashouts, balance, settings, team, account), each given the gate (./gate.ts) that every
// signed-in request passes.
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../config/context.ts';
import { panelGate } from './gate.ts';
import { registerSignIn } from './sign-in.ts';
import { registerHome } from './home.ts';
import { registerDeposits } from './deposits.ts';
import { registerNotifications } from './notifications.ts';
import { registerCashouts } from './cashouts.ts';
import { registerBalance } from './balance.ts';
import { registerSettings } from './settings.ts';
import { registerTeam } from './team.ts';
import { registerAccount } from './account.ts';

/** Registers the panel in its own encapsulated scope (its multipart parser and HTML errors stay here). */
export function registerPanel(app: FastifyInstance, ctx: AppContext): void {
  // The cashout CSV upload: the raw multipart body, parsed by the platform's FormData.
  app.addContentTypeParser('multipart/form-data', { parseAs: 'buffer', bodyLimit: 5 * 1024 * 1024 }, (_request, body, done) => done(null, body));

  const gate = panelGate(app, ctx);
  for (const area of [registerSignIn, registerHome, registerDeposits, registerNotifications, registerCashouts, registerBalance, registerSettings, registerTeam, registerAccount]) {
    area(app, ctx, gate);
  }
}
