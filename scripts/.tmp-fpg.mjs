import Fastify from 'fastify';
import pg from 'pg';
const pool = new pg.Pool({ connectionString: 'postgres://postgres@127.0.0.1:5432/postgres', max: 20 });
const app = Fastify({ logger: process.env.LOG === '1' ? { level: 'warn' } : false });
app.get('/', async () => {
  if (process.env.NOPG !== '1') await pool.query('SELECT 1');
  else await new Promise((r) => setTimeout(r, 1));
  return { status: 'ok' };
});
await app.listen({ port: Number(process.env.PORT), host: '127.0.0.1' });
