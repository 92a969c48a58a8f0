// Issue 39 §3: each money table has one owner. SQL naming `deposits` lives in src/deposits/ only,
// `cashouts` in src/cashouts/ only, `refunds` in src/refunds/ only; every other feature, face or
// worker asks the owner's functions (src/deposits/lookups.ts, src/cashouts/lookups.ts,
// src/refunds/lookups.ts). This scans src/ for SQL that names one of these tables outside its
// owner (FROM, JOIN, UPDATE, INTO, DELETE FROM, a table chosen by a ternary).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const OWNED = ['deposits', 'cashouts', 'refunds'] as const;

/** `file table`: where a table is still named outside its owner, and why. Keep it short. */
const ALLOWED: Record<string, string> = {
  'src/ledger/check.ts deposits': 'the ledger check reads every money table against the ledger, in one snapshot',
  'src/ledger/check.ts cashouts': 'the ledger check reads every money table against the ledger, in one snapshot',
  'src/ledger/check.ts refunds': 'the ledger check reads every money table against the ledger, in one snapshot',
  'src/refunds/list.ts deposits': "a refund is read with its deposit's invoice id (one join, one round trip for a report)",
  'src/refunds/transitions.ts deposits': "a refund is read with its deposit's fields (invoice id, country, method, test) in one join, as every refund view shows them",
};

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile() && e.name.endsWith('.ts'))
    .map((e) => join(e.parentPath, e.name));
}

/** The code of a file without its comments (a comment may name a table to explain). */
const code = (text: string) => text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|[^:'"`])\/\/.*$/gm, '$1');

const TABLE = OWNED.join('|');
const PATTERNS = [
  // FROM deposits, JOIN cashouts c, UPDATE refunds, INSERT INTO deposits, DELETE FROM cashouts
  new RegExp(String.raw`\b(?:FROM|JOIN|UPDATE|INTO|TABLE|TRUNCATE)\s+(?:ONLY\s+)?(${TABLE})\b(?!\s*\()`, 'gi'),
  // FROM merchants m, deposits d
  new RegExp(String.raw`,\s*(${TABLE})\s+[a-z]\b`, 'gi'),
  // FROM ${kind === 'deposit' ? 'deposits' : 'cashouts'}
  new RegExp(String.raw`\b(?:FROM|JOIN|UPDATE|INTO)\s+\$\{[^}]*\?\s*'(${TABLE})'\s*:\s*'(${TABLE})'`, 'gi'),
];

/** The owned tables `text`'s SQL names, with their lines. */
export function tablesNamed(text: string): { table: string; line: number }[] {
  const c = code(text);
  const found: { table: string; line: number }[] = [];
  for (const re of PATTERNS) {
    for (const m of c.matchAll(re)) {
      const line = c.slice(0, m.index).split('\n').length;
      for (const t of m.slice(1)) if (t) found.push({ table: t.toLowerCase(), line });
    }
  }
  return found;
}

test('the scan finds SQL naming an owned table in its usual forms, and not in comments or other words', () => {
  assert.deepEqual(tablesNamed('q.query(`SELECT id FROM deposits WHERE id = $1`)').map((f) => f.table), ['deposits']);
  assert.deepEqual(tablesNamed("q.query('UPDATE cashouts SET x = 1')").map((f) => f.table), ['cashouts']);
  assert.deepEqual(tablesNamed('`SELECT 1 FROM refunds r\n JOIN deposits d ON d.id = r.deposit_id`').map((f) => f.table), ['refunds', 'deposits']);
  assert.deepEqual(tablesNamed("`SELECT merchant_id FROM ${t === 'deposit' ? 'deposits' : 'cashouts'} WHERE id = $1`").map((f) => f.table).sort(), ['cashouts', 'deposits']);
  assert.deepEqual(tablesNamed('// reads FROM deposits\nconst x = 1;'), []);
  assert.deepEqual(tablesNamed("`SELECT login FROM credentials WHERE set_name = 'deposits'`"), []);
  assert.deepEqual(tablesNamed('`SELECT 1 FROM deposit_returns`'), []);
  assert.deepEqual(tablesNamed("const other = set === 'deposits' ? 'cashouts' : 'deposits';"), []);
});

test('SQL on deposits, cashouts and refunds lives in their own folders only', () => {
  const outside: string[] = [];
  const used = new Set<string>();
  for (const file of sourceFiles('src')) {
    if (file.startsWith('src/db/migrations/')) continue;
    for (const { table, line } of tablesNamed(readFileSync(file, 'utf8'))) {
      if (file.startsWith(`src/${table}/`)) continue;
      const key = `${file} ${table}`;
      if (ALLOWED[key]) {
        used.add(key);
        continue;
      }
      outside.push(`${file}:${line} names ${table}`);
    }
  }
  assert.deepEqual(outside, [], `SQL on an owned table outside its owner (ask the owner's lookups instead):\n${outside.join('\n')}`);
  const stale = Object.keys(ALLOWED).filter((k) => !used.has(k));
  assert.deepEqual(stale, [], 'allow-list entries no longer needed: remove them');
});
