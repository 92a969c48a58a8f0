// What STP posts to caja (the kind's callbacks, ./kind.ts; src/api/connectors/routes.ts wires the
// routes, hands what they parsed to deposits, cashouts and refunds, and answers):
//   POST /connectors/stp/abono   an incoming transfer. Read back from STP's received orders (never
//                                taken from the post), applied once (deposits' applyPayment), and
//                                answered {"mensaje":"confirmar"} or {"mensaje":"devolver","id":n}
//                                (the same answer for a repeated post, from the database: no
//                                second look-up). Its date of operation must be within the window
//                                (abonoDateAccepted) and look-ups are bounded (callback-bounds.ts)
//   POST /connectors/stp/estado  a sent order changed state: a hint; the order is looked up at
//                                STP before anything moves (a cashout's: src/cashouts/payouts.ts,
//                                a refund's: src/refunds/provider-refunds.ts)
// Authenticity: STP does not sign its posts (it offers an IP allow-list and TLS); when the
// operator sets webhook_secret, each post must carry it in X-Stp-Webhook-Secret (compared in
// constant time), which the operator's edge adds once it has checked STP's address.
import type { AppContext } from '../../config/context.ts';
import { safeEqualText } from '../../domain/secrets.ts';
import type { CallbackFacts, CallbackOutcome, KindCallback } from '../kind.ts';
import { ConnectorError, type PayinConnector } from '../payin.ts';
import { type StpConnector, STP_CONNECTOR } from './connector.ts';
import { abonoAnswer, fechaOperacion, parseEstadoHint, receivedToPayment } from './mapping.ts';
import { knownUnknown, rememberUnknown, takeRead } from '../callback-bounds.ts';

const secretOf = (headers: Record<string, unknown>) => (typeof headers['x-stp-webhook-secret'] === 'string' ? headers['x-stp-webhook-secret'] : undefined);

function verified(given: PayinConnector | null, secret: string | undefined): StpConnector | CallbackOutcome {
  const connector = given as StpConnector | null;
  if (!connector) return { kind: 'not_configured' };
  if (connector.webhookSecret !== null && !safeEqualText(secret ?? '', connector.webhookSecret)) return { kind: 'forbidden', message: 'Missing or wrong X-Stp-Webhook-Secret' };
  return connector;
}

/** How many days ahead of today an abono's date of operation may be (a Friday evening's transfer is dated the next business day, after a long weekend). */
export const ABONO_DAYS_AHEAD = 4;

/** Whether an abono's fechaOperacion (yyyymmdd) lies between yesterday's operation day and ABONO_DAYS_AHEAD days ahead. */
export function abonoDateAccepted(fecha: string, now: Date): boolean {
  const day = 24 * 3600_000;
  return fecha >= fechaOperacion(new Date(now.getTime() - day)) && fecha <= fechaOperacion(new Date(now.getTime() + ABONO_DAYS_AHEAD * day));
}

export async function receiveAbono(ctx: AppContext, given: PayinConnector | null, secret: string | undefined, body: unknown, facts: CallbackFacts): Promise<CallbackOutcome> {
  const connector = verified(given, secret);
  if ('kind' in connector) return connector;
  const posted = receivedToPayment(body);
  if (!posted) return { kind: 'invalid', details: ['body: not an abono (claveRastreo, institucionOrdenante, fechaOperacion, cuentaBeneficiario and monto are required)'] };
  const own = (await connector.isDepositClabe(posted.chargeReference)) ? null : connector.ownAccountNames!(posted);
  if (own && (await facts.depositsNamed(STP_CONNECTOR, own)).length === 0) {
    // Not a deposit's CLABE: the operator's own accounts (funding the concentrating account).
    // Kept, and nothing is credited to any merchant. One that names a deposit's reference (a
    // customer who paid the wrong account) goes on: it is read back and kept for the operator.
    ctx.log.info({ connector: STP_CONNECTOR, payment: posted.id }, 'abono to one of the operator\'s own accounts: confirmed, nothing credited');
    return { kind: 'answer', body: { mensaje: 'confirmar' } };
  }
  // Bounded before STP is asked (each look-up is a signed query of a whole day's received orders):
  // a date of operation within the window, a transfer not applied already, not unknown to STP a
  // moment ago, and within the connector's reads of the minute (callback-bounds.ts).
  const fecha = posted.id.slice(posted.id.lastIndexOf(':') + 1);
  if (!abonoDateAccepted(fecha, ctx.now())) {
    return { kind: 'invalid', details: [`fechaOperacion: ${fecha} is not an operation day caja accepts an abono for (yesterday to ${ABONO_DAYS_AHEAD} days ahead, Mexico City)`] };
  }
  const recorded = await ctx.db.query<{ status: string; reason: string | null; seen_via: string }>(
    'SELECT status, reason, seen_via FROM connector_payments WHERE connector = $1 AND payment_id = $2', [STP_CONNECTOR, posted.id]);
  if (recorded.rows[0]) return { kind: 'answer', body: abonoAnswer(recorded.rows[0]) };
  if (knownUnknown(ctx, STP_CONNECTOR, posted.id)) return { kind: 'unknown' };
  if (!takeRead(ctx, STP_CONNECTOR)) return { kind: 'unavailable', message: 'too many abonos to look up this minute; STP retries' };
  let truth;
  try {
    truth = await connector.readPayment(posted.id);
  } catch (err) {
    if (err instanceof ConnectorError) return { kind: 'unavailable', message: err.message };
    throw err;
  }
  if (!truth) {
    rememberUnknown(ctx, STP_CONNECTOR, posted.id);
    ctx.log.warn({ connector: STP_CONNECTOR, payment: posted.id }, 'abono names a transfer STP does not show: nothing applied');
    return { kind: 'unknown' };
  }
  // Nothing kept: a transfer to the operator's own account that names no deposit (confirmed, as above).
  return { kind: 'payment', payment: truth, answer: (kept) => (kept ? abonoAnswer(kept) : { mensaje: 'confirmar' }) };
}

export async function receiveEstado(given: PayinConnector | null, secret: string | undefined, body: unknown): Promise<CallbackOutcome> {
  const connector = verified(given, secret);
  if ('kind' in connector) return connector;
  const hint = parseEstadoHint(body);
  if (!hint) return { kind: 'invalid', details: ['body: names no order (claveRastreo, folioOrigen or id)'] };
  // A cashout's order, else a refund's (an order back to a paying account): looked up the same way.
  return { kind: 'order', reference: hint.claveRastreo, providerId: hint.id, body: { mensaje: 'recibido' } };
}

/** STP's callback paths under /connectors/stp/. */
export const STP_CALLBACKS: readonly KindCallback[] = [
  { path: 'abono', receive: (ctx, connector, post, facts) => receiveAbono(ctx, connector, secretOf(post.headers), post.body, facts) },
  { path: 'estado', receive: async (_ctx, connector, post) => receiveEstado(connector, secretOf(post.headers), post.body) },
];
