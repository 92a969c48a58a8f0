// Operator view of a merchant's notifications with their attempts, and resend.
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../config/context.ts';
import { v3Errors } from '../../http/errors.ts';
import { getMerchant } from '../../merchants/merchants.ts';
import { getNotification, listNotifications, resendNotification } from '../../notifications/store.ts';
import { type ListQuery, listQuerySchema, notificationListSchema, notificationListView, notificationSchema, notificationView } from '../../notifications/views.ts';
import { v3ErrorSchema } from '../v3/face.ts';
import { INT_ID_SCHEMA } from '../../domain/ids.ts';
import { tokenAudit } from './auth.ts';

const merchantParams = { type: 'object', properties: { id: INT_ID_SCHEMA }, required: ['id'] } as const;
const notificationParams = { type: 'object', properties: { id: { type: 'string', pattern: '^[0-9]{1,18}$' } }, required: ['id'] } as const;
const errors = { 400: v3ErrorSchema, 401: v3ErrorSchema, 404: v3ErrorSchema };

export function registerAdminNotifications(app: FastifyInstance, ctx: AppContext): void {
  app.get<{ Params: { id: number }; Querystring: ListQuery }>(
    '/admin/merchants/:id/notifications',
    {
      schema: {
        tags: ['notifications', 'admin'],
        summary: 'A merchant’s notifications, newest first, with their delivery attempts',
        security: [{ adminToken: [] }],
        params: merchantParams,
        querystring: listQuerySchema,
        response: { 200: notificationListSchema, ...errors },
      },
    },
    async (request) => {
      if (!(await getMerchant(ctx.db, request.params.id))) throw v3Errors.notFound('Merchant not found');
      const { status, limit, before } = request.query;
      const rows = await listNotifications(ctx.db, { merchantId: request.params.id, status, limit, before: before ? Number(before) : undefined });
      return notificationListView(rows, limit);
    },
  );

  app.get<{ Params: { id: string } }>(
    '/admin/notifications/:id',
    {
      // notifications.id is a bigserial.
      config: { pathId: 'bigint' },
      schema: {
        tags: ['notifications', 'admin'],
        summary: 'One notification with its delivery attempts',
        security: [{ adminToken: [] }],
        params: notificationParams,
        response: { 200: notificationSchema, ...errors },
      },
    },
    async (request) => {
      const n = await getNotification(ctx.db, Number(request.params.id));
      if (!n) throw v3Errors.notFound('Notification not found');
      return notificationView(n);
    },
  );

  app.post<{ Params: { id: string } }>(
    '/admin/notifications/:id/resend',
    {
      // notifications.id is a bigserial.
      config: { pathId: 'bigint' },
      schema: {
        tags: ['notifications', 'admin'],
        summary: 'Send a notification again now (also a delivered or failed one)',
        security: [{ adminToken: [] }],
        params: notificationParams,
        response: { 202: notificationSchema, ...errors },
      },
    },
    async (request, reply) => {
      const id = Number(request.params.id);
      const audit = (n: { merchantId: number }) => tokenAudit(request, 'notification.resent', { merchantId: n.merchantId, subject: `notification:${id}` });
      if (!(await resendNotification(ctx.db, id, undefined, audit))) throw v3Errors.notFound('Notification not found');
      request.log.info({ notification_id: id }, 'notification resend requested');
      return reply.status(202).send(notificationView((await getNotification(ctx.db, id))!));
    },
  );
}
