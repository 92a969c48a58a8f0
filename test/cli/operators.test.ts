// `caja operator create` as an operator runs it on a fresh installation: the first admin's
// one-time enrolment link printed (no password, no secret), then that admin enrolling through it
// and signing in to a real `caja start` on the same data directory; the CLI's refusals, and
// operators' lifecycle (a reset to a new enrolment link, disable and enable). The CLI's tokens:
// test/cli/tokens.test.ts.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { totpCode } from '../../src/backoffice/totp.ts';
import { OpsClient } from '../ops/helpers.ts';
import { installation, type Installation } from './installation.ts';

describe('caja operator commands', () => {
  let first: { id: number; email: string; role: string; enrolment_link: string; expires_at: string };
  let i: Installation;
  let base: string;
  const caja = (args: string[]) => i.caja(args);
  const start = () => i.start();
  const stop = () => i.stop();
  const enrol = (link: string, password: string) => i.enrol(link, password);

  before(async () => {
    i = await installation('caja-cli-ops-');
    base = i.base;
    const made = await i.cajaProcess(['operator', 'create', '--email', 'Root@Ops.Example', '--role', 'admin', '--json']);
    assert.equal(made.code, 0, made.stderr);
    first = JSON.parse(made.stdout);
  });
  after(() => i?.stop());

  test('the first operator: a one-time enrolment link, no password nor secret; enrolled through it, they sign in', async () => {
    assert.equal(first.email, 'root@ops.example');
    assert.equal(first.role, 'admin');
    assert.match(first.enrolment_link, /\/ops\/enrol\/[\w-]{43}$/);
    assert.deepEqual(Object.keys(first).sort(), ['email', 'enrolment_link', 'expires_at', 'id', 'role'], 'nothing secret but the link is printed');
    assert.ok(Date.parse(first.expires_at) > Date.now() + 71 * 3_600_000);
    await start();
    const password = 'the first admin chose this one';
    const secret = await enrol(first.enrolment_link, password);
    assert.equal((await new OpsClient(base).get(new URL(first.enrolment_link).pathname)).status, 404, 'the link works once');
    const c = new OpsClient(base);
    await c.request('POST', '/ops/login', new URLSearchParams({ email: first.email, password }));
    // The enrolment used this step's code; the next step's is accepted (one step either side).
    const page = await c.submit('/ops/login/code', '/ops/login/code', { code: totpCode(secret, new Date(), 1) });
    assert.equal(page.url, '/ops/merchants');
    assert.equal(page.status, 200);
    await stop();
    const list = await caja(['operator', 'list']);
    assert.match(list.stdout, /root@ops\.example\tadmin\n/);
  });

  test('the same e-mail twice, or an unknown role: refused with the reason', async () => {
    const again = await caja(['operator', 'create', '--email', 'root@ops.example', '--role', 'admin']);
    assert.equal(again.code, 1);
    assert.match(again.stderr, /an operator with the e-mail root@ops\.example exists/);
    const role = await i.cajaProcess(['operator', 'create', '--email', 'x@ops.example', '--role', 'owner']);
    assert.equal(role.code, 64);
    assert.match(role.stderr, /--role must be one of admin, finance, risk, support, read_only/);
  });

  test('lifecycle: a reset (a new enrolment link; the old password stops), disable and enable, never the last active admin', async () => {
    await stop();
    const made = JSON.parse((await caja(['operator', 'create', '--email', 'ana@ops.example', '--role', 'finance', '--json'])).stdout);
    assert.match((await caja(['operator', 'list'])).stdout, /ana@ops\.example\tfinance\tenrolling/);
    const reset = await caja(['operator', 'reset', '--email', 'ana@ops.example', '--json']);
    assert.equal(reset.code, 0, reset.stderr);
    const link = JSON.parse(reset.stdout).enrolment_link as string;
    assert.notEqual(link, made.enrolment_link);
    assert.doesNotMatch(reset.stdout, /password|secret/);
    const lastAdmin = await caja(['operator', 'disable', '--email', 'root@ops.example']);
    assert.equal(lastAdmin.code, 1);
    assert.match(lastAdmin.stderr, /the last active admin cannot be disabled/);
    assert.equal((await caja(['operator', 'disable', '--email', 'nobody@ops.example'])).code, 1);
    await caja(['operator', 'create', '--email', 'bo@ops.example', '--role', 'support']);
    assert.equal((await caja(['operator', 'disable', '--email', 'bo@ops.example'])).code, 0);
    assert.match((await caja(['operator', 'list'])).stdout, /bo@ops\.example\tsupport\tdisabled/);
    await start();
    // The creation's link was replaced by the reset's.
    assert.equal((await new OpsClient(base).get(new URL(made.enrolment_link).pathname)).status, 404);
    const password = 'ana chose this passphrase';
    const secret = await enrol(link, password);
    const c = new OpsClient(base);
    await c.request('POST', '/ops/login', new URLSearchParams({ email: 'ana@ops.example', password }));
    const page = await c.submit('/ops/login/code', '/ops/login/code', { code: totpCode(secret, new Date(), 1) });
    assert.equal(page.url, '/ops/merchants');
    const bo = await new OpsClient(base).request('POST', '/ops/login', new URLSearchParams({ email: 'bo@ops.example', password: 'whatever' }));
    assert.equal(bo.status, 401);
    await stop();
    assert.equal((await caja(['operator', 'enable', '--email', 'bo@ops.example'])).code, 0);
    assert.doesNotMatch((await caja(['operator', 'list'])).stdout, /bo@ops\.example\tsupport\tdisabled/);
  });
});
