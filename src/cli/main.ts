// `caja` command line: migrations, merchant provisioning, balance adjustments and the ledger
// check, straight against the database.
import { parseArgs } from 'node:util';
import { setFlagsFromString } from 'node:v8';
import { type Config, ConfigError, loadConfig } from '../config/config.ts';
import { migrate, migrationStatus } from '../db/migrate.ts';
import { VERSION } from '../config/version.ts';
import { openDb } from '../db/db.ts';
import { lockDataDir } from '../server/embedded-lock.ts';
import { secretBox, setPasswordCost } from '../domain/secrets.ts';
import {
  CREDENTIAL_SETS, type CredentialSet, createMerchant, credentialsView, getMerchant, MAX_ROTATION_GRACE_HOURS, merchantView, rotateCredentials, rotationGraceHours,
} from '../merchants/merchants.ts';
import { checkCallbackUrl } from '../domain/urls.ts';
import type { Db } from '../db/db.ts';
import { adjustOrRequest } from '../operators/four-eyes.ts';
import { minorUnits } from '../domain/currencies.ts';
import { parseAmount, toDb } from '../domain/money.ts';
import { checkLedger } from '../ledger/check.ts';
import { InsufficientFunds, merchantBalances } from '../ledger/ledger.ts';
import { HTTP_COMMANDS, HTTP_USAGE, HttpUsageError, runHttpCommand } from './http.ts';
import { CLI_ACTOR, OPERATOR_COMMANDS, OPERATOR_USAGE, runOperatorCommand } from './operators.ts';
import { CajaApiError } from '../../sdk/src/index.ts';
import { ARCHIVED_TABLES, ArchiveError, restoreArchiveFile, tableOfFile } from '../retention/archive.ts';
import { UsageError } from './usage.ts';

const USAGE = `usage:
  caja start                                  start the service (same as npm start)
  caja migrate                                apply pending database migrations
  caja migrate --status                       list the migrations applied and pending; applies nothing
  caja version                                the version of caja (also in GET /health)
  caja merchant create --name NAME [--notification-url URL] [--return-url URL] [--json]
  caja merchant show --id ID
  caja merchant rotate --id ID --set deposits|web_status|cashouts|read_only|panel [--grace-hours H] [--json]
                                              the old values keep working H hours (default 24; 0: stop at once)
  caja balance show --id MERCHANT_ID
  caja balance adjust --id MERCHANT_ID --credit|--debit AMOUNT --currency USD --reason TEXT [--operator NAME]
  caja ledger check [--full]                  check the ledger's invariants since the last check (--full: all of it); exit 1 with a report when broken
  caja ledger check --against FILE [--format camt053|camt054|ofx|cnab240]
                                              also the bank's balance on that statement's day against the ledger's bank
                                              account and the open reconciliation exceptions (exit 1 when unexplained)
  caja archive restore FILE...                put archived rows back (retention's .ndjson.gz files; rows already there are kept)
CONNECTOR_USAGE
${OPERATOR_USAGE}

Uses the same environment as the service (DATABASE_URL, DATA_DIR, CAJA_MASTER_KEY, CAJA_ENV). On the embedded
database these need the service stopped; on PostgreSQL they run beside it.`;

/** The usage text; its `caja connector …` lines come from the registered kinds (src/connectors/providers.ts), loaded only for it. */
async function usage(): Promise<string> {
  const { connectorUsage } = await import('./connectors.ts');
  return USAGE.replace('CONNECTOR_USAGE', connectorUsage());
}

function tableOf(file: string) {
  try {
    return tableOfFile(file);
  } catch (err) {
    if (err instanceof ArchiveError) throw new UsageError(err.message);
    throw err;
  }
}

