import Fastify from 'fastify';
import pg from 'pg';
const pool = new pg.Pool({ connectionString: 'postgres://postgres@127.0.0.1:5432/postgres', max: 20 });
const app = Fastify();
const mode = process.env.TRACK;
if (mode === 'set') {
  const running = new Set();
  const end = (r) => { running.delete(r); };
  app.addHook('onRequest', (request, _reply, done) => { running.add(request); done(); });
  app.addHook('onSend', (request, _reply, payload, done) => { end(request); done(null, payload); });
  app.addHook('onResponse', (request, _reply, done) => { end(request); done(); });
} else if (mode === 'count') {
  let n = 0; const K = Symbol('counted');
  app.addHook('onRequest', (request, _reply, done) => { request[K] = true; n++; done(); });
  const end = (r) => { if (r[K]) { r[K] = false; n--; } };
  app.addHook('onSend', (request, _reply, payload, done) => { end(request); done(null, payload); });
  app.addHook('onResponse', (request, _reply, done) => { end(request); done(); });
} else if (mode === 'hooksonly') {
  app.addHook('onRequest', (request, _reply, done) => { done(); });
  app.addHook('onSend', (request, _reply, payload, done) => { done(null, payload); });
  app.addHook('onResponse', (request, _reply, done) => { done(); });
}
app.get('/', async () => { await pool.query('SELECT 1'); return { status: 'ok' }; });
await app.listen({ port: Number(process.env.PORT), host: '127.0.0.1' });
