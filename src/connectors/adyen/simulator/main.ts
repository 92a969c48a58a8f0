// The Adyen Checkout simulator as a process, for tests and local runs:
//   node --import tsx src/connectors/adyen/simulator/main.ts --dir <stateDir> [--port 0] [--control-port 0]
// Prints one JSON line on stdout once listening (AdyenSimulatorInfo); logs nothing else there.
import { parseArgs } from 'node:util';
import { startAdyenSimulator } from './simulator.ts';
import { serveUntilSignalled } from '../../simulator-main.ts';

const { values } = parseArgs({ options: { dir: { type: 'string' }, port: { type: 'string', default: '0' }, 'control-port': { type: 'string', default: '0' } }, strict: true });
if (!values.dir) {
  console.error('usage: main.ts --dir <stateDir> [--port 0] [--control-port 0]');
  process.exit(2);
}
const sim = await startAdyenSimulator({ dir: values.dir, port: Number(values.port), controlPort: Number(values['control-port']) });
serveUntilSignalled(sim);
