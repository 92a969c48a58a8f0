// Compiles test files, with what they import from src/, test/helpers and sdk/, into plain ES
// modules that node runs without a loader (scripts/run-tests.mjs runs these). Through tsx every
// test process paid about 1.15 s of CPU to start, against 0.4 s for a compiled module; so did
// every CLI command and provider simulator a test spawns, which are compiled here too.
//   Each module keeps its own import.meta.url (the .ts file it came from), so code that finds
// files beside itself (the migrations, the OpenAPI examples, fixtures, docs) finds them as under
// tsx. Source maps are linked: node --enable-source-maps reports failures at the .ts lines.
//   Shared code goes into chunks (splitting), so the build stays small; the packages stay imports
// from node_modules, resolved from the build directory, which therefore lies inside the project.
import { readFile } from 'node:fs/promises';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { build } from 'esbuild';
import { NODE_BUNDLE } from './esbuild-node.mjs';

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');

/** Entry points besides the test files: the programs tests start as processes of their own. */
export const PROGRAMS = {
  cli: 'src/cli/main.ts',
  'pix-simulator': 'src/connectors/pix/simulator/main.ts',
  'stp-simulator': 'src/connectors/stp/simulator/main.ts',
  'adyen-simulator': 'src/connectors/adyen/simulator/main.ts',
  // Run by the runner itself, before the test files (test/helpers/make-templates.ts).
  'make-templates': 'test/helpers/make-templates.ts',
};

const ownImportMetaUrl = {
  name: 'own-import-meta-url',
  setup(b) {
    b.onLoad({ filter: /\.ts$/ }, async (args) => {
      const text = await readFile(args.path, 'utf8');
      return { contents: text.replaceAll('import.meta.url', JSON.stringify(pathToFileURL(args.path).href)), loader: 'ts' };
    });
  },
};

/** Where a test file's compiled module lies in outDir. */
export function builtTest(outDir, file) {
  return join(outDir, relative(ROOT, join(ROOT, file)).replace(/\.ts$/, '.mjs'));
}

/** Where a program's compiled module lies in outDir. */
export function builtProgram(outDir, name) {
  return join(outDir, `${name}.mjs`);
}

/** Compiles the test files (paths relative to the project) and PROGRAMS into outDir. */
export async function buildTests(outDir, files) {
  await build({
    absWorkingDir: ROOT,
    entryPoints: [
      ...files.map((f) => ({ in: f, out: relative(ROOT, join(ROOT, f)).replace(/\.ts$/, '') })),
      ...Object.entries(PROGRAMS).map(([out, f]) => ({ in: f, out })),
    ],
    outdir: outDir,
    outExtension: { '.js': '.mjs' },
    chunkNames: 'chunks/[name]-[hash]',
    ...NODE_BUNDLE,
    splitting: true,
    plugins: [ownImportMetaUrl],
  });
}
