// The API Pix kind (BR/IX through a PSP, src/connectors/kind.ts): what caja knows about it, from
// its settings to the words of its admin routes.
import type { ConnectorKind } from '../kind.ts';
import { buildPixConnector, PIX_CONNECTOR } from './connector.ts';
import { newIdEnvio, parseSendHints } from './payout-mapping.ts';
import { PIX_INTERVALS, validatePixConfig } from './settings.ts';
import { callbackUrl, pixView } from './view.ts';
import { pixAccountId } from './day.ts';

const when = { type: ['string', 'null'] } as const;

export const pixKind: ConnectorKind = {
  name: PIX_CONNECTOR,
  label: 'Pix',
  serves: [{ country: 'BR', method: 'IX' }],
  build: buildPixConnector,
  // BR cashouts, when its configuration has a payouts block (./payouts.ts: Efí's send API).
  paysOut: ['BR'],
  newPayoutReference: newIdEnvio,
  payoutHints: (body) => parseSendHints(body).map((h) => ({ reference: h.idEnvio, providerId: h.e2eId })),
  refunds: true,
  matchKey: 'payment_id',
  statements: true,
  // The PSP account as its statements (fetched or uploaded from the provider) name it.
  statementAccounts: (stored) => (stored.settings.pix_key ? [pixAccountId(stored.settings.pix_key)] : []),
  intervals: PIX_INTERVALS,
  settings: {
    fields: [
      { name: 'api_url', endpoint: true }, { name: 'token_url', endpoint: true }, { name: 'client_id' }, { name: 'client_secret', secret: true }, { name: 'pix_key' },
      { name: 'certificate', multiline: true, endpoint: true }, { name: 'private_key', secret: true, multiline: true }, { name: 'ca', multiline: true, optional: true, endpoint: true },
      // BR cashouts as Pix sends (JSON: {"max_amount": "5000.00", "check_seconds": 60, …}; docs/connectors.md "Pix payouts").
      { name: 'payouts', multiline: true, optional: true },
    ],
    validate(body) {
      const r = validatePixConfig(body);
      return r.ok ? { ok: true, settings: { ...r.settings }, secrets: { ...r.secrets } } : r;
    },
    view: pixView,
    // The token and the webhook at once, so health says whether the PSP takes this configuration.
    async afterSave(ctx, connector, log) {
      if (!connector?.registerCallback) return;
      try {
        await connector.registerCallback(callbackUrl(ctx, PIX_CONNECTOR));
      } catch (err) {
        log.warn({ err }, 'Pix webhook registration failed; the connectors worker retries');
      }
    },
  },
  admin: {
    summaries: {
      put: 'Configure the API Pix connector (BR/IX through a PSP): {api_url, token_url, client_id, client_secret, certificate, private_key, ca?, pix_key, payouts?}',
      putDescription: 'Secrets (client_secret, private_key) are encrypted at rest and never answered. The webhook is registered at the PSP at once (best effort; see health).',
      get: 'The API Pix connector: configuration without secrets, and health',
      payments: 'Pix payments read from the PSP, newest first; status=unmatched: those no pending deposit took (expired, cancelled, other amount)',
    },
    configBody: {
      type: 'object',
      properties: {
        api_url: { type: 'string' }, token_url: { type: 'string' }, client_id: { type: 'string' }, client_secret: { type: 'string' },
        certificate: { type: 'string' }, private_key: { type: 'string' }, ca: { type: ['string', 'null'] }, pix_key: { type: 'string' },
        payouts: {
          type: ['object', 'null'],
          description: 'Optional: pay BR cashouts as Pix sends (Efí\'s send API) with {max_amount, daily_limit?, payer_key?, check_seconds?, info_pagador?}',
        },
      },
    },
    viewSchema: {
      type: 'object',
      required: ['api_url', 'token_url', 'client_id', 'pix_key', 'certificate', 'client_secret', 'private_key', 'updated_at', 'health'],
      properties: {
        api_url: { type: 'string' }, token_url: { type: 'string' }, client_id: { type: 'string' }, pix_key: { type: 'string' },
        certificate: { type: 'string', description: 'PEM of the client certificate (public)' }, ca: { type: 'string' },
        client_secret: { type: 'string', enum: ['(set)'], description: 'never answered' }, private_key: { type: 'string', enum: ['(set)'], description: 'never answered' },
        updated_at: { type: 'string' },
        payouts: {
          type: ['object', 'null'],
          description: 'BR cashouts paid as Pix sends through the same PSP (docs/connectors.md "Pix payouts"); null: payouts off',
          properties: {
            payer_key: { type: 'string' }, max_amount: { type: 'string' }, daily_limit: { type: 'string' }, check_seconds: { type: 'integer' }, info_pagador: { type: 'string' },
            health: {
              type: 'object',
              properties: {
                sends_in_flight: { type: 'integer' }, sends_stopped: { type: 'integer' }, last_send_at: when, last_send_error: when, last_send_error_at: when,
              },
            },
          },
        },
        health: {
          type: 'object',
          properties: {
            token_obtained: { type: 'boolean' }, token_obtained_at: when, webhook_registered: { type: 'boolean' }, webhook_registered_at: when,
            webhook_url: when, last_poll_at: when, last_poll_ok: { type: ['boolean', 'null'] }, polled_until: when, last_error: when, last_error_at: when,
          },
        },
      },
    },
    payments: {
      schema: {
        type: 'object',
        properties: {
          end_to_end_id: { type: 'string' }, txid: when, deposit_id: { type: ['integer', 'null'] }, amount: { type: 'string' }, currency: { type: 'string' },
          key: when, paid_at: { type: 'string' }, status: { type: 'string', enum: ['applied', 'unmatched'] }, reason: when,
          seen_via: { type: 'string', enum: ['webhook', 'poll'] }, recorded_at: { type: 'string' },
        },
      },
      row: (r) => ({
        end_to_end_id: r.payment_id, txid: r.charge_reference, deposit_id: r.deposit_id, amount: r.amount, currency: r.currency,
        key: r.receiver, paid_at: r.paid_at.toISOString(), status: r.status, reason: r.reason, seen_via: r.seen_via, recorded_at: r.created_at.toISOString(),
      }),
    },
  },
  cli: {
    savedNote: 'saved; running caja processes take it at once on PostgreSQL (else within CAJA_CACHE_SECONDS) and register the webhook at the PSP',
    help: { set: 'configure the API Pix connector' },
    resend: {
      resend: { what: 'refund', names: 'Pix devolução' },
      'resend-cashout': { what: 'cashout', names: 'Pix send', reference: 'idEnvio' },
    },
  },
};
