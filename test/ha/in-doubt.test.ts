// The failover hold of src/db/db.ts (docs/operations.md, Failover hold), on PostgreSQL, through a
// TCP proxy the test controls:
//   - a write transaction whose connection breaks right after its COMMIT reached the server (the
//     answer lost): in doubt, it is found committed and its own result is answered, once;
//   - one whose COMMIT never reached the server: found not committed, run again, once;
//   - a write outside a transaction (Db.query) the same way;
//   - no server at all for a while (connections refused): operations wait for it, within the
//     hold, and run when it is back; past the hold they fail as unavailable; past the queue's
//     bound at once.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { until } from '../helpers/until.ts';
import { createServer, connect, type Server, type Socket } from 'node:net';
import { createScratchDatabase, postgresUrl } from '../helpers/databases.ts';
import { openPostgres, type Db } from '../../src/db/db.ts';
import { isDatabaseUnavailable } from '../../src/db/unavailable.ts';

const base = postgresUrl();
const skip = base ? false : 'needs DATABASE_URL (PostgreSQL)';

type Mode = 'pass' | 'cut-after-commit' | 'drop-commit' | 'refuse';

/** Forwards to PostgreSQL; cuts the connection that sends the next write COMMIT, after or before forwarding it. */
class CommitCutter {
  mode: Mode = 'pass';
  cuts = 0;
  private server: Server | null = null;
  private sockets = new Set<Socket>();
  port = 0;
  constructor(private readonly target: { host: string; port: number }) {}
  async start(): Promise<this> {
    this.server = createServer((client) => {
      this.sockets.add(client);
      client.on('close', () => this.sockets.delete(client));
      client.on('error', () => undefined);
      if (this.mode === 'refuse') return void client.resetAndDestroy();
      const upstream = connect(this.target.port, this.target.host);
      this.sockets.add(upstream);
      upstream.on('close', () => {
        this.sockets.delete(upstream);
        client.destroy();
      });
      upstream.on('error', () => undefined);
      client.on('close', () => upstream.end());
      client.on('data', (d) => {
        const commit = d.includes('INSERT INTO tx_outcomes (token) VALUES (\'') || d.includes('caja_outcome AS');
        if (commit && this.mode === 'cut-after-commit') {
          this.mode = 'pass';
          this.cuts++;
          // The server gets the COMMIT (then end of stream); caja never hears its answer.
          upstream.end(d);
          client.resetAndDestroy();
          return;
        }
        if (commit && this.mode === 'drop-commit') {
          this.mode = 'pass';
          this.cuts++;
          upstream.destroy();
          client.resetAndDestroy();
          return;
        }
        upstream.write(d);
      });
      upstream.on('data', (d) => client.write(d));
    });
    await new Promise<void>((r) => this.server!.listen(0, '127.0.0.1', () => r()));
    this.port = (this.server.address() as { port: number }).port;
    return this;
  }
  resetAll(): void {
    for (const s of this.sockets) s.resetAndDestroy();
  }
  async close(): Promise<void> {
    this.resetAll();
    await new Promise<void>((r) => this.server!.close(() => r()));
  }
}

