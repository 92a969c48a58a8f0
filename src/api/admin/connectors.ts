// The operator's connectors: PUT/GET /admin/connectors/pix (configuration without secrets, plus
// health) and the Pix payments caja kept, e.g. those that matched no pending deposit.
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../config/context.ts';
import { v3Errors } from '../../http/errors.ts';
import { PIX_CONNECTOR } from '../../connectors/pix/connector.ts';
import { validatePixConfig } from '../../connectors/pix/settings.ts';
import { payinConnectorNamed } from '../../connectors/registry.ts';
import { saveConnector } from '../../connectors/store.ts';
import { callbackUrl } from '../../connectors/worker.ts';
import { pixView } from '../../connectors/pix/view.ts';
import { v3ErrorSchema } from '../v3/face.ts';

const errors = { 400: v3ErrorSchema, 401: v3ErrorSchema, 404: v3ErrorSchema };

const when = { type: ['string', 'null'] } as const;
const pixViewSchema = {
  type: 'object',
  required: ['api_url', 'token_url', 'client_id', 'pix_key', 'certificate', 'client_secret', 'private_key', 'updated_at', 'health'],
  properties: {
    api_url: { type: 'string' }, token_url: { type: 'string' }, client_id: { type: 'string' }, pix_key: { type: 'string' },
    certificate: { type: 'string', description: 'PEM of the client certificate (public)' }, ca: { type: 'string' },
    client_secret: { type: 'string', enum: ['(set)'], description: 'never answered' }, private_key: { type: 'string', enum: ['(set)'], description: 'never answered' },
    updated_at: { type: 'string' },
    health: {
      type: 'object',
      properties: {
        token_obtained: { type: 'boolean' }, token_obtained_at: when, webhook_registered: { type: 'boolean' }, webhook_registered_at: when,
        webhook_url: when, last_poll_at: when, last_poll_ok: { type: ['boolean', 'null'] }, polled_until: when, last_error: when, last_error_at: when,
      },
    },
  },
} as const;
const paymentsSchema = {
  type: 'object',
  required: ['payments'],
  properties: {
    payments: {
      type: 'array',
      items: {
        type: 'object',
        properties: {
          end_to_end_id: { type: 'string' }, txid: when, deposit_id: { type: ['integer', 'null'] }, amount: { type: 'string' }, currency: { type: 'string' },
          key: when, paid_at: { type: 'string' }, status: { type: 'string', enum: ['applied', 'unmatched'] }, reason: when,
          seen_via: { type: 'string', enum: ['webhook', 'poll'] }, recorded_at: { type: 'string' },
        },
      },
    },
  },
} as const;

const configBody = {
  type: 'object',
  properties: {
    api_url: { type: 'string' }, token_url: { type: 'string' }, client_id: { type: 'string' }, client_secret: { type: 'string' },
    certificate: { type: 'string' }, private_key: { type: 'string' }, ca: { type: ['string', 'null'] }, pix_key: { type: 'string' },
  },
} as const;

export function registerAdminConnectors(app: FastifyInstance, ctx: AppContext): void {
  app.put(
    '/admin/connectors/pix',
    {
      schema: {
        tags: ['admin'],
        summary: 'Configure the API Pix connector (BR/IX through a PSP): {api_url, token_url, client_id, client_secret, certificate, private_key, ca?, pix_key}',
        description: 'Secrets (client_secret, private_key) are encrypted at rest and never answered. The webhook is registered at the PSP at once (best effort; see health).',
        security: [{ adminToken: [] }],
        body: configBody,
        response: { 200: pixViewSchema, ...errors },
      },
    },
    async (request) => {
      const result = validatePixConfig(request.body);
      if (!result.ok) throw v3Errors.validation(result.details, 'Invalid Pix connector configuration');
      await saveConnector(ctx, PIX_CONNECTOR, { ...result.settings }, { ...result.secrets });
      // Token and webhook right away, so the answer says whether the PSP takes this configuration.
      const connector = await payinConnectorNamed(ctx, PIX_CONNECTOR);
      if (connector?.registerCallback) {
        try {
          await connector.registerCallback(callbackUrl(ctx, PIX_CONNECTOR));
        } catch (err) {
          request.log.warn({ err }, 'Pix webhook registration failed; the connectors worker retries');
        }
      }
      return pixView(ctx);
    },
  );

  app.get(
    '/admin/connectors/pix',
    { schema: { tags: ['admin'], summary: 'The API Pix connector: configuration without secrets, and health', security: [{ adminToken: [] }], response: { 200: pixViewSchema, ...errors } } },
    async () => {
      const view = await pixView(ctx);
      if (!view) throw v3Errors.notFound('The Pix connector is not configured');
      return view;
    },
  );

  app.get<{ Querystring: { status?: 'applied' | 'unmatched'; limit?: number } }>(
    '/admin/connectors/pix/payments',
    {
      schema: {
        tags: ['admin'],
        summary: 'Pix payments read from the PSP, newest first; status=unmatched: those no pending deposit took (expired, cancelled, other amount)',
        security: [{ adminToken: [] }],
        querystring: {
          type: 'object',
          properties: { status: { type: 'string', enum: ['applied', 'unmatched'] }, limit: { type: 'integer', minimum: 1, maximum: 500, default: 100 } },
        },
        response: { 200: paymentsSchema, ...errors },
      },
    },
    async (request) => {
      const { status, limit = 100 } = request.query;
      const { rows } = await ctx.db.query<{
        payment_id: string; charge_reference: string | null; deposit_id: number | null; amount: string; currency: string;
        receiver: string | null; paid_at: Date; status: string; reason: string | null; seen_via: string; created_at: Date;
      }>(
        `SELECT payment_id, charge_reference, deposit_id, amount::text, currency, receiver, paid_at, status, reason, seen_via, created_at
         FROM connector_payments WHERE connector = $1 AND ($2::text IS NULL OR status = $2) ORDER BY created_at DESC, payment_id LIMIT $3`,
        [PIX_CONNECTOR, status ?? null, limit],
      );
      return {
        payments: rows.map((r) => ({
          end_to_end_id: r.payment_id, txid: r.charge_reference, deposit_id: r.deposit_id, amount: r.amount, currency: r.currency,
          key: r.receiver, paid_at: r.paid_at.toISOString(), status: r.status, reason: r.reason, seen_via: r.seen_via, recorded_at: r.created_at.toISOString(),
        })),
      };
    },
  );
}
