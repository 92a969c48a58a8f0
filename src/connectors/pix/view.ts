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
  return {
    ...view.settings,
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

