// Production takes its secrets from the environment only, and page tokens never reach the logs.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { loadConfig } from '../../src/config/config.ts';
import { redactUrl } from '../../src/http/log-redaction.ts';
import type { AddressInfo } from 'node:net';
import { pino } from 'pino';
import { loggerOptions, openContext } from '../../src/server/runtime.ts';
import { buildApp } from '../../src/server/app.ts';
import { pgliteTemplate } from '../helpers/pglite-template.ts';

test('production does not fall back to key files in DATA_DIR', () => {
  const dir = mkdtempSync(join(tmpdir(), 'caja-prod-'));
  writeFileSync(join(dir, 'master.key'), `${randomBytes(32).toString('base64')}\n`);
  writeFileSync(join(dir, 'admin.token'), 'a-long-enough-admin-token\n');
  assert.throws(() => loadConfig({ CAJA_ENV: 'production', DATA_DIR: dir }), /CAJA_MASTER_KEY is required in production \(from the environment/);
  assert.throws(() => loadConfig({ CAJA_ENV: 'production', DATA_DIR: dir, CAJA_MASTER_KEY: randomBytes(32).toString('base64') }), /CAJA_ADMIN_TOKEN is required in production/);
  // Staging still reads (or makes) them there, for `npm start` with nothing configured.
  assert.equal(loadConfig({ CAJA_ENV: 'staging', DATA_DIR: dir }).adminToken, 'a-long-enough-admin-token');
});

test('CAJA_HEAP_GROWING_PERCENT: 100 by default, 0 leaves V8 its own policy, nonsense is a configuration error', () => {
  const dir = mkdtempSync(join(tmpdir(), 'caja-heap-'));
  assert.equal(loadConfig({ CAJA_ENV: 'staging', DATA_DIR: dir }).heapGrowingPercent, 100);
  assert.equal(loadConfig({ CAJA_ENV: 'staging', DATA_DIR: dir, CAJA_HEAP_GROWING_PERCENT: '0' }).heapGrowingPercent, 0);
  assert.throws(() => loadConfig({ CAJA_ENV: 'staging', DATA_DIR: dir, CAJA_HEAP_GROWING_PERCENT: 'lots' }), /CAJA_HEAP_GROWING_PERCENT/);
  assert.throws(() => loadConfig({ CAJA_ENV: 'staging', DATA_DIR: dir, CAJA_HEAP_GROWING_PERCENT: '-5' }), /CAJA_HEAP_GROWING_PERCENT/);
});

test('page URLs are logged without their token', () => {
  assert.equal(redactUrl('/pay/abcDEF123_-xyz'), '/pay/[token]');
  assert.equal(redactUrl('/checkout/abcDEF123/card?lang=es'), '/checkout/[token]/card?[query]');
  assert.equal(redactUrl('/RETURN/abc'), '/return/[token]');
  assert.equal(redactUrl('/vouchers/abc'), '/vouchers/[token]');
  assert.equal(redactUrl('/v3/banks?country=BR'), '/v3/banks?country=BR');
  // Every spelling the router takes for a page is a page (issue 25 §4: one canonical path).
  assert.equal(redactUrl('//pay/abcDEF123'), '/pay/[token]');
  assert.equal(redactUrl('/%70ay/abcDEF123'), '/pay/[token]');
  assert.equal(redactUrl('/pay//abcDEF123/'), '/pay/[token]');
  assert.equal(redactUrl('http://h//Checkout/abc/card?x=1'), '/checkout/[token]/card?[query]');
  assert.equal(redactUrl('/pay/abc%E0%A4%A'), '[unreadable request target]');
  assert.equal(redactUrl('/pay'), '/pay');
  // An operator's enrolment link is a credential too.
  assert.equal(redactUrl('/ops/enrol/abcDEF123_-xyz'), '/ops/enrol/[token]');
  assert.equal(redactUrl('/ops//Enrol/abcDEF123'), '/ops/enrol/[token]');
  assert.equal(redactUrl('/ops/enrol'), '/ops/enrol');
  // A connector's return leg names the deposit's page token (and its query, the provider's result).
  assert.equal(redactUrl('/connectors/staging-card/return/abcDEF123_-xyz?redirectResult=x'), '/connectors/staging-card/return/[token]?[query]');
  assert.equal(redactUrl('//connectors/adyen/return/abcDEF123'), '/connectors/adyen/return/[token]');
  assert.equal(redactUrl('/connectors/pix/webhook/pix'), '/connectors/pix/webhook/pix');
});

test('request logging of a real server carries no page token', async () => {
  const lines: string[] = [];
  const config = loadConfig({ CAJA_ENV: 'staging', PORT: '0', HOST: '127.0.0.1', DATA_DIR: mkdtempSync(join(tmpdir(), 'caja-log-')), CAJA_MASTER_KEY: randomBytes(32).toString('base64'), CAJA_ADMIN_TOKEN: 'a-long-enough-admin-token' });
  const ctx = await openContext(config, { memory: true, initialData: await pgliteTemplate() });
  ctx.log = pino(loggerOptions('info'), { write: (line: string) => lines.push(line) });
  const app = await buildApp(ctx);
  await app.listen({ port: 0, host: '127.0.0.1' });
  try {
    const port = (app.server.address() as AddressInfo).port;
    await fetch(`http://127.0.0.1:${port}/pay/TOKENthatMustNotBeLogged123`);
    await fetch(`http://127.0.0.1:${port}/checkout/TOKENthatMustNotBeLogged123?iframe_view=1`);
    await fetch(`http://127.0.0.1:${port}//pay/TOKENthatMustNotBeLogged123`);
    await fetch(`http://127.0.0.1:${port}/%70ay/TOKENthatMustNotBeLogged123`);
  } finally {
    await app.close();
    await ctx.db.close();
  }
  const text = lines.join('');
  assert.match(text, /"url":"\/pay\/\[token\]"/);
  assert.doesNotMatch(text, /TOKENthatMustNotBeLogged/);
});
