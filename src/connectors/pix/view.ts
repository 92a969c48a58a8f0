// The Pix connector as the operator sees it (PUT/GET /admin/connectors/pix, `caja connector pix
// show`): its settings without client_secret and private_key, and its health.
import type { AppContext } from '../../config/context.ts';
import { connectorView } from '../store.ts';
import { PIX_CONNECTOR } from './connector.ts';

/** Where a connector's provider posts its callbacks (Pix appends /pix). */
export function callbackUrl(ctx: Pick<AppContext, 'config'>, name: string): string {
  return `${ctx.config.publicBaseUrl}/connectors/${name}/webhook`;
}

const iso = (d: Date | null) => (d ? d.toISOString() : null);

/** The configuration as shown: settings (no client_secret, no private_key) and health. */
export async function pixView(ctx: Pick<AppContext, 'db' | 'config'>) {
  const view = await connectorView(ctx, PIX_CONNECTOR);
  if (!view) return null;
  const h = view.health;
  const payouts = view.settings.payouts ? await payoutsView(ctx, JSON.parse(view.settings.payouts)) : null;
  return {
    ...view.settings,
    payouts,
    client_secret: '(set)',
    private_key: '(set)',
    updated_at: view.updatedAt.toISOString(),
    health: {
      token_obtained: h.token_obtained_at !== null,
      token_obtained_at: iso(h.token_obtained_at),
      webhook_registered: h.webhook_registered_at !== null && h.webhook_url === callbackUrl(ctx, PIX_CONNECTOR),
      webhook_registered_at: iso(h.webhook_registered_at),
      webhook_url: h.webhook_url,
      last_poll_at: iso(h.last_poll_at),
      last_poll_ok: h.last_poll_ok,
      polled_until: iso(h.poll_until),
      last_error: h.last_error,
      last_error_at: iso(h.last_error_at),
    },
  };
}


/**
 * The payouts block as configured, with what the operator watches: the last send, the sends in
 * flight (handed over, not settled yet), those stopped (found at the PSP but not the cashout's)
 * and the last send error. Nothing secret.
 */
async function payoutsView(ctx: Pick<AppContext, 'db'>, settings: Record<string, unknown>) {
  const { rows } = await ctx.db.query<{ in_flight: string; stopped: string; last_send_at: Date | null; last_error: string | null; last_error_at: Date | null }>(
    `SELECT count(*) FILTER (WHERE state IN ('new', 'sending', 'sent') AND provider_state IS DISTINCT FROM 'REALIZADO') AS in_flight,
       count(*) FILTER (WHERE state = 'stopped') AS stopped,
       max(updated_at) FILTER (WHERE attempts > 0) AS last_send_at,
       (array_agg(last_error ORDER BY updated_at DESC) FILTER (WHERE last_error IS NOT NULL))[1] AS last_error,
       max(updated_at) FILTER (WHERE last_error IS NOT NULL) AS last_error_at
     FROM connector_payouts WHERE connector = $1`,
    [PIX_CONNECTOR],
  );
  const r = rows[0]!;
  return {
    ...settings,
    health: {
      sends_in_flight: Number(r.in_flight),
      sends_stopped: Number(r.stopped),
      last_send_at: iso(r.last_send_at ? new Date(r.last_send_at) : null),
      last_send_error: r.last_error,
      last_send_error_at: iso(r.last_error_at ? new Date(r.last_error_at) : null),
    },
  };
}
