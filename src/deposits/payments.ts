// Payments a connector's provider received, applied to deposits once each.
//
//   applyHints(ctx, connector, body)        a callback (webhook) body: each payment it names is
//                                           read back from the provider, then applied; a hint
//                                           the provider does not confirm credits nothing; the
//                                           reads are bounded (callback-bounds.ts)
//   applyPayment(ctx, connector, p, via)    one payment read from the provider: recorded under
//                                           its id (unique: a replay or an overlapping poll is a
//                                           no-op); one the payer rule refuses is sent back in
//                                           full (./send-backs.ts); when the connector's matching rule holds
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
//                                           previous one, and (every 10 minutes) a read of the
//                                           last 90 days' payments that have returns
//   applyReturns(ctx, connector, p, via)    the bank-initiated returns (MED) a payment read from
//                                           the provider shows, each recorded once
//                                           (src/deposits/returns.ts)
import type { KeptPaymentRow } from '../connectors/kind.ts';
import type { AppContext } from '../config/context.ts';
import type { Queryable } from '../db/db.ts';
import { fromDb, toDb } from '../domain/money.ts';
import { transitionDepositIn } from './service.ts';
import { recordReturn } from './returns.ts';
import { depositNotifications } from './notifications.ts';
import type { DepositRow } from './store.ts';
import { depositsNamed } from './lookups.ts';
import { kickSendBack, recordSendBack } from './send-backs.ts';
import { checkPayer, PAYER_MISMATCH_REASON } from '../domain/payer-rule.ts';
import { newReference } from '../domain/references.ts';
import { recordEvent } from '../notifications/outbox.ts';
import { knownUnknown, READS_PER_CALLBACK, rememberUnknown, takeRead } from '../connectors/callback-bounds.ts';
import type { PayinConnector, ProviderPayment } from '../connectors/payin.ts';
import { recordHealth } from '../connectors/store.ts';

/** `ignored`: paid into the operator's own account naming no deposit (the operator's own money): not recorded. */
export type Applied = 'applied' | 'unmatched' | 'duplicate' | 'refused' | 'ignored';

