// Loads what a statement's entries could name (matching.ts Knowledge), in a few set queries per
// statement rather than one per entry, inside the import's transaction.
import type { Queryable } from '../db/db.ts';
import {
  amountKey, type ClavePayment, completedByStatement, DATE_WINDOW_DAYS, depositIdOfNossoNumero, depositIdOfReference, type Knowledge, type KnownCashout, type KnownDeposit,
  type KnownRefund, referenceValues, speiRemainderOf,
} from './matching.ts';
import { connectorKinds } from '../connectors/providers.ts';
import type { EntryReferences, StatementEntry } from './statement.ts';
import { depositsForMatching } from '../deposits/lookups.ts';
import { cashoutsForMatching } from '../cashouts/lookups.ts';
import { refundsForMatching } from '../refunds/lookups.ts';
import { normalizeDocument } from '../domain/payer-rule.ts';

/** The connectors whose kind matches statement lines on the charge's reference (src/connectors/kind.ts matchKey): the statement completes their deposits. */
export function statementCompletes(): string[] {
  return connectorKinds().filter((k) => k.matchKey === 'charge_reference').map((k) => k.name);
}

/**
 * The connectors whose payment ids start with a clave de rastreo (`clave:institution:date`: matchKey
 * payment_id_head), as a condition written into the query (not a parameter; kind names are
 * [a-z0-9_]), so a partial index on one of them (migration 080's) applies to every plan. Null: none.
 */
function headConnectorsCondition(): string | null {
  const names = connectorKinds().filter((k) => k.matchKey === 'payment_id_head').map((k) => k.name).filter((n) => /^[a-z0-9_]{1,32}$/.test(n));
  if (names.length === 0) return null;
  return names.length === 1 ? `connector = '${names[0]}'` : `connector IN (${names.map((n) => `'${n}'`).join(', ')})`;
}

/** `also`: deposits, cashouts and refunds to load whatever the entries say (an operator's chosen target). */
export async function loadKnowledge(q: Queryable, entries: StatementEntry[], also: { deposits?: number[]; cashouts?: number[]; refunds?: number[] } = {}): Promise<Knowledge> {
  const allRefs: EntryReferences[] = entries.flatMap((e) => [e.refs, ...(e.batch ?? []).map((p) => p.refs)]);
  const values = [...new Set(allRefs.flatMap(referenceValues))];
  const depositIds = new Set<number>(also.deposits ?? []);
  const remainders = new Set<number>();
  const clabes = new Set<string>();
  for (const r of allRefs) {
    if (r.depositReference) {
      const id = depositIdOfReference(r.depositReference);
      if (id !== null) depositIds.add(id);
      const rem = speiRemainderOf(r.depositReference);
      if (rem !== null) remainders.add(rem);
    }
    if (r.nossoNumero) {
      const id = depositIdOfNossoNumero(r.nossoNumero);
      if (id !== null) depositIds.add(id);
    }
    if (r.clabe) clabes.add(r.clabe);
  }
  const creditAmounts = [...new Set(entries.filter((e) => e.direction === 'credit').map((e) => e.amount))];
  const debitAmounts = [...new Set(entries.filter((e) => e.direction === 'debit').map((e) => e.amount))];
  const earliest = entries.reduce((m, e) => (e.bookingDate < m ? e.bookingDate : m), '9999-12-31');
  const since = new Date(Date.parse(`${earliest}T00:00:00Z`) - DATE_WINDOW_DAYS * 86_400_000);

  const payments = await q.query<{ payment_id: string; deposit_id: number }>(
    `SELECT payment_id, deposit_id FROM connector_payments WHERE payment_id = ANY($1::text[]) AND status = 'applied' AND deposit_id IS NOT NULL`,
    [values],
  );
  for (const p of payments.rows) depositIds.add(p.deposit_id);
  // SPEI: an abono's clave de rastreo (its payment id's first part), with the CLABEs it names.
  const claves = [...new Set(allRefs.map((r) => r.claveRastreo).filter((v): v is string => !!v))];
  const heads = headConnectorsCondition();
  const abonos = claves.length === 0 || heads === null ? { rows: [] } : await q.query<{ clave: string; deposit_id: number; receiver: string | null; ordenante: string | null }>(
    `SELECT split_part(payment_id, ':', 1) AS clave, deposit_id, receiver, raw->>'cuentaOrdenante' AS ordenante FROM connector_payments
     WHERE ${heads} AND split_part(payment_id, ':', 1) = ANY($1::text[]) AND status = 'applied' AND deposit_id IS NOT NULL`,
    [claves],
  );
  for (const a of abonos.rows) depositIds.add(a.deposit_id);
  // Money sent: a payout's reference at its provider (STP's clave), a refund's (devolução id, return id, clave).
  const payouts = await q.query<{ cashout_id: number; reference: string }>('SELECT cashout_id, reference FROM connector_payouts WHERE reference = ANY($1::text[])', [values]);
  const refunds = { rows: await refundsForMatching(q, { references: values, ids: also.refunds ?? [] }) };
  const deposits = { rows: await depositsForMatching(q, { ids: [...depositIds], connectors: statementCompletes(), remainders: [...remainders], amounts: creditAmounts, since }) };
  const cashouts = { rows: await cashoutsForMatching(q, {
    references: values, ids: [...(also.cashouts ?? []), ...payouts.rows.map((p) => p.cashout_id)], accounts: [...clabes], amounts: [...creditAmounts, ...debitAmounts], since,
  }) };
  const matched = await q.query<{ target_type: string; target_id: number; effect: string }>(
    `SELECT target_type, target_id, effect FROM reconciliation_matches
     WHERE (target_type = 'deposit' AND target_id = ANY($1::integer[])) OR (target_type = 'cashout' AND target_id = ANY($2::integer[]))
        OR (target_type = 'refund' AND target_id = ANY($3::integer[]))`,
    [deposits.rows.map((d) => d.id), cashouts.rows.map((c) => c.id), refunds.rows.map((r) => r.id)],
  );
  const seen = new Set(matched.rows.map((m) => `${m.target_type}:${m.target_id}${m.effect === 'returned' ? ':return' : ''}`));

  const knownDeposits: KnownDeposit[] = deposits.rows.map((r) => ({
    id: r.id, status: r.status, connector: r.connector, amount: r.payer_amount, currency: r.local_currency, country: r.country,
    payerDocument: r.payer_document === null ? null : normalizeDocument(r.payer_document) || r.payer_document, createdAt: r.created_at, matched: seen.has(`deposit:${r.id}`),
    payerMustMatch: r.payer_must_match === true, payerChecked: r.payer_checked,
  }));
  const knownCashouts: KnownCashout[] = cashouts.rows.map((r) => ({
    id: r.id, status: r.status, amount: r.local_amount, currency: r.local_currency, bankAccount: r.bank_account, bankReference: r.bank_reference_id,
    document: normalizeDocument(r.document_id) || r.document_id, createdAt: r.created_at,
    matched: seen.has(`cashout:${r.id}`), returned: seen.has(`cashout:${r.id}:return`),
  }));
  const knownRefunds = new Map<number, KnownRefund>();
  const refundRefs: [string, number][] = [];
  for (const r of refunds.rows) {
    knownRefunds.set(r.id, { id: r.id, status: r.status, amount: r.amount, currency: r.currency, matched: seen.has(`refund:${r.id}`) });
    refundRefs.push([r.reference, r.id]);
    if (r.provider_id) refundRefs.push([r.provider_id, r.id]);
  }
  return indexKnowledge(knownDeposits, knownCashouts, payments.rows.map((p) => [p.payment_id, p.deposit_id]), {
    abonos: abonos.rows.map((a) => [a.clave, { depositId: a.deposit_id, clabes: [a.receiver, a.ordenante].filter((c): c is string => !!c) }]),
    payouts: payouts.rows.map((p) => [p.reference, p.cashout_id]),
    refunds: [...knownRefunds.values()], refundReferences: refundRefs,
  });
}

