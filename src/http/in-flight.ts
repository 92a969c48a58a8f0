// Requests whose handlers are still running. A client that drops its connection ends the HTTP
// exchange but not the handler, so app.close() (Node's server.close()) can resolve while
// handlers still write; shutdown waits for them before it closes the database, so that their
// writes commit or fail whole instead of meeting a closed pool.
//   A count and a mark on each request, not a Set of requests: adding each request to a
// long-lived Set and deleting it after made V8 promote about 560 KB to the old generation at
// every scavenge (a minimal Fastify server at 3,000 requests/s; nothing with the count), and
// with it a major collection every few seconds.
import type { FastifyInstance, FastifyRequest } from 'fastify';

declare module 'fastify' {
  interface FastifyInstance {
    /** Resolves once no request handler is running (at once when none is). */
    handlersSettled(): Promise<void>;
  }
}

const RUNNING = Symbol('caja.handlerRunning');
type Marked = FastifyRequest & { [RUNNING]?: boolean };

export function registerInFlightTracking(app: FastifyInstance): void {
  let running = 0;
  let waiters: (() => void)[] = [];
  const end = (request: Marked) => {
    if (!request[RUNNING]) return;
    request[RUNNING] = false;
    if (--running > 0) return;
    for (const wake of waiters) wake();
    waiters = [];
  };
  // Callback hooks: no promise per request on the hot path.
  app.addHook('onRequest', (request: Marked, _reply, done) => {
    request[RUNNING] = true;
    running++;
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
  app.decorate('handlersSettled', () => (running === 0 ? Promise.resolve() : new Promise<void>((resolve) => waiters.push(resolve))));
}
