// `caja connector pix|own_accounts|stp set|show` on the embedded database: the same validation and storage
// as PUT /admin/connectors/<name>, and no secret printed.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startPixSimulator, type PixSimulator } from '../helpers/pix-simulator.ts';
import { startStpSimulator } from '../helpers/stp-simulator.ts';
import { CAJA_CLI } from '../helpers/programs.ts';
import { migratedDataDir } from '../helpers/data-dir.ts';
import { cajaInProcess, type CliResult } from '../helpers/cli.ts';

type Env = Record<string, string | undefined>;
/** A command in this process (test/helpers/cli.ts), with spawnSync's names for its result. */
async function inProcess(env: Env, args: string[]): Promise<{ status: number; stdout: string; stderr: string }> {
  const r: CliResult = await cajaInProcess(args, env);
  return { status: r.code, stdout: r.stdout, stderr: r.stderr };
}
/** The same command as the real program, for its own exit code and streams. */
function asProcess(env: Env, args: string[]): { status: number | null; stdout: string; stderr: string } {
  return spawnSync(process.execPath, [CAJA_CLI, ...args], { env, encoding: 'utf8' });
}

describe('CLI: the Pix connector', () => {
  let sim: PixSimulator;
  before(async () => {
    sim = await startPixSimulator();
  });
  after(async () => {
    await sim.stop();
  });

  test('set from a file, show without secrets; an invalid file is a usage error naming each field', async () => {
    const dir = await migratedDataDir('caja-cli-pix-');
    const env = { ...process.env, DATA_DIR: dir, DATABASE_URL: '', CAJA_MASTER_KEY: '' };
    const caja = (...args: string[]) => inProcess(env, args);
    assert.equal(asProcess(env, ['connector', 'pix', 'show']).status, 64, 'the program itself exits 64');
    const bad = join(dir, 'bad.json');
    writeFileSync(bad, JSON.stringify({ ...sim.config, token_url: 'http://x/token', private_key: 'nope' }));
    const refused = await caja('connector', 'pix', 'set', '--file', bad);
    assert.equal(refused.status, 64);
    assert.match(refused.stderr, /token_url: must be an https URL/);
    assert.match(refused.stderr, /private_key: is not a PEM private key/);
    const good = join(dir, 'pix.json');
    writeFileSync(good, JSON.stringify(sim.config));
    const set = await caja('connector', 'pix', 'set', '--file', good);
    assert.equal(set.status, 0, set.stderr);
    const shown = await caja('connector', 'pix', 'show');
    assert.equal(shown.status, 0, shown.stderr);
    for (const out of [set.stdout, shown.stdout]) {
      assert.ok(!out.includes(sim.config.client_secret) && !out.includes('PRIVATE KEY'), 'a secret was printed');
      const view = JSON.parse(out);
      assert.equal(view.api_url, sim.config.api_url);
      assert.equal(view.pix_key, sim.config.pix_key);
      assert.equal(view.health.token_obtained, false);
    }
  });
  test('own_accounts: set from a file and show; an invalid list is a usage error naming each account', async () => {
    const dir = await migratedDataDir('caja-cli-own-');
    const env = { ...process.env, DATA_DIR: dir, DATABASE_URL: '', CAJA_MASTER_KEY: '' };
    const caja = (...args: string[]) => inProcess(env, args);
    assert.equal((await caja('connector', 'own_accounts', 'show')).status, 64);
    assert.match((await caja('connector', 'nope', 'show')).stderr, /unknown connector 'nope' \(known: pix, own_accounts, stp, adyen\)/);
    const bad = join(dir, 'bad.json');
    writeFileSync(bad, JSON.stringify({ accounts: [{ country: 'BR', method: 'BB', beneficiary_name: 'Op', account: '1' }] }));
    const refused = await caja('connector', 'own_accounts', 'set', '--file', bad);
    assert.equal(refused.status, 64);
    assert.match(refused.stderr, /accounts\[0\]\.agency: is required in BR/);
    const good = join(dir, 'own.json');
    const account = { country: 'BR', method: 'BB', beneficiary_name: 'Operadora Ltda', agency: '1234', account: '98765-4', document: '11444777000161' };
    writeFileSync(good, JSON.stringify({ accounts: [account] }));
    const set = await caja('connector', 'own_accounts', 'set', '--file', good);
    assert.equal(set.status, 0, set.stderr);
    const shown = await caja('connector', 'own_accounts', 'show');
    assert.equal(shown.status, 0, shown.stderr);
    assert.deepEqual(JSON.parse(shown.stdout).accounts, [account]);
  });
});

describe('CLI: the STP connector', () => {
  test('set from a file, show without secrets; an invalid file is a usage error naming each field', async () => {
    const sim = await startStpSimulator();
    try {
      const dir = await migratedDataDir('caja-cli-stp-');
      const env = { ...process.env, DATA_DIR: dir, DATABASE_URL: '', CAJA_MASTER_KEY: '' };
      const caja = (...args: string[]) => inProcess(env, args);
      assert.equal((await caja('connector', 'stp', 'show')).status, 64);
      const bad = join(dir, 'bad.json');
      writeFileSync(bad, JSON.stringify({ ...sim.config, clabe_prefix: '646', private_key_passphrase: 'wrong' }));
      const refused = asProcess(env, ['connector', 'stp', 'set', '--file', bad]);
      assert.equal(refused.status, 64);
      assert.match(refused.stderr, /clabe_prefix: must be 10 digits/);
      assert.match(refused.stderr, /private_key: is not a PEM private key that opens with private_key_passphrase/);
      const good = join(dir, 'stp.json');
      writeFileSync(good, JSON.stringify({ ...sim.config, webhook_secret: 'a-long-webhook-secret-0123456789' }));
      const set = await caja('connector', 'stp', 'set', '--file', good);
      assert.equal(set.status, 0, set.stderr);
      const shown = await caja('connector', 'stp', 'show');
      assert.equal(shown.status, 0, shown.stderr);
      for (const out of [set.stdout, shown.stdout]) {
        assert.ok(!out.includes(sim.config.private_key_passphrase) && !out.includes('PRIVATE KEY') && !out.includes('a-long-webhook-secret'), 'a secret was printed');
        const view = JSON.parse(out);
        assert.equal(view.empresa, sim.config.empresa);
        assert.equal(view.clabe_prefix, sim.config.clabe_prefix);
        assert.equal(view.webhook_secret, '(set)');
      }
      // A stopped order sent again under a new claveRastreo: only a cashout that has one.
      assert.match((await caja('connector', 'stp', 'resend', 'x')).stderr, /connector stp resend needs a cashout id/);
      const none = await caja('connector', 'stp', 'resend', '7');
      assert.equal(none.status, 64);
      assert.match(none.stderr, /cashout 7 has no stopped STP order/);
      const noRefund = await caja('connector', 'pix', 'resend', '7');
      assert.equal(noRefund.status, 64);
      assert.match(noRefund.stderr, /refund 7 has no stopped Pix devolução/);
      const noSend = await caja('connector', 'pix', 'resend-cashout', '7');
      assert.equal(noSend.status, 64);
      assert.match(noSend.stderr, /cashout 7 has no stopped Pix send/);
    } finally {
      await sim.stop();
    }
  });
});
