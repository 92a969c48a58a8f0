// What the simulated STP does: keeps the orders the operator sends (verifying each firma with the
// operator's public key), the transfers its clients receive, and answers the consultations, as
// STP's SPEI API documents them. The signed strings are rebuilt here from the documented field
// order on purpose, independently of caja's mapping: a test then fails if caja's order is wrong.
import { createVerify, type KeyObject } from 'node:crypto';

type Json = any;

/** STP's documented order of the order fields in the "cadena original" (ordenPago/registra). */
const CADENA_FIELDS = `institucionContraparte empresa fechaOperacion folioOrigen claveRastreo institucionOperante monto tipoPago
  tipoCuentaOrdenante nombreOrdenante cuentaOrdenante rfcCurpOrdenante tipoCuentaBeneficiario nombreBeneficiario cuentaBeneficiario
  rfcCurpBeneficiario emailBeneficiario tipoCuentaBeneficiario2 nombreBeneficiario2 cuentaBeneficiario2 rfcCurpBeneficiario2
  conceptoPago conceptoPago2 claveCatUsuario1 claveCatUsuario2 clavePago referenciaCobranza referenciaNumerica tipoOperacion
  topologia usuario medioEntrega prioridad iva`.split(/\s+/);

const WEIGHTS = [3, 7, 1];
export function clabeOk(clabe: string): boolean {
  if (!/^\d{18}$/.test(clabe)) return false;
  let sum = 0;
  for (let i = 0; i < 17; i++) sum += (Number(clabe[i]) * WEIGHTS[i % 3]!) % 10;
  return (10 - (sum % 10)) % 10 === Number(clabe[17]);
}

function cadenaOf(body: Json): string {
  const values = CADENA_FIELDS.map((f) => {
    const v = body[f];
    if (v === undefined || v === null) return '';
    if (f === 'monto' && typeof v === 'number') return v.toFixed(2);
    return String(v);
  });
  return `||${values.join('|')}||`;
}

function consultaCadenaOf(body: Json): string {
  return `|||${body.empresa ?? ''}|${body.fechaOperacion ?? ''}||${body.claveRastreo ?? ''}|${body.institucionOperante ?? ''}${'|'.repeat(30)}`;
}

/** The business day (Monday to Friday) after yyyymmdd, as yyyymmdd. */
export function nextBusinessDay(day: number): number {
  const at = new Date(Date.UTC(Math.floor(day / 10000), Math.floor(day / 100) % 100 - 1, day % 100, 12));
  do at.setUTCDate(at.getUTCDate() + 1); while (at.getUTCDay() === 0 || at.getUTCDay() === 6);
  return Number(at.toISOString().slice(0, 10).replaceAll('-', ''));
}

/** yyyymmdd in Mexico City. */
export function today(at = new Date()): number {
  return Number(new Intl.DateTimeFormat('en-CA', { timeZone: 'America/Mexico_City', year: 'numeric', month: '2-digit', day: '2-digit' }).format(at).replaceAll('-', ''));
}

export interface Identity {
  empresa: string;
  clabe_prefix: string;
  ordering_clabe: string;
  passphrase: string;
}

export interface SentOrder extends Record<string, unknown> {
  idEF: number;
  claveRastreo: string;
  estado: string;
  causaDevolucion?: number;
  fechaOperacion: number;
  tsCaptura: number;
  tsLiquidacion?: number;
  tsDevolucion?: number;
}

export interface ReceivedOrder extends Record<string, unknown> {
  idEF: number;
  claveRastreo: string;
  fechaOperacion: number;
  institucionContraparte: number;
  monto: number;
  cuentaBeneficiario: string;
  estado: string;
  tsLiquidacion: number;
  /** What the receiver answered to the abono post (confirmar / devolver n), when it answered. */
  respuesta?: string;
}

const resultado = (r: Json) => ({ resultado: r });
const error = (id: number, descripcionError: string) => resultado({ id, descripcionError });

export class Bank {
  readonly orders = new Map<string, SentOrder>();
  readonly received: ReceivedOrder[] = [];
  signatureFailures = 0;
  /** Errors the next registra calls answer, in turn. */
  readonly nextErrors: Array<{ id: number; descripcionError: string }> = [];
  /** How many of the next orders registered are dated the next business day (sent after STP's cut-off). */
  datedNextDay = 0;
  private nextId = 4_000_001;

