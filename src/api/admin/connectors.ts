// The operator's connectors: PUT/GET /admin/connectors/pix (configuration without secrets, plus
// health) and the Pix payments caja kept, e.g. those that matched no pending deposit.
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../config/context.ts';
import { PIX_CONNECTOR } from '../../connectors/pix/connector.ts';
import { validatePixConfig } from '../../connectors/pix/settings.ts';
import { registerPixWebhook } from '../../connectors/configure.ts';
import { keptPayments } from '../../deposits/payments.ts';
import { pixView } from '../../connectors/pix/view.ts';
import { registerConnectorAdmin } from './connector-routes.ts';

const when = { type: ['string', 'null'] } as const;
const pixViewSchema = {
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
} as const;
const paymentSchema = {
  type: 'object',
  properties: {
    end_to_end_id: { type: 'string' }, txid: when, deposit_id: { type: ['integer', 'null'] }, amount: { type: 'string' }, currency: { type: 'string' },
    key: when, paid_at: { type: 'string' }, status: { type: 'string', enum: ['applied', 'unmatched'] }, reason: when,
    seen_via: { type: 'string', enum: ['webhook', 'poll'] }, recorded_at: { type: 'string' },
  },
} as const;

const configBody = {
  type: 'object',
  properties: {
    api_url: { type: 'string' }, token_url: { type: 'string' }, client_id: { type: 'string' }, client_secret: { type: 'string' },
    certificate: { type: 'string' }, private_key: { type: 'string' }, ca: { type: ['string', 'null'] }, pix_key: { type: 'string' },
    payouts: {
      type: ['object', 'null'],
      description: 'Optional: pay BR cashouts as Pix sends (Efí\'s send API) with {max_amount, daily_limit?, payer_key?, check_seconds?, info_pagador?}',
    },
  },
} as const;

export function registerAdminConnectors(app: FastifyInstance, ctx: AppContext): void {
  registerConnectorAdmin(app, ctx, {
    name: PIX_CONNECTOR,
    label: 'Pix',
    summaries: {
      put: 'Configure the API Pix connector (BR/IX through a PSP): {api_url, token_url, client_id, client_secret, certificate, private_key, ca?, pix_key, payouts?}',
      putDescription: 'Secrets (client_secret, private_key) are encrypted at rest and never answered. The webhook is registered at the PSP at once (best effort; see health).',
      get: 'The API Pix connector: configuration without secrets, and health',
      payments: 'Pix payments read from the PSP, newest first; status=unmatched: those no pending deposit took (expired, cancelled, other amount)',
    },
    configBody,
    viewSchema: pixViewSchema,
    paymentSchema,
    validate: validatePixConfig,
    // Token and webhook right away, so the answer says whether the PSP takes this configuration.
    afterSave: registerPixWebhook,
    view: pixView,
    payments: async (ctx, status, limit) =>
      (await keptPayments(ctx.db, PIX_CONNECTOR, status, limit)).map((r) => ({
        end_to_end_id: r.payment_id, txid: r.charge_reference, deposit_id: r.deposit_id, amount: r.amount, currency: r.currency,
        key: r.receiver, paid_at: r.paid_at.toISOString(), status: r.status, reason: r.reason, seen_via: r.seen_via, recorded_at: r.created_at.toISOString(),
      })),
  });
}
