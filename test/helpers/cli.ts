// Runs caja CLI commands inside the test's own process: the CLI's runCli (src/cli/main.ts), what
// the program runs, with the command's environment given and its console output collected. A
// command spawned as `node cli.mjs …` costs a process start and the CLI's modules loaded again
// (about 1 s of CPU each on a loaded machine); in-process it costs the command alone. The files
// that use this keep a command or two as a real process too, for the program's own exit code and
// streams (test/cli/operators.test.ts, test/connectors/cli.test.ts).
import { format } from 'node:util';

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

let cli: Promise<typeof import('../../src/cli/main.ts')> | undefined;
let queue: Promise<unknown> = Promise.resolve();

/** `caja …args` with env as its environment, in this process; one command at a time (console is shared). */
export function cajaInProcess(args: string[], env: NodeJS.ProcessEnv): Promise<CliResult> {
  const done = queue.then(async () => {
    // Imported, not run: src/cli/main.ts runs process.argv as a command unless this is set first.
    (globalThis as Record<symbol, unknown>)[Symbol.for('caja.cli.in-process')] = true;
    cli ??= import('../../src/cli/main.ts');
    const { runCli } = await cli;
    let stdout = '';
    let stderr = '';
    const { log, error } = console;
    console.log = (...a: unknown[]) => void (stdout += `${format(...a)}\n`);
    console.error = (...a: unknown[]) => void (stderr += `${format(...a)}\n`);
    try {
      const code = await runCli(args, env);
      return { code, stdout, stderr };
    } finally {
      console.log = log;
      console.error = error;
    }
  });
  queue = done.catch(() => {});
  return done;
}
