// A provider that lives in the test folder only: a wallet (BR PP) whose charges are created by a
// small HTTP service this file also starts. It is a connector kind like Pix or STP
// (src/connectors/kind.ts): test/connectors/extra-kind.test.ts registers it and uses it through
// every face without any file of src/ naming it.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ConnectorKind } from '../../../src/connectors/kind.ts';
import { confirmedOutsideProvider, ConnectorError, type PayinConnector, paymentInfoInput } from '../../../src/connectors/payin.ts';
import { connectorView } from '../../../src/connectors/store.ts';
import { paymentInfoBase } from '../../../src/domain/payment-info.ts';

export const FAKE_WALLET = 'fake_wallet';

/** The wallet's charge service: POST /charges with the API key as bearer answers {id, pay_url}. */
export interface WalletService {
  url: string;
  key: string;
  charges: { id: string; amount: string; merchant: string }[];
  stop(): Promise<void>;
}

export async function startWalletService(key: string): Promise<WalletService> {
  const charges: WalletService['charges'] = [];
  const server: Server = createServer((req, res) => {
    let raw = '';
    req.on('data', (c) => (raw += c));
    req.on('end', () => {
      if (req.method !== 'POST' || req.url !== '/charges') return void res.writeHead(404).end();
      if (req.headers.authorization !== `Bearer ${key}`) return void res.writeHead(401).end();
      const body = JSON.parse(raw) as { amount: string; merchant: string; order: string };
      const id = `fw_${charges.length + 1}_${body.order}`;
      charges.push({ id, amount: body.amount, merchant: body.merchant });
      res.writeHead(201, { 'content-type': 'application/json' }).end(JSON.stringify({ id, pay_url: `https://wallet.example/pay/${id}` }));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, key, charges, stop: () => new Promise((r) => server.close(() => r())) };
}

function validate(body: unknown): { ok: true; settings: Record<string, string>; secrets: Record<string, string> } | { ok: false; details: string[] } {
  const b = (body && typeof body === 'object' ? body : {}) as Record<string, unknown>;
  const details: string[] = [];
  const text = (k: string) => (typeof b[k] === 'string' && (b[k] as string).trim() !== '' ? (b[k] as string).trim() : (details.push(`${k}: required`), ''));
  const api_url = text('api_url');
  const merchant = text('merchant');
  const api_key = text('api_key');
  if (api_url && !/^https?:\/\//.test(api_url)) details.push('api_url: must be an http(s) URL');
  return details.length ? { ok: false, details } : { ok: true, settings: { api_url, merchant }, secrets: { api_key } };
}

function wallet(settings: Record<string, string>, secrets: Record<string, string>): PayinConnector {
  return {
    ...confirmedOutsideProvider,
    name: FAKE_WALLET,
    simulated: false,
    async createCharge(order) {
      const r = await fetch(`${settings.api_url}/charges`, {
        method: 'POST', headers: { authorization: `Bearer ${secrets.api_key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ amount: order.amount.toString(), merchant: settings.merchant, order: String(order.depositId) }),
      }).catch((err: Error) => { throw new ConnectorError('unavailable', err.message); });
      if (r.status === 401) throw new ConnectorError('auth', 'the wallet refused the API key');
      if (r.status !== 201) throw new ConnectorError('unavailable', `the wallet answered ${r.status}`);
      const charge = (await r.json()) as { id: string; pay_url: string };
      return { paymentInfo: { ...paymentInfoBase(paymentInfoInput(order)), metadata: { pay_url: charge.pay_url } }, reference: charge.id };
    },
    async health() {
      return { ok: true };
    },
  };
}

export const fakeWalletKind: ConnectorKind = {
  name: FAKE_WALLET,
  label: 'Fake wallet',
  serves: [{ country: 'BR', method: 'PP' }],
  build: (_ctx, stored) => wallet(stored.settings, stored.secrets),
  matchKey: 'payment_id',
  intervals: { poll: { env: 'CAJA_FAKE_WALLET_POLL_SECONDS', default: 300, min: 1, max: 3600 } },
  settings: {
    fields: [{ name: 'api_url', endpoint: true }, { name: 'merchant' }, { name: 'api_key', secret: true }],
    validate,
    async view(ctx) {
      const v = await connectorView(ctx, FAKE_WALLET);
      if (!v) return null;
      const { rows } = await ctx.db.query<{ n: string }>(`SELECT count(*)::text AS n FROM deposits WHERE connector = $1`, [FAKE_WALLET]);
      return { ...v.settings, api_key: '(set)', updated_at: v.updatedAt.toISOString(), health: { charges_created: Number(rows[0]!.n) } };
    },
  },
  admin: {
    summaries: { put: 'Configure the fake wallet (a test kind)', get: 'The fake wallet' },
    configBody: { type: 'object', properties: { api_url: { type: 'string' }, merchant: { type: 'string' }, api_key: { type: 'string' } } },
    viewSchema: {
      type: 'object',
      properties: {
        api_url: { type: 'string' }, merchant: { type: 'string' }, api_key: { type: 'string' }, updated_at: { type: 'string' },
        health: { type: 'object', properties: { charges_created: { type: 'integer' } } },
      },
    },
  },
  cli: { savedNote: 'fake wallet saved' },
};
