// Settling a charge whose next action sent the customer away (a redirect to the provider's page,
// a 3-D Secure challenge). Two things land here: the return leg, GET|POST
// /connectors/<name>/return/<token> (src/web/checkout/return-leg.ts), and a provider's word that
// the charge was decided (staging's card network notifies an authorisation without a challenge at
// once, as an acquirer's AUTHORISATION notification). Neither proves anything by itself: the
// deposit must be one whose charge that connector created, and the result is read back from the
// provider (PayinConnector.readReturn, server-to-server) before the deposit moves, once, through
// its own transition (PENDING to COMPLETED, actor provider, notified as any completion).
import type { AppContext } from '../config/context.ts';
import { ConnectorError } from '../connectors/payin.ts';
import { toDb } from '../domain/money.ts';
import { payinConnectorNamed } from '../connectors/registry.ts';
import { CheckoutError } from './checkout.ts';
import { transitionDepositIn } from './service.ts';
import { findDeposit, findDepositByToken } from './store.ts';

/**
 * A refused card attempt on the charge `reference` of connector `name`, while its deposit is
 * PENDING (a late refusal changes no completed or cancelled deposit): kept as the deposit's
 * card_refusal (reason, code, when, attempts so far), which GET /v3/deposits/{id} and streamline's
 * x_approval_detail show. The deposit stays payable. `keepKnown`: the return leg's answer (Adyen's
 * generic "Refused", or a reload of the same return) does not replace nor count again a refusal
 * the provider's word (a notification, the staging network's page) already recorded; `endCharge`:
 * the charge is over (its next action is dropped, so the checkout creates a new one).
 */
export async function recordCardRefusal(
  ctx: AppContext, name: string, reference: string,
  r: { reason: string; reasonCode: string | null; keepKnown?: boolean; endCharge?: boolean },
): Promise<boolean> {
  const { rows } = await ctx.db.query(
    `UPDATE deposits SET
       card_refusal = CASE WHEN $5 AND card_refusal IS NOT NULL THEN card_refusal
         ELSE jsonb_build_object('reason', $3::text, 'reason_code', $4::text, 'refused_at', $6::text, 'attempts', COALESCE((card_refusal->>'attempts')::integer, 0) + 1) END,
       next_action = CASE WHEN $7 THEN NULL ELSE next_action END,
       updated_at = $8
     WHERE connector = $1 AND connector_reference = $2 AND status = 'PENDING' RETURNING id`,
    [name, reference, r.reason.slice(0, 200), r.reasonCode?.slice(0, 40) ?? null, r.keepKnown === true, ctx.now().toISOString(), r.endCharge === true, ctx.now()],
  );
  return rows.length > 0;
}

/** What the return leg found: the deposit paid now, still open (declined, undecided), or settled before. */
export type ReturnOutcome = 'paid' | 'failed' | 'pending' | 'settled';

/**
 * Settles the charge of the deposit `token` that connector `name` created, on what the provider says. Throws CheckoutError
 * 'not_found' for a return that names no such charge (unknown token, another connector's deposit,
 * a connector without a return leg) and 'provider_unavailable' when the provider cannot be read.
 */
export async function settleCharge(ctx: AppContext, name: string, token: string, params: Record<string, string>): Promise<ReturnOutcome> {
  const d = await findDepositByToken(ctx.db, token);
  if (!d || d.connector !== name || !d.connector_reference) throw new CheckoutError('not_found');
  const connector = await payinConnectorNamed(ctx, name);
  if (!connector?.readReturn) throw new CheckoutError('not_found');
  if (d.status !== 'PENDING') return 'settled';
  let result;
  try {
    result = await connector.readReturn(d.connector_reference, params);
  } catch (err) {
    if (!(err instanceof ConnectorError)) throw err;
    ctx.log.warn({ err, depositId: d.id, connector: name }, 'return leg: the provider could not be read');
    throw new CheckoutError('provider_unavailable');
  }
  if (result.status === 'failed') {
    await recordCardRefusal(ctx, name, d.connector_reference, { reason: result.reason, reasonCode: result.reasonCode ?? null, keepKnown: true, endCharge: result.final === true });
    return 'failed';
  }
  if (result.status !== 'paid') return result.status;
  return ctx.db.tx(async (q) => {
    const locked = await findDeposit(q, d.id, true);
    // Completed meanwhile (a second tab, the provider's callback), or the charge was replaced.
    if (!locked || locked.status !== 'PENDING' || locked.connector_reference !== d.connector_reference) return 'settled';
    if (result.card) await q.query('UPDATE deposits SET card_detail = $2 WHERE id = $1', [d.id, JSON.stringify(result.card)]);
    if (result.payment) {
      // The acquirer's payment, kept under its id as any provider payment (its notification,
      // arriving later, is then a duplicate; its refunds name it).
      const p = result.payment;
      await q.query(
        `INSERT INTO connector_payments (connector, payment_id, charge_reference, deposit_id, amount, currency, receiver, paid_at, status, reason, seen_via, raw)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, 'applied', NULL, 'return', $9) ON CONFLICT DO NOTHING`,
        [name, p.id, p.chargeReference, d.id, toDb(p.amount), p.currency, p.receiver, p.paidAt, p.raw === undefined ? null : JSON.stringify(p.raw)],
      );
    }
    await transitionDepositIn(q, ctx, d.id, 'COMPLETED', 'payment', { actor: 'provider' });
    return 'paid';
  });
}
