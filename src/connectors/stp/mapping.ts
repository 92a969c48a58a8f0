// Pure mapping between caja and STP's SPEI API (docs/connectors.md, "The STP connector"): the
// signed strings ("cadena original"), the order body, the account types and institutions of a
// beneficiary, STP's answers and states, the CLABEs of deposits and the rules an incoming
// transfer (abono) must meet. No I/O here; src/connectors/stp/client.ts signs and sends.
import { clabeCheckDigit, isValidClabe } from '../../domain/clabe.ts';
import type { RejectionCode } from '../../domain/cashout-states.ts';
import { cmp, type Decimal, parseAmount, toFixed } from '../../domain/money.ts';
import { newReference, UPPER_ALPHANUMERIC } from '../../domain/references.ts';
import type { ProviderPayment } from '../payin.ts';
import { isValidLuhn } from '../../domain/vouchers.ts';

/** STP's own SPEI participant key: the institution every order is operated by. */
export const STP_INSTITUTION = '90646';

/**
 * The fields of an order in the order of STP's "cadena original" (ordenPago/registra): the
 * string signed is `||` + the values joined by `|` (an absent field is empty) + `||`.
 */
export const ORDEN_FIELDS = [
  'institucionContraparte', 'empresa', 'fechaOperacion', 'folioOrigen', 'claveRastreo', 'institucionOperante', 'monto',
  'tipoPago', 'tipoCuentaOrdenante', 'nombreOrdenante', 'cuentaOrdenante', 'rfcCurpOrdenante', 'tipoCuentaBeneficiario',
  'nombreBeneficiario', 'cuentaBeneficiario', 'rfcCurpBeneficiario', 'emailBeneficiario', 'tipoCuentaBeneficiario2',
  'nombreBeneficiario2', 'cuentaBeneficiario2', 'rfcCurpBeneficiario2', 'conceptoPago', 'conceptoPago2', 'claveCatUsuario1',
  'claveCatUsuario2', 'clavePago', 'referenciaCobranza', 'referenciaNumerica', 'tipoOperacion', 'topologia', 'usuario',
  'medioEntrega', 'prioridad', 'iva',
] as const;

export type OrdenField = (typeof ORDEN_FIELDS)[number];
export type Orden = Partial<Record<OrdenField, string | number>>;

export function cadenaOriginal(orden: Orden): string {
  return `||${ORDEN_FIELDS.map((f) => (orden[f] === undefined || orden[f] === null ? '' : String(orden[f]))).join('|')}||`;
}

/** The signed string of the order consultations (consOrdEnvRastreo, consOrdenesFech). */
export function consultaCadena(c: { empresa: string; fechaOperacion?: string; claveRastreo?: string; institucionOperante?: string }): string {
  return `|||${c.empresa}|${c.fechaOperacion ?? ''}||${c.claveRastreo ?? ''}|${c.institucionOperante ?? ''}${'|'.repeat(30)}`;
}

/** SPEI account types: 40 CLABE (18 digits), 3 debit card (16), 10 mobile phone (10). */
export function tipoCuenta(account: string): 40 | 3 | 10 | null {
  if (/^\d{18}$/.test(account)) return 40;
  if (/^\d{16}$/.test(account)) return 3;
  if (/^\d{10}$/.test(account)) return 10;
  return null;
}

/** Development banks keep SPEI keys 37xxx; other 3-digit codes from 600 are 90xxx; banks 40xxx. */
const DEVELOPMENT_BANKS = new Set([6, 9, 19, 135, 166, 168]);

/** The 5-digit SPEI participant key of a bank from its 3-digit (CLABE, ABM) code. */
export function speiInstitution(code3: string): string | null {
  if (/^(37|40|90)\d{3}$/.test(code3)) return code3;
  if (!/^\d{1,3}$/.test(code3)) return null;
  const n = Number(code3);
  const prefix = DEVELOPMENT_BANKS.has(n) ? '37' : n >= 600 ? '90' : '40';
  return `${prefix}${String(n).padStart(3, '0')}`;
}

/** STP's date of operation, yyyymmdd, in Mexico City (SPEI's business day). */
export function fechaOperacion(at: Date): string {
  const parts = new Intl.DateTimeFormat('en-CA', { timeZone: 'America/Mexico_City', year: 'numeric', month: '2-digit', day: '2-digit' }).format(at);
  return parts.replaceAll('-', '');
}

