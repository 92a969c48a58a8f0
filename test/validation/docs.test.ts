// Every shell example of docs/validation.md runs as written against a staging server, and prints
// what the page says it prints (the `# ` lines after a command).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { createMerchant, type Credentials } from '../helpers/clients.ts';
import { hasShellTools, runDocExamples } from '../helpers/doc-examples.ts';

describe('docs/validation.md examples', { skip: !hasShellTools && 'needs bash, curl and openssl' }, () => {
  let s: TestServer;
  let m: Credentials;
  before(async () => {
    s = await startTestServer('pglite');
    m = await createMerchant(s.url, 'Docs');
  });
  after(() => s.close());

  test('each command prints what the page shows', async () => {
    const checked = await runDocExamples(new URL('../../docs/validation.md', import.meta.url), {
      BASE: s.url, LOGIN: m.cashouts.login, SECRET: m.cashouts.secret_key, RO_KEY: m.read_only_key,
    });
    assert.ok(checked >= 10, 'the page has its examples');
  });
});
