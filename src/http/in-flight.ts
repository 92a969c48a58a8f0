// Requests whose handlers are still running. A client that drops its connection ends the HTTP
// exchange but not the handler, so app.close() (Node's server.close()) can resolve while
// handlers still write; shutdown waits for them before it closes the database, so that their
// writes commit or fail whole instead of meeting a closed pool.
import type { FastifyInstance, FastifyRequest } from 'fastify';

declare module 'fastify' {
  interface FastifyInstance {
    /** Resolves once no request handler is running (at once when none is). */
    handlersSettled(): Promise<void>;
  }
}

export function registerInFlightTracking(app: FastifyInstance): void {
  const running = new Set<FastifyRequest>();
  let waiters: (() => void)[] = [];
  const end = (request: FastifyRequest) => {
    if (!running.delete(request) || running.size > 0) return;
    for (const wake of waiters) wake();
    waiters = [];
  };
  // Callback hooks: no promise per request on the hot path.
  app.addHook('onRequest', (request, _reply, done) => {
    running.add(request);
    done();
  });
  // onSend runs when the handler answers, also to a client that has gone; onResponse then does
  // not, but it does for answers sent without onSend (a 404 before routing, for one).
  app.addHook('onSend', (request, _reply, payload, done) => {
    end(request);
    done(null, payload);
  });
  app.addHook('onResponse', (request, _reply, done) => {
    end(request);
    done();
  });
  app.decorate('handlersSettled', () => (running.size === 0 ? Promise.resolve() : new Promise<void>((resolve) => waiters.push(resolve))));
}
