// Where the HTTP commands find caja and a merchant's credentials: the environment first (the
// names the SDK's quick start exports), then a profile in $XDG_CONFIG_HOME/caja/config.json
// (~/.config/caja/config.json), written by `caja profile save` from the JSON that merchant
// creation prints.
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';

export interface Profile {
  url: string;
  deposits?: { login: string; secret_key: string };
  cashouts?: { login: string; pass: string; secret_key: string };
  read_only_key?: string;
}

export class ProfileError extends Error {}

export function configPath(env: NodeJS.ProcessEnv = process.env): string {
  return join(env.XDG_CONFIG_HOME || join(homedir(), '.config'), 'caja', 'config.json');
}

function readAll(path: string): Record<string, Profile> {
  return existsSync(path) ? (JSON.parse(readFileSync(path, 'utf8')) as { profiles?: Record<string, Profile> }).profiles ?? {} : {};
}

export function loadProfile(name: string | undefined, env: NodeJS.ProcessEnv = process.env): Profile {
  const profileName = name ?? env.CAJA_PROFILE ?? 'default';
  const saved = readAll(configPath(env))[profileName];
  const p: Profile = { url: env.CAJA_URL || saved?.url || '', deposits: saved?.deposits, cashouts: saved?.cashouts, read_only_key: env.CAJA_READ_ONLY_KEY || saved?.read_only_key };
  if (env.CAJA_LOGIN && env.CAJA_SECRET) p.deposits = { login: env.CAJA_LOGIN, secret_key: env.CAJA_SECRET };
  if (env.CAJA_CASHOUT_LOGIN && env.CAJA_CASHOUT_PASS && env.CAJA_CASHOUT_SECRET) {
    p.cashouts = { login: env.CAJA_CASHOUT_LOGIN, pass: env.CAJA_CASHOUT_PASS, secret_key: env.CAJA_CASHOUT_SECRET };
  }
  if (!p.url) throw new ProfileError(`no caja URL: set CAJA_URL, or run 'caja profile save --url URL --credentials FILE' (profile '${profileName}' in ${configPath(env)})`);
  return p;
}

/** Saves the credentials JSON of `caja merchant create --json` / POST /admin/merchants as a profile. */
export function saveProfile(name: string, url: string, credentialsJson: string, env: NodeJS.ProcessEnv = process.env): string {
  const c = JSON.parse(credentialsJson) as Partial<Profile> & { deposits?: { login: string; secret_key: string } };
  if (!c.deposits?.login || !c.deposits.secret_key) throw new ProfileError('the credentials file has no deposits.login and deposits.secret_key (use the JSON merchant creation prints)');
  const path = configPath(env);
  const profiles = readAll(path);
  profiles[name] = {
    url: url.replace(/\/+$/, ''),
    deposits: { login: c.deposits.login, secret_key: c.deposits.secret_key },
    ...(c.cashouts ? { cashouts: { login: c.cashouts.login, pass: c.cashouts.pass, secret_key: c.cashouts.secret_key } } : {}),
    ...(c.read_only_key ? { read_only_key: c.read_only_key } : {}),
  };
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  writeFileSync(path, `${JSON.stringify({ profiles }, null, 2)}\n`, { mode: 0o600 });
  // An existing file keeps its mode on write: it holds secrets, so make sure only its owner reads it.
  chmodSync(path, 0o600);
  return path;
}
