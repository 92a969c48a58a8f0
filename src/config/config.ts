// Every setting comes from the environment and is validated here, once, at start.
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { PostgresTimeouts } from '../db/db.ts';
import { DEFAULT_PASSWORD_COST, PASSWORD_COST_RANGE } from '../domain/secrets.ts';

export type Environment = 'staging' | 'production';

/**
 * What staging means, stated here once (loadConfig sets it from CAJA_ENV): services, faces,
 * workers and the composition root ask these capabilities, never the environment's name (no file
 * outside src/config/ compares it: test/dx/env-by-name.test.ts).
 * - sandbox: the sandbox endpoints (sandbox deposits, cashouts and refunds, the pay page's
 *   simulate buttons, the card simulator), magic values that decide an outcome, sandbox chaos,
 *   the checkout's staging banner, test deposits reported as such, one process by default.
 * - simulated: providers are simulated (the staging bank answers refunds no connector makes, the
 *   simulated account registry, so a new merchant's account and Pix-key validation start on, the
 *   sample exchange rates).
 * - relaxedChecks: cookies without Secure (and no HSTS), signature hints in authentication
 *   errors, one operator moves money alone (no four eyes), a statement's account need not be
 *   registered, callback URLs and frame origins may be http on loopback hosts and callback URLs
 *   may name internal addresses, notifications may go to http and loopback.
 */
export interface Capabilities {
  sandbox: boolean;
  simulated: boolean;
  relaxedChecks: boolean;
}

/** The capabilities of an environment: staging has them all, production none. */
export function capabilitiesOf(env: Environment): Capabilities {
  const staging = env === 'staging';
  return { sandbox: staging, simulated: staging, relaxedChecks: staging };
}

export interface Config extends Capabilities {
  /** Shown (health, page badges, merchants' environment), never tested: ask the capabilities. */
  env: Environment;
  port: number;
  host: string;
  /**
   * CAJA_STATEMENT_ACCOUNTS: accounts whose statements production imports besides the own
   * accounts and STP's ordering CLABE (the PSP's settlement account), comma-separated.
   */
  statementAccounts: string[];
    /** CAJA_ADMIN_PORT: when set, /admin, /metrics and /ops are served only there (on adminHost). */
  adminPort: number | null;
  /**
   * Whether /admin, /metrics and /ops are served on the public port when there is no admin port
   * (CAJA_ADMIN_ON_PUBLIC_PORT): staging yes by default, production only when the operator says so.
   */
  adminOnPublicPort: boolean;
  adminHost: string;
  dataDir: string;
  databaseUrl: string | undefined;
  publicBaseUrl: string;
  adminToken: string;
  /** 32 bytes; encrypts secrets at rest and keys the hashes of trans keys and passwords. */
  masterKey: Buffer;
  /** scrypt's work factor (log2 N) for new password hashes (CAJA_PASSWORD_HASH_COST; secrets.ts). */
  passwordHashCost: number;
  logLevel: string;
  xDateToleranceSeconds: number;
  /** How far ahead of server time an X-Date may be (clock skew), much less than the past window. */
  xDateFutureSeconds: number;
  cashoutDelaySeconds: number;
  /** How often the deposit worker cancels expired deposits (and runs sandbox outcomes). */
  expiryIntervalMs: number;
  /** Delay before a staging deposit with a magic value completes or cancels by itself. */
  sandboxAutoSeconds: number;
  shutdownTimeoutMs: number;
  /** V8's heap growth between major collections, in % of the live heap (src/server/main.ts); 0: V8's own. */
  heapGrowingPercent: number;
  /** How long credentials, exchange rates and limit rules read by requests are kept in memory. */
  cacheSeconds: number;
  /** Group commit of deposit creations (src/db/batcher.ts): rows per statement, statements at once. */
  depositBatch: { maxBatch: number; maxInFlight: number };
  /** Shared transactions of deposit status changes (src/deposits/transitions.ts): changes per transaction, transactions at once. */
  transitionBatch: { maxBatch: number; maxInFlight: number };
  workers: boolean;
  /** Exchange rates from their sources (src/rates/, docs/exchange-rates.md). */
  rates: RatesConfig;
  /** Bounds on every wait for PostgreSQL (src/db/db.ts, docs/operations.md: Timeouts). */
  database: PostgresTimeouts & {
    /** /health's SELECT 1 and /health/ready's check. */
    healthTimeoutMs: number;
  };
  /**
   * Connectors (src/connectors/): deadline of each provider call, and the CAJA_* variables each
   * connector kind reads for its own workers' intervals (CAJA_PIX_POLL_SECONDS, CAJA_STP_POLL_SECONDS,
   * CAJA_STP_ORDER_CHECK_SECONDS: declared by the kind, src/connectors/kind.ts, checked at start).
   */
  connectors: { timeoutMs: number; env: Readonly<Record<string, string | undefined>> };
  notifications: {
    timeoutMs: number;
    /** Seconds to wait before each retry; the last entry repeats until maxAgeSeconds. */
    retryScheduleSeconds: number[];
    maxAgeSeconds: number;
    concurrency: number;
    /** In-flight deliveries per destination origin, so one slow merchant cannot take every slot. */
    perOriginConcurrency: number;
    pollIntervalMs: number;
    leaseSeconds: number;
  };
  /** Retention and archiving of the append-only tables (src/retention/, docs/operations.md). */
  retention: RetentionConfig;
  /** Daily settlement reports (src/settlements/, docs/balance.md): how often the worker looks, how long after a day's end. */
  settlements: { intervalSeconds: number; delayMinutes: number };
  /**
   * The daily provider statements (src/reconciliation/provider-statements.ts, docs/reconciliation.md):
   * how often the worker fetches (0: never), and how many closed days back it fetches each time.
   */
  providerStatements: { intervalSeconds: number; days: number };
}