/**
 * A new order's claveRastreo: `CAJA` + 20 random characters of [A-Z0-9] (src/domain/references.ts),
 * stored with the order's row before it is sent. Never derived from the cashout id or the master
 * key: after a database restore, or with two installations on one STP account, a derived one named
 * an order already at STP, which a look-up then took for the new cashout's.
 */
export function newClaveRastreo(): string {
  return newReference('CAJA', 24, UPPER_ALPHANUMERIC);
}

/** How many business days after the hand-over STP may date an order (after its cut-off, a holiday). */
export const ORDER_DAYS_AFTER = 2;

/** `day` (yyyymmdd) and the calendar days after it up to its `n`-th business day (Monday to Friday). */
function daysThroughBusinessDay(day: string, n: number): string[] {
  const days = [day];
  let business = 0;
  // Noon in Mexico City on each following calendar day: no daylight-saving edge moves the date.
  const [y, m, d] = [Number(day.slice(0, 4)), Number(day.slice(4, 6)), Number(day.slice(6, 8))];
  for (let i = 1; business < n && i < 14; i++) {
    const at = new Date(Date.UTC(y, m - 1, d + i, 18));
    days.push(fechaOperacion(at));
    const weekday = at.getUTCDay();
    if (weekday !== 0 && weekday !== 6) business++;
  }
  return days;
}

/**
 * The operation days (yyyymmdd, Mexico City) an order handed over at `handedAt` may carry, as of
 * `now`: its day, and every day up to the ORDER_DAYS_AFTER-th business day after it (an order
 * sent after STP's cut-off, on a weekend or a holiday is dated a later day), but none past the
 * business day after `now` (no order is dated later than that).
 */
export function operationDays(handedAt: Date, now: Date): string[] {
  const last = daysThroughBusinessDay(fechaOperacion(now), 1).at(-1)!;
  return daysThroughBusinessDay(fechaOperacion(handedAt), ORDER_DAYS_AFTER).filter((d) => d <= last);
}

/**
 * Whether an order found at STP under a cashout's claveRastreo is that cashout's: the same amount
 * to the cent, beneficiary account and beneficiary name (as caja writes it). Answers what differs,
 * or null when it is the cashout's order.
 */
export function orderMismatch(found: Record<string, unknown>, expected: { amount: Decimal; beneficiaryAccount: string; beneficiaryName: string }): string | null {
  const diffs: string[] = [];
  const amount = parseAmount(typeof found.monto === 'number' || typeof found.monto === 'string' ? found.monto : '', { maxDecimals: 2 });
  if (!amount.ok || cmp(amount.value, expected.amount) !== 0) diffs.push(`amount ${String(found.monto)} (the cashout's is ${toFixed(expected.amount, 2)})`);
  const account = str(found.cuentaBeneficiario).replace(/\D/g, '');
  const ours = expected.beneficiaryAccount.replace(/\D/g, '');
  if (account !== ours) diffs.push(`account ${account || '(none)'} (the cashout's is ${ours})`);
  const name = stpText(str(found.nombreBeneficiario), 39).toUpperCase();
  const ourName = (stpText(expected.beneficiaryName, 39) || 'ND').toUpperCase();
  if (name !== ourName) diffs.push(`beneficiary ${name || '(none)'} (the cashout's is ${ourName})`);
  return diffs.length ? diffs.join('; ') : null;
}

/** The n-th CLABE of a 10-digit prefix: prefix + 7 digits + the check digit (weights 3, 7, 1). */
export function clabeInRange(prefix: string, n: number): string {
  if (!/^\d{10}$/.test(prefix)) throw new Error('clabe_prefix must be 10 digits');
  if (!Number.isInteger(n) || n < 1 || n > 9_999_999) throw new Error('CLABE number out of range');
  const first17 = prefix + String(n).padStart(7, '0');
  return first17 + clabeCheckDigit(first17);
}

/** STP names and concepts: ASCII, no separators of the signed string, at most `max` characters. */
export function stpText(text: string, max: number): string {
  return text.normalize('NFD').replace(/[\u0300-\u036f]/g, '').replace(/[^A-Za-z0-9 .,-]/g, ' ').replace(/\s+/g, ' ').trim().slice(0, max);
}

