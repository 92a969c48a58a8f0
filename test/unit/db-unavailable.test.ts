// Which driver errors mean "the database is unavailable" (a retryable 503) and which are the
// request's own (a constraint, a syntax error, a service's refusal): src/db/unavailable.ts; how
// each face answers it (src/http/); the configured bounds.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { asUnavailable, DatabaseUnavailableError, unavailableReason } from '../../src/db/unavailable.ts';
import { DepositError } from '../../src/deposits/errors.ts';
import { Batcher } from '../../src/db/batcher.ts';
import { heldOver, isReadStatement, outcomeStatement } from '../../src/db/db.ts';
import Fastify, { type FastifyInstance } from 'fastify';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { useCashoutErrors } from '../../src/api/cashouts/face.ts';
import { useV3Errors } from '../../src/api/v3/face.ts';
import { useStreamlineFace } from '../../src/api/streamline/face.ts';
import { registerBodyParsers } from '../../src/http/body-parsers.ts';
import { loadConfig } from '../../src/config/config.ts';

const pgError = (code: string, message = 'x') => Object.assign(new Error(message), { code });
const socketError = (code: string) => Object.assign(new Error(`connect ${code} 127.0.0.1:5432`), { code, errno: -1, syscall: 'connect' });

test('server-side shutdowns, failover states and timeouts are unavailable', () => {
  for (const [code, reason] of [
    ['57P01', 'admin_shutdown'], ['57P02', 'crash_shutdown'], ['57P03', 'cannot_connect_now'],
    ['25006', 'read_only_transaction'], ['57014', 'statement_timeout'], ['55P03', 'lock_timeout'],
    ['25P03', 'idle_in_transaction_timeout'], ['53300', 'too_many_connections'],
  ]) assert.equal(unavailableReason(pgError(code!)), reason, code);
});

test('every class 08 connection exception is unavailable (pgbouncer reports 08P01)', () => {
  for (const code of ['08000', '08003', '08006', '08001', '08004', '08P01']) assert.match(unavailableReason(pgError(code))!, /^connection_exception 08/, code);
});

test('socket errors and the driver\'s lost-connection messages are unavailable', () => {
  for (const code of ['ECONNRESET', 'ECONNREFUSED', 'ETIMEDOUT', 'EPIPE', 'EHOSTUNREACH']) assert.equal(unavailableReason(socketError(code)), code);
  for (const message of [
    'Connection terminated unexpectedly', 'Connection terminated due to connection timeout', 'Connection terminated',
    'timeout exceeded when trying to connect', 'timeout expired', 'Query read timeout', 'Client has encountered a connection error and is not queryable',
  ]) assert.equal(unavailableReason(new Error(message)), message);
});

test('the request\'s own failures are not unavailable', () => {
  for (const code of ['23505', '23514', '23503', '42601', '42P01', '22P02', '40001', '40P01', 'P0001']) assert.equal(unavailableReason(pgError(code)), null, code);
  assert.equal(unavailableReason(new DepositError('invoice_used', 'invoice already used')), null);
  assert.equal(unavailableReason(new Error('duplicate key value violates unique constraint')), null);
  assert.equal(unavailableReason(new TypeError("Cannot read properties of undefined (reading 'id')")), null);
  assert.equal(unavailableReason(undefined), null);
  assert.equal(unavailableReason('Connection terminated'), null, 'a string is not a driver error');
});

test('asUnavailable wraps once, keeps the driver error as cause, and passes others through', () => {
  const driver = pgError('57P01', 'terminating connection due to administrator command');
  const wrapped = asUnavailable(driver);
  assert.ok(wrapped instanceof DatabaseUnavailableError);
  assert.equal(wrapped.kind, 'database_unavailable');
  assert.equal(wrapped.cause, driver);
  assert.equal(asUnavailable(wrapped), wrapped);
  const own = pgError('23505');
  assert.equal(asUnavailable(own), own);
});

test('a batch lost to an unavailable database is not written again item by item', async () => {
  let writes = 0;
  let release!: () => void;
  const gate = new Promise<void>((r) => (release = r));
  const b = new Batcher<number, number>(async (items) => {
    writes++;
    if (writes === 1) {
      await gate;
      return items; // the first batch holds the only slot while the others queue
    }
    throw new DatabaseUnavailableError('ECONNRESET');
  }, { maxBatch: 10, maxInFlight: 1 });
  const first = b.submit(0);
  const queued = [1, 2, 3].map((i) => b.submit(i));
  release();
  assert.equal(await first, 0);
  const outcomes = await Promise.allSettled(queued);
  assert.ok(outcomes.every((o) => o.status === 'rejected' && o.reason instanceof DatabaseUnavailableError));
  assert.equal(writes, 2, 'the failed batch of three was written once, not once more per item');
});

// Each face answers the store's failure as a retryable 503 in its own format (src/http/).
function failing(face: (app: FastifyInstance) => void, config = {}) {
  const app = Fastify();
  registerBodyParsers(app);
  face(app);
  app.post('/write', { config }, async () => {
    throw asUnavailable(pgError('57P01', 'terminating connection due to administrator command'));
  });
  return app;
}

