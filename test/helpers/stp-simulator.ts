// Starts the STP simulator (src/connectors/stp/simulator) as a separate process for a test and
// drives it through its control port. `config` is exactly the body caja's
// `PUT /admin/connectors/stp` takes (PEM contents, not file names).
//
//   const sim = await startStpSimulator();
//   await sim.control.receiver(s.url);                 // where STP posts abonos and state changes
//   await admin('PUT', '/admin/connectors/stp', sim.config);
//   await sim.control.abono({ cuentaBeneficiario: clabe, monto: 100 });
//   await sim.stop();
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { StpSimulatorInfo } from '../../src/connectors/stp/simulator/simulator.ts';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const MAIN = join(ROOT, 'src', 'connectors', 'stp', 'simulator', 'main.ts');

type Json = any;

export interface StpConnectorConfig {
  api_url: string;
  empresa: string;
  private_key: string;
  private_key_passphrase: string;
  clabe_prefix: string;
  ordering_clabe: string;
  ordering_name: string;
  ordering_rfc: string;
  ca: string;
  webhook_secret?: string;
}

export interface StpSimulatorState {
  orders: Json[];
  received: Json[];
  requests: Array<{ method: string; path: string; status: number | null; claveRastreo?: string }>;
  deliveries: Array<{ kind: 'abono' | 'estado'; body: Json; status: number | null; answer: Json }>;
  signatureFailures: number;
}

type Delivery = 'deliver' | 'drop' | 'duplicate';
type Answer = { status: number | null; answer: Json };

export interface StpSimulator {
  config: StpConnectorConfig;
  info: StpSimulatorInfo;
  control: {
    receiver(url: string, secret?: string): Promise<void>;
    abono(b: { cuentaBeneficiario: string; monto: number; claveRastreo?: string; institucionOrdenante?: number; tsLiquidacion?: number; delivery?: Delivery }): Promise<{ order: Json; answers: Answer[] }>;
    repostAbono(claveRastreo: string): Promise<{ answers: Answer[] }>;
    estado(claveRastreo: string, estado: 'LQ' | 'CN' | 'D', o?: { causaDevolucion?: number; delivery?: Delivery }): Promise<{ order: Json; answers: Answer[] }>;
    outage(mode: 'none' | '503' | 'hang' | 'reset'): Promise<void>;
    registraErrors(errors: Array<{ id: number; descripcionError: string }>): Promise<void>;
    registraHang(count?: number): Promise<void>;
  };
  state(): Promise<StpSimulatorState>;
  stop(): Promise<void>;
}

const running = new Set<ChildProcess>();
process.once('exit', () => {
  for (const c of running) c.kill('SIGKILL');
});

export async function startStpSimulator(): Promise<StpSimulator> {
  const dir = mkdtempSync(join(tmpdir(), 'caja-stpsim-'));
  const child = spawn(process.execPath, ['--import', 'tsx', MAIN, '--dir', dir], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  running.add(child);
  child.once('exit', () => running.delete(child));
  let err = '';
  child.stderr!.on('data', (d) => {
    err = (err + d).slice(-4000);
  });
  const info = await new Promise<StpSimulatorInfo>((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`STP simulator did not start within 60 s\n${err}`));
    }, 60_000);
    child.stdout!.on('data', (d) => {
      out += d;
      const nl = out.indexOf('\n');
      if (nl < 0) return;
      clearTimeout(timer);
      resolve(JSON.parse(out.slice(0, nl)) as StpSimulatorInfo);
    });
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      reject(new Error(`STP simulator exited (${code ?? signal}) before listening\n${err}`));
    });
  });

  async function call(method: 'GET' | 'POST', path: string, body?: unknown): Promise<Json> {
    const res = await fetch(info.control_url + path, {
      method,
      headers: body === undefined ? {} : { 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    if (!res.ok) throw new Error(`STP simulator ${method} ${path}: ${res.status} ${text}`);
    return text ? JSON.parse(text) : undefined;
  }

  return {
    info,
    config: {
      api_url: info.api_url,
      empresa: info.empresa,
      private_key: readFileSync(info.private_key_file, 'utf8'),
      private_key_passphrase: info.passphrase,
      clabe_prefix: info.clabe_prefix,
      ordering_clabe: info.ordering_clabe,
      ordering_name: 'Operadora Caja SA de CV',
      ordering_rfc: 'OCA200101AB1',
      ca: readFileSync(info.ca_file, 'utf8'),
    },
    control: {
      receiver: async (url, secret) => void (await call('POST', '/control/receiver', { url, ...(secret ? { secret } : {}) })),
      abono: (b) => call('POST', '/control/abono', b),
      repostAbono: (claveRastreo) => call('POST', '/control/repost-abono', { claveRastreo }),
      estado: (claveRastreo, estado, o = {}) => call('POST', '/control/estado', { claveRastreo, estado, ...o }),
      outage: async (mode) => void (await call('POST', '/control/outage', { mode })),
      registraErrors: async (errors) => void (await call('POST', '/control/registra-errors', { errors })),
      registraHang: async (count = 1) => void (await call('POST', '/control/registra-hang', { count })),
    },
    state: () => call('GET', '/control/state'),
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const done = new Promise<void>((r) => child.once('exit', () => r()));
      child.kill('SIGTERM');
      await done;
    },
  };
}