/** A cashout as STP's order: every field caja sends, signed in ORDEN_FIELDS order. */
export interface OrderInput {
  empresa: string;
  claveRastreo: string;
  amount: Decimal;
  beneficiaryAccount: string;
  beneficiaryName: string;
  beneficiaryDocument: string;
  bankCode: string | null;
  orderingClabe: string;
  orderingName: string;
  orderingRfc: string;
  cashoutId: number;
}

export type OrderBody = { ok: true; orden: Orden } | { ok: false; code: RejectionCode; reason: string };

export function orderBody(o: OrderInput): OrderBody {
  const account = o.beneficiaryAccount.replace(/\D/g, '');
  const tipo = tipoCuenta(account);
  if (tipo === null) return { ok: false, code: '800', reason: 'the beneficiary account is not a CLABE (18 digits), a debit card (16) or a mobile phone (10)' };
  if (tipo === 40 && !isValidClabe(account)) return { ok: false, code: '800', reason: 'the CLABE check digit does not match' };
  // A CLABE names its bank; a card or a phone needs the bank the merchant gave.
  const institucion = speiInstitution(tipo === 40 ? account.slice(0, 3) : (o.bankCode ?? ''));
  if (!institucion) return { ok: false, code: '803', reason: 'the beneficiary bank is unknown' };
  const rfc = o.beneficiaryDocument.replace(/[^A-Za-z0-9]/g, '').toUpperCase();
  return {
    ok: true,
    orden: {
      institucionContraparte: institucion,
      empresa: o.empresa,
      claveRastreo: o.claveRastreo,
      institucionOperante: STP_INSTITUTION,
      monto: toFixed(o.amount, 2),
      tipoPago: 1,
      tipoCuentaOrdenante: 40,
      nombreOrdenante: stpText(o.orderingName, 39),
      cuentaOrdenante: o.orderingClabe,
      rfcCurpOrdenante: o.orderingRfc,
      tipoCuentaBeneficiario: tipo,
      nombreBeneficiario: stpText(o.beneficiaryName, 39) || 'ND',
      cuentaBeneficiario: account,
      rfcCurpBeneficiario: /^[A-Z0-9]{10,18}$/.test(rfc) ? rfc : 'ND',
      conceptoPago: stpText(`Pago ${o.cashoutId}`, 39),
      referenciaNumerica: (o.cashoutId % 9_999_999) + 1,
    },
  };
}

/** The JSON body of PUT ordenPago/registra: the order's fields (numbers as STP types them) and its firma. */
export function registraJson(orden: Orden, firma: string): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const f of ORDEN_FIELDS) {
    const v = orden[f];
    if (v === undefined || v === '') continue;
    out[f] = f === 'monto' ? Number(v) : v;
  }
  out.firma = firma;
  return out;
}

/** What caja does with STP's answer to ordenPago/registra. */
export type RegistraResult =
  | { kind: 'accepted'; id: string }
  | { kind: 'exists' }
  | { kind: 'rejected'; code: RejectionCode; error: string }
  | { kind: 'retry'; error: string }
  | { kind: 'unreadable'; error: string };

/**
 * STP's registra errors (resultado.id ≤ 3 digits, with descripcionError) as caja reads them:
 * the beneficiary's problems reject the cashout with its 800-809 code; STP's own trouble and a
 * signature STP does not take (the operator's key) are retried, never charged to the merchant.
 */
export const REGISTRA_ERRORS: Record<string, { outcome: 'reject'; code: RejectionCode } | { outcome: 'retry' } | { outcome: 'exists' }> = {
  '-1': { outcome: 'exists' }, // La clave de rastreo … ya fue utilizada: the order is at STP already
  '-7': { outcome: 'reject', code: '800' }, // La cuenta … no existe
  '-9': { outcome: 'reject', code: '803' }, // La Institucion … no es valida
  '-11': { outcome: 'reject', code: '800' }, // El tipo de cuenta … es invalido
  '-20': { outcome: 'reject', code: '802' }, // El monto … no es válido
  '-22': { outcome: 'reject', code: '803' }, // La cuenta clabe no coincide para la institucion
  '-24': { outcome: 'reject', code: '807' }, // Cuenta … MISMA_CUENTA
  '-34': { outcome: 'reject', code: '808' }, // Clave rastreo invalida
  '-200': { outcome: 'reject', code: '808' }, // Se rechaza por PLD (anti-money-laundering)
};

