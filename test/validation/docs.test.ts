// Every shell example of docs/validation.md runs as written against a staging server, and prints
// what the page says it prints (the `# ` lines after a command).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { createMerchant, type Credentials } from '../helpers/clients.ts';

const DOC = new URL('../../docs/validation.md', import.meta.url);
const hasTools = ['bash', 'curl', 'openssl'].every((t) => spawnSync('which', [t]).status === 0);

interface Example {
  command: string;
  expected: string[];
}

/** The sh blocks, split into commands with the output lines that follow them. */
function examples(markdown: string): { setup: string; examples: Example[] } {
  const blocks = [...markdown.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1]!);
  // The first block defines the placeholders and the v5 function; its values come from the test.
  const setup = blocks[0]!.split('\n').filter((l) => !/^(BASE|LOGIN|RO_KEY)=/.test(l)).join('\n');
  const out: Example[] = [];
  for (const block of blocks.slice(1)) {
    for (const line of block.split('\n')) {
      if (line.startsWith('# ') || line === '#') out.at(-1)?.expected.push(line.slice(2).trim());
      else if (line.trim()) out.push({ command: line, expected: [] });
    }
  }
  return { setup, examples: out };
}

describe('docs/validation.md examples', { skip: !hasTools && 'needs bash, curl and openssl' }, () => {
  let s: TestServer;
  let m: Credentials;
  before(async () => {
    s = await startTestServer('pglite');
    m = await createMerchant(s.url, 'Docs');
  });
  after(() => s.close());

  test('each command prints what the page shows', async () => {
    const { setup, examples: list } = examples(readFileSync(DOC, 'utf8'));
    assert.ok(list.filter((e) => e.expected.length).length >= 10, 'the page has its examples');
    const script = [setup, ...list.map((e, i) => `echo "@@${i}"\n${e.command}`)].join('\n');
    // Asynchronous: the server that answers curl runs in this process.
    const output = await new Promise<string>((resolve, reject) => {
      const env = { ...process.env, BASE: s.url, LOGIN: m.cashouts.login, SECRET: m.cashouts.secret_key, RO_KEY: m.read_only_key };
      execFile('bash', ['-c', script], { env }, (err, stdout, stderr) => (err ? reject(new Error(`${err.message}\n${stderr}`)) : resolve(stdout)));
    });
    const parts = output.split(/^@@(\d+)\n/m);
    for (let p = 1; p < parts.length; p += 2) {
      const e = list[Number(parts[p])]!;
      if (!e.expected.length) continue;
      assert.deepEqual(parts[p + 1]!.trimEnd().split('\n').map((l) => l.trim()), e.expected, e.command);
    }
  });
});

