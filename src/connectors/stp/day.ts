// The STP account's day as STP lists it (consOrdenesFech, STP's reconciliation query of one
// operation day's received 'R' and sent 'E' orders), as movements of the operator's ordering
// account: what the daily provider statement imports (src/reconciliation/provider-statements.ts)
// and what the STP simulator's statement of the day shows. Pure.
//
//   received order, liquidated        credit, its clave de rastreo, the ordering account and name
//   sent order, liquidated (LQ/TLQ)   debit, its clave, the beneficiary's account and name
//   sent order, returned (D)          nothing: the money left and came back (net nothing on the
//                                     account); the connector rejected its cashout or refund
//   sent order cancelled or pending   nothing: no money moved
import { parseAmount, toFixed } from '../../domain/money.ts';
import type { ProviderMovement } from '../payin.ts';

const str = (v: unknown) => (typeof v === 'string' ? v.trim() : typeof v === 'number' && Number.isFinite(v) ? String(v) : '');

/** yyyymmdd ↔ yyyy-mm-dd. */
export const stpFecha = (date: string) => date.replaceAll('-', '');

function amountOf(o: Record<string, unknown>): string | null {
  const parsed = parseAmount(typeof o.monto === 'number' || typeof o.monto === 'string' ? o.monto : '', { maxDecimals: 2 });
  return parsed.ok && parsed.value.units > 0n ? toFixed(parsed.value, 2) : null;
}

/** The movements of one operation day (yyyy-mm-dd) from STP's lists; an order it cannot read is skipped and named in `unreadable`. */
export function stpDayMovements(received: Record<string, unknown>[], sent: Record<string, unknown>[], date: string): { movements: ProviderMovement[]; unreadable: string[] } {
  const movements: ProviderMovement[] = [];
  const unreadable: string[] = [];
  const party = (name: unknown, account: unknown) => {
    const p = { ...(str(name) ? { name: str(name) } : {}), ...(/^\d{10,18}$/.test(str(account)) ? { account: str(account) } : {}) };
    return Object.keys(p).length ? { counterparty: p } : {};
  };
  for (const o of received) {
    const clave = str(o.claveRastreo);
    const amount = amountOf(o);
    const id = str(o.idEF) || str(o.id);
    if (!/^[A-Za-z0-9]{1,30}$/.test(clave) || !amount || !/^\d{1,20}$/.test(id)) {
      unreadable.push(`received order ${clave || id || '?'}`);
      continue;
    }
    if (str(o.estado) === 'CN') continue;
    movements.push({ amount, direction: 'credit', date, bankId: `R${id}`, claveRastreo: clave, ...party(o.nombreOrdenante, o.cuentaOrdenante) });
  }
  for (const o of sent) {
    const clave = str(o.claveRastreo);
    const amount = amountOf(o);
    const id = str(o.idEF) || str(o.id);
    if (!/^[A-Za-z0-9]{1,30}$/.test(clave) || !amount || !/^\d{1,20}$/.test(id)) {
      unreadable.push(`sent order ${clave || id || '?'}`);
      continue;
    }
    const estado = str(o.estado);
    if (estado !== 'LQ' && estado !== 'TLQ') continue;
    movements.push({ amount, direction: 'debit', date, bankId: `E${id}`, claveRastreo: clave, ...party(o.nombreBeneficiario, o.cuentaBeneficiario) });
  }
  return { movements, unreadable };
}