export function registraResult(body: unknown): RegistraResult {
  const r = (body as { resultado?: { id?: unknown; descripcionError?: unknown } } | null)?.resultado;
  if (!r || typeof r !== 'object' || (typeof r.id !== 'number' && typeof r.id !== 'string')) return { kind: 'unreadable', error: 'no resultado.id in the answer' };
  const id = Number(r.id);
  if (!Number.isInteger(id)) return { kind: 'unreadable', error: `resultado.id ${String(r.id)} is not a number` };
  const description = typeof r.descripcionError === 'string' ? r.descripcionError : '';
  // An id of more than 3 digits is the order STP registered; anything else is an error code.
  if (id > 999) return { kind: 'accepted', id: String(id) };
  const error = `STP error ${id}${description ? `: ${description}` : ''}`;
  if (id === 0) {
    // 0 is STP's general error: no answer from its service, or the firma it could not verify
    // (the operator's key): both are retried, and recorded in the connector's health.
    if (/respuesta del servicio|firma/i.test(description)) return { kind: 'retry', error };
    return { kind: 'rejected', code: '808', error };
  }
  const known = REGISTRA_ERRORS[String(id)];
  if (known?.outcome === 'exists') return { kind: 'exists' };
  if (known?.outcome === 'retry') return { kind: 'retry', error };
  return { kind: 'rejected', code: known?.outcome === 'reject' ? known.code : '808', error };
}

/** The SPEI return causes (causaDevolucion) and the cashout rejection each means. */
export const DEVOLUCION_CAUSES: Record<string, { text: string; code: RejectionCode }> = {
  '1': { text: 'Cuenta inexistente', code: '800' },
  '2': { text: 'Cuenta bloqueada', code: '807' },
  '3': { text: 'Cuenta cancelada', code: '801' },
  '5': { text: 'Cuenta en otra divisa', code: '807' },
  '6': { text: 'Cuenta no pertenece al banco receptor', code: '803' },
  '13': { text: 'Beneficiario no reconoce el pago', code: '808' },
  '14': { text: 'Falta información mandatoria para completar el pago', code: '808' },
  '15': { text: 'Tipo de pago erróneo', code: '808' },
  '16': { text: 'Tipo de operación errónea', code: '808' },
  '17': { text: 'Tipo de cuenta no corresponde', code: '800' },
  '18': { text: 'A solicitud del emisor', code: '808' },
  '19': { text: 'Carácter inválido', code: '808' },
  '20': { text: 'Excede el límite de saldo autorizado de la cuenta', code: '802' },
  '21': { text: 'Excede el límite de abonos permitidos en el mes en la cuenta', code: '802' },
  '22': { text: 'Número de línea de telefonía móvil no registrado', code: '800' },
  '23': { text: 'Cuenta adicional no recibe pagos que no proceden de Banxico', code: '807' },
  '24': { text: 'Estructura de la información adicional incorrecta', code: '808' },
  '26': { text: 'Resolución judicial', code: '807' },
  '27': { text: 'Cuenta beneficiaria en proceso de cancelación', code: '801' },
  '30': { text: 'Clave de rastreo repetida', code: '808' },
};

/** An order's state at STP, as caja acts on it. */
export type OrderOutcome =
  | { kind: 'processing'; estado: string }
  | { kind: 'liquidated'; estado: string }
  | { kind: 'cancelled'; estado: string }
  | { kind: 'returned'; estado: string; code: RejectionCode; cause: string };

