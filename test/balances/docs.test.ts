// Every shell example of docs/balance.md runs as written and prints what the page shows.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { ADMIN_TOKEN, startTestServer, type TestServer } from '../helpers/server.ts';
import { createMerchant, type Credentials } from '../helpers/clients.ts';
import { hasShellTools, runDocExamples } from '../helpers/doc-examples.ts';

describe('docs/balance.md examples', { skip: !hasShellTools && 'needs bash, curl and openssl' }, () => {
  let s: TestServer;
  let m: Credentials;
  before(async () => {
    s = await startTestServer('pglite');
    m = await createMerchant(s.url, 'Docs balance');
  });
  after(() => s.close());

  test('each command prints what the page shows', async () => {
    const checked = await runDocExamples(new URL('../../docs/balance.md', import.meta.url), {
      BASE: s.url, DLOGIN: m.deposits.login, DSECRET: m.deposits.secret_key, LOGIN: m.cashouts.login, PASS: m.cashouts.pass,
      SECRET: m.cashouts.secret_key, TOKEN: ADMIN_TOKEN, MERCHANT: String(m.merchant_id),
    });
    assert.ok(checked >= 8, `only ${checked} examples checked`);
  });
});
