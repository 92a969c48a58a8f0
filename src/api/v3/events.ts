// GET /v3/events: the merchant pulls, in commit order, every event it may have missed (a
// notification that never arrived, a gap after an outage). Pass the last event id seen as
// `after`; the answer's next_cursor is the one to pass next time.
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../config/context.ts';
import { v3HeaderAuth } from '../auth/v3-headers.ts';
import { v3Errors } from '../../http/errors.ts';
import { eventsAfter } from '../../notifications/store.ts';
import { eventSchema, eventView } from '../../notifications/views.ts';
import { v3ErrorSchema } from './face.ts';

export function registerEvents(app: FastifyInstance, ctx: AppContext): void {
  app.get<{ Querystring: { after?: string; limit: number } }>(
    '/v3/events',
    {
      preValidation: v3HeaderAuth(ctx, 'deposits'),
      schema: {
        tags: ['notifications'],
        summary: 'Events of the merchant after a cursor, oldest first (deposits, refunds, cashouts)',
        security: [{ v3Signature: [] }],
        querystring: {
          type: 'object',
          properties: {
            after: { type: 'string', pattern: '^[0-9]{1,18}$', description: 'next_cursor of the previous page; absent or 0 for the beginning' },
            limit: { type: 'integer', minimum: 1, maximum: 500, default: 100 },
          },
        },
        response: {
          200: {
            type: 'object',
            properties: {
              events: { type: 'array', items: eventSchema },
              next_cursor: { type: 'string', description: 'Pass as `after` next time (unchanged when there was nothing new)' },
            },
          },
          400: v3ErrorSchema,
          401: v3ErrorSchema,
        },
      },
    },
    async (request) => {
      const after = request.query.after && request.query.after !== '0' ? Number(request.query.after) : null;
      const events = await eventsAfter(ctx.db, request.merchant!.id, after, request.query.limit);
      if (events === 'unknown') throw v3Errors.validation(['after: not a cursor of this merchant'], 'Unknown cursor');
      // Retention archived the cursor's event (docs/operations.md, "Retention and archiving"): the
      // events right after it may be archived too, so the feed cannot go on from it without a gap.
      if (events === 'archived') {
        throw v3Errors.validation(['after: this event is past retention and archived; start again from after=0 (the oldest event kept)'], 'Cursor past retention');
      }
      const last = events[events.length - 1];
      return { events: events.map(eventView), next_cursor: last ? String(last.id) : (request.query.after ?? '0') };
    },
  );
}
