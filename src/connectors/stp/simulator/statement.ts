// The STP account's statement of an operation day, as camt.053 (src/reconciliation/camt-writer.ts):
// the ordering account's received and sent orders of that day, the movements read exactly as caja
// reads STP's reconciliation query (../day.ts), so that a day reconciles in tests and for an
// operator trying caja out without a bank.
import { camt053 } from '../../../reconciliation/camt-writer.ts';
import { stpDayMovements } from '../day.ts';
import type { Bank } from './bank.ts';

export function statementOfDay(bank: Bank, date: string, opening: string): string {
  const day = Number(date.replaceAll('-', ''));
  const received = bank.received.filter((o) => o.fechaOperacion === day);
  const sent = [...bank.orders.values()].filter((o) => o.fechaOperacion === day);
  const { movements } = stpDayMovements(received, sent, date);
  const account = bank.identity.ordering_clabe;
  return camt053({ statementId: `${account}-${date}`, account: { other: account }, currency: 'MXN', date, opening, movements });
}
