// The Adyen connector as the operator sees it (PUT/GET /admin/connectors/adyen, `caja connector
// adyen show`): its settings without api_key and the HMAC keys, where Adyen must post its
// notifications, and its health (last authorisation, last notification, failures).
import type { AppContext } from '../../config/context.ts';
import { connectorView } from '../store.ts';
import { ADYEN_CONNECTOR, adyenHealth } from './connector.ts';

/** Where Adyen posts its standard notifications (the webhook's URL in the Customer Area). */
export function notificationUrl(ctx: Pick<AppContext, 'config'>): string {
  return `${ctx.config.publicBaseUrl}/connectors/${ADYEN_CONNECTOR}/notifications`;
}

const iso = (d: Date | null) => (d ? d.toISOString() : null);

export async function adyenView(ctx: Pick<AppContext, 'db' | 'config' | 'now'>) {
  const view = await connectorView(ctx, ADYEN_CONNECTOR);
  if (!view) return null;
  const { methods, hmac_keys, ...settings } = view.settings;
  const h = await adyenHealth(ctx);
  return {
    ...settings,
    methods: JSON.parse(methods ?? '{}') as Record<string, string[]>,
    api_key: '(set)',
    hmac_key: '(set)',
    // Whether a second key is set is not secret (the settings say so); the key is.
    hmac_key_next: hmac_keys === '2' ? '(set)' : null,
    capture: 'immediate',
    updated_at: view.updatedAt.toISOString(),
    health: {
      notification_url: notificationUrl(ctx),
      last_authorisation_at: iso(h.last_authorisation_at), last_notification_at: iso(h.last_notification_at),
      refused_last_24h: h.refused_last_24h, refunds_failed_last_24h: h.refunds_failed_last_24h,
      last_error: h.last_error, last_error_at: iso(h.last_error_at),
    },
  };
}