async function run(argv: string[], env: NodeJS.ProcessEnv): Promise<void> {
  const [command, sub, ...rest] = argv;
  if (command === 'start') {
    await import('../server/main.ts');
    return;
  }
  // A command runs for a second or two: the embedded database's WebAssembly (PostgreSQL) is then
  // cheaper run from V8's baseline compiler than optimized as well, about 1 s of CPU less in 2
  // for each command on the embedded database (`start` above keeps the optimizing tier, for a
  // long-running server). Set before any module is compiled: the database opens below.
  setFlagsFromString('--liftoff-only');
  if (command === 'version' || command === '--version') {
    console.log(`caja ${VERSION}`);
    return;
  }
  if (!command || command === 'help' || command === '--help') {
    console.log(`${await usage()}\n\n${HTTP_USAGE}`);
    return;
  }
  // HTTP commands talk to a running caja: no database, no lock, run beside the server.
  if (HTTP_COMMANDS.includes(command)) {
    await runHttpCommand(argv, console.log, env);
    return;
  }
  const config = loadConfig(env);
  setPasswordCost(config.passwordHashCost);
  const release = config.databaseUrl ? () => {} : lockDataDir(config.dataDir);
  const db = await openDb({ databaseUrl: config.databaseUrl, dataDir: config.dataDir, timeouts: config.database });
  try {
    if (command === 'migrate' && (sub !== undefined || rest.length > 0)) {
      if (sub !== '--status' || rest.length > 0) throw new UsageError(`unknown migrate option '${[sub, ...rest].join(' ')}'`);
      await printMigrationStatus(db);
      return;
    }
    const applied = await migrate(db);
    if (command === 'migrate') {
      console.log(applied.length ? `applied: ${applied.join(', ')}` : 'database is up to date');
      return;
    }
    if (command === 'ledger') {
      if (sub !== 'check') throw new UsageError(`unknown ledger command '${sub ?? ''}'`);
      const { values } = parseArgs({ args: rest, options: { against: { type: 'string' }, format: { type: 'string' }, full: { type: 'boolean' } } });
      const report = await checkLedger(db, { full: values.full === true });
      if (values.against === undefined) {
        console.log(JSON.stringify(report, null, 2));
        if (!report.ok) process.exitCode = 1;
        return;
      }
      // The statement parsers (XML, OFX) load only for this command.
      const { checkAgainstFile } = await import('./statements.ts');
      const against = await checkAgainstFile(db, values.against, values.format);
      console.log(JSON.stringify({ ...report, ok: report.ok && against.ok, against }, null, 2));
      if (!report.ok || !against.ok) process.exitCode = 1;
      return;
    }
    if (command === 'archive') {
      if (sub !== 'restore' || rest.length === 0) throw new UsageError('usage: caja archive restore FILE...');
      // Every name checked before anything is restored; events before their notifications,
      // notifications before their attempts (foreign keys).
      const files = rest.map((file) => ({ file, order: ARCHIVED_TABLES.indexOf(tableOf(file)) })).sort((a, b) => a.order - b.order);
      for (const { file } of files) console.log(`${file}: ${await restoreArchiveFile(db, file)} rows restored`);
      return;
    }
    if (OPERATOR_COMMANDS.includes(command)) return await runOperatorCommand(db, config, argv);
    if (command === 'connector') {
      // The connectors' validation (documents, phones, certificates) loads only for this command.
      const { connectorCommand } = await import('./connectors.ts');
      await connectorCommand(db, config, sub, rest);
      return;
    }
    if (command !== 'merchant' && command !== 'balance') throw new UsageError(`unknown command '${command}'`);
    const { values } = parseArgs({
      args: rest,
      options: {
        name: { type: 'string' },
        id: { type: 'string' },
        set: { type: 'string' },
        'notification-url': { type: 'string' },
        'return-url': { type: 'string' },
        json: { type: 'boolean', default: false },
        credit: { type: 'string' },
        debit: { type: 'string' },
        currency: { type: 'string' },
        reason: { type: 'string' },
        operator: { type: 'string' },
        'grace-hours': { type: 'string' },
      },
    });
    const box = secretBox(config.masterKey);
    const print = (obj: object, json: boolean) => console.log(json ? JSON.stringify(obj, null, 2) : human(obj));
    if (sub === 'create') {
      if (!values.name) throw new UsageError('--name is required');
      for (const [flag, v] of [['--notification-url', values['notification-url']], ['--return-url', values['return-url']]] as const) {
        const reason = v === undefined ? null : checkCallbackUrl(v, config);
        if (reason) throw new UsageError(`${flag} ${reason}`);
      }
      const { merchant, credentials } = await createMerchant(db, box, config, {
        name: values.name,
        notification_url: values['notification-url'],
        return_url: values['return-url'],
      }, (m) => ({ ops: CLI_ACTOR, action: 'merchant.created', merchantId: m.id, subject: `merchant:${m.id}`, detail: { name: m.name } }));
      print(credentialsView(merchant, credentials), values.json!);
      return;
    }
    const id = Number(values.id);
    if (!Number.isInteger(id) || id < 1) throw new UsageError('--id must be a merchant id');
    if (command === 'balance') {
      if (!(await getMerchant(db, id))) throw new UsageError(`merchant ${id} not found`);
      if (sub === 'adjust') await adjustFromCli(db, config, id, values, env);
      else if (sub !== 'show') throw new UsageError(`unknown balance command '${sub ?? ''}'`);
      const balances = await merchantBalances(db, id);
      print({ merchant_id: id, balances: balances.map((b) => ({ currency: b.currency, available: toDb(b.available), reserved: toDb(b.reserved), fees: toDb(b.fees) })) }, true);
      return;
    }
    if (sub === 'show') {
      const m = await getMerchant(db, id);
      if (!m) throw new UsageError(`merchant ${id} not found`);
      print(merchantView(m), true);
      return;
    }
    if (sub === 'rotate') {
      if (!CREDENTIAL_SETS.includes(values.set as CredentialSet)) throw new UsageError(`--set must be one of ${CREDENTIAL_SETS.join(', ')}`);
      const asked = values['grace-hours'] === undefined ? undefined : Number(values['grace-hours']);
      if (asked !== undefined && !(Number.isFinite(asked) && asked >= 0 && asked <= MAX_ROTATION_GRACE_HOURS)) {
        throw new UsageError(`--grace-hours must be a number of hours from 0 to ${MAX_ROTATION_GRACE_HOURS}`);
      }
      const grace = rotationGraceHours(values.set as CredentialSet, asked);
      const rotated = await rotateCredentials(db, box, id, values.set as CredentialSet, undefined, {
        ops: CLI_ACTOR, action: 'merchant.rotated', merchantId: id, subject: `merchant:${id}`, detail: { set: values.set, grace_hours: grace },
      }, grace);
      if (!rotated) throw new UsageError(`merchant ${id} not found`);
      print({ ...credentialsView(rotated.merchant, rotated.credentials), previous_valid_until: rotated.previousValidUntil }, values.json!);
      return;
    }
    throw new UsageError(`unknown merchant command '${sub ?? ''}'`);
  } finally {
    await db.close();
    release();
  }
}

