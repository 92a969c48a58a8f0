// Starts the Adyen Checkout simulator (src/connectors/adyen/simulator) as a separate process for a
// test and drives it through its control port. `config(methods)` is the body caja's
// `PUT /admin/connectors/adyen` takes.
import https from 'node:https';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AdyenSimulatorInfo, Delivery } from '../../src/connectors/adyen/simulator/simulator.ts';
import { controlCaller, ROOT, spawnSimulator, stopChild } from './simulator-process.ts';
import { simulatorArgs } from './programs.ts';

const MAIN = simulatorArgs('adyen-simulator', join(ROOT, 'src', 'connectors', 'adyen', 'simulator', 'main.ts'));

type Json = any;

export interface AdyenSimulator {
  info: AdyenSimulatorInfo;
  ca: string;
  config(extra?: Record<string, unknown>): Record<string, unknown>;
  control: {
    receiver(url: string): Promise<void>;
    delivery(mode: Delivery): Promise<void>;
    release(): Promise<{ released: number }>;
    outage(mode: 'none' | '503' | 'hang'): Promise<void>;
    /** The next `count` answers are lost (the request is carried out). */
    loseAnswers(count: number): Promise<void>;
    refundOutcome(mode: 'settle' | 'fail' | 'hold'): Promise<void>;
    releaseRefunds(mode: 'settle' | 'fail'): Promise<{ released: number }>;
    pay(sessionId: string, card: { number?: string; holder?: string; challenge?: string }): Promise<{ redirect?: string; challenge?: boolean; refused?: string }>;
    payVoucher(psp: string, delivery?: Delivery): Promise<void>;
    expireVoucher(psp: string): Promise<void>;
    dispute(psp: string, eventCode: string, extra?: Record<string, unknown>): Promise<void>;
    forge(item: Json): Promise<{ delivery: { status: number | null; answer: string } }>;
    rotateHmac(): Promise<{ hmac_key: string }>;
  };
  state(): Promise<{ sessions: Json[]; payments: Json[]; requests: Array<{ method: string; path: string; status: number }>; deliveries: Array<{ body: Json; status: number | null; answer: string }>; held: number }>;
  /** A GET of the simulator's own https pages (the hosted checkout), trusting its CA. */
  fetchPage(url: string, form?: Record<string, string>): Promise<{ status: number; location: string | null; text: string }>;
  stop(): Promise<void>;
}

export async function startAdyenSimulator(): Promise<AdyenSimulator> {
  const dir = mkdtempSync(join(tmpdir(), 'caja-adyensim-'));
  const { child, info } = await spawnSimulator<AdyenSimulatorInfo>('Adyen simulator', MAIN, ['--dir', dir]);
  const call = controlCaller('Adyen simulator', () => info.control_url);
  const ca = readFileSync(info.ca_file, 'utf8');
  return {
    info,
    ca,
    config: (extra = {}) => ({
      api_key: info.api_key, merchant_account: info.merchant_account, hmac_key: info.hmac_key, api_url: info.api_url, ca,
      methods: { BR: ['VI', 'MC', 'BL'], MX: ['VI', 'MC', 'OX'] }, ...extra,
    }),
    control: {
      receiver: (url) => call('POST', '/receiver', { url }),
      delivery: (mode) => call('POST', '/delivery', { mode }),
      release: () => call('POST', '/release', {}),
      outage: (mode) => call('POST', '/outage', { mode }),
      loseAnswers: (count) => call('POST', '/lose-answers', { count }),
      refundOutcome: (mode) => call('POST', '/refund-outcome', { mode }),
      releaseRefunds: (mode) => call('POST', '/refunds/release', { mode }),
      pay: (id, card) => call('POST', `/sessions/${id}/pay`, card),
      payVoucher: (psp, delivery) => call('POST', `/vouchers/${psp}/pay`, delivery ? { delivery } : {}),
      expireVoucher: (psp) => call('POST', `/vouchers/${psp}/expire`, {}),
      dispute: (psp, eventCode, extra = {}) => call('POST', `/payments/${psp}/dispute`, { eventCode, ...extra }),
      forge: (item) => call('POST', '/forge', { item }),
      rotateHmac: () => call('POST', '/rotate-hmac', {}),
    },
    state: () => call('GET', '/state'),
    fetchPage(url, form) {
      return new Promise((resolve, reject) => {
        const body = form ? new URLSearchParams(form).toString() : undefined;
        const req = https.request(url, { method: form ? 'POST' : 'GET', ca, headers: body ? { 'content-type': 'application/x-www-form-urlencoded' } : {} }, (res) => {
          let text = '';
          res.on('data', (d) => (text += d));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, location: (res.headers.location as string | undefined) ?? null, text }));
        });
        req.on('error', reject);
        req.end(body);
      });
    },
    stop: () => stopChild(child),
  };
}
