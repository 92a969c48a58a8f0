// Runs the shell examples of a page of docs/ as written, against a test server, and checks that
// each command prints what the page says (the `# ` lines after it). The page's first sh block
// defines placeholders and shell functions; the placeholders given here replace its values.
import assert from 'node:assert/strict';
import { execFile, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

export const hasShellTools = ['bash', 'curl', 'openssl'].every((t) => spawnSync('which', [t]).status === 0);

interface Example {
  command: string;
  expected: string[];
}

/** The sh blocks, split into commands with the output lines that follow them. */
export function docExamples(markdown: string, given: string[]): { setup: string; examples: Example[] } {
  const blocks = [...markdown.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1]!);
  const assigns = new RegExp(`^(${given.join('|')})=`);
  // Lines of the first block that only assign given placeholders are dropped (the env sets them).
  const setup = blocks[0]!.split('\n').filter((l) => !l.split(';').every((part) => assigns.test(part.trim()) || part.trim().startsWith('#') || !part.trim())).join('\n');
  const out: Example[] = [];
  for (const block of blocks.slice(1)) {
    for (const line of block.split('\n')) {
      if (line.startsWith('# ') || line === '#') out.at(-1)?.expected.push(line.slice(2).trim());
      else if (line.trim()) out.push({ command: line, expected: [] });
    }
  }
  return { setup, examples: out };
}

/** Runs every example of `page` with `env` (in `cwd`) and asserts its output; returns how many were checked. */
export async function runDocExamples(page: URL, env: Record<string, string>, cwd?: string): Promise<number> {
  const { setup, examples } = docExamples(readFileSync(page, 'utf8'), Object.keys(env));
  const script = [setup, ...examples.map((e, i) => `echo "@@${i}"\n${e.command}`)].join('\n');
  // Asynchronous: the server that answers curl runs in the test's process.
  const output = await new Promise<string>((resolve, reject) => {
    execFile('bash', ['-c', script], { env: { ...process.env, ...env }, cwd }, (err, stdout, stderr) => (err ? reject(new Error(`${err.message}\n${stderr}`)) : resolve(stdout)));
  });
  const parts = output.split(/^@@(\d+)\n/m);
  let checked = 0;
  for (let p = 1; p < parts.length; p += 2) {
    const e = examples[Number(parts[p])]!;
    if (!e.expected.length) continue;
    assert.deepEqual(parts[p + 1]!.trimEnd().split('\n').map((l) => l.trim()), e.expected, e.command);
    checked++;
  }
  return checked;
}
