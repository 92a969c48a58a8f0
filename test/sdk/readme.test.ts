// sdk/README.md's quick start, run as written against a real caja: the code block is saved as a
// file with '@caja/sdk' pointing at sdk/src, and run with the environment the README exports.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { createMerchant } from '../helpers/clients.ts';

let s: TestServer;
before(async () => {
  s = await startTestServer('pglite');
});
after(() => s.close());

test('the quick start prints the deposit, its completion and a typed error', async () => {
  const readme = readFileSync('sdk/README.md', 'utf8');
  const block = /## Quick start[\s\S]*?```ts\n([\s\S]*?)```/.exec(readme)?.[1];
  assert.ok(block, 'the quick start has a ts block');
  const dir = mkdtempSync(join(tmpdir(), 'caja-sdk-readme-'));
  const file = join(dir, 'quickstart.mts');
  writeFileSync(file, block.replace("from '@caja/sdk'", `from '${resolve('sdk/src/index.ts')}'`));
  const m = await createMerchant(s.url, 'Quick Start');
  // Asynchronous: the server answering the script runs in this process.
  const { stdout: out } = await promisify(execFile)(process.execPath, ['--import', 'tsx', file], {
    env: {
      ...process.env, CAJA_URL: s.url, CAJA_LOGIN: m.deposits.login, CAJA_SECRET: m.deposits.secret_key,
      CAJA_CASHOUT_LOGIN: m.cashouts.login, CAJA_CASHOUT_PASS: m.cashouts.pass, CAJA_CASHOUT_SECRET: m.cashouts.secret_key,
    },
    encoding: 'utf8',
  });
  assert.match(out, /^ONE_SHOT \d+\nCOMPLETED\n208 RESOURCE_NOT_FOUND\n$/);
});
