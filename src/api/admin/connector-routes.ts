// The three admin routes every configurable connector has, written once: PUT its configuration
// (validated, secrets sealed at rest, then checked against the provider at once), GET it back
// without secrets and with health, and GET the payments it kept. Each connector's module
// (connectors.ts for Pix, connectors-stp.ts for STP) gives its schemas, words and checks.
import type { FastifyBaseLogger, FastifyInstance } from 'fastify';
import type { AppContext } from '../../config/context.ts';
import { v3Errors } from '../../http/errors.ts';
import { configAuditDetail, saveConnector, secretNames } from '../../connectors/store.ts';
import { v3ErrorSchema } from '../v3/face.ts';
import { tokenAudit } from './auth.ts';

const errors = { 400: v3ErrorSchema, 401: v3ErrorSchema, 404: v3ErrorSchema };

type Validated = { ok: true; settings: object; secrets: object } | { ok: false; details: string[] };

export interface ConnectorAdmin {
  /** The connector's name in the path and the store (pix, stp). */
  name: string;
  /** How messages name it: "Invalid {label} connector configuration". */
  label: string;
  summaries: { put: string; putDescription: string; get: string; payments: string };
  configBody: object;
  viewSchema: object;
  /** One kept payment as this connector's admin view names its fields. */
  paymentSchema: object;
  validate(body: unknown): Validated;
  /** Right after a configuration is saved: ask the provider whether it takes it (recorded in health). */
  afterSave(ctx: AppContext, log: FastifyBaseLogger): Promise<void>;
  view(ctx: AppContext): Promise<object | null>;
  payments(ctx: AppContext, status: 'applied' | 'unmatched' | null, limit: number): Promise<object[]>;
}

export function registerConnectorAdmin(app: FastifyInstance, ctx: AppContext, c: ConnectorAdmin): void {
  const path = `/admin/connectors/${c.name}`;
  app.put(
    path,
    {
      schema: {
        tags: ['admin'], summary: c.summaries.put, description: c.summaries.putDescription, security: [{ adminToken: [] }],
        body: c.configBody, response: { 200: c.viewSchema, ...errors },
      },
    },
    async (request) => {
      const result = c.validate(request.body);
      if (!result.ok) throw v3Errors.validation(result.details, `Invalid ${c.label} connector configuration`);
      const settings: Record<string, string> = { ...result.settings };
      const secrets: Record<string, string> = { ...result.secrets };
      await saveConnector(ctx, c.name, settings, secrets, tokenAudit(request, 'connector.configured', { subject: `connector:${c.name}`, detail: configAuditDetail(settings, secretNames(secrets)) }));
      await c.afterSave(ctx, request.log);
      return c.view(ctx);
    },
  );

  app.get(
    path,
    { schema: { tags: ['admin'], summary: c.summaries.get, security: [{ adminToken: [] }], response: { 200: c.viewSchema, ...errors } } },
    async () => {
      const view = await c.view(ctx);
      if (!view) throw v3Errors.notFound(`The ${c.label} connector is not configured`);
      return view;
    },
  );

  app.get<{ Querystring: { status?: 'applied' | 'unmatched'; limit?: number } }>(
    `${path}/payments`,
    {
      schema: {
        tags: ['admin'], summary: c.summaries.payments, security: [{ adminToken: [] }],
        querystring: {
          type: 'object',
          properties: { status: { type: 'string', enum: ['applied', 'unmatched'] }, limit: { type: 'integer', minimum: 1, maximum: 500, default: 100 } },
        },
        response: { 200: { type: 'object', required: ['payments'], properties: { payments: { type: 'array', items: c.paymentSchema } } }, ...errors },
      },
    },
    async (request) => ({ payments: await c.payments(ctx, request.query.status ?? null, request.query.limit ?? 100) }),
  );
}
