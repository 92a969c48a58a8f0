// The back-office kit's rules, stated once (src/backoffice/sessions.ts, src/web/backoffice-errors.ts)
// and the same for the merchant panel and the operator console.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ABSOLUTE_HOURS, csrfMatches, IDLE_MINUTES, SESSION_COOKIE_SECONDS, sessionCutoffs, sessionLapsed } from '../../src/backoffice/sessions.ts';
import * as panel from '../../src/panel/services/auth.ts';
import * as ops from '../../src/operators/auth.ts';
import { backofficeErrorOf } from '../../src/web/backoffice-errors.ts';
import { DatabaseUnavailableError } from '../../src/db/unavailable.ts';

const T0 = new Date('2026-03-01T08:00:00Z');
const at = (ms: number) => new Date(T0.getTime() + ms);
const MIN = 60_000;

test('a session lapses IDLE_MINUTES after its last use, not a moment before', () => {
  assert.equal(IDLE_MINUTES, 30);
  const s = { createdAt: T0, lastSeenAt: at(60 * MIN) };
  assert.equal(sessionLapsed(s, at(60 * MIN + IDLE_MINUTES * MIN)), false, 'exactly at the limit: still live');
  assert.equal(sessionLapsed(s, at(60 * MIN + IDLE_MINUTES * MIN + 1)), true, 'a millisecond past it: ended');
});

test('a session lapses ABSOLUTE_HOURS after sign-in however busy it is', () => {
  assert.equal(ABSOLUTE_HOURS, 12);
  const end = ABSOLUTE_HOURS * 60 * MIN;
  assert.equal(sessionLapsed({ createdAt: T0, lastSeenAt: at(end - MIN) }, at(end)), false);
  assert.equal(sessionLapsed({ createdAt: T0, lastSeenAt: at(end) }, at(end + 1)), true, 'used a millisecond ago, but begun too long ago');
});

test('the sweep cut-offs are the same limits: a row is swept exactly when sessionLapsed says it has ended', () => {
  const now = at(20 * 60 * MIN);
  const { idleBefore, createdBefore } = sessionCutoffs(now);
  const swept = (s: { createdAt: Date; lastSeenAt: Date }) => s.lastSeenAt < idleBefore || s.createdAt < createdBefore;
  for (const created of [0, 7 * 60, 8 * 60, 8 * 60 + 1, 19 * 60]) {
    for (const idle of [0, 29, 30, 31, 120]) {
      const createdAt = at(created * MIN);
      const lastSeenAt = new Date(Math.max(createdAt.getTime(), now.getTime() - idle * MIN - (idle === 30 ? 1 : 0)));
      assert.equal(swept({ createdAt, lastSeenAt }), sessionLapsed({ createdAt, lastSeenAt }, now), `created +${created} min, idle ${idle} min`);
    }
  }
});

test('the panel and the console use the kit\'s limits, and a cookie lives as long as the absolute limit', () => {
  assert.deepEqual([panel.IDLE_MINUTES, panel.ABSOLUTE_HOURS], [IDLE_MINUTES, ABSOLUTE_HOURS]);
  assert.deepEqual([ops.IDLE_MINUTES, ops.ABSOLUTE_HOURS], [IDLE_MINUTES, ABSOLUTE_HOURS]);
  assert.equal(panel.csrfMatches, csrfMatches);
  assert.equal(SESSION_COOKIE_SECONDS, ABSOLUTE_HOURS * 3600);
});

test('the CSRF token must be the session\'s, as a string', () => {
  const s = { csrf: 'abcdefghijklmnopqrstuvwx' };
  assert.equal(csrfMatches(s, 'abcdefghijklmnopqrstuvwx'), true);
  for (const sent of ['abcdefghijklmnopqrstuvwy', '', undefined, null, ['abcdefghijklmnopqrstuvwx']]) assert.equal(csrfMatches(s, sent), false, String(sent));
});

test('the error page: an outage is a 503, bad input its own 4xx with the reason, anything else a 500', () => {
  assert.deepEqual(backofficeErrorOf(new DatabaseUnavailableError('admin_shutdown') as never), { kind: 'unavailable', status: 503 });
  assert.deepEqual(backofficeErrorOf({ statusCode: 404, message: 'x' }), { kind: 'not_found', status: 404 });
  assert.deepEqual(backofficeErrorOf({ httpStatus: 400, message: 'bad', details: ['id: not a number'] }), { kind: 'bad_request', status: 400, reason: 'id: not a number' });
  assert.deepEqual(backofficeErrorOf({ statusCode: 413, message: 'too large' }), { kind: 'bad_request', status: 413, reason: 'too large' });
  assert.deepEqual(backofficeErrorOf({ message: 'boom' }), { kind: 'failed', status: 500 });
  assert.deepEqual(backofficeErrorOf({ statusCode: 502, message: 'x' }), { kind: 'failed', status: 500 }, 'a 5xx thrown is never passed on');
  assert.deepEqual(backofficeErrorOf({ message: 'refused' }, () => 409), { kind: 'bad_request', status: 409, reason: 'refused' }, 'the face\'s own refusals');
});
