// Bisect: Fastify + pg + optional pieces of caja's stack
import Fastify from 'fastify';
import pg from 'pg';
import { pino } from 'pino';
import { Registry, collectDefaultMetrics, Histogram, Counter } from 'prom-client';
const pool = new pg.Pool({ connectionString: 'postgres://postgres@127.0.0.1:5432/postgres', max: 20 });
const opts = {};
if (process.env.LOGGER) opts.loggerInstance = pino({ level: 'warn' });
const app = Fastify(opts);
if (process.env.METRICS) {
  const registry = new Registry();
  if (process.env.METRICS === 'default') collectDefaultMetrics({ register: registry });
  const c = new Counter({ name: 'a', help: 'a', labelNames: ['method', 'route', 'status_code'], registers: [registry] });
  const h = new Histogram({ name: 'b', help: 'b', labelNames: ['method', 'route'], registers: [registry] });
  app.addHook('onResponse', async (request, reply) => { const route = request.routeOptions.url ?? 'x'; c.inc({ method: request.method, route, status_code: String(reply.statusCode) }); h.observe({ method: request.method, route }, reply.elapsedTime / 1000); });
}
app.get('/', async () => { await pool.query('SELECT 1'); return { status: 'ok' }; });
await app.listen({ port: Number(process.env.PORT), host: '127.0.0.1' });