/** What an index takes beyond deposits and cashouts: STP abonos by clave, payouts' and refunds' provider references. */
export interface MoreKnowledge {
  abonos?: [clave: string, payment: ClavePayment][];
  payouts?: [reference: string, cashoutId: number][];
  refunds?: KnownRefund[];
  refundReferences?: [reference: string, refundId: number][];
}

/**
 * The maps the rules look things up in, from loaded deposits and cashouts (pure; the rules' unit
 * tests build their Knowledge with it, so they index exactly as an import does).
 */
export function indexKnowledge(deposits: KnownDeposit[], cashouts: KnownCashout[], payments: [paymentId: string, depositId: number][] = [], more: MoreKnowledge = {}): Knowledge {
  const k: Knowledge = {
    deposits: new Map(), depositByPayment: new Map(payments), cashouts: new Map(),
    cashoutByBankReference: new Map(), pendingDepositsByAmount: new Map(), openCashoutsByAmount: new Map(),
    depositsByClave: new Map(), completedByStatement: new Set(statementCompletes()), refunds: new Map((more.refunds ?? []).map((r) => [r.id, r])), refundByReference: new Map(more.refundReferences ?? []),
  };
  for (const [clave, p] of more.abonos ?? []) {
    const l = k.depositsByClave.get(clave);
    if (l) l.push(p);
    else k.depositsByClave.set(clave, [p]);
  }
  const push = (m: Map<string, number[]>, key: string, id: number) => {
    const l = m.get(key);
    if (l) l.push(id);
    else m.set(key, [id]);
  };
  for (const d of deposits) {
    k.deposits.set(d.id, d);
    if (d.status === 'PENDING' && completedByStatement(k, d)) push(k.pendingDepositsByAmount, amountKey(d.amount), d.id);
  }
  for (const c of cashouts) {
    k.cashouts.set(c.id, c);
    if (c.bankReference) k.cashoutByBankReference.set(c.bankReference, c.id);
    push(k.openCashoutsByAmount, amountKey(c.amount), c.id);
  }
  for (const [reference, id] of more.payouts ?? []) if (k.cashouts.has(id)) k.cashoutByBankReference.set(reference, id);
  return k;
}
