// Every shell example of docs/refunds.md runs as written and prints what the page shows.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { createMerchant, type Credentials } from '../helpers/clients.ts';
import { hasShellTools, runDocExamples } from '../helpers/doc-examples.ts';

describe('docs/refunds.md examples', { skip: !hasShellTools && 'needs bash, curl and openssl' }, () => {
  let s: TestServer;
  let m: Credentials;
  before(async () => {
    s = await startTestServer('pglite');
    m = await createMerchant(s.url, 'Docs refunds');
  });
  after(() => s.close());

  test('each command prints what the page shows', async () => {
    const checked = await runDocExamples(new URL('../../docs/refunds.md', import.meta.url), {
      BASE: s.url, DLOGIN: m.deposits.login, DSECRET: m.deposits.secret_key,
    });
    assert.ok(checked >= 9, `only ${checked} examples checked`);
  });
});
