// `caja` command line: migrations and merchant provisioning straight against the database.
import { parseArgs } from 'node:util';
import { ConfigError, loadConfig } from './config.ts';
import { migrate } from './db/migrate.ts';
import { openDb } from './db/db.ts';
import { lockDataDir } from './embedded-lock.ts';
import { secretBox } from './merchants/secrets.ts';
import { CREDENTIAL_SETS, type CredentialSet, createMerchant, credentialsView, getMerchant, merchantView, rotateCredentials } from './merchants/merchants.ts';
import { checkCallbackUrl } from './domain/urls.ts';

const USAGE = `usage:
  caja start                                  start the service (same as npm start)
  caja migrate                                apply pending database migrations
  caja merchant create --name NAME [--notification-url URL] [--return-url URL] [--json]
  caja merchant show --id ID
  caja merchant rotate --id ID --set deposits|web_status|cashouts|read_only|panel [--json]

Uses the same environment as the service (DATABASE_URL, DATA_DIR, CAJA_MASTER_KEY, CAJA_ENV).`;

class UsageError extends Error {}

async function run(argv: string[]): Promise<void> {
  const [command, sub, ...rest] = argv;
  if (command === 'start') {
    await import('./main.ts');
    return;
  }
  if (!command || command === 'help' || command === '--help') {
    console.log(USAGE);
    return;
  }
  const config = loadConfig();
  const release = config.databaseUrl ? () => {} : lockDataDir(config.dataDir);
  const db = await openDb({ databaseUrl: config.databaseUrl, dataDir: config.dataDir });
  try {
    const applied = await migrate(db);
    if (command === 'migrate') {
      console.log(applied.length ? `applied: ${applied.join(', ')}` : 'database is up to date');
      return;
    }
    if (command !== 'merchant') throw new UsageError(`unknown command '${command}'`);
    const { values } = parseArgs({
      args: rest,
      options: {
        name: { type: 'string' },
        id: { type: 'string' },
        set: { type: 'string' },
        'notification-url': { type: 'string' },
        'return-url': { type: 'string' },
        json: { type: 'boolean', default: false },
      },
    });
    const box = secretBox(config.masterKey);
    const print = (obj: object, json: boolean) => console.log(json ? JSON.stringify(obj, null, 2) : human(obj));
    if (sub === 'create') {
      if (!values.name) throw new UsageError('--name is required');
      for (const [flag, v] of [['--notification-url', values['notification-url']], ['--return-url', values['return-url']]] as const) {
        const reason = v === undefined ? null : checkCallbackUrl(v, config.env);
        if (reason) throw new UsageError(`${flag} ${reason}`);
      }
      const { merchant, credentials } = await createMerchant(db, box, config.env, {
        name: values.name,
        notification_url: values['notification-url'],
        return_url: values['return-url'],
      });
      print(credentialsView(merchant, credentials), values.json!);
      return;
    }
    const id = Number(values.id);
    if (!Number.isInteger(id) || id < 1) throw new UsageError('--id must be a merchant id');
    if (sub === 'show') {
      const m = await getMerchant(db, id);
      if (!m) throw new UsageError(`merchant ${id} not found`);
      print(merchantView(m), true);
      return;
    }
    if (sub === 'rotate') {
      if (!CREDENTIAL_SETS.includes(values.set as CredentialSet)) throw new UsageError(`--set must be one of ${CREDENTIAL_SETS.join(', ')}`);
      const rotated = await rotateCredentials(db, box, id, values.set as CredentialSet);
      if (!rotated) throw new UsageError(`merchant ${id} not found`);
      print(credentialsView(rotated.merchant, rotated.credentials), values.json!);
      return;
    }
    throw new UsageError(`unknown merchant command '${sub ?? ''}'`);
  } finally {
    await db.close();
    release();
  }
}

function human(obj: object, indent = ''): string {
  return Object.entries(obj)
    .map(([k, v]) => (v && typeof v === 'object' && !(v instanceof Date) ? `${indent}${k}:\n${human(v, `${indent}  `)}` : `${indent}${k}: ${v instanceof Date ? v.toISOString() : v}`))
    .join('\n');
}

run(process.argv.slice(2)).catch((err) => {
  if (err instanceof UsageError) {
    console.error(`caja: ${err.message}\n\n${USAGE}`);
    process.exit(64);
  }
  if (err instanceof ConfigError) {
    console.error(`caja: configuration error: ${err.message}`);
    process.exit(2);
  }
  console.error(`caja: ${err instanceof Error ? err.message : err}`);
  process.exit(1);
});
