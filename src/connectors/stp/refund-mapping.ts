// Pure mapping of a refund of an SPEI deposit as an STP order (docs/connectors.md, "Refunds of
// SPEI deposits"): the money goes back to the account the abono came from, whose ordering data STP
// gave with the transfer (kept with the payment, connector_payments.raw). No I/O here.
import { isValidClabe } from '../../domain/clabe.ts';
import { type Decimal, parseAmount, toFixed } from '../../domain/money.ts';
import { newReference, UPPER_ALPHANUMERIC } from '../../domain/references.ts';
import { type Orden, orderBody, speiInstitution, stpText, tipoCuenta } from './mapping.ts';

/** Where a refund goes back: the abono's ordering account, as stored with the refund. */
export interface SpeiDestination {
  /** cuentaOrdenante: a CLABE (18 digits), a debit card (16) or a mobile phone (10). */
  account: string;
  /** The 5-digit SPEI key of the ordering bank (institucionOrdenante / institucionContraparte). */
  institution: string;
  /** nombreOrdenante. */
  name: string;
  /** rfcCurpOrdenante ('ND' when STP gave none). */
  document: string;
}

const text = (v: unknown) => (typeof v === 'string' ? v.trim() : typeof v === 'number' && Number.isFinite(v) ? String(v) : '');

/**
 * The account an abono came from, from what STP gave with it (the abono post or the received
 * order read back): null, with the reason, when it names none caja can send an order to.
 */
export function speiRefundDestination(raw: unknown): { ok: true; destination: SpeiDestination } | { ok: false; reason: string } {
  if (!raw || typeof raw !== 'object') return { ok: false, reason: 'STP gave no ordering account with the payment' };
  const r = raw as Record<string, unknown>;
  const account = text(r.cuentaOrdenante).replace(/\D/g, '');
  const tipo = tipoCuenta(account);
  if (tipo === null || (tipo === 40 && !isValidClabe(account))) return { ok: false, reason: 'the payment names no ordering account (cuentaOrdenante) an order can be sent to' };
  const institution = speiInstitution(text(r.institucionOrdenante) || text(r.institucionContraparte));
  if (!institution) return { ok: false, reason: 'the payment names no ordering bank (institucionOrdenante)' };
  const name = text(r.nombreOrdenante);
  return { ok: true, destination: { account, institution, name: name || 'ND', document: text(r.rfcCurpOrdenante) || 'ND' } };
}

/** A refund's claveRastreo: random, stored with the refund before it is first sent. */
export function refundClaveRastreo(): string {
  return newReference('CAJAR', 20);
}

export interface RefundOrderInput {
  empresa: string;
  claveRastreo: string;
  refundId: number;
  amount: Decimal;
  destination: SpeiDestination;
  orderingClabe: string;
  orderingName: string;
  orderingRfc: string;
}

/** The refund as STP's order (the same fields and rules as a cashout's), or why none can be sent. */
export function refundOrderBody(o: RefundOrderInput): { ok: true; orden: Orden } | { ok: false; reason: string } {
  const body = orderBody({
    empresa: o.empresa, claveRastreo: o.claveRastreo, amount: o.amount, beneficiaryAccount: o.destination.account,
    beneficiaryName: o.destination.name, beneficiaryDocument: o.destination.document, bankCode: o.destination.institution,
    orderingClabe: o.orderingClabe, orderingName: o.orderingName, orderingRfc: o.orderingRfc, cashoutId: o.refundId,
  });
  if (!body.ok) return { ok: false, reason: body.reason };
  return { ok: true, orden: { ...body.orden, conceptoPago: stpText(`Devolucion ${o.refundId}`, 39) } };
}

/**
 * Whether an order STP holds under the refund's claveRastreo is this refund's: the same amount,
 * beneficiary account and beneficiary name. Anything else (a restored database, another
 * installation) is never adopted.
 */
export function orderIsRefund(orden: Record<string, unknown>, expected: Orden): { ok: true } | { ok: false; reason: string } {
  const differs: string[] = [];
  const monto = parseAmount(typeof orden.monto === 'number' || typeof orden.monto === 'string' ? orden.monto : '', { maxDecimals: 2 });
  if (!monto.ok || toFixed(monto.value, 2) !== String(expected.monto)) differs.push(`monto ${String(orden.monto)} ≠ ${String(expected.monto)}`);
  if (text(orden.cuentaBeneficiario) !== String(expected.cuentaBeneficiario)) differs.push(`cuentaBeneficiario ${text(orden.cuentaBeneficiario)} ≠ ${String(expected.cuentaBeneficiario)}`);
  const name = text(orden.nombreBeneficiario);
  if (name !== '' && stpText(name, 39).toUpperCase() !== String(expected.nombreBeneficiario).toUpperCase()) differs.push(`nombreBeneficiario ${name} ≠ ${String(expected.nombreBeneficiario)}`);
  return differs.length ? { ok: false, reason: `the order STP holds under this claveRastreo does not match the refund: ${differs.join('; ')}` } : { ok: true };
}

/** The claveRastreo of a payment caja sends back itself (a refused abono the poll found): random, stored with the payment before it is sent. */
export function returnClaveRastreo(): string {
  return newReference('CAJAD', 20, UPPER_ALPHANUMERIC);
}

/**
 * A received abono sent back in full (the payer rule refused it after STP had accepted it): an
 * order of the abono's amount to its ordering account, like a refund's, its concept naming the
 * abono's claveRastreo. Null, with the reason, when the abono names no account to send to.
 */
export function returnOrderBody(o: { empresa: string; claveRastreo: string; abonoClave: string; amount: Decimal; raw: unknown; orderingClabe: string; orderingName: string; orderingRfc: string }):
  { ok: true; orden: Orden } | { ok: false; reason: string } {
  const dest = speiRefundDestination(o.raw);
  if (!dest.ok) return dest;
  const body = orderBody({
    empresa: o.empresa, claveRastreo: o.claveRastreo, amount: o.amount, beneficiaryAccount: dest.destination.account,
    beneficiaryName: dest.destination.name, beneficiaryDocument: dest.destination.document, bankCode: dest.destination.institution,
    orderingClabe: o.orderingClabe, orderingName: o.orderingName, orderingRfc: o.orderingRfc, cashoutId: 0,
  });
  if (!body.ok) return { ok: false, reason: body.reason };
  return { ok: true, orden: { ...body.orden, conceptoPago: stpText(`Devolucion ${o.abonoClave}`, 39) } };
}
