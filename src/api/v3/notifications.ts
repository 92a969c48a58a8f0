// The merchant's view of its outgoing notifications: each with its attempts (status code,
// latency, error, response excerpt), and a resend. Another merchant's notification is 208/404.
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../config/context.ts';
import { v3HeaderAuth } from '../auth/v3-headers.ts';
import { v3Errors } from '../../http/errors.ts';
import { getNotification, listNotifications, resendNotification } from '../../notifications/store.ts';
import { type ListQuery, listQuerySchema, notificationListSchema, notificationListView, notificationSchema, notificationView } from '../../notifications/views.ts';
import { v3ErrorSchema } from './face.ts';
import { missingId } from '../../retention/horizons.ts';

const idParams = { type: 'object', properties: { id: { type: 'string', pattern: '^[0-9]{1,18}$' } }, required: ['id'] } as const;
const errors = { 400: v3ErrorSchema, 401: v3ErrorSchema, 404: v3ErrorSchema };

/** 404 either way; the description says when retention archived it (docs/operations.md). */
async function notificationNotFound(ctx: AppContext, merchantId: number, id: number) {
  return (await missingId(ctx.db, 'notifications', merchantId, id)) === 'archived'
    ? v3Errors.notFound('Notification past retention: archived')
    : v3Errors.notFound('Notification not found');
}

export function registerV3Notifications(app: FastifyInstance, ctx: AppContext): void {
  const auth = v3HeaderAuth(ctx, 'deposits');

  app.get<{ Querystring: ListQuery }>(
    '/v3/notifications',
    {
      preValidation: auth,
      schema: {
        tags: ['notifications'],
        summary: 'The merchant’s notifications, newest first, with their delivery attempts',
        security: [{ v3Signature: [] }],
        querystring: listQuerySchema,
        response: { 200: notificationListSchema, ...errors },
      },
    },
    async (request) => {
      const { status, limit, before } = request.query;
      const rows = await listNotifications(ctx.db, { merchantId: request.merchant!.id, status, limit, before: before ? Number(before) : undefined });
      return notificationListView(rows, limit);
    },
  );

  app.get<{ Params: { id: string } }>(
    '/v3/notifications/:id',
    {
      // notifications.id is a bigserial.
      config: { pathId: 'bigint' },
      preValidation: auth,
      schema: {
        tags: ['notifications'],
        summary: 'One notification with its delivery attempts',
        security: [{ v3Signature: [] }],
        params: idParams,
        response: { 200: notificationSchema, ...errors },
      },
    },
    async (request) => {
      const id = Number(request.params.id);
      const n = await getNotification(ctx.db, id, request.merchant!.id);
      if (!n) throw await notificationNotFound(ctx, request.merchant!.id, id);
      return notificationView(n);
    },
  );

  app.post<{ Params: { id: string } }>(
    '/v3/notifications/:id/resend',
    {
      // notifications.id is a bigserial.
      config: { pathId: 'bigint' },
      preValidation: auth,
      schema: {
        tags: ['notifications'],
        summary: 'Send a notification again now (also a delivered or failed one)',
        security: [{ v3Signature: [] }],
        params: idParams,
        response: { 202: notificationSchema, ...errors },
      },
    },
    async (request, reply) => {
      const id = Number(request.params.id);
      const merchantId = request.merchant!.id;
      if (!(await resendNotification(ctx.db, id, merchantId))) throw await notificationNotFound(ctx, merchantId, id);
      const n = await getNotification(ctx.db, id, merchantId);
      return reply.status(202).send(notificationView(n!));
    },
  );
}