export interface RetentionConfig {
  /** Days an event is kept (by its time); null: forever (the default). */
  eventsDays: number | null;
  /** Days a delivered or failed notification and its attempts are kept after finishing; null: forever. */
  notificationsDays: number | null;
  /** Hours an expired signed-request claim (the replay store) is kept before it is purged. */
  replayGraceHours: number;
  /** Where archive files go (CAJA_ARCHIVE_DIR; DATA_DIR/archive by default). */
  archiveDir: string;
  /** Rows per batch: one transaction, one archive file per table and day. */
  batchRows: number;
  intervalMs: number;
}

/** One configured rate source: which currency it prices, which kind of source, its series if any. */
export interface RateSourceConfig {
  currency: string;
  kind: string;
  series: string | null;
}

export interface RatesConfig {
  /** CAJA_RATES_SOURCES, e.g. `BRL=bcb-ptax,MXN=banxico-fix`. */
  sources: RateSourceConfig[];
  /** A deposit or cashout needing a rate older than this is refused. */
  maxAgeHours: number;
  fetchMinutes: number;
  bcbPtaxUrl: string;
  banxicoUrl: string;
  /** The Banxico SIE API token (Bmx-Token header); required when a banxico source is configured. */
  banxicoToken: string | null;
  /**
   * CAJA_RATES_MANUAL_BAND_PERCENT (default 10): in production a manual rate further than this
   * from the source's last rate (or with no source rate) waits for a second operator.
   */
  manualBandPercent: number;
}

export class ConfigError extends Error {}

type Env = Record<string, string | undefined>;

function int(env: Env, name: string, def: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return def;
  if (!/^\d+$/.test(raw)) throw new ConfigError(`${name} must be a whole number, got '${raw}'`);
  const n = Number(raw);
  if (n < min || n > max) throw new ConfigError(`${name} must be between ${min} and ${max}, got ${n}`);
  return n;
}

/**
 * Lower factors make the panel's and console's passwords cheaper to guess from a stolen table:
 * only staging takes less than the default (the test suite runs with 10, 3 ms a hash instead of
 * 50, as it creates and signs in hundreds of users).
 */
