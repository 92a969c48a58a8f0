// The admin routes of every connector kind (src/connectors/providers.ts), written once: PUT its
// configuration (validated by the kind, secrets sealed at rest, then checked against the provider
// at once by the kind's afterSave), GET it back without secrets and with the health fields the
// kind names, GET the payments caja kept for it and the chargebacks on them (when the kind declares
// how one reads).
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../config/context.ts';
import { v3Errors } from '../../http/errors.ts';
import type { ConnectorKind } from '../../connectors/kind.ts';
import { connectorKinds } from '../../connectors/providers.ts';
import { payinConnectorNamed } from '../../connectors/registry.ts';
import { configAuditDetail, saveConnector, secretNames } from '../../connectors/store.ts';
import { keptPayments } from '../../deposits/payments.ts';
import { listDisputes } from '../../deposits/disputes.ts';
import { v3ErrorSchema } from '../v3/face.ts';
import { tokenAudit } from './auth.ts';

const errors = { 400: v3ErrorSchema, 401: v3ErrorSchema, 404: v3ErrorSchema };

/** PUT/GET /admin/connectors/{name} (and …/payments) of every kind that declares its settings and admin words. */
export function registerConnectorAdmins(app: FastifyInstance, ctx: AppContext): void {
  for (const kind of connectorKinds()) registerKindAdmin(app, ctx, kind);
}

export function registerKindAdmin(app: FastifyInstance, ctx: AppContext, kind: ConnectorKind): void {
  const { settings, admin } = kind;
  if (!settings || !admin) return;
  const path = `/admin/connectors/${kind.name}`;
  app.put(
    path,
    {
      schema: {
        tags: ['admin'], summary: admin.summaries.put, ...(admin.summaries.putDescription ? { description: admin.summaries.putDescription } : {}), security: [{ adminToken: [] }],
        body: admin.configBody, response: { 200: admin.viewSchema, ...errors },
      },
    },
    async (request) => {
      const result = settings.validate(request.body);
      if (!result.ok) throw v3Errors.validation(result.details, admin.invalid ?? `Invalid ${kind.label} connector configuration`);
      const detail = settings.auditDetail ? settings.auditDetail(result) : configAuditDetail(result.settings, secretNames(result.secrets));
      await saveConnector(ctx, kind.name, { ...result.settings }, { ...result.secrets }, tokenAudit(request, 'connector.configured', { subject: `connector:${kind.name}`, detail }));
      await settings.afterSave?.(ctx, await payinConnectorNamed(ctx, kind.name), request.log);
      return settings.view(ctx);
    },
  );

  app.get(
    path,
    { schema: { tags: ['admin'], summary: admin.summaries.get, security: [{ adminToken: [] }], response: { 200: admin.viewSchema, ...errors } } },
    async () => {
      const view = await settings.view(ctx);
      if (!view) throw v3Errors.notFound(admin.notConfigured ?? `The ${kind.label} connector is not configured`);
      return view;
    },
  );

  const payments = admin.payments;
  if (payments) registerPayments(app, ctx, kind, payments);
  const disputes = admin.disputes;
  if (disputes) registerDisputes(app, ctx, kind, disputes);
}

function registerPayments(app: FastifyInstance, ctx: AppContext, kind: ConnectorKind, payments: NonNullable<NonNullable<ConnectorKind['admin']>['payments']>): void {
  const path = `/admin/connectors/${kind.name}`;
  app.get<{ Querystring: { status?: 'applied' | 'unmatched'; limit?: number } }>(
    `${path}/payments`,
    {
      schema: {
        tags: ['admin'], summary: kind.admin?.summaries.payments ?? `Payments caja kept for the ${kind.label} connector, newest first`, security: [{ adminToken: [] }],
        querystring: {
          type: 'object',
          properties: { status: { type: 'string', enum: ['applied', 'unmatched'] }, limit: { type: 'integer', minimum: 1, maximum: 500, default: 100 } },
        },
        response: { 200: { type: 'object', required: ['payments'], properties: { payments: { type: 'array', items: payments.schema } } }, ...errors },
      },
    },
    async (request) => ({ payments: (await keptPayments(ctx.db, kind.name, request.query.status ?? null, request.query.limit ?? 100)).map((r) => payments.row(r)) }),
  );
}

// GET /admin/connectors/{name}/disputes: chargebacks on the kind's payments (src/deposits/disputes.ts),
// with their defence deadline, each as the kind names its fields.
function registerDisputes(app: FastifyInstance, ctx: AppContext, kind: ConnectorKind, disputes: NonNullable<NonNullable<ConnectorKind['admin']>['disputes']>): void {
  app.get<{ Querystring: { limit?: number } }>(`/admin/connectors/${kind.name}/disputes`, {
    schema: {
      tags: ['admin'], summary: disputes.summary, security: [{ adminToken: [] }],
      querystring: { type: 'object', properties: { limit: { type: 'integer', minimum: 1, maximum: 500, default: 100 } } },
      response: { 200: { type: 'object', required: ['disputes'], properties: { disputes: { type: 'array', items: disputes.schema } } } },
    },
  }, async (request) => ({ disputes: (await listDisputes(ctx.db, kind.name, request.query.limit ?? 100)).map((d) => disputes.row(d)) }));
}
