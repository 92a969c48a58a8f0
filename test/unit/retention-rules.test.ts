import { test } from 'node:test';
import assert from 'node:assert/strict';
import { archiveFileName, byDay, cutoff, dayOf, horizons, missingIdKind, pickBatch } from '../../src/retention/rules.ts';
import { ArchiveError, tableOfFile } from '../../src/retention/archive.ts';
import { ConfigError, loadConfig } from '../../src/config/config.ts';

const at = (iso: string) => new Date(iso);
const row = (id: number, iso: string) => ({ id, created_at: at(iso) });

test('cutoff is whole days before now', () => {
  assert.equal(cutoff(at('2026-11-26T12:00:00Z'), 90).toISOString(), '2026-08-28T12:00:00.000Z');
});

test('pickBatch takes old rows in id order and stops at the first one past the cutoff', () => {
  const before = at('2026-10-01T00:00:00Z');
  const rows = [row(1, '2026-09-01T00:00:00Z'), row(2, '2026-09-02T00:00:00Z'), row(3, '2026-10-02T00:00:00Z'), row(4, '2026-09-03T00:00:00Z')];
  const b = pickBatch(rows, 4, before);
  assert.deepEqual(b.take.map((r) => r.id), [1, 2]);
  assert.equal(b.lastId, 2);
  // Row 4 is older but behind a newer one: a later pass takes it.
  assert.equal(b.done, true);
});

test('pickBatch walks past rows that must stay and goes on while the page was full', () => {
  const before = at('2026-10-01T00:00:00Z');
  const rows = [row(1, '2026-09-01T00:00:00Z'), row(2, '2026-09-02T00:00:00Z'), row(3, '2026-09-03T00:00:00Z')];
  const b = pickBatch(rows, 3, before, (r) => r.id === 2);
  assert.deepEqual(b.take.map((r) => r.id), [1, 3]);
  assert.equal(b.lastId, 3);
  assert.equal(b.done, false);
  const short = pickBatch(rows, 5, before);
  assert.equal(short.done, true);
  const none = pickBatch([], 5, before);
  assert.deepEqual(none, { take: [], lastId: null, done: true });
  // A row exactly at the cutoff stays.
  assert.deepEqual(pickBatch([row(9, '2026-10-01T00:00:00Z')], 1, before).take, []);
});

test('byDay groups by UTC day, days ascending, order kept within a day', () => {
  const groups = byDay([row(5, '2026-09-02T23:59:59Z'), row(6, '2026-09-01T10:00:00Z'), row(7, '2026-09-02T00:00:00Z')], (r) => r.created_at);
  assert.deepEqual(groups.map(([d, rs]) => [d, rs.map((r) => r.id)]), [['2026-09-01', [6]], ['2026-09-02', [5, 7]]]);
  assert.equal(dayOf(at('2026-09-02T23:59:59.999-03:00')), '2026-09-03');
});

test('archive file names sort by id within a day and name their table', () => {
  assert.equal(archiveFileName('events', '2026-08-28', 101, 600), 'events/2026-08-28/events-000000000101-000000000600.ndjson.gz');
  assert.equal(tableOfFile('/x/notification_attempts/2026-08-28/notification_attempts-000000000001-000000000009.ndjson.gz'), 'notification_attempts');
  assert.throws(() => tableOfFile('deposits-000000000001-000000000009.ndjson.gz'), ArchiveError);
  assert.throws(() => tableOfFile('events.ndjson.gz'), ArchiveError);
});

test('horizons keep the highest id per merchant; an id at or below it is archived, above or without one unknown', () => {
  assert.deepEqual([...horizons([{ id: 3, merchant_id: 1 }, { id: 9, merchant_id: 2 }, { id: 7, merchant_id: 1 }])], [[1, 7], [2, 9]]);
  assert.equal(missingIdKind(7, 7), 'archived');
  assert.equal(missingIdKind(8, 7), 'unknown');
  assert.equal(missingIdKind(1, null), 'unknown');
});

test('retention settings: off by default, events kept at least as long as notifications', () => {
  const base = { CAJA_MASTER_KEY: Buffer.alloc(32, 1).toString('base64'), CAJA_ADMIN_TOKEN: 'x'.repeat(20), DATA_DIR: '/tmp/caja-retention-config' };
  const d = loadConfig(base).retention;
  assert.equal(d.eventsDays, null);
  assert.equal(d.notificationsDays, null);
  assert.equal(d.replayGraceHours, 0);
  assert.equal(d.batchRows, 1000);
  assert.equal(d.intervalMs, 60_000);
  assert.equal(d.archiveDir, '/tmp/caja-retention-config/archive');
  const set = loadConfig({ ...base, CAJA_RETENTION_EVENTS_DAYS: '90', CAJA_RETENTION_NOTIFICATIONS_DAYS: '30', CAJA_ARCHIVE_DIR: '/srv/archive' }).retention;
  assert.deepEqual([set.eventsDays, set.notificationsDays, set.archiveDir], [90, 30, '/srv/archive']);
  assert.equal(loadConfig({ ...base, CAJA_RETENTION_NOTIFICATIONS_DAYS: '30' }).retention.eventsDays, null);
  assert.throws(() => loadConfig({ ...base, CAJA_RETENTION_EVENTS_DAYS: '90' }), /needs CAJA_RETENTION_NOTIFICATIONS_DAYS/);
  assert.throws(() => loadConfig({ ...base, CAJA_RETENTION_EVENTS_DAYS: '10', CAJA_RETENTION_NOTIFICATIONS_DAYS: '30' }), ConfigError);
  assert.throws(() => loadConfig({ ...base, CAJA_RETENTION_BATCH_ROWS: '0' }), /between 1 and 100000/);
  assert.throws(() => loadConfig({ ...base, CAJA_RETENTION_EVENTS_DAYS: '-1' }), /whole number/);
});
