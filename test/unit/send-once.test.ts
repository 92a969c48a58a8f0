// The send-once primitive's rules (src/jobs/send-once.ts sendStep), on a real embedded database
// holding one job table: a send only after the row is written 'sending' under the reference sent;
// a row that may have been sent is looked up before any resend; what the provider shows is adopted
// only when it matches, else the row stops; a row already sent is never sent again.
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import pino from 'pino';
import { openPglite, type Db } from '../../src/db/db.ts';
import type { AppContext } from '../../src/config/context.ts';
import { type SendOnceJobs, type SendSpec, type SendState, claim, sendStep } from '../../src/jobs/send-once.ts';

const JOBS: SendOnceJobs = { work: 'payouts', table: 'connector_payouts', key: 'cashout_id', open: `state NOT IN ('done', 'stopped')`, waiting: 'last_error IS NOT NULL' };

interface Row { cashout_id: number; reference: string | null; state: SendState; attempts: number }
type Shown = { amount: string; state: string };

// One embedded database for the file (each PGlite costs an initdb, seconds of CPU): every test
// starts from an empty job table (this process's holder, registered once, stays).
let shared: Promise<Db> | undefined;
after(async () => {
  if (shared) await (await shared).close();
});

async function setup(): Promise<{ ctx: AppContext; db: Db }> {
  shared ??= (async () => {
    const db = await openPglite();
    await db.query(`CREATE TABLE job_holders (id text PRIMARY KEY, backend_pid integer, backend_start timestamptz, started_at timestamptz NOT NULL DEFAULT now())`);
    await db.query(`CREATE TABLE connector_payouts (cashout_id integer PRIMARY KEY, connector text NOT NULL DEFAULT 'p', reference text, state text NOT NULL,
      attempts integer NOT NULL DEFAULT 0, last_error text, next_check_at timestamptz NOT NULL DEFAULT now() - interval '1 second', leased_until timestamptz, leased_by text,
      updated_at timestamptz NOT NULL DEFAULT now())`);
    return db;
  })();
  const db = await shared;
  await db.exec('TRUNCATE connector_payouts');
  const ctx = { db, now: () => new Date(), log: pino({ level: 'silent' }), config: { connectors: { timeoutMs: 1000 } } } as unknown as AppContext;
  return { ctx, db };
}

/** A provider holding orders by reference, and a feature recording each step the primitive took. */
function world(o: { holds?: Shown | null; sendAnswer?: Shown; order?: string } = {}) {
  const calls: string[] = [];
  const provider = new Map<string, Shown>();
  const order = o.order ?? '10.00';
  const spec = (ctx: AppContext): SendSpec<Row, true, Shown, Shown> => ({
    jobs: JOBS,
    key: (r) => r.cashout_id,
    state: (r) => r.state,
    attempts: (r) => r.attempts,
    reference: (r) => r.reference,
    sendingWaitSeconds: () => 1,
    prepare: async () => true,
    async lookup(r) {
      calls.push(`lookup ${r.reference}`);
      return o.holds === undefined ? provider.get(r.reference!) ?? null : o.holds;
    },
    matches: (_r, _c, shown) => (shown.amount === order ? { ok: true } : { ok: false, reason: `amount ${shown.amount} (the order's is ${order})` }),
    async send(r, _c, reference) {
      // What the table holds at the moment of the request.
      const { rows } = await ctx.db.query<{ state: string; reference: string }>('SELECT state, reference FROM connector_payouts WHERE cashout_id = $1', [r.cashout_id]);
      calls.push(`send ${reference} (stored ${rows[0]!.state} ${rows[0]!.reference})`);
      const answer = o.sendAnswer ?? { amount: order, state: 'registered' };
      provider.set(reference, answer);
      return answer;
    },
    shownBy: (result) => result,
    applyFound: async (_r, _c, f) => void calls.push(`applyFound ${f.state}`),
    applySent: async (_r, _c, s) => void calls.push(`applySent ${s.state}`),
    notShown: async () => void calls.push('notShown'),
    stop: async (_r, _c, reason) => void calls.push(`stop ${reason}`),
    failed: async (_r, _c, state, err) => void calls.push(`failed ${state}: ${err instanceof Error ? err.message : String(err)}`),
  });
  return { calls, spec };
}

async function row(ctx: AppContext, db: Db, r: Omit<Row, 'attempts'>): Promise<Row> {
  await db.query('INSERT INTO connector_payouts (cashout_id, reference, state) VALUES ($1, $2, $3)', [r.cashout_id, r.reference, r.state]);
  const [claimed] = await claim<Row>(ctx, JOBS, { id: r.cashout_id, limit: 1 });
  assert.ok(claimed, 'the row is claimed');
  return claimed;
}

