// docs/deposits.md's shell examples run as written against a new staging server and print what
// the page shows (the pages the harness of test/docs/examples.test.ts does not list yet).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { ADMIN_TOKEN, startTestServer, type TestServer } from '../helpers/server.ts';
import { createMerchant, type Credentials } from '../helpers/clients.ts';
import { hasShellTools, runDocExamples } from '../helpers/doc-examples.ts';

describe('docs/deposits.md examples', { skip: !hasShellTools && 'needs bash, curl and openssl' }, () => {
  let s: TestServer;
  let m: Credentials;
  before(async () => {
    s = await startTestServer('pglite');
    m = await createMerchant(s.url, 'Docs');
  });
  after(() => s.close());

  test('each command prints what the page shows', async () => {
    const checked = await runDocExamples(new URL('../../docs/deposits.md', import.meta.url), { BASE: s.url, LOGIN: m.deposits.login, SECRET: m.deposits.secret_key, TOKEN: ADMIN_TOKEN });
    assert.ok(checked >= 9, `only ${checked} examples checked`);
  });
});