function passwordHashCost(env: Env, production: boolean): number {
  const cost = int(env, 'CAJA_PASSWORD_HASH_COST', DEFAULT_PASSWORD_COST, PASSWORD_COST_RANGE.min, PASSWORD_COST_RANGE.max);
  if (production && cost < DEFAULT_PASSWORD_COST) throw new ConfigError(`CAJA_PASSWORD_HASH_COST must be at least ${DEFAULT_PASSWORD_COST} in production, got ${cost}`);
  return cost;
}

function bool(env: Env, name: string, def: boolean): boolean {
  const raw = env[name];
  if (raw === undefined || raw === '') return def;
  if (/^(1|true|yes|on)$/i.test(raw)) return true;
  if (/^(0|false|no|off)$/i.test(raw)) return false;
  throw new ConfigError(`${name} must be true or false, got '${raw}'`);
}

function secondsList(env: Env, name: string, def: number[]): number[] {
  const raw = env[name];
  if (raw === undefined || raw === '') return def;
  const parts = raw.split(',').map((s) => s.trim());
  // Fractions are accepted so that tests can run a whole retry schedule in a few seconds.
  if (parts.length === 0 || parts.some((p) => !/^\d+(\.\d+)?$/.test(p) || Number(p) === 0)) {
    throw new ConfigError(`${name} must be a comma-separated list of positive seconds, got '${raw}'`);
  }
  return parts.map(Number);
}

/**
 * Reads a secret from the environment, or (staging's embedded default) from a file kept in
 * DATA_DIR. Production takes it from the environment only: a file silently picked up from a
 * data directory (copied, restored, shared) is no way to hold the master key.
 */
function persistentSecret(env: Env, name: string, dataDir: string, file: string, make: () => string, allowGenerate: boolean): string {
  const raw = env[name];
  if (raw !== undefined && raw !== '') return raw;
  if (!allowGenerate) throw new ConfigError(`${name} is required in production (from the environment; DATA_DIR files are a staging convenience)`);
  const path = join(dataDir, file);
  if (existsSync(path)) return readFileSync(path, 'utf8').trim();
  mkdirSync(dataDir, { recursive: true });
  const value = make();
  writeFileSync(path, `${value}\n`, { mode: 0o600 });
  return value;
}

/** `CUR=kind[:series]` items separated by commas; the kinds are checked by src/rates/sources.ts. */
function rateSources(text: string): RateSourceConfig[] {
  const out: RateSourceConfig[] = [];
  for (const item of text.split(',').map((x) => x.trim()).filter(Boolean)) {
    const m = /^([A-Z]{3})=([a-z][a-z0-9-]*)(?::([A-Za-z0-9]{1,32}))?$/.exec(item);
    if (!m) throw new ConfigError(`CAJA_RATES_SOURCES: '${item}' is not CUR=kind or CUR=kind:series (e.g. BRL=bcb-ptax,MXN=banxico-fix)`);
    if (m[1] === 'USD') throw new ConfigError('CAJA_RATES_SOURCES: USD is always 1');
    if (out.some((s) => s.currency === m[1])) throw new ConfigError(`CAJA_RATES_SOURCES: ${m[1]} is listed twice`);
    out.push({ currency: m[1]!, kind: m[2]!, series: m[3] ?? null });
  }
  return out;
}

function httpUrl(env: Env, name: string, def: string): string {
  const v = (env[name] || def).replace(/\/+$/, '');
  if (!/^https?:\/\/[^/]/.test(v)) throw new ConfigError(`${name} must be an http(s) URL, got '${v}'`);
  return v;
}