  constructor(readonly identity: Identity, private readonly publicKey: KeyObject) {}

  private verified(cadena: string, firma: unknown): boolean {
    if (typeof firma !== 'string' || firma === '') return false;
    const ok = createVerify('RSA-SHA256').update(cadena, 'utf8').verify(this.publicKey, firma, 'base64');
    if (!ok) this.signatureFailures++;
    return ok;
  }

  registra(body: Json): Json {
    if (!body || typeof body !== 'object') return error(0, 'El cuerpo de la petición no es válido');
    if (!this.verified(cadenaOf(body), body.firma)) return error(0, 'Error validando la firma');
    if (body.empresa !== this.identity.empresa) return error(0, `La empresa ${String(body.empresa)} no es valida`);
    for (const f of ['claveRastreo', 'monto', 'cuentaBeneficiario', 'tipoCuentaBeneficiario', 'nombreBeneficiario', 'institucionContraparte', 'cuentaOrdenante', 'conceptoPago', 'referenciaNumerica', 'tipoPago']) {
      if (body[f] === undefined || body[f] === null || body[f] === '') return error(0, `El campo ${f} es obligatorio`);
    }
    const queued = this.nextErrors.shift();
    if (queued) return error(queued.id, queued.descripcionError);
    const clave = String(body.claveRastreo);
    if (!/^[A-Za-z0-9]{1,30}$/.test(clave)) return error(-34, 'Clave rastreo invalida');
    if (this.orders.has(clave)) return error(-1, `La clave de rastreo ${clave} ya fue utilizada`);
    if (body.cuentaOrdenante !== this.identity.ordering_clabe) return error(-7, `La cuenta ${String(body.cuentaOrdenante)} no existe`);
    if (typeof body.monto !== 'number' || !(body.monto > 0) || Math.round(body.monto * 100) / 100 !== body.monto) return error(-20, `El monto {${String(body.monto)}} no es válido`);
    const tipo = Number(body.tipoCuentaBeneficiario);
    const cuenta = String(body.cuentaBeneficiario);
    if (![3, 10, 40].includes(tipo)) return error(-11, `El tipo de cuenta ${tipo} es invalido`);
    if (tipo === 40 && !clabeOk(cuenta)) return error(-11, `El tipo de cuenta ${tipo} es invalido`);
    if (!/^(37|40|90)\d{3}$/.test(String(body.institucionContraparte))) return error(-9, `La Institucion ${String(body.institucionContraparte)} no es valida`);
    if (tipo === 40 && String(body.institucionContraparte).slice(2) !== cuenta.slice(0, 3)) return error(-22, 'La cuenta clabe no coincide para la institucion operante');
    if (cuenta === body.cuentaOrdenante) return error(-24, `Cuenta {${cuenta}} - {MISMA_CUENTA}`);
    const id = this.nextId++;
    const { firma: _firma, ...fields } = body;
    const day = this.datedNextDay > 0 ? (this.datedNextDay--, nextBusinessDay(today())) : today();
    this.orders.set(clave, { ...fields, idEF: id, claveRastreo: clave, estado: 'A', fechaOperacion: day, tsCaptura: Date.now() });
    return resultado({ id });
  }

  /** consOrdEnvRastreo: an order the operator sent, by claveRastreo, of the day asked (none: today's). */
  sentByRastreo(body: Json): Json {
    if (!body || typeof body !== 'object' || !this.verified(consultaCadenaOf(body), body.firma)) return error(0, 'Error validando la firma');
    if (body.empresa !== this.identity.empresa) return error(0, `La empresa ${String(body.empresa)} no es valida`);
    const order = this.orders.get(String(body.claveRastreo ?? ''));
    if (!order || Number(body.fechaOperacion ?? today()) !== order.fechaOperacion) return error(-100, 'No se encontraron ordenes');
    return resultado({ id: 1, ordenPago: { ...order, empresa: this.identity.empresa } });
  }