export async function applyPayment(ctx: AppContext, connector: PayinConnector, payment: ProviderPayment, via: 'webhook' | 'poll'): Promise<Applied> {
  // Paid into one of the operator's own accounts (the connector says which references it names):
  // kept for the operator when it names a deposit (a customer who paid the wrong account), else
  // the operator's own money, which caja does not record.
  const own = connector.ownAccountNames?.(payment) ?? null;
  const named = own ? await depositsNamed(ctx.db, connector.name, own) : undefined;
  if (named?.length === 0) return 'ignored';
  // Money the provider shows did not stay: nothing to apply; a return if caja had applied it.
  if (payment.kept === false) {
    await applyReturns(ctx, connector.name, payment, via);
    return 'duplicate';
  }
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
        : { status: 'NONE', payerAmount: payment.amount, reference: null, expiresAt: null }, named)
      : { ok: false as const, reason: 'the connector has no matching rule' };
    // The payer rule (the merchant's payer_must_match): a payer the provider reports must be the deposit's.
    const rule = check.ok && d
      ? (await q.query<{ payer_must_match: boolean; payer_document: string | null }>(
          'SELECT m.payer_must_match, d.payer_document FROM deposits d JOIN merchants m ON m.id = d.merchant_id WHERE d.id = $1', [d.id])).rows[0]!
      : null;
    const payer = rule?.payer_must_match ? checkPayer(payment.payerDocument, rule.payer_document) : null;
    const refused = payer === 'mismatch' && d !== null;
    const status = refused ? 'refused' : check.ok ? 'applied' : 'unmatched';
    const reason = refused ? PAYER_MISMATCH_REASON : check.ok ? null : check.reason;
    // A refused payment goes back in full under this reference, stored before anything is sent.
    const returnReference = refused ? (connector.newReturnReference?.() ?? newReference('cajaret', 25)) : null;
    const inserted = await q.query(
      `INSERT INTO connector_payments (connector, payment_id, charge_reference, deposit_id, amount, currency, receiver, paid_at, status, reason, seen_via, raw,
         payer_document, return_reference)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14) ON CONFLICT DO NOTHING RETURNING payment_id`,
      [connector.name, payment.id, payment.chargeReference, d?.id ?? null, toDb(payment.amount), payment.currency, payment.receiver,
        payment.paidAt, status, reason, via, payment.raw === undefined ? null : JSON.stringify(payment.raw), payment.payerDocument ?? null,
        returnReference],
    );
    // Another process applied it between the two reads (it waited for that one to commit).
    if (inserted.rows.length === 0) return { status: 'duplicate' };
    if (refused && d) {
      // Its send-back, a send-once job (./send-backs.ts), in the same transaction.
      await recordSendBack(q, connector, payment.id, returnReference!, via);
      // The deposit stays PENDING (its own payer may still pay); the merchant hears of the refused payment.
      const { rows: [dep] } = await q.query<DepositRow & { merchant_notification_url: string | null }>(
        'SELECT d.*, m.notification_url AS merchant_notification_url FROM deposits d JOIN merchants m ON m.id = d.merchant_id WHERE d.id = $1', [d.id]);
      await recordEvent(q, {
        merchantId: dep!.merchant_id, type: 'deposit.payment_refused', subjectType: 'deposit', subjectId: d.id,
        data: { deposit_id: d.id, payment_id: payment.id, amount: toDb(payment.amount), currency: payment.currency, reason: 'payer_mismatch' },
        notifications: await depositNotifications(q, ctx, dep!, dep!.merchant_notification_url),
      });
    } else if (check.ok && d) {
      await transitionDepositIn(q, ctx, d.id, 'COMPLETED', 'payment', { actor: 'provider', note: `${connector.name} payment ${payment.id}` });
      if (payer !== null) await q.query('UPDATE deposits SET payer_checked = $2 WHERE id = $1', [d.id, payer === 'match']);
    }
    return { status: refused ? 'refused' : status as Applied, depositId: d?.id, reason: reason ?? undefined };
  });
  // A refused payment goes back in full now (its job, which the payments worker retries until settled).
  if (result.status === 'refused') await kickSendBack(ctx, connector.name, payment.id);
  // A payment counts once; reading it again (the next poll's overlapping window) is not a payment.
  if (result.status === 'duplicate') ctx.metrics.connectorPaymentsSeenAgain.inc({ connector: connector.name, via });
  else ctx.metrics.connectorPayments.inc({ connector: connector.name, status: result.status });
  if (result.status === 'unmatched') {
    ctx.log.warn({ connector: connector.name, payment: payment.id, txid: payment.chargeReference, depositId: result.depositId, reason: result.reason, via },
      'provider payment matches no pending deposit: kept as unmatched for the operator');
  }
  // Whether new or seen before: the returns its payer's bank made since (a MED devolução).
  await applyReturns(ctx, connector.name, payment, via);
  return result.status;
}

/**
 * The bank-initiated returns a payment read from the provider shows (Pix: devoluções of natureza
 * MED_*, settled), each recorded once against the deposit the payment completed
 * (src/deposits/returns.ts); a return on a payment no deposit took is kept unmatched for the
 * operator. Returns caja asked for (its refunds) are not bank-initiated and are left alone.
 */
export async function applyReturns(ctx: AppContext, connector: string, payment: ProviderPayment, via: 'webhook' | 'poll' | 'callback'): Promise<number> {
  const bank = (payment.returns ?? []).filter((r) => r.bankInitiated && r.status === 'settled');
  if (bank.length === 0) return 0;
  const known = new Set((await ctx.db.query<{ provider_return_id: string }>(
    'SELECT provider_return_id FROM deposit_returns WHERE provider = $1 AND provider_return_id = ANY($2::text[])', [connector, bank.map((r) => r.id)],
  )).rows.map((r) => r.provider_return_id));
  let recorded = 0;
  for (const r of bank) {
    if (known.has(r.id)) continue;
    const done = await ctx.db.tx(async (q) => {
      const { rows } = await q.query<{ deposit_id: number | null; status: string }>('SELECT deposit_id, status FROM connector_payments WHERE connector = $1 AND payment_id = $2', [connector, payment.id]);
      // A SPEI transfer taken back is a return only of money caja applied (one it answered devolver, or never saw, is not).
      if (r.kind === 'spei_return' && rows[0]?.status !== 'applied') return null;
      return recordReturn(q, ctx, {
        provider: connector, providerReturnId: r.id, paymentId: payment.id, depositId: rows[0]?.deposit_id ?? null, kind: r.kind, reason: r.reason,
        description: r.description, amount: r.amount, currency: payment.currency, returnedAt: r.returnedAt, via, raw: { ...r, amount: toDb(r.amount) },
      });
    });
    if (done === null || done.status === 'duplicate') continue;
    recorded++;
    if (done.status === 'unmatched') {
      ctx.log.warn({ connector, payment: payment.id, return: r.id, reason: r.reason, amount: toDb(r.amount) },
        'bank-initiated return on a payment no completed deposit took: kept as unmatched for the operator');
    } else {
      ctx.log.info({ connector, payment: payment.id, return: r.id, reason: r.reason, depositId: done.row.deposit_id }, 'bank-initiated return recorded');
    }
  }
  return recorded;
}

