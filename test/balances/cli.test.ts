// `caja balance` and `caja ledger check` from the command line, on the embedded database.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { CAJA_CLI } from '../helpers/programs.ts';
import { migratedDataDir } from '../helpers/data-dir.ts';
import { cajaInProcess } from '../helpers/cli.ts';

type Env = Record<string, string | undefined>;
/** A command in this process (test/helpers/cli.ts), with spawnSync's names for its result. */
async function inProcess(env: Env, args: string[]): Promise<{ status: number; stdout: string; stderr: string }> {
  const r = await cajaInProcess(args, env);
  return { status: r.code, stdout: r.stdout, stderr: r.stderr };
}
/** The same command as the real program, for its own exit code and streams. */
function asProcess(env: Env, args: string[]): { status: number | null; stdout: string; stderr: string } {
  return spawnSync(process.execPath, [CAJA_CLI, ...args], { env, encoding: 'utf8' });
}

describe('CLI: balances and the ledger', () => {
  test('adjust a balance, show it, check the ledger; bad input is a usage error', async () => {
    const env = { ...process.env, DATA_DIR: await migratedDataDir('caja-cli-'), DATABASE_URL: '', CAJA_MASTER_KEY: '' };
    const caja = (...args: string[]) => inProcess(env, args);
    const created = asProcess(env, ['merchant', 'create', '--name', 'Ledger Shop', '--json']);
    assert.equal(created.status, 0, created.stderr);
    const id = String(JSON.parse(created.stdout).merchant_id);
    const credit = await caja('balance', 'adjust', '--id', id, '--credit', '25.50', '--currency', 'USD', '--reason', 'opening balance', '--operator', 'ana');
    assert.equal(credit.status, 0, credit.stderr);
    assert.match(credit.stderr, /credit 25.50 USD by cli:ana/);
    assert.deepEqual(JSON.parse(credit.stdout).balances, [{ currency: 'USD', available: '25.50', reserved: '0', fees: '0' }]);
    const tooMuch = asProcess(env, ['balance', 'adjust', '--id', id, '--debit', '30', '--currency', 'USD', '--reason', 'x']);
    assert.equal(tooMuch.status, 64);
    assert.match(tooMuch.stderr, /exceeds the available balance/);
    assert.equal((await caja('balance', 'adjust', '--id', id, '--credit', '1', '--debit', '1', '--currency', 'USD', '--reason', 'x')).status, 64);
    assert.equal((await caja('balance', 'adjust', '--id', id, '--credit', '1.5', '--currency', 'CLP', '--reason', 'x')).status, 64, 'CLP has no cents');
    const shown = await caja('balance', 'show', '--id', id);
    assert.equal(JSON.parse(shown.stdout).balances[0].available, '25.50');
    const check = await caja('ledger', 'check');
    assert.equal(check.status, 0, check.stdout);
    assert.equal(JSON.parse(check.stdout).ok, true);
    assert.equal((await caja('balance', 'show', '--id', '999')).status, 64);
  });
});

describe('CLI: balance adjustments in production', () => {
  test('`caja balance adjust` books nothing: it is a request (asked by cli) a second operator approves', async () => {
    const env = {
      ...process.env, DATA_DIR: await migratedDataDir('caja-cli-prod-'), DATABASE_URL: '', CAJA_ENV: 'production',
      CAJA_MASTER_KEY: Buffer.alloc(32, 7).toString('base64'), PUBLIC_BASE_URL: 'https://pay.example.com', CAJA_ADMIN_TOKEN: 'cli-production-admin-token-0123456789',
    };
    const caja = (...args: string[]) => inProcess(env, args);
    const created = await caja('merchant', 'create', '--name', 'Prod Shop', '--json');
    assert.equal(created.status, 0, created.stderr);
    const id = String(JSON.parse(created.stdout).merchant_id);
    const asked = await caja('balance', 'adjust', '--id', id, '--credit', '50000', '--currency', 'USD', '--reason', 'insider', '--operator', 'ana');
    assert.equal(asked.status, 0, asked.stderr);
    assert.match(asked.stderr, /approval request \d+ pending/);
    assert.deepEqual(JSON.parse(asked.stdout).balances, [], 'nothing booked');
  });
});