/** STP's estado of a sent order: LQ liquidated, CN (and the other cancellations) cancelled, D returned. */
export function orderOutcome(orden: { estado?: unknown; causaDevolucion?: unknown }): OrderOutcome | null {
  if (typeof orden.estado !== 'string' || orden.estado === '') return null;
  const estado = orden.estado.trim().toUpperCase();
  if (estado === 'LQ' || estado === 'TLQ') return { kind: 'liquidated', estado };
  if (['CN', 'CL', 'CR', 'CA', 'RL', 'RA', 'RB', 'TCL', 'EL'].includes(estado)) return { kind: 'cancelled', estado };
  if (estado === 'D' || estado === 'RE') {
    const cause = DEVOLUCION_CAUSES[String(orden.causaDevolucion ?? '')];
    return { kind: 'returned', estado, code: cause?.code ?? '808', cause: cause ? `${String(orden.causaDevolucion)} ${cause.text}` : `causaDevolucion ${String(orden.causaDevolucion ?? 'unknown')}` };
  }
  return { kind: 'processing', estado };
}

// ---------------------------------------------------------------------------------------------
// Incoming transfers (abonos)

/** The return causes caja answers an abono with ({"mensaje":"devolver","id":n}), by rule broken. */
export const ABONO_RETURNS = {
  unknown_clabe: 1, // Cuenta inexistente: no deposit has this CLABE
  closed: 3, // Cuenta cancelada: the deposit expired, was cancelled or is already paid
  overpaid: 13, // Beneficiario no reconoce el pago: more than the deposit asks
  underpaid: 13, // Beneficiario no reconoce el pago: less than the deposit asks
  payer_mismatch: 13, // Beneficiario no reconoce el pago: another payer than the deposit's (payer_must_match)
} as const;
export type AbonoRule = keyof typeof ABONO_RETURNS;

/** States of a received order whose money did not stay: returned, cancelled, rejected. */
const NOT_KEPT = new Set(['D', 'RE', 'XD', 'XR', 'CN', 'CL', 'CR', 'CA', 'RL', 'RA', 'RB', 'EL', 'TCL']);

/** Whether a received order's money stayed with the operator (no estado: an abono post, kept). */
export function receivedKept(o: { estado?: unknown }): boolean {
  return typeof o.estado !== 'string' || !NOT_KEPT.has(o.estado.trim().toUpperCase());
}

/** A payment's id at STP: the triple SPEI makes unique, claveRastreo:institucionOrdenante:fechaOperacion. */
export function abonoPaymentId(claveRastreo: string, institucionOrdenante: string, fecha: string): string {
  return `${claveRastreo}:${institucionOrdenante}:${fecha}`;
}

export function splitPaymentId(id: string): { claveRastreo: string; institucion: string; fecha: string } | null {
  const m = /^([A-Za-z0-9]{1,30}):(\d{5}):(\d{8})$/.exec(id);
  return m ? { claveRastreo: m[1]!, institucion: m[2]!, fecha: m[3]! } : null;
}

const str = (v: unknown) => (typeof v === 'string' ? v.trim() : typeof v === 'number' && Number.isFinite(v) ? String(v) : '');

/** An abono or a received order as STP writes it, as a ProviderPayment; null when unreadable. */
export function receivedToPayment(o: unknown): ProviderPayment | null {
  if (!o || typeof o !== 'object') return null;
  const r = o as Record<string, unknown>;
  const claveRastreo = str(r.claveRastreo);
  // An abono names the ordering bank institucionOrdenante; a consulted received order, institucionContraparte.
  const institucion = str(r.institucionOrdenante) || str(r.institucionContraparte);
  const fecha = str(r.fechaOperacion);
  const cuenta = str(r.cuentaBeneficiario);
  const amount = parseAmount(typeof r.monto === 'number' || typeof r.monto === 'string' ? r.monto : '', { maxDecimals: 2 });
  if (!/^[A-Za-z0-9]{1,30}$/.test(claveRastreo) || !/^\d{5}$/.test(institucion) || !/^\d{8}$/.test(fecha) || !/^\d{10,18}$/.test(cuenta) || !amount.ok) return null;
  const ts = Number(str(r.tsLiquidacion));
  return {
    id: abonoPaymentId(claveRastreo, institucion, fecha),
    chargeReference: cuenta,
    amount: amount.value,
    currency: 'MXN',
    receiver: cuenta,
    paidAt: Number.isFinite(ts) && ts > 0 ? new Date(ts) : new Date(),
    // STP reports the ordering account's RFC/CURP ('ND' or empty when the ordering bank gave none).
    payerDocument: str(r.rfcCurpOrdenante) && str(r.rfcCurpOrdenante).toUpperCase() !== 'ND' ? str(r.rfcCurpOrdenante) : null,
    raw: r,
  };
}

