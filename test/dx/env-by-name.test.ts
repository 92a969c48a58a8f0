// Issue 39 §1: staging is capabilities, not a name. Only the configuration (src/config/, which
// states what staging means: sandbox, simulated, relaxedChecks) compares the environment with
// 'staging' or 'production'; every service, face, worker and the composition root asks
// ctx.config's capabilities. Reading CAJA_ENV is left to the configuration, the composition root
// (src/server/) and the connector registry.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

// The CLI is a composition root too: it loads the configuration itself (its usage names CAJA_ENV).
const MAY_READ_CAJA_ENV = [/^src\/config\//, /^src\/server\//, /^src\/connectors\/registry\.ts$/, /^src\/cli\/main\.ts$/];
/** The one place that turns an environment's name into what it means (capabilitiesOf). */
const MAY_COMPARE_THE_NAME = [/^src\/config\//];

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile() && e.name.endsWith('.ts'))
    .map((e) => join(e.parentPath, e.name));
}

/** The code of a file without its comments (a comment may name CAJA_ENV to explain). */
const code = (text: string) => text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|[^:'"`])\/\/.*$/gm, '$1');

/** Where `text` reads CAJA_ENV. */
export function envReads(text: string): string[] {
  return [...code(text).matchAll(/CAJA_ENV/g)].map((m) => m[0]);
}

/**
 * Where `text` compares an environment's name: anything with 'staging' or 'production' (either
 * side), or an `env`/`environment` with anything (`env === x`, `m.environment !== y`).
 */
export function nameComparisons(text: string): string[] {
  const c = code(text);
  return [
    ...c.matchAll(/[!=]==?\s*['"`](?:staging|production)['"`]/gi),
    ...c.matchAll(/['"`](?:staging|production)['"`]\s*[!=]==?/gi),
    ...c.matchAll(/\benv(?:ironment)?\s*[!=]==?/gi),
    ...c.matchAll(/[!=]==?\s*[\w.]*\benv(?:ironment)?\b(?!\s*[.[(])/gi),
  ].map((m) => m[0]);
}

/** Both: what the rule refuses outside the files allowed each. */
export function envTests(text: string): string[] {
  return [...envReads(text), ...nameComparisons(text)];
}

test('the rule sees a test of the environment by name, not a mention in a comment', () => {
  assert.deepEqual(nameComparisons("if (ctx.config.env !== 'staging') return;"), ["!== 'staging'", 'env !==']);
  assert.deepEqual(nameComparisons("const p = env === 'production' ? a : b;"), ["=== 'production'", 'env ===']);
  assert.deepEqual(nameComparisons("const staging = 'staging' == m.environment;"), ["'staging' ==", '== m.environment']);
  assert.deepEqual(nameComparisons('if (env === wanted) go();'), ['env ===']);
  assert.deepEqual(nameComparisons('if (wanted !== config.env) go();'), ['!== config.env']);
  assert.deepEqual(nameComparisons("if (policy === 'production') x();"), ["=== 'production'"]);
  assert.deepEqual(envReads('const e = process.env.CAJA_ENV;'), ['CAJA_ENV']);
  assert.deepEqual(envTests("// chosen once from CAJA_ENV when env === 'staging'\nif (ctx.config.sandbox) x();"), []);
  // Shown, passed on or stored, the name is data: not a test.
  assert.deepEqual(nameComparisons("const shown = { env: config.env, environment: m.environment }; q(sql, [config.env]); if (process.env.X === '1') y();"), []);
  assert.deepEqual(nameComparisons("const s = (env: 'staging' | 'production') => t[env];"), []);
});

test('no service, face or worker reads CAJA_ENV', () => {
  const offenders: string[] = [];
  for (const file of sourceFiles('src')) {
    if (MAY_READ_CAJA_ENV.some((r) => r.test(file))) continue;
    for (const found of envReads(readFileSync(file, 'utf8'))) offenders.push(`${file}: ${found}`);
  }
  assert.deepEqual(offenders, []);
});

test("no file outside src/config/ compares an environment's name: each asks the capability it means", () => {
  const offenders: string[] = [];
  for (const file of sourceFiles('src')) {
    if (MAY_COMPARE_THE_NAME.some((r) => r.test(file))) continue;
    for (const found of nameComparisons(readFileSync(file, 'utf8'))) offenders.push(`${file}: ${found}`);
  }
  assert.deepEqual(offenders, []);
});
