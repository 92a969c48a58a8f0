// Issue 39 §1: staging is capabilities, not a name. Only the configuration (src/config/, which
// states what staging means: sandbox, simulated, relaxedChecks), the composition root
// (src/server/) and the connector registry read CAJA_ENV or compare the environment with
// 'staging' or 'production'; every service, face and worker asks ctx.config's capabilities.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

// The CLI is a composition root too: it loads the configuration itself (its usage names CAJA_ENV).
const ALLOWED = [/^src\/config\//, /^src\/server\//, /^src\/connectors\/registry\.ts$/, /^src\/cli\/main\.ts$/];

/**
 * Files that still decide by the name, through an `env` parameter their callers pass on
 * (docs/architecture.md lists them as the next step: each takes a capability instead).
 */
const NOT_YET: Record<string, string> = {
  'src/domain/urls.ts': 'checkCallbackUrl(url, env): http on localhost in staging',
  'src/domain/frame-origins.ts': 'checkFrameOrigins(origins, env): http on localhost in staging',
  'src/merchants/merchants.ts': "createMerchant(…, env, …): a staging merchant's account validation",
};

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile() && e.name.endsWith('.ts'))
    .map((e) => join(e.parentPath, e.name));
}

/** The code of a file without its comments (a comment may name CAJA_ENV to explain). */
const code = (text: string) => text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|[^:'"`])\/\/.*$/gm, '$1');

/** Where `text` tests the environment by name: reads CAJA_ENV, or compares an env with 'staging' or 'production'. */
export function envTests(text: string): string[] {
  const c = code(text);
  return [
    ...c.matchAll(/CAJA_ENV/g),
    ...c.matchAll(/\benv\w*\s*[!=]==?\s*['"](?:staging|production)['"]/gi),
    ...c.matchAll(/['"](?:staging|production)['"]\s*[!=]==?\s*[\w.]*\benv\b/gi),
  ].map((m) => m[0]);
}

test('the rule sees a test of the environment by name, not a mention in a comment', () => {
  assert.deepEqual(envTests("if (ctx.config.env !== 'staging') return;"), ["env !== 'staging'"]);
  assert.deepEqual(envTests("const p = env === 'production' ? a : b;"), ["env === 'production'"]);
  assert.deepEqual(envTests('const e = process.env.CAJA_ENV;'), ['CAJA_ENV']);
  assert.deepEqual(envTests("// chosen once from CAJA_ENV\nif (ctx.config.sandbox) x();"), []);
});

test('no service, face or worker tests CAJA_ENV or the environment by name', () => {
  const offenders: string[] = [];
  for (const file of sourceFiles('src')) {
    if (ALLOWED.some((r) => r.test(file)) || file in NOT_YET) continue;
    for (const found of envTests(readFileSync(file, 'utf8'))) offenders.push(`${file}: ${found}`);
  }
  assert.deepEqual(offenders, []);
});
