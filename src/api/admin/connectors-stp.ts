// The STP connector's configuration: PUT/GET /admin/connectors/stp (admin token). Secrets
// (private_key, private_key_passphrase, webhook_secret) are sealed at rest and never answered.
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../config/context.ts';
import { STP_CONNECTOR } from '../../connectors/stp/connector.ts';
import { validateStpConfig } from '../../connectors/stp/settings.ts';
import { checkStp, stpPayments, stpView } from '../../connectors/stp/view.ts';
import { registerConnectorAdmin } from './connector-routes.ts';

const when = { type: ['string', 'null'] } as const;

const stpViewSchema = {
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
} as const;

const paymentSchema = {
  type: 'object',
  properties: {
    payment_id: { type: 'string', description: 'claveRastreo:institucionOrdenante:fechaOperacion' }, clabe: when, deposit_id: { type: ['integer', 'null'] },
    amount: { type: 'string' }, currency: { type: 'string' }, paid_at: { type: 'string' }, status: { type: 'string', enum: ['applied', 'unmatched'] },
    reason: when, seen_via: { type: 'string', enum: ['webhook', 'poll'] }, recorded_at: { type: 'string' },
  },
} as const;

const configBody = {
  type: 'object',
  properties: {
    api_url: { type: 'string' }, empresa: { type: 'string' }, private_key: { type: 'string' }, private_key_passphrase: { type: 'string' },
    clabe_prefix: { type: 'string' }, ordering_clabe: { type: 'string' }, ordering_name: { type: 'string' }, ordering_rfc: { type: 'string' },
    webhook_secret: { type: ['string', 'null'] }, ca: { type: ['string', 'null'] },
  },
} as const;

export function registerAdminStp(app: FastifyInstance, ctx: AppContext): void {
  registerConnectorAdmin(app, ctx, {
    name: STP_CONNECTOR,
    label: 'STP',
    summaries: {
      put: 'Configure the STP connector (MX SPEI collections and cashouts): {api_url, empresa, private_key, private_key_passphrase, clabe_prefix, ordering_clabe, ordering_name, ordering_rfc, webhook_secret?, ca?}',
      putDescription: 'Secrets (private_key, private_key_passphrase, webhook_secret) are encrypted at rest and never answered. A signed consultation checks the key at once (see health).',
      get: 'The STP connector: configuration without secrets, and health',
      payments: 'Transfers STP received for deposits, newest first; status=unmatched: those returned or kept for the operator (unknown CLABE, overpaid, underpaid, expired)',
    },
    configBody,
    viewSchema: stpViewSchema,
    paymentSchema,
    validate: validateStpConfig,
    afterSave: (ctx) => checkStp(ctx),
    view: stpView,
    payments: stpPayments,
  });
}
