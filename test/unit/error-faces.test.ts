// Each API face renders the same failures in its own format.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import Fastify from 'fastify';
import { useCashoutErrors } from '../../src/api/cashouts/face.ts';
import { useV3Errors } from '../../src/api/v3/face.ts';
import { registerBodyParsers } from '../../src/http/body-parsers.ts';
import { cashoutErrors, v3Errors } from '../../src/http/errors.ts';

function appWith(face: (app: any) => void) {
  const app = Fastify({ ajv: { customOptions: { allErrors: true } } });
  registerBodyParsers(app);
  face(app);
  app.post('/known', async () => {
    throw cashoutErrors.invalidTransition();
  });
  app.post('/v3-error', async () => {
    throw v3Errors.notFound('Deposit not found');
  });
  app.post('/crash', async () => {
    throw new Error('secret internals at /src/x.ts:1');
  });
  app.post('/schema', { schema: { body: { type: 'object', required: ['cashout_id'], properties: { cashout_id: { type: 'integer' } } } } }, async () => ({}));
  return app;
}

const post = (app: any, url: string, payload = '{}') => app.inject({ method: 'POST', url, payload, headers: { 'content-type': 'application/json' } });

test('cashout face: {code, message} with a non-2xx status, whatever failed', async () => {
  const app = appWith(useCashoutErrors);
  const known = await post(app, '/known');
  assert.deepEqual([known.statusCode, known.json()], [400, { code: 510, message: 'Invalid status transition' }]);
  const v3 = await post(app, '/v3-error');
  assert.deepEqual([v3.statusCode, v3.json()], [404, { code: 208, message: 'Deposit not found' }]);
  const schema = await post(app, '/schema', '{"cashout_id":"x"}');
  assert.equal(schema.statusCode, 400);
  assert.equal(schema.json().code, 300);
  assert.match(schema.json().message, /cashout_id/);
  const crash = await post(app, '/crash');
  assert.deepEqual([crash.statusCode, crash.json()], [500, { code: 999, message: 'Internal error' }]);
  const malformed = await post(app, '/known', '{"a":');
  assert.equal(malformed.statusCode, 400);
  assert.deepEqual(Object.keys(malformed.json()), ['code', 'message']);
});

test('v3 face: {code, description, type, details?}; internals never leak', async () => {
  const app = appWith(useV3Errors);
  const schema = await post(app, '/schema', '{"cashout_id":"x"}');
  assert.deepEqual([schema.statusCode, schema.json().code, schema.json().type], [400, 201, 'BEAN_VALIDATION_ERROR']);
  assert.deepEqual(schema.json().details, ['cashout_id: must be integer']);
  const crash = await post(app, '/crash');
  assert.equal(crash.statusCode, 500);
  assert.ok(!crash.body.includes('secret internals'));
  const malformed = await post(app, '/v3-error', '{"a":');
  assert.deepEqual([malformed.statusCode, malformed.json().code], [400, 502]);
});
