// Every shell example of the pages below runs as written against a staging server of its own
// (ids start at 1, as on a new installation) and prints what the page shows.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { ADMIN_TOKEN, startTestServer, type TestServer } from '../helpers/server.ts';
import { createMerchant, type Credentials } from '../helpers/clients.ts';
import { hasShellTools, runDocExamples } from '../helpers/doc-examples.ts';

/** Each page, the placeholders of its first shell block, and how many examples it must have. */
const PAGES: { page: string; min: number; env: (s: TestServer, m: Credentials) => Record<string, string> }[] = [
  { page: 'deposits.md', min: 9, env: (s, m) => ({ BASE: s.url, LOGIN: m.deposits.login, SECRET: m.deposits.secret_key, TOKEN: ADMIN_TOKEN }) },
  { page: 'validation.md', min: 10, env: (s, m) => ({ BASE: s.url, LOGIN: m.cashouts.login, SECRET: m.cashouts.secret_key, RO_KEY: m.read_only_key }) },
  { page: 'refunds.md', min: 9, env: (s, m) => ({ BASE: s.url, DLOGIN: m.deposits.login, DSECRET: m.deposits.secret_key }) },
  {
    page: 'cashouts.md', min: 15,
    env: (s, m) => ({
      BASE: s.url, LOGIN: m.cashouts.login, PASS: m.cashouts.pass, SECRET: m.cashouts.secret_key,
      DLOGIN: m.deposits.login, DSECRET: m.deposits.secret_key, TOKEN: ADMIN_TOKEN, MERCHANT: String(m.merchant_id),
    }),
  },
  {
    page: 'balance.md', min: 8,
    env: (s, m) => ({
      BASE: s.url, DLOGIN: m.deposits.login, DSECRET: m.deposits.secret_key, LOGIN: m.cashouts.login, PASS: m.cashouts.pass,
      SECRET: m.cashouts.secret_key, TOKEN: ADMIN_TOKEN, MERCHANT: String(m.merchant_id),
    }),
  },
  {
    page: 'streamline.md', min: 10,
    env: (s, m) => ({
      BASE: s.url, LOGIN: m.deposits.login, TRANS: m.deposits.trans_key, SECRET: m.deposits.secret_key,
      WS_LOGIN: m.web_status.login, WS_TRANS: m.web_status.trans_key,
    }),
  },
  {
    page: 'notifications.md', min: 8,
    env: (s, m) => ({ BASE: s.url, LOGIN: m.deposits.login, SECRET: m.deposits.secret_key, TOKEN: ADMIN_TOKEN, MERCHANT: String(m.merchant_id) }),
  },
];

for (const { page, min, env } of PAGES) {
  describe(`docs/${page} examples`, { skip: !hasShellTools && 'needs bash, curl and openssl' }, () => {
    let s: TestServer;
    let m: Credentials;
    before(async () => {
      s = await startTestServer('pglite');
      m = await createMerchant(s.url, 'Docs');
    });
    after(() => s.close());

    test('each command prints what the page shows', async () => {
      const checked = await runDocExamples(new URL(`../../docs/${page}`, import.meta.url), env(s, m));
      assert.ok(checked >= min, `only ${checked} examples checked`);
    });
  });
}