/** Whether any of these returns is not yet recorded (a payment's callback naming them is worth a read). */
async function unrecordedReturns(ctx: AppContext, connector: string, ids: string[]): Promise<boolean> {
  if (ids.length === 0) return false;
  const { rows } = await ctx.db.query<{ n: number }>(
    'SELECT count(*)::int AS n FROM deposit_returns WHERE provider = $1 AND provider_return_id = ANY($2::text[])', [connector, ids],
  );
  return rows[0]!.n < new Set(ids).size;
}

/**
 * A payment the operator's bank statement shows for one deposit (the own-accounts connector has
 * no provider to read back: the statement is the truth). Recorded under the connector and the
 * statement entry's id, so it applies once. The deposit is locked and must still be PENDING
 * (another path may have completed it since the statement was read): otherwise nothing is
 * recorded and the answer says why.
 */
export async function applyStatementPayment(
  q: Queryable, ctx: AppContext, connectors: readonly string[], depositId: number, payment: Omit<ProviderPayment, 'chargeReference' | 'raw'>,
): Promise<'applied' | 'duplicate' | 'not_pending' | 'payer_mismatch'> {
  const { rows } = await q.query<{ status: string; connector: string; payer_document: string | null; payer_must_match: boolean }>(
    `SELECT d.status, d.connector, d.payer_document, m.payer_must_match FROM deposits d JOIN merchants m ON m.id = d.merchant_id
     WHERE d.id = $1 AND d.connector = ANY($2::text[]) FOR UPDATE OF d`, [depositId, connectors]);
  if (rows[0]?.status !== 'PENDING') return 'not_pending';
  const connector = rows[0].connector;
  // The payer rule, on the statement's counterparty document (reconciliation refused a mismatch before; checked again under the lock).
  const payer = rows[0].payer_must_match ? checkPayer(payment.payerDocument, rows[0].payer_document) : null;
  if (payer === 'mismatch') return 'payer_mismatch';
  const inserted = await q.query(
    `INSERT INTO connector_payments (connector, payment_id, charge_reference, deposit_id, amount, currency, receiver, paid_at, status, reason, seen_via, payer_document)
     VALUES ($1, $2, NULL, $3, $4, $5, $6, $7, 'applied', NULL, 'statement', $8) ON CONFLICT DO NOTHING RETURNING payment_id`,
    [connector, payment.id, depositId, toDb(payment.amount), payment.currency, payment.receiver, payment.paidAt, payment.payerDocument ?? null],
  );
  if (inserted.rows.length === 0) return 'duplicate';
  await transitionDepositIn(q, ctx, depositId, 'COMPLETED', 'payment', { actor: 'bank', note: `bank statement entry ${payment.id}` });
  if (payer !== null) await q.query('UPDATE deposits SET payer_checked = $2 WHERE id = $1', [depositId, payer === 'match']);
  ctx.metrics.connectorPayments.inc({ connector, status: 'applied' });
  return 'applied';
}

/**
 * A bank statement credit the payer rule refused (reconciliation's payer_mismatch exception): kept
 * as a refused payment of the deposit (once, under the entry's id) and the merchant notified
 * (deposit.payment_refused), the deposit staying PENDING. Nothing is credited; own accounts have
 * no provider to send it back through, so the operator sends it back (the exception's send_back).
 */
