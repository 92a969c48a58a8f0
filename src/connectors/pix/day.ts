// The PSP account's day from GET /pix (the received Pix with their devoluções, BACEN's API Pix),
// as movements: what the daily provider statement imports (src/reconciliation/provider-statements.ts).
// A day is a UTC calendar day, as the Pix simulator's statement counts it. Pure.
//
//   a Pix received that day          credit, its end-to-end id
//   a devolução settled that day     debit, its return id (rtrId) as the end-to-end id
//   a Pix sent that day (a payout)   debit, its end-to-end id (GET /v2/gn/pix/enviados, Efí's
//                                    send API, when the connector pays cashouts); a send the
//                                    receiving bank returned later is the connector's to reject
import { createHash } from 'node:crypto';
import { parseAmount, toFixed } from '../../domain/money.ts';
import type { ProviderMovement } from '../payin.ts';

/** The PSP account as statements name it (an Othr/Id of at most 34 characters): from the operator's Pix key. */
export function pixAccountId(pixKey: string): string {
  return `PIX${createHash('sha256').update(pixKey).digest('hex').slice(0, 16).toUpperCase()}`;
}

/** Days back the sends are read for one made (REALIZADO) on the day but requested before it. */
export const SEND_LOOKBACK_DAYS = 5;

/** The sends made (REALIZADO, settled on `date`) among those listed, as debits; what cannot be read is named. */
export function pixSendMovements(list: unknown[], date: string): { movements: ProviderMovement[]; unreadable: string[] } {
  const movements: ProviderMovement[] = [];
  const unreadable: string[] = [];
  for (const item of list) {
    const x = item && typeof item === 'object' ? (item as Record<string, unknown>) : {};
    if (x.status !== 'REALIZADO') continue;
    const e2e = typeof x.endToEndId === 'string' ? x.endToEndId : '';
    const amount = valor(x.valor);
    const h = x.horario && typeof x.horario === 'object' ? (x.horario as Record<string, unknown>) : {};
    const settled = typeof h.liquidacao === 'string' ? new Date(h.liquidacao) : null;
    if (!E2E.test(e2e) || !amount || !settled || Number.isNaN(settled.getTime())) {
      unreadable.push(`send ${String(x.idEnvio ?? e2e ?? '?')}`);
      continue;
    }
    if (settled.toISOString().slice(0, 10) === date) {
      movements.push({ amount, direction: 'debit', date, bankId: e2e, endToEndId: e2e, info: `pix sent ${String(x.idEnvio ?? '')}` });
    }
  }
  return { movements, unreadable };
}

/** Days back GET /pix is read for devoluções settled on the day of Pix received before it. */
export const DEVOLUCAO_LOOKBACK_DAYS = 90;

const E2E = /^[ED][0-9A-Za-z]{31}$/;

function valor(v: unknown): string | null {
  const parsed = typeof v === 'string' ? parseAmount(v, { maxDecimals: 2 }) : null;
  return parsed?.ok && parsed.value.units > 0n ? toFixed(parsed.value, 2) : null;
}

/** The movements of `date` (yyyy-mm-dd) among the Pix listed; what cannot be read is named in `unreadable`. */
export function pixDayMovements(list: unknown[], date: string): { movements: ProviderMovement[]; unreadable: string[] } {
  const movements: ProviderMovement[] = [];
  const unreadable: string[] = [];
  for (const item of list) {
    const p = item && typeof item === 'object' ? (item as Record<string, unknown>) : {};
    const e2e = typeof p.endToEndId === 'string' ? p.endToEndId : '';
    const amount = valor(p.valor);
    const at = typeof p.horario === 'string' ? new Date(p.horario) : null;
    if (!E2E.test(e2e) || !amount || !at || Number.isNaN(at.getTime())) {
      unreadable.push(`pix ${e2e || '?'}`);
      continue;
    }
    if (at.toISOString().slice(0, 10) === date) movements.push({ amount, direction: 'credit', date, bankId: e2e, endToEndId: e2e });
    for (const d of Array.isArray(p.devolucoes) ? p.devolucoes : []) {
      const dv = d && typeof d === 'object' ? (d as Record<string, unknown>) : {};
      if (dv.status !== 'DEVOLVIDO') continue;
      const h = dv.horario && typeof dv.horario === 'object' ? (dv.horario as Record<string, unknown>) : {};
      const when = typeof h.liquidacao === 'string' ? h.liquidacao : typeof h.solicitacao === 'string' ? h.solicitacao : '';
      const rtr = typeof dv.rtrId === 'string' ? dv.rtrId : '';
      const back = valor(dv.valor);
      const settled = when ? new Date(when) : null;
      if (!E2E.test(rtr) || !back || !settled || Number.isNaN(settled.getTime())) {
        unreadable.push(`devolucao ${String(dv.id ?? '?')} of ${e2e}`);
        continue;
      }
      if (settled.toISOString().slice(0, 10) === date) {
        movements.push({ amount: back, direction: 'debit', date, bankId: rtr, endToEndId: rtr, info: `devolucao ${String(dv.id ?? '')} of ${e2e}` });
      }
    }
  }
  return { movements, unreadable };
}
