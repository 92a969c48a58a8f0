// Every shell example of the pages below runs as written against a staging server of its own
// (ids start at 1, as on a new installation) and prints what the page shows. The pages are
// checked by three test files of three pages each (test/docs/examples-*.test.ts), which the
// runner spreads over the cores: in one file the nine servers and pages took a minute and a half.
import { writeFileSync, chmodSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { ADMIN_TOKEN, startTestServer, type TestServer } from '../helpers/server.ts';
import { createMerchant, type Credentials } from '../helpers/clients.ts';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { hasShellTools, runDocExamples } from '../helpers/doc-examples.ts';
import { CAJA_CLI } from '../helpers/programs.ts';

/**
 * Each page (of docs/, or the README), the placeholders of its first shell block, and how many
 * examples it must have. `ownMerchant: false`: the page creates its merchant itself (the README's
 * quick start), so the test creates none and the page's is merchant 1.
 */
export const PAGES: { page: string; min: number; ownMerchant?: false; env: (s: TestServer, m: Credentials) => Record<string, string> }[] = [
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
  // The quick start's `npm install && npm start` is a bash block, not an sh example: the test
  // brings its own server. The merchant answer is written to acme.json, in a directory of the test's.
  { page: 'cli.md', min: 5, ownMerchant: false, env: (s) => ({ BASE: s.url, TOKEN: ADMIN_TOKEN }) },
  { page: '../README.md', min: 2, ownMerchant: false, env: (s) => ({ BASE: s.url, TOKEN: ADMIN_TOKEN }) },
];

/** Checks the examples of the pages named (as in PAGES), one after the other. */
export function describeExamples(pages: string[]): void {
  for (const page of pages) describePage(PAGES.find((p) => p.page === page) ?? assert.fail(`no page ${page} in PAGES`));
}

function describePage({ page, min, ownMerchant, env }: (typeof PAGES)[number]): void {
  const name = page.startsWith('../') ? page.slice(3) : `docs/${page}`;
  describe(`${name} examples`, { skip: !hasShellTools && 'needs bash, curl and openssl' }, () => {
    let s: TestServer;
    let m: Credentials;
    // Where the examples run: files they write (acme.json, the CLI's profile via XDG_CONFIG_HOME)
    // stay out of the repository and the home directory.
    let cwd: string;
    before(async () => {
      s = await startTestServer('pglite');
      if (ownMerchant !== false) m = await createMerchant(s.url, 'Docs');
      cwd = mkdtempSync(join(tmpdir(), 'caja-doc-'));
      // `npx caja` finds the repository's CLI there, as it does in the repository (docs/cli.md):
      // bin/caja.mjs, or under scripts/run-tests.mjs the same CLI compiled (CAJA_CLI), which
      // starts without tsx's loader (about 1.5 s of CPU less a command; test/api/process.test.ts
      // runs bin/caja.mjs itself).
      const bin = join(cwd, 'node_modules', '.bin', 'caja');
      mkdirSync(join(cwd, 'node_modules', '.bin'), { recursive: true });
      const source = fileURLToPath(new URL('../../bin/caja.mjs', import.meta.url));
      if (CAJA_CLI === source) symlinkSync(source, bin);
      else {
        writeFileSync(bin, `#!/bin/sh\nexec '${process.execPath}' '${CAJA_CLI}' "$@"\n`);
        chmodSync(bin, 0o755);
      }
    });
    after(async () => {
      await s.close();
      rmSync(cwd, { recursive: true, force: true });
    });

    test('each command prints what the page shows', async () => {
      const checked = await runDocExamples(new URL(`../../docs/${page}`, import.meta.url), { ...env(s, m), XDG_CONFIG_HOME: cwd }, cwd);
      assert.ok(checked >= min, `only ${checked} examples checked`);
    });
  });
}
