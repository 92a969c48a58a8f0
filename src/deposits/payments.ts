// Payments a connector's provider received, applied to deposits once each.
//
//   applyHints(ctx, connector, body)        a callback (webhook) body: each payment it names is
//                                           read back from the provider, then applied; a hint
//                                           the provider does not confirm credits nothing; the
//                                           reads are bounded (callback-bounds.ts)
//   applyPayment(ctx, connector, p, via)    one payment read from the provider: recorded under
//                                           its id (unique: a replay or an overlapping poll is a
//                                           no-op), and when the connector's matching rule holds
//                                           the deposit completes through transitionDepositIn,
//                                           the one completion path (ledger credit, event,
//                                           merchant notification) in the same transaction.
//                                           Otherwise the payment is kept as unmatched for the
//                                           operator (metric, warning log, admin listing).
//   applyStatementPayment(q, ctx, …)        money the bank statement shows for a deposit that
//                                           reconciliation matched (src/reconciliation/): recorded
//                                           the same way under the statement entry's id, then
//                                           completed through transitionDepositIn, in the
//                                           caller's transaction
//   reconcile(ctx, connector)               one reconciliation poll (a lease makes it one
//                                           process at a time) over a window that overlaps the
//                                           previous one.
import type { AppContext } from '../config/context.ts';
import type { Queryable } from '../db/db.ts';
import { fromDb, toDb } from '../domain/money.ts';
import { transitionDepositIn } from './service.ts';
import { knownUnknown, READS_PER_CALLBACK, rememberUnknown, takeRead } from '../connectors/callback-bounds.ts';
import type { PayinConnector, ProviderPayment } from '../connectors/payin.ts';
import { recordHealth } from '../connectors/store.ts';

export type Applied = 'applied' | 'unmatched' | 'duplicate';

export async function applyPayment(ctx: AppContext, connector: PayinConnector, payment: ProviderPayment, via: 'webhook' | 'poll'): Promise<Applied> {
  const result = await ctx.db.tx(async (q): Promise<{ status: Applied; depositId?: number; reason?: string }> => {
    const seen = await q.query('SELECT 1 FROM connector_payments WHERE connector = $1 AND payment_id = $2', [connector.name, payment.id]);
    if (seen.rows.length > 0) return { status: 'duplicate' };
    const { rows } = payment.chargeReference === null
      ? { rows: [] }
      : await q.query<{ id: number; status: string; payer_amount: string; connector_reference: string; expires_at: Date }>(
          'SELECT id, status, payer_amount, connector_reference, expires_at FROM deposits WHERE connector = $1 AND connector_reference = $2 FOR UPDATE',
          [connector.name, payment.chargeReference],
        );
    const d = rows[0] ?? null;
    const check = connector.checkPayment
      ? connector.checkPayment(payment, d
        ? { status: d.status, payerAmount: fromDb(d.payer_amount), reference: d.connector_reference, expiresAt: d.expires_at }
        : { status: 'NONE', payerAmount: payment.amount, reference: null, expiresAt: null })
      : { ok: false as const, reason: 'the connector has no matching rule' };
    const status = check.ok ? 'applied' : 'unmatched';
    const reason = check.ok ? null : check.reason;
    const inserted = await q.query(
      `INSERT INTO connector_payments (connector, payment_id, charge_reference, deposit_id, amount, currency, receiver, paid_at, status, reason, seen_via, raw)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12) ON CONFLICT DO NOTHING RETURNING payment_id`,
      [connector.name, payment.id, payment.chargeReference, d?.id ?? null, toDb(payment.amount), payment.currency, payment.receiver,
        payment.paidAt, status, reason, via, payment.raw === undefined ? null : JSON.stringify(payment.raw)],
    );
    // Another process applied it between the two reads (it waited for that one to commit).
    if (inserted.rows.length === 0) return { status: 'duplicate' };
    if (check.ok && d) {
      await transitionDepositIn(q, ctx, d.id, 'COMPLETED', 'payment', { actor: 'provider', note: `${connector.name} payment ${payment.id}` });
    }
    return { status, depositId: d?.id, reason: reason ?? undefined };
  });
  // A payment counts once; reading it again (the next poll's overlapping window) is not a payment.
  if (result.status === 'duplicate') ctx.metrics.connectorPaymentsSeenAgain.inc({ connector: connector.name, via });
  else ctx.metrics.connectorPayments.inc({ connector: connector.name, status: result.status });
  if (result.status === 'unmatched') {
    ctx.log.warn({ connector: connector.name, payment: payment.id, txid: payment.chargeReference, depositId: result.depositId, reason: result.reason, via },
      'provider payment matches no pending deposit: kept as unmatched for the operator');
  }
  return result.status;
}

