// A PSP that speaks the Central Bank's API Pix, for tests: a separate process with its own CA,
// mTLS, OAuth2 client credentials and a control port. See docs/connectors.md, "The API Pix
// simulator".
//   node --import tsx src/connectors/pix/simulator/main.ts --dir <stateDir> [--port 0]
//        [--control-port 0] [--token-ttl 300] [--webhook-ca <pem file>]
// Prints one JSON line on stdout once listening (SimulatorInfo); logs nothing else there.
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { startSimulator } from './simulator.ts';
import { serveUntilSignalled } from '../../simulator-main.ts';

const { values } = parseArgs({
  options: {
    dir: { type: 'string' },
    port: { type: 'string', default: '0' },
    'control-port': { type: 'string', default: '0' },
    'token-ttl': { type: 'string', default: '300' },
    'webhook-ca': { type: 'string' },
    'webhook-retries': { type: 'string' },
    'webhook-backoff-ms': { type: 'string' },
  },
  strict: true,
});

function whole(name: string, v: string | undefined, min = 0): number | undefined {
  if (v === undefined) return undefined;
  const n = Number(v);
  if (!Number.isInteger(n) || n < min) {
    console.error(`--${name} must be a whole number >= ${min}`);
    process.exit(2);
  }
  return n;
}

if (!values.dir) {
  console.error('usage: main.ts --dir <stateDir> [--port 0] [--control-port 0] [--token-ttl 300]');
  process.exit(2);
}

const sim = await startSimulator({
  dir: values.dir,
  port: whole('port', values.port),
  controlPort: whole('control-port', values['control-port']),
  tokenTtl: whole('token-ttl', values['token-ttl'], 1),
  webhookCa: values['webhook-ca'] ? readFileSync(values['webhook-ca'], 'utf8') : undefined,
  webhookRetries: whole('webhook-retries', values['webhook-retries']),
  webhookBackoffMs: whole('webhook-backoff-ms', values['webhook-backoff-ms']),
});
serveUntilSignalled(sim);