export async function refuseStatementPayment(
  q: Queryable, ctx: AppContext, depositId: number, payment: Omit<ProviderPayment, 'chargeReference' | 'raw'>,
): Promise<boolean> {
  const { rows: [dep] } = await q.query<DepositRow & { merchant_notification_url: string | null }>(
    'SELECT d.*, m.notification_url AS merchant_notification_url FROM deposits d JOIN merchants m ON m.id = d.merchant_id WHERE d.id = $1', [depositId]);
  const connector = dep?.connector;
  if (!connector) return false;
  const inserted = await q.query(
    `INSERT INTO connector_payments (connector, payment_id, charge_reference, deposit_id, amount, currency, receiver, paid_at, status, reason, seen_via, payer_document)
     VALUES ($1, $2, NULL, $3, $4, $5, $6, $7, 'refused', $8, 'statement', $9) ON CONFLICT DO NOTHING RETURNING payment_id`,
    [connector, payment.id, depositId, toDb(payment.amount), payment.currency, payment.receiver, payment.paidAt, PAYER_MISMATCH_REASON, payment.payerDocument ?? null],
  );
  if (inserted.rows.length === 0) return false;
  await recordEvent(q, {
    merchantId: dep.merchant_id, type: 'deposit.payment_refused', subjectType: 'deposit', subjectId: depositId,
    data: { deposit_id: depositId, payment_id: payment.id, amount: toDb(payment.amount), currency: payment.currency, reason: 'payer_mismatch' },
    notifications: await depositNotifications(q, ctx, dep, dep.merchant_notification_url),
  });
  ctx.metrics.connectorPayments.inc({ connector, status: 'refused' });
  return true;
}

/**
 * A statement credit confirming a deposit its connector completed without the payer's document
 * (payer_checked false): the statement's counterparty document, when it is the deposit's payer,
 * makes it checked. (Another payer's is reconciliation's payer_mismatch exception.)
 */
export async function notePayerFromStatement(q: Queryable, depositId: number, document: string | undefined): Promise<void> {
  if (!document) return;
  const { rows } = await q.query<{ payer_document: string | null; payer_must_match: boolean; payer_checked: boolean | null }>(
    'SELECT d.payer_document, m.payer_must_match, d.payer_checked FROM deposits d JOIN merchants m ON m.id = d.merchant_id WHERE d.id = $1', [depositId]);
  const d = rows[0];
  if (d?.payer_must_match && d.payer_checked === false && checkPayer(document, d.payer_document) === 'match') {
    await q.query('UPDATE deposits SET payer_checked = true WHERE id = $1', [depositId]);
  }
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
      // Applied already: read again only for a bank-initiated return caja has not recorded.
      if (applied_.has(hint.id) && !(await unrecordedReturns(ctx, connector.name, hint.returns ?? []))) continue;
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

/** MED requests reach a Pix up to 80 days after it (and MED 2.0 traces onward): a margin on that. */
const RETURNS_LOOKBACK_DAYS = 90;
const RETURNS_EVERY_MS = 10 * 60_000;
const lastReturnsPass = new Map<string, number>();

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
    // Returns come days after their payment, outside the window: payments with returns received
    // in the last RETURNS_LOOKBACK_DAYS are read at most every RETURNS_EVERY_MS (or when forced).
    const last = lastReturnsPass.get(connector.name) ?? 0;
    if (force || now.getTime() - last >= RETURNS_EVERY_MS) {
      for await (const payment of connector.paymentsBetween(new Date(now.getTime() - RETURNS_LOOKBACK_DAYS * 86_400_000), now, { withReturns: true })) {
        if ((payment.returns ?? []).some((r) => r.bankInitiated)) await applyPayment(ctx, connector, payment, 'poll');
      }
      lastReturnsPass.set(connector.name, now.getTime());
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
export type KeptPayment = KeptPaymentRow;

/** How a payment a connector kept ended (applied, or unmatched and why); null when none is kept. */
export async function keptPaymentOutcome(q: Queryable, connector: string, paymentId: string): Promise<{ status: string; reason: string | null; seen_via: string } | null> {
  const { rows } = await q.query<{ status: string; reason: string | null; seen_via: string }>('SELECT status, reason, seen_via FROM connector_payments WHERE connector = $1 AND payment_id = $2', [connector, paymentId]);
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
