// Converts the Central Bank's API Pix OpenAPI document (YAML, github.com/bacen/pix-api) into the
// JSON fixture the Pix simulator and the Pix tests read, so nothing parses YAML at run time.
//   node scripts/pix-api-fixture.mjs <openapi.yaml> [<source commit>]
// The document is kept whole (descriptions and examples included), two-space indented; test/fixtures/pix-api/NOTICE.md names its source and licence.
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';

const [input] = process.argv.slice(2);
if (!input) {
  console.error('usage: node scripts/pix-api-fixture.mjs <openapi.yaml>');
  process.exit(2);
}
const doc = parse(readFileSync(input, 'utf8'), { maxAliasCount: -1 });
if (typeof doc?.openapi !== 'string' || !doc.paths || !doc.components?.schemas) {
  console.error(`${input} is not an OpenAPI 3 document`);
  process.exit(1);
}
const out = join(dirname(fileURLToPath(import.meta.url)), '..', 'test', 'fixtures', 'pix-api', 'openapi.json');
writeFileSync(out, JSON.stringify(doc, null, 2) + '\n');
console.log(`${out}: API Pix ${doc.info?.version}, ${Object.keys(doc.paths).length} paths`);