/** `caja migrate --status`: one line a migration, then what an upgrade would do. Applies nothing. */
async function printMigrationStatus(db: Db): Promise<void> {
  const rows = await migrationStatus(db);
  for (const r of rows) console.log(`${r.version}  ${r.unknown ? `applied ${r.appliedAt!.toISOString()}, unknown to caja ${VERSION}` : r.appliedAt ? `applied ${r.appliedAt.toISOString()}` : 'pending'}`);
  const pending = rows.filter((r) => r.appliedAt === null).length;
  const unknown = rows.filter((r) => r.unknown).length;
  console.log(`caja ${VERSION}: ${rows.length - pending - unknown} applied, ${pending} pending${unknown ? `, ${unknown} applied by a newer version` : ''}`);
}

/**
 * `caja balance adjust`: as POST /admin/merchants/{id}/balance_adjustments. Production: a request
 * (asked by 'cli') that a second operator approves in the console; staging: booked at once.
 */
async function adjustFromCli(db: Db, config: Config, merchantId: number, v: Record<string, string | boolean | undefined>, env: NodeJS.ProcessEnv): Promise<void> {
  if ((v.credit === undefined) === (v.debit === undefined)) throw new UsageError('give exactly one of --credit AMOUNT or --debit AMOUNT');
  const currency = String(v.currency ?? '').toUpperCase();
  if (!/^[A-Z]{3}$/.test(currency)) throw new UsageError('--currency must be an ISO 4217 code');
  const reason = String(v.reason ?? '').trim();
  if (!reason) throw new UsageError('--reason is required');
  const amount = parseAmount(v.credit ?? v.debit, { maxDecimals: minorUnits(currency) });
  if (!amount.ok) throw new UsageError(`amount ${amount.reason}`);
  // --operator is what the person says they are: kept with the adjustment, never the requester.
  const actor = `cli:${typeof v.operator === 'string' && v.operator ? v.operator : (env.USER ?? 'operator')}`;
  try {
    const ask = { direction: v.credit !== undefined ? 'credit' as const : 'debit' as const, amount: amount.value, currency, reason };
    const done = await adjustOrRequest({ db, config, now: () => new Date() }, CLI_ACTOR, merchantId, ask, (r) => ({
      ops: CLI_ACTOR, action: 'balance.adjusted', merchantId: r.merchant_id, subject: `adjustment:${r.id}`,
      detail: { direction: r.direction, amount: r.amount, currency: r.currency, reason: r.reason, operator: actor },
    }), actor);
    if (done.status === 'pending') {
      console.error(`approval request ${done.approval_id} pending: nothing is booked until a second operator approves it in the console (/ops/approvals)`);
      return;
    }
    const row = done.row;
    console.error(`adjustment ${row.id} recorded (${row.direction} ${row.amount} ${row.currency} by ${row.actor})`);
  } catch (err) {
    if (err instanceof InsufficientFunds) throw new UsageError('the debit exceeds the available balance');
    throw err;
  }
}

