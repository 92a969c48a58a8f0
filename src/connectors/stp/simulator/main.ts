// STP's SPEI API, simulated for tests: a separate process with its own CA and TLS, the operator's
// key pair (whose public half verifies every firma) and a control port. docs/connectors.md,
// "The STP simulator".
//   node --import tsx src/connectors/stp/simulator/main.ts --dir <stateDir> [--port 0] [--control-port 0]
// Prints one JSON line on stdout once listening (StpSimulatorInfo); logs nothing else there.
import { parseArgs } from 'node:util';
import { startStpSimulator } from './simulator.ts';
import { serveUntilSignalled } from '../../simulator-main.ts';

const { values } = parseArgs({
  options: { dir: { type: 'string' }, port: { type: 'string', default: '0' }, 'control-port': { type: 'string', default: '0' } },
  strict: true,
});

const port = (name: string, v: string | undefined) => {
  const n = Number(v);
  if (!Number.isInteger(n) || n < 0 || n > 65535) {
    console.error(`--${name} must be a port number`);
    process.exit(2);
  }
  return n;
};

if (!values.dir) {
  console.error('usage: main.ts --dir <stateDir> [--port 0] [--control-port 0]');
  process.exit(2);
}

const sim = await startStpSimulator({ dir: values.dir, port: port('port', values.port), controlPort: port('control-port', values['control-port']) });
serveUntilSignalled(sim);