/**
 * A payment the operator's bank statement shows for one deposit (the own-accounts connector has
 * no provider to read back: the statement is the truth). Recorded under the connector and the
 * statement entry's id, so it applies once. The deposit is locked and must still be PENDING
 * (another path may have completed it since the statement was read): otherwise nothing is
 * recorded and the answer says why.
 */
export async function applyStatementPayment(
  q: Queryable, ctx: AppContext, connector: string, depositId: number, payment: Omit<ProviderPayment, 'chargeReference' | 'raw'>,
): Promise<'applied' | 'duplicate' | 'not_pending'> {
  const { rows } = await q.query<{ status: string }>('SELECT status FROM deposits WHERE id = $1 AND connector = $2 FOR UPDATE', [depositId, connector]);
  if (rows[0]?.status !== 'PENDING') return 'not_pending';
  const inserted = await q.query(
    `INSERT INTO connector_payments (connector, payment_id, charge_reference, deposit_id, amount, currency, receiver, paid_at, status, reason, seen_via)
     VALUES ($1, $2, NULL, $3, $4, $5, $6, $7, 'applied', NULL, 'statement') ON CONFLICT DO NOTHING RETURNING payment_id`,
    [connector, payment.id, depositId, toDb(payment.amount), payment.currency, payment.receiver, payment.paidAt],
  );
  if (inserted.rows.length === 0) return 'duplicate';
  await transitionDepositIn(q, ctx, depositId, 'COMPLETED', 'payment', { actor: 'bank', note: `bank statement entry ${payment.id}` });
  ctx.metrics.connectorPayments.inc({ connector, status: 'applied' });
  return 'applied';
}

/**
 * A callback body: only what the provider itself confirms is applied. Bounded (callback-bounds.ts):
 * ids named twice are read once, ids already applied or recently unknown to the provider are not
 * read, and at most READS_PER_CALLBACK reads (within the connector's budget a minute) are made;
 * the hints left over (`deferred`) are the reconciliation poll's.
 */
export async function applyHints(ctx: AppContext, connector: PayinConnector, body: unknown): Promise<{ hints: number; applied: number; unknown: number; deferred: number }> {
  const hints = connector.parseHint(body);
  const seenHint = new Set<string>();
  const distinct = hints.filter((h) => {
    const key = h.kind === 'payment' ? `p:${h.id}` : `c:${h.reference}`;
    if (seenHint.has(key)) return false;
    seenHint.add(key);
    return true;
  });
  const ids = distinct.flatMap((h) => (h.kind === 'payment' ? [h.id] : []));
  const applied_ = ids.length === 0 ? new Set<string>() : new Set((await ctx.db.query<{ payment_id: string }>(
    'SELECT payment_id FROM connector_payments WHERE connector = $1 AND payment_id = ANY($2::text[])', [connector.name, ids])).rows.map((r) => r.payment_id));
  let applied = 0;
  let unknown = 0;
  let deferred = 0;
  let reads = 0;
  const mayRead = () => reads < READS_PER_CALLBACK && takeRead(ctx, connector.name) && ++reads > 0;
  for (const hint of distinct) {
    if (hint.kind === 'payment') {
      if (applied_.has(hint.id)) continue;
      if (knownUnknown(ctx, connector.name, hint.id)) {
        unknown++;
        continue;
      }
      if (!mayRead()) {
        deferred++;
        continue;
      }
      const payment = await connector.readPayment(hint.id);
      if (!payment) {
        unknown++;
        rememberUnknown(ctx, connector.name, hint.id);
        ctx.log.warn({ connector: connector.name, payment: hint.id }, 'callback names a payment the provider does not know: ignored');
        continue;
      }
      if ((await applyPayment(ctx, connector, payment, 'webhook')) === 'applied') applied++;
    } else {
      if (knownUnknown(ctx, connector.name, `charge:${hint.reference}`)) continue;
      if (!mayRead()) {
        deferred++;
        continue;
      }
      const status = await connector.chargeStatus(hint.reference);
      if (status.status !== 'paid') {
        if (status.status !== 'pending') rememberUnknown(ctx, connector.name, `charge:${hint.reference}`);
        continue;
      }
      for (const payment of status.payments) if ((await applyPayment(ctx, connector, payment, 'webhook')) === 'applied') applied++;
    }
  }
  if (deferred > 0) ctx.log.warn({ connector: connector.name, deferred }, 'callback: more hints than its bound; the rest are left to the reconciliation poll');
  return { hints: hints.length, applied, unknown, deferred };
}