function human(obj: object, indent = ''): string {
  return Object.entries(obj)
    .map(([k, v]) => (v && typeof v === 'object' && !(v instanceof Date) ? `${indent}${k}:\n${human(v, `${indent}  `)}` : `${indent}${k}: ${v instanceof Date ? v.toISOString() : v}`))
    .join('\n');
}

/** What a failed command prints to stderr, and its exit code. */
async function failure(err: unknown): Promise<{ code: number; message: string }> {
  if (err instanceof UsageError) return { code: 64, message: `caja: ${err.message}\n\n${await usage()}` };
  if (err instanceof HttpUsageError) return { code: 64, message: `caja: ${err.message}\n\n${HTTP_USAGE}` };
  if (err instanceof CajaApiError) return { code: 1, message: `caja: caja answered ${err.httpStatus}: ${err.message}${err.details.map((d) => `\n  ${d}`).join('')}` };
  if (err instanceof ConfigError) return { code: 2, message: `caja: configuration error: ${err.message}` };
  return { code: 1, message: `caja: ${err instanceof Error ? err.message : err}` };
}

/**
 * Runs one command as `caja …argv` with `env` as its environment: its output on console.log and
 * console.error, as the program's, and resolves to its exit code. The program below runs the
 * same, and exits with the code on a failure; the tests run commands in their own process with it
 * (test/helpers/cli.ts), one at a time. Not for `start`.
 */
export async function runCli(argv: string[], env: NodeJS.ProcessEnv = process.env): Promise<number> {
  const before = process.exitCode;
  process.exitCode = undefined;
  try {
    await run(argv, env);
    return Number(process.exitCode ?? 0);
  } catch (err) {
    const { code, message } = await failure(err);
    console.error(message);
    return code;
  } finally {
    process.exitCode = before;
  }
}

// The program (bin/caja.mjs, the build's cli.mjs), unless a test imports runCli and said so first.
if (!(globalThis as Record<symbol, unknown>)[Symbol.for('caja.cli.in-process')]) {
  run(process.argv.slice(2), process.env).catch(async (err) => {
    const { code, message } = await failure(err);
    console.error(message);
    process.exit(code);
  });
}