  /** consOrdenesFech: the day's received ('R') or sent ('E') orders. */
  ordersOfDay(body: Json): Json {
    if (!body || typeof body !== 'object' || !this.verified(consultaCadenaOf(body), body.firma)) return error(0, 'Error validando la firma');
    if (body.empresa !== this.identity.empresa) return error(0, `La empresa ${String(body.empresa)} no es valida`);
    const day = body.fechaOperacion === undefined ? today() : Number(body.fechaOperacion);
    const list = body.estado === 'R' ? this.received.filter((o) => o.fechaOperacion === day) : [...this.orders.values()].filter((o) => o.fechaOperacion === day);
    if (list.length === 0) return error(-100, 'No se encontraron ordenes');
    return resultado({ id: 1, lst: list.map((o) => ({ ...o, empresa: this.identity.empresa })) });
  }

  /** A payer's bank sends a transfer to one of the operator's CLABEs. */
  receive(b: { cuentaBeneficiario: string; monto: number; claveRastreo?: string; institucionOrdenante?: number; tsLiquidacion?: number; conceptoPago?: string; referenciaNumerica?: number; rfcCurpOrdenante?: string }): ReceivedOrder {
    const id = this.nextId++;
    const order: ReceivedOrder = {
      idEF: id,
      claveRastreo: b.claveRastreo ?? `MBAN${String(id).padStart(12, '0')}`,
      fechaOperacion: today(),
      institucionContraparte: b.institucionOrdenante ?? 40012,
      institucionOperante: 90646,
      monto: b.monto,
      cuentaBeneficiario: b.cuentaBeneficiario,
      nombreOrdenante: 'JUAN PEREZ LOPEZ',
      cuentaOrdenante: '012180004567891239', // a valid CLABE (check digit 9): a refund goes back to it
      tipoCuentaOrdenante: 40,
      // The ordering account holder's RFC/CURP (the test may name the payer's; 'ND' when the bank gives none).
      rfcCurpOrdenante: typeof b.rfcCurpOrdenante === 'string' && /^[A-Za-z0-9]{1,18}$/.test(b.rfcCurpOrdenante) ? b.rfcCurpOrdenante : 'PELJ800101AB1',
      nombreBeneficiario: 'CLIENTE CAJA',
      tipoCuentaBeneficiario: 40,
      conceptoPago: b.conceptoPago ?? 'PAGO',
      referenciaNumerica: b.referenciaNumerica ?? 1234567,
      tipoPago: 1,
      estado: 'LQ',
      tsLiquidacion: b.tsLiquidacion ?? Date.now(),
    };
    this.received.push(order);
    return order;
  }

  /** The abono post STP sends for a received order. */
  abonoBody(o: ReceivedOrder): Json {
    return {
      id: o.idEF, fechaOperacion: o.fechaOperacion, institucionOrdenante: o.institucionContraparte, institucionBeneficiaria: 90646,
      claveRastreo: o.claveRastreo, monto: o.monto, nombreOrdenante: o.nombreOrdenante, tipoCuentaOrdenante: o.tipoCuentaOrdenante,
      cuentaOrdenante: o.cuentaOrdenante, rfcCurpOrdenante: o.rfcCurpOrdenante, nombreBeneficiario: o.nombreBeneficiario,
      tipoCuentaBeneficiario: o.tipoCuentaBeneficiario, cuentaBeneficiario: o.cuentaBeneficiario, rfcCurpBeneficiario: 'ND',
      conceptoPago: o.conceptoPago, referenciaNumerica: o.referenciaNumerica, empresa: this.identity.empresa, tipoPago: o.tipoPago,
      tsLiquidacion: String(o.tsLiquidacion),
    };
  }

  /** The order's state moves (LQ liquidated, CN cancelled, D returned); answers the state-change post. */
  changeState(clave: string, estado: 'LQ' | 'CN' | 'D', causaDevolucion?: number): Json | null {
    const order = this.orders.get(clave);
    if (!order) return null;
    order.estado = estado;
    if (estado === 'LQ') order.tsLiquidacion = Date.now();
    if (estado === 'D') {
      order.causaDevolucion = causaDevolucion ?? 1;
      order.tsDevolucion = Date.now();
    }
    const names = { LQ: 'LIQUIDACION', CN: 'CANCELACION', D: 'DEVOLUCION' } as const;
    return {
      id: order.idEF, empresa: this.identity.empresa, folioOrigen: clave, estado: names[estado],
      ...(estado === 'D' ? { causaDevolucion: String(order.causaDevolucion) } : {}), tsLiquidacion: String(order.tsLiquidacion ?? ''),
    };
  }
}