test('a new row is written sending under its stored reference before the request, then the answer applied', async () => {
  const { ctx, db } = await setup();
  const w = world();
  await sendStep(ctx, w.spec(ctx), await row(ctx, db, { cashout_id: 1, reference: 'REF1', state: 'new' }));
  assert.deepEqual(w.calls, ['send REF1 (stored sending REF1)', 'applySent registered']);
  const { rows } = await db.query<{ attempts: number }>('SELECT attempts FROM connector_payouts WHERE cashout_id = 1');
  assert.equal(rows[0]!.attempts, 1);
});

test('never sends without a stored reference', async () => {
  const { ctx, db } = await setup();
  const w = world();
  // No reference at all.
  await sendStep(ctx, w.spec(ctx), await row(ctx, db, { cashout_id: 1, reference: null, state: 'new' }));
  assert.equal(w.calls.filter((c) => c.startsWith('send')).length, 0, 'nothing sent');
  assert.match(w.calls[0]!, /^failed new: .*no reference stored/);
  // A reference the table does not hold for the row (the feature's row is not what is stored).
  const w2 = world();
  const r = await row(ctx, db, { cashout_id: 2, reference: 'STORED', state: 'new' });
  await sendStep(ctx, w2.spec(ctx), { ...r, reference: 'OTHER' });
  assert.deepEqual(w2.calls, [], 'nothing sent, nothing applied');
  const { rows } = await db.query<{ state: string }>('SELECT state FROM connector_payouts WHERE cashout_id = 2');
  assert.equal(rows[0]!.state, 'new');
});

test('never sends under a lease another process holds', async () => {
  const { ctx, db } = await setup();
  const w = world();
  const r = await row(ctx, db, { cashout_id: 1, reference: 'REF1', state: 'new' });
  await db.query(`UPDATE connector_payouts SET leased_by = 'someone-else'`);
  await sendStep(ctx, w.spec(ctx), r);
  assert.deepEqual(w.calls, []);
});

test('a resend always looks the reference up first, and resends under the same reference only when the provider has none', async () => {
  const { ctx, db } = await setup();
  const w = world({ holds: null });
  await sendStep(ctx, w.spec(ctx), await row(ctx, db, { cashout_id: 1, reference: 'REF1', state: 'sending' }));
  assert.deepEqual(w.calls, ['lookup REF1', 'send REF1 (stored sending REF1)', 'applySent registered']);
  // The provider has it: adopted, not sent again.
  const w2 = world({ holds: { amount: '10.00', state: 'paid' } });
  await sendStep(ctx, w2.spec(ctx), await row(ctx, db, { cashout_id: 2, reference: 'REF2', state: 'sending' }));
  assert.deepEqual(w2.calls, ['lookup REF2', 'applyFound paid']);
});

test('a row already sent is looked up and never sent again', async () => {
  const { ctx, db } = await setup();
  const w = world({ holds: null });
  await sendStep(ctx, w.spec(ctx), await row(ctx, db, { cashout_id: 1, reference: 'REF1', state: 'sent' }));
  assert.deepEqual(w.calls, ['lookup REF1', 'notShown']);
});

test('a mismatch stops the row: never adopted, never sent', async () => {
  const { ctx, db } = await setup();
  const w = world({ holds: { amount: '99.00', state: 'paid' } });
  await sendStep(ctx, w.spec(ctx), await row(ctx, db, { cashout_id: 1, reference: 'REF1', state: 'sending' }));
  assert.deepEqual(w.calls, ['lookup REF1', 'stop amount 99.00 (the order\'s is 10.00)']);
  // A send's answer that shows another order under the reference stops it too.
  const w2 = world({ sendAnswer: { amount: '5.00', state: 'exists' } });
  await sendStep(ctx, w2.spec(ctx), await row(ctx, db, { cashout_id: 2, reference: 'REF2', state: 'new' }));
  assert.deepEqual(w2.calls, ['send REF2 (stored sending REF2)', 'stop amount 5.00 (the order\'s is 10.00)']);
});

test('a failed send leaves the row sending: the next step looks it up', async () => {
  const { ctx, db } = await setup();
  const w = world();
  const spec = w.spec(ctx);
  spec.send = async () => {
    throw new Error('timeout');
  };
  await sendStep(ctx, spec, await row(ctx, db, { cashout_id: 1, reference: 'REF1', state: 'new' }));
  assert.deepEqual(w.calls, ['failed sending: timeout']);
  const { rows } = await db.query<{ state: string }>('SELECT state FROM connector_payouts WHERE cashout_id = 1');
  assert.equal(rows[0]!.state, 'sending');
});
