// The event feed after a cursor reads only from a margin before the cursor's event on (month
// partitions, src/notifications/store.ts eventsAfter). An event committed after the cursor was
// handed out, by a transaction that began before the cursor's, is older than the cursor's event
// and must still be served. Truly concurrent writers: PostgreSQL only (the embedded database runs
// one transaction at a time).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { postgresUrl } from '../helpers/databases.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { createMerchant, type Credentials, V3Client } from '../helpers/clients.ts';
import { addEvent, commitEvent, waitFor } from './helpers.ts';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Every page after `cursor` until an empty one: the events and the cursor to go on from. */
async function drain(client: V3Client, cursor: string): Promise<{ events: { id: number; created_at: string }[]; cursor: string }> {
  const events: { id: number; created_at: string }[] = [];
  for (;;) {
    const r = await client.get(`/v3/events?after=${cursor}&limit=7`);
    assert.equal(r.status, 200, r.text);
    if (r.body.events.length === 0) return { events, cursor };
    events.push(...r.body.events);
    cursor = r.body.next_cursor;
  }
}

describe('the event feed with concurrent writers (pg)', { skip: postgresUrl() ? false : 'PostgreSQL only (DATABASE_URL)' }, () => {
  let server: TestServer;
  let acme: Credentials;
  let client: V3Client;
  const url = 'http://127.0.0.1:9/feed';

  before(async () => {
    server = await startTestServer('pg');
    acme = await createMerchant(server.url, 'Acme');
    client = V3Client.deposits(server.url, acme);
  });
  after(async () => {
    await server?.close();
  });

  test('an event committed after the cursor by a transaction that began before it is served after the cursor', async () => {
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    let began!: () => void;
    const started = new Promise<void>((r) => (began = r));
    // The late writer: its transaction begins (now(), the event's created_at) and waits before writing.
    const late = server.ctx.db.tx(async (q) => {
      await q.query('SELECT now()');
      began();
      await gate;
      return (await addEvent(q, { merchantId: acme.merchant_id, url })).eventId;
    });
    await started;
    await sleep(1100);
    const cursorEvent = (await commitEvent(server.ctx, { merchantId: acme.merchant_id, url })).eventId;
    // Served once every transaction that took an id before it has ended: the late one has none yet.
    const first = await waitFor('the cursor event in the feed', async () => {
      const d = await drain(client, '0');
      return d.events.some((e) => e.id === cursorEvent) && d;
    }, 60_000);
    assert.equal(first.cursor, String(cursorEvent));
    release();
    const lateEvent = await late;
    const next = await waitFor('the late event after the cursor', async () => {
      const d = await drain(client, first.cursor);
      return d.events.length > 0 && d;
    }, 60_000);
    assert.deepEqual(next.events.map((e) => e.id), [lateEvent]);
    // What makes it a case: the late event is older than the cursor's.
    const cursorAt = first.events.find((e) => e.id === cursorEvent)!.created_at;
    assert.ok(Date.parse(next.events[0]!.created_at) < Date.parse(cursorAt) - 1000, `${next.events[0]!.created_at} against ${cursorAt}`);
  });

  test('a poller following the feed while writers commit out of order gets every committed event once', async () => {
    // A merchant of its own: its feed holds this test's events only.
    const busy = await createMerchant(server.url, 'Busy');
    const client = V3Client.deposits(server.url, busy);
    const start = '0';
    const committed: number[] = [];
    let writing = true;
    const writer = async (w: number) => {
      for (let i = 0; i < 6; i++) {
        const rollback = (w + i) % 5 === 0;
        const id = await server.ctx.db.tx(async (q) => {
          await q.query('SELECT now()');
          await sleep(Math.random() * 400);
          const e = (await addEvent(q, { merchantId: busy.merchant_id, url })).eventId;
          await sleep(Math.random() * 100);
          if (rollback) throw new Error('rolled back');
          return e;
        }).catch((e: Error) => {
          if (e.message !== 'rolled back') throw e;
          return null;
        });
        if (id !== null) committed.push(id);
      }
    };
    const seen: { id: number; created_at: string }[] = [];
    const poller = async () => {
      let cursor = start;
      while (writing) {
        const d = await drain(client, cursor);
        seen.push(...d.events);
        cursor = d.cursor;
        await sleep(20);
      }
      return cursor;
    };
    const polling = poller();
    await Promise.all([0, 1, 2, 3, 4].map(writer));
    writing = false;
    const cursor = await polling;
    // The rest, once the transactions still running elsewhere on the server have ended.
    await waitFor('every committed event', async () => {
      const d = await drain(client, seen.length ? String(seen[seen.length - 1]!.id) : cursor);
      seen.push(...d.events);
      return seen.length >= committed.length;
    }, 60_000);
    const ids = seen.map((e) => e.id);
    assert.equal(new Set(ids).size, ids.length, 'no event served twice');
    assert.deepEqual([...ids].sort((a, b) => a - b), [...committed].sort((a, b) => a - b));
  });
});
