// Crypto deposits: the coin and network the customer pays with, the address they pay to, and the
// price and coin amount fixed when the deposit is created. The deposit status answers these as
// `crypto` {currency, wallet, network, crypto_fx, crypto_amount}, the shape the official client
// libraries read.
//
// Pure: the address is derived from the deposit token (so it is unique to the deposit and the
// same however often it is computed), the prices are data below.
import { createHash } from 'node:crypto';
import type { PaymentMethod } from './catalog.ts';
import { dec, type Decimal, divideRate, toPlainString } from './money.ts';

export type CryptoNetwork = 'TRON' | 'ETHEREUM' | 'BITCOIN';

interface Coin {
  /** Decimals the coin amount is given with (USDT's 6, bitcoin's 8 satoshi digits). */
  decimals: number;
  /** The first network is the default. */
  networks: readonly CryptoNetwork[];
  /**
   * USD price of one coin used for new deposits. Staging sample values: a production connector
   * quotes live prices; either way the price is fixed on the deposit when it is created.
   */
  usdPrice: string;
}

export const CRYPTO_COINS: Readonly<Record<string, Coin>> = {
  USDT: { decimals: 6, networks: ['TRON', 'ETHEREUM'], usdPrice: '1' },
  BTC: { decimals: 8, networks: ['BITCOIN'], usdPrice: '95000' },
};

export const DEFAULT_COIN = 'USDT';

/** Token standards merchants name networks by, read as the network itself. */
const NETWORK_ALIASES: Record<string, CryptoNetwork> = { TRC20: 'TRON', ERC20: 'ETHEREUM', BTC: 'BITCOIN' };

export interface CryptoChoice {
  currency: string;
  network: CryptoNetwork;
}

/** What the status shows, and the `crypto` column stores (decimals as exact text). */
export interface CryptoDetail {
  currency: string;
  wallet: string;
  network: CryptoNetwork;
  /** USD price of one coin when the deposit was created. */
  crypto_fx: string;
  /** Coins the customer sends: what they pay in USD divided by crypto_fx, rounded up. */
  crypto_amount: string;
}

/**
 * Reads the request's `crypto` object for a crypto method: `currency` (default USDT) and
 * `network` (default the coin's first). Other keys are ignored: the address is ours to give.
 * Details are in the API's `<field path>: <message>` form.
 */
export function readCryptoChoice(raw: unknown): { ok: true; value: CryptoChoice } | { ok: false; details: string[] } {
  const body = typeof raw === 'object' && raw !== null && !Array.isArray(raw) ? (raw as Record<string, unknown>) : {};
  const details: string[] = [];
  let currency = DEFAULT_COIN;
  if (body.currency !== undefined && body.currency !== null) {
    const c = typeof body.currency === 'string' ? body.currency.trim().toUpperCase() : '';
    if (CRYPTO_COINS[c]) currency = c;
    else details.push(`crypto.currency: must be one of ${Object.keys(CRYPTO_COINS).sort().join(', ')}`);
  }
  const coin = CRYPTO_COINS[currency]!;
  let network = coin.networks[0]!;
  if (body.network !== undefined && body.network !== null) {
    const n = typeof body.network === 'string' ? body.network.trim().toUpperCase() : '';
    const wanted = NETWORK_ALIASES[n] ?? n;
    if ((coin.networks as readonly string[]).includes(wanted)) network = wanted as CryptoNetwork;
    else details.push(`crypto.network: ${currency} is paid on ${coin.networks.join(' or ')}`);
  }
  return details.length ? { ok: false, details } : { ok: true, value: { currency, network } };
}

const BASE58 = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';

/** Base58Check (version byte + payload + 4 bytes of double SHA-256), as Bitcoin and Tron write addresses. */
export function base58check(version: number, payload: Buffer): string {
  const body = Buffer.concat([Buffer.from([version]), payload]);
  const check = createHash('sha256').update(createHash('sha256').update(body).digest()).digest().subarray(0, 4);
  const bytes = Buffer.concat([body, check]);
  let n = BigInt(`0x${bytes.toString('hex')}`);
  let out = '';
  while (n > 0n) {
    out = BASE58[Number(n % 58n)] + out;
    n /= 58n;
  }
  for (const b of bytes) {
    if (b !== 0) break;
    out = `1${out}`;
  }
  return out;
}

/**
 * The address the customer pays a deposit to: 20 bytes derived from the deposit's token, written
 * in the network's address format (Tron `T…`, Bitcoin P2PKH `1…`, Ethereum `0x…`). The staging
 * simulator watches no chain: these addresses are well-formed but belong to no one.
 */
export function depositWallet(token: string, network: CryptoNetwork): string {
  const key = createHash('sha256').update(`caja:crypto-wallet:${network}:${token}`).digest().subarray(0, 20);
  switch (network) {
    case 'TRON':
      return base58check(0x41, key);
    case 'BITCOIN':
      return base58check(0x00, key);
    case 'ETHEREUM':
      return `0x${key.toString('hex')}`;
  }
}

/** Fixes the coin amount and price of a crypto deposit at creation. */
export function quoteCrypto(choice: CryptoChoice, usdPayerAmount: Decimal, token: string): CryptoDetail {
  const coin = CRYPTO_COINS[choice.currency]!;
  const price = dec(coin.usdPrice);
  return {
    currency: choice.currency,
    wallet: depositWallet(token, choice.network),
    network: choice.network,
    crypto_fx: toPlainString(price),
    // Rounded up: a customer who sends the amount shown never pays short.
    crypto_amount: toPlainString(divideRate(usdPayerAmount, price, coin.decimals, 'up')),
  };
}

/**
 * The deposits.crypto column for a new deposit: the fixed quote for a crypto method; for other
 * methods the object the merchant sent, stored as before (it means nothing to them).
 */
export function cryptoColumn(method: PaymentMethod | null, requested: Record<string, unknown> | null, usdPayerAmount: Decimal, token: string): string | null {
  if (method?.kind !== 'crypto') return requested ? JSON.stringify(requested) : null;
  // The v3 face refuses an invalid choice before creation and streamline cannot send one; should
  // one still arrive (another caller of createDeposit), the defaults are quoted, never a 500.
  const choice = readCryptoChoice(requested);
  return JSON.stringify(quoteCrypto(choice.ok ? choice.value : { currency: DEFAULT_COIN, network: CRYPTO_COINS[DEFAULT_COIN]!.networks[0]! }, usdPayerAmount, token));
}

/** The stored quote, when the column holds one (older rows and non-crypto deposits do not). */
export function storedCryptoDetail(value: Record<string, unknown> | null): CryptoDetail | null {
  if (!value) return null;
  const { currency, wallet, network, crypto_fx, crypto_amount } = value;
  if ([currency, wallet, network, crypto_fx, crypto_amount].some((v) => typeof v !== 'string')) return null;
  return value as unknown as CryptoDetail;
}
