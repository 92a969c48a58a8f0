// Starts the STP simulator (src/connectors/stp/simulator) as a separate process for a test and
// drives it through its control port. `config` is exactly the body caja's
// `PUT /admin/connectors/stp` takes (PEM contents, not file names).
//
//   const sim = await startStpSimulator();
//   await sim.control.receiver(s.url);                 // where STP posts abonos and state changes
//   await admin('PUT', '/admin/connectors/stp', sim.config);
//   await sim.control.abono({ cuentaBeneficiario: clabe, monto: 100 });
//   await sim.stop();
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { StpSimulatorInfo } from '../../src/connectors/stp/simulator/simulator.ts';

import { controlCaller, ROOT, spawnSimulator, stopChild } from './simulator-process.ts';
import { simulatorArgs } from './programs.ts';

const MAIN = simulatorArgs('stp-simulator', join(ROOT, 'src', 'connectors', 'stp', 'simulator', 'main.ts'));

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
    abono(b: { cuentaBeneficiario: string; monto: number; claveRastreo?: string; institucionOrdenante?: number; tsLiquidacion?: number; conceptoPago?: string; referenciaNumerica?: number; delivery?: Delivery }): Promise<{ order: Json; answers: Answer[] }>;
    repostAbono(claveRastreo: string): Promise<{ answers: Answer[] }>;
    estado(claveRastreo: string, estado: 'LQ' | 'CN' | 'D', o?: { causaDevolucion?: number; delivery?: Delivery }): Promise<{ order: Json; answers: Answer[] }>;
    outage(mode: 'none' | '503' | 'hang' | 'reset'): Promise<void>;
    registraErrors(errors: Array<{ id: number; descripcionError: string }>): Promise<void>;
    registraHang(count?: number): Promise<void>;
    /** The next `count` orders registered are dated the next business day (as after STP's cut-off). */
    registraNextDay(count?: number): Promise<void>;
    /** The ordering account's camt.053 of an operation day (default today in Mexico City). */
    statement(date?: string, opening?: string): Promise<string>;
  };
  state(): Promise<StpSimulatorState>;
  stop(): Promise<void>;
}

export async function startStpSimulator(): Promise<StpSimulator> {
  const dir = mkdtempSync(join(tmpdir(), 'caja-stpsim-'));
  const { child, info } = await spawnSimulator<StpSimulatorInfo>('STP simulator', MAIN, ['--dir', dir]);
  const call = controlCaller('STP simulator', () => info.control_url);

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
      registraNextDay: async (count = 1) => void (await call('POST', '/control/registra-next-day', { count })),
      async statement(date, opening) {
        const q = new URLSearchParams({ ...(date ? { date } : {}), ...(opening ? { opening } : {}) });
        const r = await fetch(`${info.control_url}/control/statement?${q}`);
        if (r.status !== 200) throw new Error(`statement: ${r.status} ${await r.text()}`);
        return r.text();
      },
    },
    state: () => call('GET', '/control/state'),
    stop: () => stopChild(child),
  };
}
