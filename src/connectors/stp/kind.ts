// The STP kind (MX SPEI collections, cashouts and refunds, src/connectors/kind.ts): what caja
// knows about it, from its settings to the words of its admin routes.
import type { ConnectorKind } from '../kind.ts';
import { ConnectorError } from '../payin.ts';
import { recordHealth } from '../store.ts';
import { STP_CALLBACKS } from './callbacks.ts';
import { buildStpConnector, type StpConnector, STP_CONNECTOR } from './connector.ts';
import { newClaveRastreo } from './mapping.ts';
import { STP_INTERVALS, validateStpConfig } from './settings.ts';
import { stpView } from './view.ts';

const when = { type: ['string', 'null'] } as const;

export const stpKind: ConnectorKind = {
  name: STP_CONNECTOR,
  label: 'STP',
  serves: [{ country: 'MX', method: 'SE' }],
  build: buildStpConnector,
  paysOut: ['MX'],
  newPayoutReference: newClaveRastreo,
  refunds: true,
  matchKey: 'payment_id_head',
  statements: true,
  statementAccounts: (stored) => (stored.settings.ordering_clabe ? [stored.settings.ordering_clabe] : []),
  intervals: STP_INTERVALS,
  // POST /connectors/stp/abono (an incoming transfer) and /connectors/stp/estado (a sent order's state).
  callbacks: STP_CALLBACKS,
  settings: {
    fields: [
      { name: 'api_url', endpoint: true }, { name: 'empresa' }, { name: 'clabe_prefix' }, { name: 'ordering_clabe' }, { name: 'ordering_name' }, { name: 'ordering_rfc' },
      { name: 'private_key', secret: true, multiline: true }, { name: 'private_key_passphrase', secret: true },
      { name: 'webhook_secret', secret: true, optional: true }, { name: 'ca', multiline: true, optional: true, endpoint: true },
    ],
    validate(body) {
      const r = validateStpConfig(body);
      return r.ok ? { ok: true, settings: { ...r.settings }, secrets: { ...r.secrets } } : r;
    },
    view: stpView,
    // One signed consultation (the day's sent orders): STP takes the key and the empresa, or not.
    async afterSave(ctx, connector) {
      if (!connector) return;
      try {
        await (connector as StpConnector).client.ordersOfDay('E');
        await recordHealth(ctx, STP_CONNECTOR, { kind: 'token' });
      } catch (err) {
        if (!(err instanceof ConnectorError)) throw err;
        await recordHealth(ctx, STP_CONNECTOR, { kind: 'error', message: `check: ${err.message}` });
      }
    },
  },
  admin: {
    summaries: {
      put: 'Configure the STP connector (MX SPEI collections and cashouts): {api_url, empresa, private_key, private_key_passphrase, clabe_prefix, ordering_clabe, ordering_name, ordering_rfc, webhook_secret?, ca?}',
      putDescription: 'Secrets (private_key, private_key_passphrase, webhook_secret) are encrypted at rest and never answered. A signed consultation checks the key at once (see health).',
      get: 'The STP connector: configuration without secrets, and health',
      payments: 'Transfers STP received for deposits, newest first; status=unmatched: those returned or kept for the operator (unknown CLABE, overpaid, underpaid, expired)',
    },
    configBody: {
      type: 'object',
      properties: {
        api_url: { type: 'string' }, empresa: { type: 'string' }, private_key: { type: 'string' }, private_key_passphrase: { type: 'string' },
        clabe_prefix: { type: 'string' }, ordering_clabe: { type: 'string' }, ordering_name: { type: 'string' }, ordering_rfc: { type: 'string' },
        webhook_secret: { type: ['string', 'null'] }, ca: { type: ['string', 'null'] },
      },
    },
    viewSchema: {
      type: 'object',
      required: ['api_url', 'empresa', 'clabe_prefix', 'ordering_clabe', 'ordering_name', 'ordering_rfc', 'private_key', 'private_key_passphrase', 'webhook_secret', 'updated_at', 'health'],
      properties: {
        api_url: { type: 'string' }, empresa: { type: 'string' }, clabe_prefix: { type: 'string' }, ordering_clabe: { type: 'string' },
        ordering_name: { type: 'string' }, ordering_rfc: { type: 'string' }, ca: { type: 'string' },
        private_key: { type: 'string', enum: ['(set)'], description: 'never answered' },
        private_key_passphrase: { type: 'string', enum: ['(set)'], description: 'never answered' },
        webhook_secret: { type: ['string', 'null'], enum: ['(set)', null], description: 'never answered; null when STP posts are not required to carry one' },
        updated_at: { type: 'string' },
        health: {
          type: 'object',
          properties: {
            signature_accepted: { type: 'boolean' }, signature_accepted_at: when, abono_url: { type: 'string' }, estado_url: { type: 'string' },
            last_poll_at: when, last_poll_ok: { type: ['boolean', 'null'] }, polled_until: when,
            orders_sending: { type: 'integer' }, orders_sent: { type: 'integer' }, last_error: when, last_error_at: when,
          },
        },
      },
    },
    payments: {
      schema: {
        type: 'object',
        properties: {
          payment_id: { type: 'string', description: 'claveRastreo:institucionOrdenante:fechaOperacion' }, clabe: when, deposit_id: { type: ['integer', 'null'] },
          amount: { type: 'string' }, currency: { type: 'string' }, paid_at: { type: 'string' }, status: { type: 'string', enum: ['applied', 'unmatched'] },
          reason: when, seen_via: { type: 'string', enum: ['webhook', 'poll'] }, recorded_at: { type: 'string' },
        },
      },
      row: (r) => ({
        payment_id: r.payment_id, clabe: r.charge_reference, deposit_id: r.deposit_id, amount: r.amount, currency: r.currency,
        paid_at: r.paid_at.toISOString(), status: r.status, reason: r.reason, seen_via: r.seen_via, recorded_at: r.created_at.toISOString(),
      }),
    },
  },
  cli: {
    savedNote: 'saved; running caja processes take it at once on PostgreSQL (else within CAJA_CACHE_SECONDS) (MX SPEI deposits and cashouts go through STP)',
    help: { set: 'configure the STP connector, MX SPEI' },
    resend: { resend: { what: 'cashout', names: 'STP order' } },
  },
};