function ratesConfig(env: Env, production: boolean): RatesConfig {
  const banxicoToken = env.CAJA_BANXICO_TOKEN || null;
  // Production fetches the central banks' reference rates unless told otherwise (Banxico only
  // with its token); staging has its sample rates and fetches nothing unless configured.
  const def = production ? ['BRL=bcb-ptax', ...(banxicoToken ? ['MXN=banxico-fix'] : [])].join(',') : '';
  const sources = rateSources(env.CAJA_RATES_SOURCES ?? def);
  if (!banxicoToken && sources.some((s) => s.kind.startsWith('banxico'))) throw new ConfigError('CAJA_BANXICO_TOKEN is required for a banxico rate source');
  return {
    sources,
    maxAgeHours: int(env, 'CAJA_RATES_MAX_AGE_HOURS', 96, 1, 24 * 365),
    fetchMinutes: int(env, 'CAJA_RATES_FETCH_MINUTES', 30, 1, 24 * 60),
    bcbPtaxUrl: httpUrl(env, 'CAJA_RATES_BCB_URL', 'https://olinda.bcb.gov.br/olinda/servico/PTAX/versao/v1/odata'),
    banxicoUrl: httpUrl(env, 'CAJA_RATES_BANXICO_URL', 'https://www.banxico.org.mx/SieAPIRest/service/v1'),
    banxicoToken,
    manualBandPercent: int(env, 'CAJA_RATES_MANUAL_BAND_PERCENT', 10, 0, 100),
  };
}

/**
 * The database bounds. Defaults suit a payment API whose statements take milliseconds: a request
 * that cannot get an answer from PostgreSQL within 20 s is answered 503 (retry) rather than held
 * until the client gives up (clients commonly wait 30 s). lock_timeout leaves room for hot rows
 * under load (approvals on one merchant reached a p99 of 4-5 s in measurements, docs/performance.md). statement_timeout stays below the client-side query
 * timeout so that the server cancels a slow statement (and frees its locks) before caja drops
 * the connection.
 */
function databaseTimeouts(env: Env): Config['database'] {
  const t = {
    connectMs: int(env, 'CAJA_DB_CONNECT_TIMEOUT_MS', 5000, 100, 600000),
    queryMs: int(env, 'CAJA_DB_QUERY_TIMEOUT_MS', 20000, 100, 3600000),
    statementMs: int(env, 'CAJA_DB_STATEMENT_TIMEOUT_MS', 15000, 100, 3600000),
    lockMs: int(env, 'CAJA_DB_LOCK_TIMEOUT_MS', 10000, 100, 3600000),
    idleInTransactionMs: int(env, 'CAJA_DB_IDLE_IN_TRANSACTION_TIMEOUT_MS', 20000, 100, 3600000),
    healthTimeoutMs: int(env, 'CAJA_HEALTH_TIMEOUT_MS', 2000, 50, 60000),
    // A failover (no primary for ~10 s): requests wait this long for a primary, up to this many
    // at once, before the 503 (docs/operations.md, Failover hold). 0 answers 503 at once.
    holdMs: int(env, 'CAJA_DB_HOLD_MS', 20000, 0, 600000),
    holdQueue: int(env, 'CAJA_DB_HOLD_QUEUE', 10000, 1, 1000000),
  };
  if (t.statementMs >= t.queryMs) {
    throw new ConfigError(`CAJA_DB_STATEMENT_TIMEOUT_MS (${t.statementMs}) must be below CAJA_DB_QUERY_TIMEOUT_MS (${t.queryMs}): the server cancels a slow statement before caja drops its connection`);
  }
  return t;
}

/**
 * Deleting is off by default: an operator chooses how long events and notifications are kept. An
 * event may not leave before its notifications (a notification names it, and the API shows that
 * id; retention checks that none names it), so the events' period is at least the notifications' one.
 */
function retentionConfig(env: Env, dataDir: string): RetentionConfig {
  const days = (name: string) => {
    const n = int(env, name, 0, 0, 36500);
    return n === 0 ? null : n;
  };
  const eventsDays = days('CAJA_RETENTION_EVENTS_DAYS');
  const notificationsDays = days('CAJA_RETENTION_NOTIFICATIONS_DAYS');
  if (eventsDays !== null && (notificationsDays === null || notificationsDays > eventsDays)) {
    throw new ConfigError(
      `CAJA_RETENTION_EVENTS_DAYS (${eventsDays}) needs CAJA_RETENTION_NOTIFICATIONS_DAYS set to at most as many days (got ${notificationsDays ?? 'unset'}): an event leaves only after its notifications`,
    );
  }
  return {
    eventsDays,
    notificationsDays,
    replayGraceHours: int(env, 'CAJA_RETENTION_REPLAY_GRACE_HOURS', 0, 0, 24 * 365),
    archiveDir: resolve(env.CAJA_ARCHIVE_DIR || join(dataDir, 'archive')),
    batchRows: int(env, 'CAJA_RETENTION_BATCH_ROWS', 1000, 1, 100000),
    intervalMs: int(env, 'CAJA_RETENTION_INTERVAL_SECONDS', 60, 1, 86400) * 1000,
  };
}