describe('in-doubt commits and the failover hold (pg)', { skip }, () => {
  let scratch: { url: string; drop: () => Promise<void> };
  let proxy: CommitCutter;
  let db: Db;
  let direct: Db;
  before(async () => {
    scratch = await createScratchDatabase(base!);
    const target = new URL(scratch.url);
    proxy = await new CommitCutter({ host: target.hostname, port: Number(target.port || 5432) }).start();
    const through = new URL(scratch.url);
    through.host = `127.0.0.1:${proxy.port}`;
    direct = openPostgres(scratch.url, 2);
    await direct.exec(`CREATE TABLE tx_outcomes (token uuid PRIMARY KEY, at timestamptz NOT NULL DEFAULT now());
      CREATE TABLE items (id serial PRIMARY KEY, key text NOT NULL, n integer NOT NULL)`);
    db = openPostgres(through.toString(), 4, { connectMs: 1000, queryMs: 3000, statementMs: 2000, lockMs: 2000, idleInTransactionMs: 5000, holdMs: 4000, holdQueue: 3 });
  });
  after(async () => {
    await db?.close();
    await direct?.close();
    await proxy?.close();
    await scratch?.drop();
  });
  const count = async (key: string) => (await direct.query<{ n: number }>('SELECT count(*)::int AS n FROM items WHERE key = $1', [key])).rows[0]!.n;

  test('COMMIT reached the server, its answer lost: the committed result is answered, the write made once', async () => {
    const before = { ...db.holdStats! };
    proxy.mode = 'cut-after-commit';
    let runs = 0;
    const id = await db.tx(async (q) => {
      runs++;
      return (await q.query<{ id: number }>('INSERT INTO items (key, n) VALUES ($1, 1) RETURNING id', ['after'])).rows[0]!.id;
    });
    assert.equal(proxy.cuts, 1, 'the connection was cut at COMMIT');
    assert.equal(runs, 1, 'not run again');
    assert.equal(await count('after'), 1, 'written once');
    const { rows } = await direct.query<{ id: number }>('SELECT id FROM items WHERE key = $1', ['after']);
    assert.equal(Number(rows[0]!.id), id, 'the answer is the committed row');
    assert.equal(db.holdStats!.inDoubtCommitted - before.inDoubtCommitted, 1);
  });

  test('COMMIT never reached the server: found not committed, run again, written once', async () => {
    const before = { ...db.holdStats! };
    proxy.mode = 'drop-commit';
    let runs = 0;
    await db.tx(async (q) => {
      runs++;
      await q.query('INSERT INTO items (key, n) VALUES ($1, $2)', ['dropped', runs]);
    });
    assert.equal(proxy.cuts, 2);
    assert.equal(runs, 2, 'run again once it was known not to have committed');
    assert.equal(await count('dropped'), 1, 'written once');
    assert.equal((await direct.query<{ n: number }>('SELECT n FROM items WHERE key = $1', ['dropped'])).rows[0]!.n, 2, 'the second run is the one stored');
    assert.equal(db.holdStats!.inDoubt - before.inDoubt, 1);
    assert.equal(db.holdStats!.inDoubtCommitted - before.inDoubtCommitted, 0);
  });

  test('a write outside a transaction, its answer lost: the result of the committed statement, once', async () => {
    proxy.mode = 'cut-after-commit';
    const r = await db.query<{ id: number }>('INSERT INTO items (key, n) VALUES ($1, 1) RETURNING id', ['single']);
    assert.equal(proxy.cuts, 3);
    assert.equal(r.rowCount, 1);
    assert.equal(await count('single'), 1);
    assert.equal(Number((await direct.query<{ id: number }>('SELECT id FROM items WHERE key = $1', ['single'])).rows[0]!.id), Number(r.rows[0]!.id));
  });

  test('a write with its read-back, one round trip: committed with its answer lost, the rows read back; not committed, run again', async () => {
    const reread = () => direct.query<{ id: number; key: string }>('SELECT id, key FROM items WHERE key = $1', ['oneTrip']);
    proxy.mode = 'cut-after-commit';
    const r = await db.query<{ id: number; key: string }>('INSERT INTO items (key, n) VALUES ($1, 1) RETURNING id, key', ['oneTrip'], { reread });
    assert.equal(proxy.cuts, 4, 'cut at its one round trip');
    assert.equal(await count('oneTrip'), 1);
    assert.deepEqual(r.rows.map((x) => x.key), ['oneTrip'], 'the committed rows, read back');
    proxy.mode = 'drop-commit';
    const again = await db.query<{ key: string }>('WITH v AS (SELECT $1::text AS key) INSERT INTO items (key, n) SELECT key, 1 FROM v RETURNING key', ['oneTrip2'], { reread: async () => assert.fail('not committed: not read back') });
    assert.equal(proxy.cuts, 5);
    assert.deepEqual(again.rows.map((x) => x.key), ['oneTrip2']);
    assert.equal(await count('oneTrip2'), 1, 'run again, once');
  });

  test('no server for a while: reads and writes wait for it and run; past the hold, unavailable; past the queue, at once', { timeout: 30_000 }, async () => {
    proxy.mode = 'refuse';
    proxy.resetAll();
    const t0 = Date.now();
    const heldBefore = db.holdStats!.held;
    const write = db.tx((q) => q.query('INSERT INTO items (key, n) VALUES ($1, 1)', ['held']));
    const read = db.query<{ one: number }>('SELECT 1 AS one');
    // Queue bound 3: the write, the read, and this third are held; a fourth is refused at once.
    const third = db.query('SELECT 2');
    // Once all three have been refused a connection and are held (a loaded machine takes longer than any fixed wait).
    await until('the three held', async () => db.holdStats!.held - heldBefore, (held) => held >= 3, 6000);
    const refusedAt = Date.now();
    await assert.rejects(db.query('SELECT 3'), (err) => isDatabaseUnavailable(err));
    // Separates a refusal at once from a fourth operation held like the others (the 4 s hold).
    assert.ok(Date.now() - refusedAt < 2500, `refused at once past the queue bound (${Date.now() - refusedAt} ms)`);
    // Back 1.5 s after t0 (not after the refusal): a slow start does not eat into the held ones' 4 s.
    setTimeout(() => (proxy.mode = 'pass'), Math.max(0, t0 + 1500 - Date.now()));
    await write;
    assert.equal((await read).rows[0]!.one, 1);
    await third;
    assert.ok(Date.now() - t0 >= 1400, 'held until the server was back');
    assert.equal(await count('held'), 1);

    proxy.mode = 'refuse';
    proxy.resetAll();
    const t1 = Date.now();
    await assert.rejects(db.query('SELECT 4'), (err) => isDatabaseUnavailable(err));
    const waited = Date.now() - t1;
    assert.ok(waited >= 3500, `held for the hold (${waited} ms) before failing`);
    proxy.mode = 'pass';
  });
});
