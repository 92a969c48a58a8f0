// Payment-method logos referenced by the catalog (/logos/<country>/<code>.svg): a generated
// badge, so every logo URL handed to merchants resolves.
import type { FastifyInstance } from 'fastify';
import { findMethod } from '../domain/catalog.ts';
import { html } from './html.ts';


export function registerLogos(app: FastifyInstance): void {
  app.get<{ Params: { country: string; file: string } }>('/logos/:country/:file', { schema: { hide: true } }, async (request, reply) => {
    const code = request.params.file.replace(/\.svg$/i, '');
    const method = findMethod(request.params.country.toUpperCase(), code);
    if (!method) return reply.status(404).type('text/plain').send('logo not found');
    const label = method.code.toUpperCase();
    const title = method.name;
    return reply
      .type('image/svg+xml')
      .header('cache-control', 'public, max-age=86400')
      .send(
        html`<svg xmlns="http://www.w3.org/2000/svg" width="120" height="48" viewBox="0 0 120 48" role="img" aria-label="${title}"><title>${title}</title><rect width="120" height="48" rx="8" fill="#0f4c81"/><text x="60" y="31" font-family="Helvetica,Arial,sans-serif" font-size="20" font-weight="700" fill="#fff" text-anchor="middle">${label}</text></svg>`.toString(),
      );
  });
}