test('v3 face: 503 SERVICE_UNAVAILABLE with Retry-After, never the driver\'s message', async () => {
  const r = await failing(useV3Errors).inject({ method: 'POST', url: '/write', payload: '{}', headers: { 'content-type': 'application/json' } });
  assert.equal(r.statusCode, 503);
  assert.equal(r.headers['retry-after'], '2');
  assert.deepEqual([r.json().code, r.json().type], [503, 'SERVICE_UNAVAILABLE']);
  assert.doesNotMatch(r.body, /administrator|57P01/);
});

test('cashout face: 503 {code, message} with Retry-After', async () => {
  const r = await failing(useCashoutErrors).inject({ method: 'POST', url: '/write', payload: '{}', headers: { 'content-type': 'application/json' } });
  assert.equal(r.statusCode, 503);
  assert.equal(r.headers['retry-after'], '2');
  assert.deepEqual(Object.keys(r.json()).sort(), ['code', 'message']);
  assert.equal(r.json().code, 503);
});

test('streamline face: HTTP 503 (not its usual 200) with the endpoint\'s error fields, in the asked format', async () => {
  const app = failing(useStreamlineFace, { streamline: { defaultFormat: 'json', errorShape: 'invoice' } });
  const form = { 'content-type': 'application/x-www-form-urlencoded' };
  const json = await app.inject({ method: 'POST', url: '/write', payload: 'x_version=1.1', headers: form });
  assert.equal(json.statusCode, 503);
  assert.equal(json.headers['retry-after'], '2');
  assert.deepEqual([json.json().status, json.json().error_code], ['1', 503]);
  const xml = await app.inject({ method: 'POST', url: '/write', payload: 'type=xml', headers: form });
  assert.equal(xml.statusCode, 503);
  assert.match(xml.body, /^<\?xml[\s\S]*<status>1<\/status>/);
});

test('the database bounds: defaults, overrides, and statement_timeout below the query timeout', () => {
  const dir = mkdtempSync(join(tmpdir(), 'caja-db-bounds-'));
  assert.deepEqual(loadConfig({ DATA_DIR: dir }).database, { connectMs: 5000, queryMs: 20000, statementMs: 15000, lockMs: 10000, idleInTransactionMs: 20000, healthTimeoutMs: 2000, holdMs: 20000, holdQueue: 10000 });
  const set = loadConfig({ DATA_DIR: dir, CAJA_DB_QUERY_TIMEOUT_MS: '3000', CAJA_DB_STATEMENT_TIMEOUT_MS: '2000', CAJA_HEALTH_TIMEOUT_MS: '500', CAJA_DB_HOLD_MS: '0', CAJA_DB_HOLD_QUEUE: '50' }).database;
  assert.deepEqual([set.queryMs, set.statementMs, set.healthTimeoutMs, set.holdMs, set.holdQueue], [3000, 2000, 500, 0, 50]);
  assert.throws(() => loadConfig({ DATA_DIR: dir, CAJA_DB_HOLD_QUEUE: '0' }), /CAJA_DB_HOLD_QUEUE/);
  assert.throws(() => loadConfig({ DATA_DIR: dir, CAJA_DB_STATEMENT_TIMEOUT_MS: '20000' }), /must be below CAJA_DB_QUERY_TIMEOUT_MS/);
  assert.throws(() => loadConfig({ DATA_DIR: dir, CAJA_DB_LOCK_TIMEOUT_MS: 'soon' }), /CAJA_DB_LOCK_TIMEOUT_MS/);
});

test('the failover hold: what it waits out, and where a write puts its outcome token', () => {
  assert.equal(heldOver(asUnavailable(Object.assign(new Error('terminating connection due to administrator command'), { code: '57P01' }))), true);
  assert.equal(heldOver(asUnavailable(Object.assign(new Error('read only'), { code: '25006' }))), true);
  assert.equal(heldOver(asUnavailable(Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' }))), true);
  // The request's own slowness is not a failover: answered at once.
  assert.equal(heldOver(asUnavailable(Object.assign(new Error('canceling statement due to statement timeout'), { code: '57014' }))), false);
  assert.equal(heldOver(asUnavailable(Object.assign(new Error('lock timeout'), { code: '55P03' }))), false);
  assert.equal(heldOver(new Error('duplicate key')), false);
  assert.equal(isReadStatement('  SELECT 1'), true);
  assert.equal(isReadStatement('WITH x AS (SELECT 1) SELECT * FROM x'), false);
  assert.equal(outcomeStatement('INSERT INTO t VALUES ($1)', 2), 'WITH caja_outcome AS (INSERT INTO tx_outcomes (token) VALUES ($2::uuid)) INSERT INTO t VALUES ($1)');
  assert.equal(outcomeStatement('\n  WITH a AS (SELECT $1) UPDATE t SET x = 1', 2), 'WITH caja_outcome AS (INSERT INTO tx_outcomes (token) VALUES ($2::uuid)), a AS (SELECT $1) UPDATE t SET x = 1');
  assert.equal(outcomeStatement('with recursive r AS (SELECT 1) DELETE FROM t', 1), 'WITH RECURSIVE caja_outcome AS (INSERT INTO tx_outcomes (token) VALUES ($1::uuid)), r AS (SELECT 1) DELETE FROM t');
  assert.equal(outcomeStatement('LOCK TABLE t', 1), null);
});