/** Whether a received transfer completes the deposit its CLABE belongs to (docs/connectors.md). */
export function checkAbono(
  payment: ProviderPayment,
  deposit: { status: string; payerAmount: Decimal; reference: string | null; expiresAt: Date | null },
): { ok: true } | { ok: false; reason: string } {
  const fail = (rule: AbonoRule, why: string) => ({ ok: false as const, reason: `${rule}: ${why}` });
  if (deposit.reference === null || deposit.status === 'NONE') return fail('unknown_clabe', `no deposit has CLABE ${payment.chargeReference ?? ''}`);
  if (deposit.status !== 'PENDING') return fail('closed', `the deposit is ${deposit.status}`);
  // A minute of clock difference between SPEI's settlement time and ours.
  if (deposit.expiresAt && payment.paidAt.getTime() > deposit.expiresAt.getTime() + 60_000) {
    return fail('closed', `paid at ${payment.paidAt.toISOString()}, after the deposit expired at ${deposit.expiresAt.toISOString()}`);
  }
  const c = cmp(payment.amount, deposit.payerAmount);
  if (c > 0) return fail('overpaid', `paid ${toFixed(payment.amount, 2)}, the deposit asks ${toFixed(deposit.payerAmount, 2)}`);
  if (c < 0) return fail('underpaid', `paid ${toFixed(payment.amount, 2)}, the deposit asks ${toFixed(deposit.payerAmount, 2)}`);
  return { ok: true };
}

/**
 * The deposit references (speiReference: the deposit id modulo a million and a Luhn digit) a
 * transfer names in its numeric reference or its concept, as the id remainders they stand for.
 */
export function depositRemaindersNamed(raw: unknown): number[] {
  if (!raw || typeof raw !== 'object') return [];
  const r = raw as Record<string, unknown>;
  const candidates: string[] = [];
  const numeric = str(r.referenciaNumerica);
  if (/^\d{1,7}$/.test(numeric)) candidates.push(numeric.padStart(7, '0'));
  for (const m of str(r.conceptoPago).matchAll(/(?<!\d)\d{7}(?!\d)/g)) candidates.push(m[0]);
  return [...new Set(candidates.filter((c) => isValidLuhn(c)).map((c) => Number(c.slice(0, 6))))];
}

/** caja's answer to an abono, from what was recorded for it (the same for a repeated post). */
export function abonoAnswer(recorded: { status: string; reason: string | null; seen_via?: string }): { mensaje: 'confirmar' } | { mensaje: 'devolver'; id: number } {
  // Money paid into the operator's own account stays there; the operator decides what it is.
  if (recorded.status === 'applied' || recorded.reason?.startsWith('own_account:')) return { mensaje: 'confirmar' };
  // A payment the payer rule refused that the reconciliation poll found first (its abono post
  // was lost, STP had already accepted it): caja sends it back itself, by an order to the
  // ordering account (src/deposits/send-backs.ts). A devolver now would return it twice.
  if (recorded.status === 'refused' && recorded.seen_via !== undefined && recorded.seen_via !== 'webhook') return { mensaje: 'confirmar' };
  const rule = /^([a-z_]+):/.exec(recorded.reason ?? '')?.[1] as AbonoRule | undefined;
  return { mensaje: 'devolver', id: rule && rule in ABONO_RETURNS ? ABONO_RETURNS[rule] : ABONO_RETURNS.closed };
}

/** A state-change post (cambio de estado): which order it names; null when it names none. */
export function parseEstadoHint(body: unknown): { claveRastreo: string | null; id: string | null } | null {
  if (!body || typeof body !== 'object' || Array.isArray(body)) return null;
  const b = body as Record<string, unknown>;
  const clave = str(b.claveRastreo) || str(b.folioOrigen);
  const id = str(b.id);
  const claveRastreo = /^[A-Za-z0-9]{1,30}$/.test(clave) ? clave : null;
  const stpId = /^\d{1,20}$/.test(id) ? id : null;
  return claveRastreo || stpId ? { claveRastreo, id: stpId } : null;
}
