// The programs tests start as processes of their own: the CLI and the provider simulators. When
// scripts/run-tests.mjs runs the tests it has compiled them into CAJA_TEST_BUILD (see
// scripts/build-tests.mjs), and they start from there without tsx's loader (≈0.75 s of CPU less
// each); a test file run on its own (node --import tsx --test …) starts them from the sources.
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const BUILD = process.env.CAJA_TEST_BUILD;

/** The module that runs the caja CLI, for `node <it> …`; bin/caja.mjs (what `npx caja` runs) unless compiled. */
export const CAJA_CLI = BUILD ? join(BUILD, 'cli.mjs') : join(ROOT, 'bin', 'caja.mjs');

/** node's arguments that start a provider simulator's main (then its own arguments follow). */
export function simulatorArgs(name: 'pix-simulator' | 'stp-simulator' | 'adyen-simulator', source: string): string[] {
  return BUILD ? [join(BUILD, `${name}.mjs`)] : ['--import', 'tsx', source];
}
