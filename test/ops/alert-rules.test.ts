// The alerting rules shipped in deploy/prometheus/ (docs/operations.md, Alerts): valid, each one
// firing and staying quiet where its test file says (promtool), and every metric they read is one
// caja really exports, with the figures the database holds.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { startWithMerchants } from '../helpers/merchants.ts';
import type { TestServer } from '../helpers/server.ts';
import { type Credentials, cashoutRequest } from '../helpers/clients.ts';
import { cpf } from '../helpers/documents.ts';
import { setRates } from '../helpers/four-eyes.ts';

const DIR = join('deploy', 'prometheus');
const RULES = join(DIR, 'caja-rules.yml');
const promtool = spawnSync('promtool', ['--version'], { encoding: 'utf8' }).status === 0;
// CI installs promtool (.ci/run); elsewhere the rule tests say why they did not run.
const needPromtool = promtool ? false : process.env.CI ? false : 'needs promtool (Debian package prometheus)';

test('the rules are valid and pass their unit tests (promtool test rules)', { skip: needPromtool }, () => {
  const check = spawnSync('promtool', ['check', 'rules', RULES], { encoding: 'utf8' });
  assert.equal(check.status, 0, check.stdout + check.stderr);
  assert.match(check.stdout, /SUCCESS: 10 rules found/);
  const run = spawnSync('promtool', ['test', 'rules', 'caja-rules.test.yml'], { cwd: DIR, encoding: 'utf8' });
  assert.equal(run.status, 0, run.stdout + run.stderr);
  assert.match(run.stdout, /SUCCESS/);
  // Every alert of the rule file has a test case (a rule without one could be silently wrong).
  const alerts = [...readFileSync(RULES, 'utf8').matchAll(/- alert: (\w+)/g)].map((m) => m[1]);
  const tested = new Set([...readFileSync(join(DIR, 'caja-rules.test.yml'), 'utf8').matchAll(/alertname: (\w+)/g)].map((m) => m[1]));
  assert.deepEqual(alerts.filter((a) => !tested.has(a)), []);
});

let s: TestServer;
let m: Credentials;
before(async () => {
  ({ s, merchants: [m] } = await startWithMerchants('pglite', { CAJA_CASHOUT_DELAY_SECONDS: '3600' }, [{ name: 'Alerts', funds: '1000.00' }]));
});
after(() => s?.close());

const metricsText = async () => (await fetch(`${s.url}/metrics`)).text();
const value = (text: string, series: string) => Number(new RegExp(`^${series.replace(/[{}"]/g, (c) => `\\${c}`)} (\\S+)$`, 'm').exec(text)?.[1] ?? NaN);

test('every metric the rules read is exported by caja', async () => {
  const rules = readFileSync(RULES, 'utf8');
  const named = new Set([...rules.matchAll(/\b(caja_[a-z_]+)\b/g)].map((x) => x[1]!));
  const text = await metricsText();
  const exported = new Set([...text.matchAll(/^# TYPE (\S+) /gm)].map((x) => x[1]!));
  assert.ok(named.size >= 9);
  assert.deepEqual([...named].filter((n) => !exported.has(n)), []);
});

test('the gauges show what the database holds: waiting cashouts, rate ages, connectors, exceptions', async () => {
  await setRates(s, { BRL: '5.25' });
  const cashout = await cashoutRequest(s.url, m, 'POST', '/v3/cashout', {
    external_id: `alerts-${Date.now()}`, country: 'BR', currency: 'USD', amount: '10.00', document_id: cpf('529982247'), beneficiary_name: 'Maria',
    beneficiary_lastname: 'Souza', bank_code: '260', bank_account: '12345-6', bank_branch: '0001', account_type: 'C',
  });
  assert.equal(cashout.status, 200, cashout.text);
  // Made older, and a connector that failed after its last success, and an open exception: the
  // gauges read the rows as they are at scrape time.
  await s.ctx.db.query(`UPDATE cashouts SET created_at = now() - interval '40 minutes' WHERE id = $1`, [cashout.body.cashout_id]);
  await s.ctx.db.query(`UPDATE exchange_rates SET rate_at = now() - interval '73 hours' WHERE currency = 'BRL'`);
  await s.ctx.db.query(
    `INSERT INTO connectors (name, settings, secrets, last_poll_at, last_poll_ok, last_error_at)
     VALUES ('alerts_test', '{}', '', now() - interval '1 hour', true, now() - interval '5 minutes')`,
  );
  const text = await metricsText();
  assert.equal(value(text, 'caja_cashouts_waiting{country="BR",status="PENDING"}'), 1);
  assert.ok(value(text, 'caja_cashouts_waiting_oldest_seconds{country="BR",status="PENDING"}') >= 2400);
  const age = value(text, 'caja_exchange_rate_age_seconds{currency="BRL",source="manual"}');
  assert.ok(age >= 73 * 3600 && age < 74 * 3600, String(age));
  const success = value(text, 'caja_connector_last_success_timestamp_seconds{connector="alerts_test"}');
  const error = value(text, 'caja_connector_last_error_timestamp_seconds{connector="alerts_test"}');
  assert.ok(error - success > 3000 && error - success < 3600, `${success} ${error}`);
  assert.ok(Math.abs(error - (Date.now() / 1000 - 300)) < 60);
  assert.doesNotMatch(text, /^caja_reconciliation_exceptions_open\{/m, 'no exception: no series');
});