/**
 * What a server may not start with, beyond what loadConfig checks for every command (the CLI's
 * commands on the database need no public address): production's PUBLIC_BASE_URL is where
 * customers pay and merchants' staff sign in, so it must be https.
 */
export function checkServerConfig(config: Config): void {
  if (config.env === 'production' && !config.publicBaseUrl.startsWith('https://')) {
    throw new ConfigError(`PUBLIC_BASE_URL must be an https URL in production (customers pay and staff sign in there), got '${config.publicBaseUrl}'`);
  }
}

export function loadConfig(env: Env = process.env): Config {
  const envName = env.CAJA_ENV ?? 'staging';
  if (envName !== 'staging' && envName !== 'production') {
    throw new ConfigError(`CAJA_ENV must be 'staging' or 'production', got '${envName}'`);
  }
  const port = int(env, 'PORT', 8080, 0, 65535);
  const dataDir = resolve(env.DATA_DIR || './data');
  const databaseUrl = env.DATABASE_URL || undefined;
  if (databaseUrl && !/^postgres(ql)?:\/\//.test(databaseUrl)) {
    throw new ConfigError(`DATABASE_URL must start with postgres:// or postgresql://`);
  }
  const publicBaseUrl = (env.PUBLIC_BASE_URL || `http://localhost:${port}`).replace(/\/+$/, '');
  try {
    const u = new URL(publicBaseUrl);
    if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new Error();
  } catch {
    throw new ConfigError(`PUBLIC_BASE_URL must be an http(s) URL, got '${publicBaseUrl}'`);
  }
  const production = envName === 'production';
  const adminPort = env.CAJA_ADMIN_PORT ? int(env, 'CAJA_ADMIN_PORT', 0, 1, 65535) : null;
  const adminOnPublicPort = bool(env, 'CAJA_ADMIN_ON_PUBLIC_PORT', adminPort === null && !production);
  if (adminOnPublicPort && adminPort !== null) {
    throw new ConfigError('CAJA_ADMIN_ON_PUBLIC_PORT=true and CAJA_ADMIN_PORT contradict each other: with an admin port, /admin, /metrics and /ops are served only there');
  }
  const masterKeyText = persistentSecret(env, 'CAJA_MASTER_KEY', dataDir, 'master.key', () => randomBytes(32).toString('base64'), !production);
  const masterKey = Buffer.from(masterKeyText, 'base64');
  if (masterKey.length !== 32) throw new ConfigError('CAJA_MASTER_KEY must be 32 bytes encoded in base64');
  const adminToken = persistentSecret(env, 'CAJA_ADMIN_TOKEN', dataDir, 'admin.token', () => randomBytes(24).toString('base64url'), !production);
  if (adminToken.length < 16) throw new ConfigError('CAJA_ADMIN_TOKEN must be at least 16 characters');
  const logLevel = env.LOG_LEVEL || 'info';
  if (!['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'].includes(logLevel)) {
    throw new ConfigError(`LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent; got '${logLevel}'`);
  }
  return {
    env: envName,
    ...capabilitiesOf(envName),
    port,
    // Staging holds test credentials and an admin API with a generated token: it stays on this
    // machine unless HOST opens it. Production listens where HOST says (all interfaces by default,
    // as a container or a host behind a load balancer needs).
    host: env.HOST || (production ? '0.0.0.0' : '127.0.0.1'),
    dataDir,
    databaseUrl,
    publicBaseUrl,
    adminToken,
    masterKey,
    passwordHashCost: passwordHashCost(env, production),
    logLevel,
    statementAccounts: (env.CAJA_STATEMENT_ACCOUNTS ?? '').split(',').map((a) => a.trim()).filter(Boolean),
    adminPort,
    adminOnPublicPort,
    adminHost: env.CAJA_ADMIN_HOST || '127.0.0.1',
    xDateToleranceSeconds: int(env, 'CAJA_X_DATE_TOLERANCE_SECONDS', 300, 1, 86400),
    xDateFutureSeconds: int(env, 'CAJA_X_DATE_FUTURE_SECONDS', 60, 0, 86400),
    cashoutDelaySeconds: int(env, 'CAJA_CASHOUT_DELAY_SECONDS', 60, 0, 86400 * 30),
    expiryIntervalMs: int(env, 'CAJA_EXPIRY_INTERVAL_MS', 5000, 10, 3600000),
    sandboxAutoSeconds: int(env, 'CAJA_SANDBOX_AUTO_SECONDS', 5, 0, 86400),
    shutdownTimeoutMs: int(env, 'CAJA_SHUTDOWN_TIMEOUT_MS', 10000, 0, 600000),
    heapGrowingPercent: int(env, 'CAJA_HEAP_GROWING_PERCENT', 100, 0, 1000),
    cacheSeconds: int(env, 'CAJA_CACHE_SECONDS', 5, 0, 3600),
    depositBatch: { maxBatch: int(env, 'CAJA_DEPOSIT_BATCH_SIZE', 64, 1, 1000), maxInFlight: int(env, 'CAJA_DEPOSIT_BATCH_IN_FLIGHT', 1, 1, 100) },
    // One shared status-change transaction at a time, as creations: a batch's cost is mostly fixed,
    // and against two at once PostgreSQL's CPU per sandbox approval fell from 485 to 380 µs
    // (docs/performance.md, Completions in shared transactions).
    transitionBatch: { maxBatch: int(env, 'CAJA_TRANSITION_BATCH_SIZE', 64, 1, 1000), maxInFlight: int(env, 'CAJA_TRANSITION_BATCH_IN_FLIGHT', 1, 1, 100) },
    workers: bool(env, 'CAJA_WORKERS', true),
    rates: ratesConfig(env, production),
    database: databaseTimeouts(env),
    connectors: {
      timeoutMs: int(env, 'CAJA_CONNECTOR_TIMEOUT_MS', 10000, 100, 120000),
      env: Object.freeze(Object.fromEntries(Object.entries(env).filter(([k]) => k.startsWith('CAJA_')))),
    },
    notifications: {
      timeoutMs: int(env, 'CAJA_NOTIFY_TIMEOUT_MS', 10000, 100, 120000),
      retryScheduleSeconds: secondsList(env, 'CAJA_NOTIFY_RETRY_SECONDS', [30, 60, 300, 900, 1800, 3600, 7200, 14400]),
      maxAgeSeconds: int(env, 'CAJA_NOTIFY_MAX_AGE_SECONDS', 86400 * 2, 1, 86400 * 30),
      concurrency: int(env, 'CAJA_NOTIFY_CONCURRENCY', 16, 1, 1000),
      perOriginConcurrency: int(env, 'CAJA_NOTIFY_PER_ORIGIN_CONCURRENCY', 4, 1, 1000),
      pollIntervalMs: int(env, 'CAJA_NOTIFY_POLL_MS', 500, 10, 60000),
      leaseSeconds: int(env, 'CAJA_NOTIFY_LEASE_SECONDS', 60, 1, 3600),
    },
    retention: retentionConfig(env, dataDir),
    providerStatements: {
      intervalSeconds: int(env, 'CAJA_PROVIDER_STATEMENTS_SECONDS', 3600, 0, 86400),
      days: int(env, 'CAJA_PROVIDER_STATEMENTS_DAYS', 3, 1, 31),
    },
    settlements: {
      intervalSeconds: int(env, 'CAJA_SETTLEMENT_INTERVAL_SECONDS', 300, 1, 86400),
      delayMinutes: int(env, 'CAJA_SETTLEMENT_DELAY_MINUTES', 60, 0, 24 * 60),
    },
  };
}
