// The PSP account's statement of a day, as camt.053 (src/reconciliation/camt-writer.ts): what a
// PSP's statement of the operator's account shows, so that a day reconciles in tests and for an
// operator trying caja out without a bank. Credits: every Pix received that day (the end-to-end
// id, the payer's name and document when the charge named a debtor); debits: every devolução
// settled that day (its return id as the end-to-end id of the outgoing Pix).
import { camt053, type Movement } from '../../../reconciliation/camt-writer.ts';
import { pixAccountId } from '../day.ts';
import type { Store } from './store.ts';

export function statementOfDay(store: Store, date: string, opening: string, account: string): string {
  const movements: Movement[] = [];
  for (const p of Object.values(store.state.pix)) {
    if (p.horario.slice(0, 10) === date) {
      const debtor = p.txid ? store.state.cobs[p.txid]?.devedor : undefined;
      const document = debtor?.cpf ?? debtor?.cnpj;
      movements.push({
        amount: p.valor, direction: 'credit', date, bankId: p.endToEndId, endToEndId: p.endToEndId,
        ...(debtor ? { counterparty: { ...(debtor.nome ? { name: String(debtor.nome) } : {}), ...(document ? { document: String(document) } : {}) } } : {}),
      });
    }
    for (const d of p.devolucoes) {
      if (d.status === 'DEVOLVIDO' && (d.horario.liquidacao ?? d.horario.solicitacao).slice(0, 10) === date) {
        movements.push({ amount: d.valor, direction: 'debit', date, bankId: d.rtrId, endToEndId: d.rtrId, info: `devolucao ${d.id} of ${p.endToEndId}` });
      }
    }
  }
  // Identifiers of at most 35 characters (34 for an account id), as the schema wants.
  const acct = pixAccountId(account);
  return camt053({ statementId: `${acct}-${date}`, account: { other: acct }, currency: 'BRL', date, opening, movements });
}
