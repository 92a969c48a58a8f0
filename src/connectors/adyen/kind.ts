// The Adyen kind: cards (hosted checkout, 3-D Secure), boleto and OXXO (src/connectors/kind.ts).
import type { ConnectorKind } from '../kind.ts';
import { ADYEN_ADMIN } from './admin.ts';
import { adyenNotifications } from './callbacks.ts';
import { ADYEN_CONNECTOR, buildAdyenConnector, servedPairs } from './connector.ts';
import { ADYEN_METHODS } from './mapping.ts';
import { validateAdyenConfig } from './settings.ts';
import { adyenView } from './view.ts';

/**
 * The Adyen kind (src/connectors/kind.ts), listed in src/connectors/providers.ts: its notifications
 * are its `callbacks` (./callbacks.ts), its chargebacks listing its `admin.disputes` (./admin.ts).
 */
export const adyenKind: ConnectorKind = {
  name: ADYEN_CONNECTOR,
  label: 'Adyen',
  serves: Object.entries(ADYEN_METHODS).flatMap(([country, m]) => Object.keys(m).map((method) => ({ country, method }))),
  servesOf: servedPairs,
  build: buildAdyenConnector,
  refunds: true,
  matchKey: 'payment_id',
  callbacks: [adyenNotifications],
  settings: {
    fields: [
      { name: 'endpoint' }, { name: 'live_prefix', optional: true, endpoint: true }, { name: 'api_url', optional: true, endpoint: true }, { name: 'merchant_account' },
      { name: 'api_key', secret: true }, { name: 'hmac_key', secret: true }, { name: 'hmac_key_next', secret: true, optional: true },
      { name: 'methods' }, { name: 'ca', multiline: true, optional: true, endpoint: true },
    ],
    validate(body) {
      const r = validateAdyenConfig(body);
      return r.ok ? { ok: true, settings: { ...r.settings }, secrets: { ...r.secrets } } : r;
    },
    view: (ctx) => adyenView({ ...ctx, now: () => new Date() }),
  },
  admin: ADYEN_ADMIN,
  cli: {
    help: { set: 'configure the Adyen connector (cards, boleto, OXXO)' },
    savedNote: 'saved; running caja processes take it at once on PostgreSQL (else within CAJA_CACHE_SECONDS); point Adyen\'s standard notification webhook at health.notification_url',
  },
};
