// OpenAPI document at /openapi.json, rendered at /docs. Every JSON route declares its schemas.
import type { FastifyInstance } from 'fastify';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import { completeDocument } from './openapi-extras.ts';

export async function registerDocs(app: FastifyInstance, publicBaseUrl: string): Promise<void> {
  await app.register(swagger, {
    openapi: {
      openapi: '3.0.3',
      info: {
        title: 'caja',
        version: '1.0.0',
        description: 'Payment collection and payout service: deposits, refunds, cashouts, lookups and validation. See the README for authentication.',
      },
      servers: [{ url: publicBaseUrl }],
      components: {
        securitySchemes: {
          v3Signature: { type: 'apiKey', in: 'header', name: 'Authorization', description: "'SVC <hex HMAC-SHA256 of X-Date + X-Login + raw body>' with X-Date and X-Login headers" },
          readOnlyKey: { type: 'http', scheme: 'bearer' },
          adminToken: { type: 'http', scheme: 'bearer' },
          payloadSignature: { type: 'apiKey', in: 'header', name: 'Payload-Signature' },
        },
      },
    },
    transformObject: (d) => ('openapiObject' in d ? completeDocument(d.openapiObject) : d.swaggerObject),
  });
  await app.register(swaggerUi, { routePrefix: '/docs' });
  app.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger());
}
