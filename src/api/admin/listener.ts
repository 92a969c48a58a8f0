// CAJA_ADMIN_PORT: the operator's API (/admin), the metrics (/metrics) and the operator console
// (/ops) served on their own listener, on 127.0.0.1 unless CAJA_ADMIN_HOST says otherwise, and
// refused (404) on the public port; the admin listener serves nothing else. Without an admin
// port they are served on the public port only when CAJA_ADMIN_ON_PUBLIC_PORT says so (staging's
// default; production's is no: they are then served nowhere but through the CLI). One Fastify app answers both listeners, so every
// hook and error format is the same; a request is told apart by the listener it came through.
// Whether a path is admin is judged on its canonical form (src/http/canonical-path.ts), the path
// the router matched: `//admin`, `/%61dmin`, `http://host/metrics` are admin paths like `/admin`.
import http, { type IncomingMessage } from 'node:http';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Config } from '../../config/config.ts';
import { v3ErrorBody } from '../v3/face.ts';
import { v3Errors } from '../../http/errors.ts';
import { firstSegment } from '../../http/canonical-path.ts';

const viaAdmin = new WeakSet<IncomingMessage>();

const ADMIN_SEGMENTS = new Set(['admin', 'metrics', 'ops']);

/** An admin path: its canonical path, or the route the router matched, is under /admin, /metrics or /ops. */
export function isAdminRequest(url: string, matchedRoute: string | undefined): boolean {
  const segment = firstSegment(url);
  if (segment !== null && ADMIN_SEGMENTS.has(segment)) return true;
  // The route pattern the router chose agrees by construction; checked as well so that a
  // spelling canonicalPath might read differently from the router still lands on the admin side.
  const routed = matchedRoute === undefined ? null : firstSegment(matchedRoute);
  return routed !== null && ADMIN_SEGMENTS.has(routed);
}

/** Registered first in the app: admin paths only through the admin listener, or on the public port when allowed. */
export function registerAdminSeparation(app: FastifyInstance, config: Config): void {
  if (config.adminPort === null && config.adminOnPublicPort) return;
  app.addHook('onRequest', async (request: FastifyRequest, reply) => {
    if (isAdminRequest(request.url, request.routeOptions.url) !== viaAdmin.has(request.raw)) {
      return reply.status(404).send(v3ErrorBody(v3Errors.notFound('Route not found')));
    }
  });
}

/** Starts the admin listener when configured; null otherwise. */
export async function listenAdmin(app: FastifyInstance, config: Config, port = config.adminPort): Promise<http.Server | null> {
  if (config.adminPort === null || port === null) return null;
  const server = http.createServer((req, res) => {
    viaAdmin.add(req);
    app.routing(req, res);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, config.adminHost, () => resolve());
  });
  return server;
}
