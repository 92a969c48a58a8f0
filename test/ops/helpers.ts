// The operator console without a browser: operators made through the service (as `caja operator
// create` does) and enrolled through their one-time link by the service the link's page calls
// (a chosen password, the secret shown, its code), and a person signing in with e-mail, password
// and the current TOTP code.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { createOperator } from '../../src/operators/accounts.ts';
import { completeEnrolment, openEnrolment } from '../../src/operators/enrolment.ts';
import type { OperatorRole } from '../../src/operators/roles.ts';
import { totpCode, totpStep } from '../../src/backoffice/totp.ts';
import type { TestServer } from '../helpers/server.ts';
import type { Page } from 'playwright-core';
import { PanelClient } from '../panel/helpers.ts';

export interface TestOperator {
  id: number;
  email: string;
  role: OperatorRole;
  password: string;
  secret: string;
  /** The last time step whose code was used: a code works once. */
  lastStep: number;
}

let seq = 0;

export async function makeOperator(s: TestServer, role: OperatorRole, name: string = role): Promise<TestOperator> {
  const op = await createOperator(s.ctx.db, s.ctx.box, `${name}-${process.pid}-${++seq}@ops.example`, role, null, s.ctx.now());
  const opened = await openEnrolment(s.ctx, op.enrolment.token);
  assert.ok(opened.ok, 'the new enrolment link opens');
  const password = randomBytes(15).toString('base64url');
  const made: TestOperator = { id: op.id, email: op.email, role, password, secret: opened.secret, lastStep: -1 };
  const done = await completeEnrolment(s.ctx, op.enrolment.token, password, password, nextCode(s, made));
  assert.ok(done.ok, `enrolled: ${JSON.stringify(done)}`);
  return made;
}

/**
 * A code not used yet, of the current step or the next; the server's clock moves on when neither
 * is left. Never the step before, though the server accepts it: a browser's sign-in that crosses
 * a 30 s boundary between this call and the server's check would send a code just out of the
 * window (a console browser test failed so in CI).
 */
export function nextCode(s: TestServer, op: TestOperator): string {
  for (;;) {
    const now = s.ctx.now();
    const step = totpStep(now);
    for (const d of [0, 1]) {
      if (step + d > op.lastStep) {
        op.lastStep = step + d;
        return totpCode(op.secret, now, d);
      }
    }
    const real = s.ctx.now;
    s.ctx.now = () => new Date(real().getTime() + 30_000);
  }
}

export class OpsClient extends PanelClient {
  async signInOps(s: TestServer, op: TestOperator): Promise<void> {
    const first = await this.request('POST', '/ops/login', new URLSearchParams({ email: op.email, password: op.password }));
    assert.equal(first.url, '/ops/login/code', `password step: ${first.status} ${first.html.slice(0, 300)}`);
    const page = await this.submit('/ops/login/code', '/ops/login/code', { code: nextCode(s, op) });
    assert.equal(page.url, '/ops/merchants', `code step: ${page.status} ${page.html.slice(0, 300)}`);
  }
}

export async function signedIn(s: TestServer, op: TestOperator): Promise<OpsClient> {
  const c = new OpsClient(s.url);
  await c.signInOps(s, op);
  return c;
}

/** Signs `op` in through the console's pages in a browser; `shot` (when given) checks the password and code pages. */
export async function signInInBrowser(p: Page, s: TestServer, op: TestOperator, shot?: (name: string) => Promise<void>): Promise<void> {
  await p.goto(`${s.url}/ops/login`);
  await p.fill('#f-email', op.email);
  await p.fill('#f-password', op.password);
  if (shot) await shot('password');
  await p.click('button.wide');
  await p.waitForURL(`${s.url}/ops/login/code`);
  await p.fill('#f-code', nextCode(s, op));
  if (shot) await shot('code');
  await p.click('button.wide');
  await p.waitForURL(`${s.url}/ops/merchants`);
}
