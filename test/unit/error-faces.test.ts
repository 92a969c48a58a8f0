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

test('deposit failures: the v3, streamline and pages tables answer each kind as the service once did in HTTP terms', async () => {
  const { DepositError, providerFailure } = await import('../../src/deposits/errors.ts');
  const { ConnectorError } = await import('../../src/connectors/payin.ts');
  const { pageDepositError, streamlineDepositError, v3DepositError } = await import('../../src/http/errors.ts');
  const v3 = (e: InstanceType<typeof DepositError>) => {
    const a = v3DepositError(e);
    return [a.httpStatus, a.code, a.type, a.message, a.details];
  };
  assert.deepEqual(v3(new DepositError('invoice_used', 'invoice_id already used')), [400, 201, 'BEAN_VALIDATION_ERROR', 'Invalid request fields', ['invoice_id: already used']]);
  assert.deepEqual(v3(new DepositError('user_limit', 'x', { limit: 'DAILY' })), [400, 304, 'USER_LIMIT_EXCEEDED', 'User limit exceeded: DAILY', undefined]);
  assert.deepEqual(v3(new DepositError('idempotency_key_used', 'x')), [400, 104, 'IDEMPOTENCY_KEY_ALREADY_USED', 'The idempotency key was already used with a different request', undefined]);
  assert.deepEqual(v3(new DepositError('not_found', 'x')), [404, 208, 'RESOURCE_NOT_FOUND', 'Deposit not found', undefined]);
  // 510 is 409 on the v3 face (the cashout face keeps its published 400: cashoutErrors).
  assert.deepEqual(v3(new DepositError('invalid_transition', 'Deposit 1 is COMPLETED: final')), [409, 510, 'INVALID_STATUS_TRANSITION', 'Deposit 1 is COMPLETED: final', undefined]);
  const refused = providerFailure(new ConnectorError('refused', 'no', { title: 'Bad key', detail: 'unknown' }), 'The Pix provider');
  assert.deepEqual(v3(refused), [502, 521, 'PAYMENT_PROVIDER_REFUSED', 'The Pix provider refused the charge (Bad key: unknown); nothing was created', undefined]);
  const down = providerFailure(new ConnectorError('unavailable', 'timeout'), 'The Pix provider');
  assert.deepEqual(v3(down), [503, 520, 'PAYMENT_PROVIDER_UNAVAILABLE', 'The Pix provider is not answering (unavailable); nothing was created, retry later', undefined]);

  assert.deepEqual(streamlineDepositError(new DepositError('invoice_used', 'x'), 'A-1'), { code: 303, message: 'x_invoice already used: A-1' });
  assert.deepEqual(streamlineDepositError(new DepositError('user_limit', 'x', { limit: 'MONTHLY' }), 'A-1'), { code: 304, message: 'User limit exceeded: MONTHLY' });
  assert.deepEqual(streamlineDepositError(down, 'A-1').code, 320);
  assert.deepEqual(streamlineDepositError(refused, 'A-1').code, 321);
  assert.deepEqual(streamlineDepositError(new DepositError('validation', 'Invalid request fields', { details: ['payment_method: no'] }), 'A-1'), { code: 300, message: 'Invalid parameter: payment_method: no' });

  assert.deepEqual(pageDepositError(new DepositError('invalid_transition', 'Deposit 1 is CANCELLED')), { status: 409, message: 'Deposit 1 is CANCELLED' });
});