/** How far back the first poll reads, and how much each window overlaps the previous one. */
const FIRST_WINDOW_MS = 24 * 3600_000;
const overlapMs = (intervalSeconds: number) => Math.max(5 * 60_000, 2 * intervalSeconds * 1000);

/**
 * One reconciliation pass, when due (every CAJA_PIX_POLL_SECONDS) and when no other process holds
 * the lease. Reads [previous end − overlap, now] and applies every payment (seen ones are no-ops).
 */
export async function reconcile(ctx: AppContext, connector: PayinConnector, intervalSeconds: number, force = false): Promise<{ ran: boolean; payments: number }> {
  if (!connector.paymentsBetween) return { ran: false, payments: 0 };
  const now = ctx.now();
  const leaseMs = Math.max(intervalSeconds * 1000, 2 * ctx.config.connectors.timeoutMs + 5000);
  const { rows } = await ctx.db.query<{ poll_until: Date | null }>(
    `UPDATE connectors SET poll_lease_until = $2 WHERE name = $1
       AND (poll_lease_until IS NULL OR poll_lease_until < $3)
       AND ($4 OR last_poll_at IS NULL OR last_poll_at <= $5)
     RETURNING poll_until`,
    [connector.name, new Date(now.getTime() + leaseMs), now, force, new Date(now.getTime() - intervalSeconds * 1000)],
  );
  if (!rows[0]) return { ran: false, payments: 0 };
  const from = new Date((rows[0].poll_until?.getTime() ?? now.getTime() - FIRST_WINDOW_MS + overlapMs(intervalSeconds)) - overlapMs(intervalSeconds));
  let payments = 0;
  try {
    for await (const payment of connector.paymentsBetween(from, now)) {
      payments++;
      await applyPayment(ctx, connector, payment, 'poll');
    }
    await recordHealth(ctx, connector.name, { kind: 'poll', ok: true, until: now });
  } catch (err) {
    await recordHealth(ctx, connector.name, { kind: 'poll', ok: false });
    throw err;
  } finally {
    await ctx.db.query('UPDATE connectors SET poll_lease_until = NULL WHERE name = $1', [connector.name]).catch(() => undefined);
  }
  return { ran: true, payments };
}

/** A payment a connector kept, as stored: each connector's admin view names its fields in its provider's words. */
export interface KeptPayment {
  payment_id: string;
  charge_reference: string | null;
  deposit_id: number | null;
  amount: string;
  currency: string;
  receiver: string | null;
  paid_at: Date;
  status: string;
  reason: string | null;
  seen_via: string;
  created_at: Date;
}

/** How a payment a connector kept ended (applied, or unmatched and why); null when none is kept. */
export async function keptPaymentOutcome(q: Queryable, connector: string, paymentId: string): Promise<{ status: string; reason: string | null } | null> {
  const { rows } = await q.query<{ status: string; reason: string | null }>('SELECT status, reason FROM connector_payments WHERE connector = $1 AND payment_id = $2', [connector, paymentId]);
  return rows[0] ?? null;
}

/** The payments a connector kept, newest first; `unmatched` are those no pending deposit took. */
export async function keptPayments(q: Queryable, connector: string, status: 'applied' | 'unmatched' | null, limit: number): Promise<KeptPayment[]> {
  const { rows } = await q.query<KeptPayment>(
    `SELECT payment_id, charge_reference, deposit_id, amount::text, currency, receiver, paid_at, status, reason, seen_via, created_at
     FROM connector_payments WHERE connector = $1 AND ($2::text IS NULL OR status = $2) ORDER BY created_at DESC, payment_id LIMIT $3`,
    [connector, status, limit],
  );
  return rows;
}
