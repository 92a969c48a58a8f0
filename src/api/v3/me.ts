// A signed no-op: lets an integrator check its X-Date/X-Login/Authorization signing before
// sending money-moving requests.
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../config/context.ts';
import { v3HeaderAuth } from '../auth/v3-headers.ts';
import { v3ErrorSchema } from './face.ts';

const meSchema = {
  type: 'object',
  properties: { merchant_id: { type: 'integer' }, name: { type: 'string' }, environment: { type: 'string' } },
} as const;

export function registerMe(app: FastifyInstance, ctx: AppContext): void {
  for (const [path, set] of [['/v3/me', 'deposits'], ['/v5/me', 'cashouts']] as const) {
    app.get(
      path,
      {
        preValidation: v3HeaderAuth(ctx, set),
        schema: {
          tags: ['authentication'],
          summary: `Check ${set === 'deposits' ? 'v3 (deposits key)' : 'v5 (cashouts key)'} request signing; answers the authenticated merchant`,
          security: [{ v3Signature: [] }],
          response: { 200: meSchema, 400: v3ErrorSchema, 401: v3ErrorSchema },
        },
      },
      async (request) => {
        const m = request.merchant!;
        return { merchant_id: m.id, name: m.name, environment: m.environment };
      },
    );
  }
}
