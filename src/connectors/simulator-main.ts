// The process side of a provider simulator (pix/simulator, stp/simulator), the other half of
// test/helpers/simulator-process.ts: once listening it prints one JSON line of where it listens
// (and nothing else on stdout), and SIGTERM or SIGINT closes it before the process exits.
export function serveUntilSignalled(sim: { info: unknown; close(): Promise<void> }): void {
  process.stdout.write(JSON.stringify(sim.info) + '\n');
  let closing = false;
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    process.on(signal, () => {
      if (closing) return;
      closing = true;
      sim.close().then(
        () => process.exit(0),
        () => process.exit(1),
      );
    });
  }
}
