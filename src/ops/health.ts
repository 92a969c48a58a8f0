import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../config/context.ts';

export function registerHealth(app: FastifyInstance, ctx: AppContext): void {
  app.get(
    '/health',
    {
      schema: {
        tags: ['operations'],
        summary: 'Liveness and database check',
        response: {
          200: { type: 'object', properties: { status: { type: 'string' }, database: { type: 'string' }, environment: { type: 'string' } } },
          503: { type: 'object', properties: { status: { type: 'string' }, database: { type: 'string' }, environment: { type: 'string' } } },
        },
      },
    },
    async (_req, reply) => {
      try {
        await ctx.db.query('SELECT 1');
        return { status: 'ok', database: ctx.db.kind, environment: ctx.config.env };
      } catch {
        return reply.status(503).send({ status: 'unavailable', database: 'unreachable', environment: ctx.config.env });
      }
    },
  );
}
