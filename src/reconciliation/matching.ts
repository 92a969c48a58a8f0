// The matching rules, pure: given an entry and what caja knows (a snapshot the service loads for
// the whole statement), what the entry is. Rules in order, the first that applies decides:
//
//   1. reference             a reference the entry carries names one deposit, cashout or refund
//                            (Pix end-to-end id; SPEI clave de rastreo of an STP abono, checked
//                            against the CLABE the entry names; the bank's reference of a
//                            cashout or an STP payout's clave; a refund's reference at its
//                            provider: Pix devolução id or return id, STP refund clave; caja's
//                            deposit or voucher reference, boleto nosso número, a CLABE with one
//                            open cashout of that amount). A credit names a cashout only by the
//                            bank's references (never the payer's remittance text), and returns
//                            it only when the bank marks it a reversal; only a debit names a
//                            refund (the money caja sent back)
//   2. amount_date_document  no reference: one PENDING own-accounts deposit (credit) or one sent
//                            cashout (debit) of that amount, currency and counterparty document,
//                            created in the date window before the booking date
//   3. settlement_batch      a credit listing its parts (camt TxDtls): every part names a
//                            completed deposit of its amount; the parts' sum less the credit is
//                            the fee the acquirer or PSP kept
// Anything else is an exception with its reason and the candidates an operator may pick from:
// nothing is guessed (two candidates are 'ambiguous', never the first of them). A credit from
// another payer than the deposit's, with the merchant's payer_must_match on, is 'payer_mismatch'
// (statementPayerCheck), never a completion.
import { isValidLuhn } from '../domain/vouchers.ts';
import { add, cmp, dec, sub, toDb, toPlainString } from '../domain/money.ts';
import { checkTransition, type DepositStatus } from '../domain/deposit-states.ts';
import { type CashoutStatus, nextCashoutStatus } from '../domain/cashout-states.ts';
import type { EntryReferences, StatementEntry } from './statement.ts';
import { checkPayer, type PayerCheck } from '../domain/payer-rule.ts';

export interface KnownDeposit {
  id: number;
  status: string;
  connector: string | null;
  /** What the payer pays, in the deposit's local currency. */
  amount: string;
  currency: string;
  country: string;
  payerDocument: string | null;
  createdAt: Date;
  /** Already matched to a bank entry (before this statement). */
  matched: boolean;
  /** The merchant's payer rule (payer_must_match) is on; `payerChecked` is the deposit's outcome of it so far. */
  payerMustMatch?: boolean;
  payerChecked?: boolean | null;
}

export interface KnownCashout {
  id: number;
  status: string;
  amount: string;
  currency: string;
  bankAccount: string;
  bankReference: string | null;
  document: string;
  createdAt: Date;
  /** Already matched to its debit / to its return (before this statement). */
  matched: boolean;
  returned: boolean;
}

/** A refund sent through a provider (connector_refunds): what its debit on a statement must show. */
export interface KnownRefund {
  id: number;
  status: string;
  /** What left the account, in the deposit's local currency. */
  amount: string;
  currency: string;
  /** Already matched to a bank debit (before this statement). */
  matched: boolean;
}

/** An STP abono caja applied, under its claveRastreo: the deposit, and the CLABEs it names (beneficiary, ordering). */
export interface ClavePayment {
  depositId: number;
  clabes: string[];
}

/** What the service loaded for a statement: every deposit, cashout and refund its entries could name. */
export interface Knowledge {
  deposits: Map<number, KnownDeposit>;
  /** Pix end-to-end ids of provider payments (connector_payments) → deposit id. */
  depositByPayment: Map<string, number>;
  /** STP abonos (payment id `clave:institution:date`) by their claveRastreo: SPEI repeats a clave across banks and days. */
  depositsByClave: Map<string, ClavePayment[]>;
  refunds: Map<number, KnownRefund>;
  /** A refund's references at its provider (the devolução id, its return id, the STP order's clave) → refund id. */
  refundByReference: Map<string, number>;
  cashouts: Map<number, KnownCashout>;
  cashoutByBankReference: Map<string, number>;
  /** PENDING deposits the statement completes, by amount (rule 2), and open cashouts by amount. */
  pendingDepositsByAmount: Map<string, number[]>;
  openCashoutsByAmount: Map<string, number[]>;
  /**
   * The connectors whose deposits a statement line completes (their kind matches on the charge's
   * reference: src/connectors/kind.ts matchKey); any other connector's deposit is only confirmed.
   */
  completedByStatement: ReadonlySet<string>;
}

/**
 * What an entry may name. The kinds are kept apart (a match kind is one type + one effect): a
 * bank-initiated return of a received payment is its own kind, added beside these.
 */
export type TargetType = 'deposit' | 'cashout' | 'refund';
export type Target = { type: TargetType; id: number };
export type Effect = 'complete' | 'confirm' | 'return';

/**
 * What a bank credit naming a deposit does, by the deposit state machine (domain/deposit-states.ts):
 * a payment completes a deposit that may become COMPLETED by payment (complete), an operator's
 * late payment one that may by late payment only (late_payment: a CANCELLED one), and a COMPLETED
 * deposit is only confirmed. A crypto deposit's APPROVED funds arrive through its own connector,
 * never on a statement (null, as any other state: the statement cannot complete it).
 */
export function depositCreditEffect(status: string, byOperator: boolean): Effect | 'late_payment' | null {
  if (status === 'COMPLETED') return 'confirm';
  if (status === 'APPROVED') return null;
  const from = status as DepositStatus;
  if (checkTransition(from, 'COMPLETED', 'payment', false).ok) return 'complete';
  return byOperator && checkTransition(from, 'COMPLETED', 'late_payment', false).ok ? 'late_payment' : null;
}

/**
 * What a bank entry naming a cashout does, by the cashout state machine (domain/cashout-states.ts):
 * a debit completes a cashout the bank may complete, and confirms a COMPLETED one; a returned
 * credit rejects one the bank may still reject.
 */
export function cashoutEntryEffect(status: string, direction: 'credit' | 'debit'): Effect | null {
  const from = status as CashoutStatus;
  if (direction === 'credit') return nextCashoutStatus(from, 'reject') ? 'return' : null;
  if (nextCashoutStatus(from, 'complete')) return 'complete';
  return status === 'COMPLETED' ? 'confirm' : null;
}
export type Rule = 'reference' | 'amount_date_document' | 'settlement_batch';
export type ExceptionReason = 'unknown_reference' | 'no_match' | 'ambiguous' | 'amount_differs' | 'already_completed' | 'already_matched' | 'not_completable'
  /** Production: the rules matched, but the effect credits a merchant: a second operator approves it (src/operators/four-eyes.ts). */
  | 'awaits_approval'
  /** The merchant's payer rule: the entry's counterparty document is not the deposit's payer (the operator sends it back). */
  | 'payer_mismatch';

export interface Candidate {
  type: TargetType;
  id: number;
  status: string;
  amount: string;
  currency: string;
}

export type Decision =
  | { kind: 'match'; rule: Rule; parts: { target: Target; effect: Effect; amount: string }[]; fee: string | null }
  | { kind: 'exception'; reason: ExceptionReason; detail: string; candidates: Candidate[] };

/**
 * The payer rule on a bank credit naming a deposit (docs/connectors.md, "The payer rule"): null when
 * the merchant's payer_must_match is off, else how the entry's counterparty document compares with
 * the deposit's payer ('not_reported' when the statement names no counterparty document). A deposit
 * its connector completed is checked here only when the connector did not report the payer (payer_checked false).
 */
export function statementPayerCheck(d: Pick<KnownDeposit, 'payerDocument' | 'payerMustMatch' | 'payerChecked' | 'status'>, document: string | undefined): PayerCheck | null {
  if (!d.payerMustMatch) return null;
  // A completed deposit was checked when its connector completed it, unless the connector did not report the payer (false).
  if (d.status === 'COMPLETED' && d.payerChecked !== false) return null;
  return checkPayer(document, d.payerDocument);
}

/** Why a credit from another payer is an exception, for the operator who sends it back. */
export function payerMismatchDetail(d: Pick<KnownDeposit, 'id' | 'status' | 'payerDocument'>, document: string): string {
  return d.status === 'COMPLETED'
    ? `deposit ${d.id} was completed by its connector, which did not report the payer; the statement shows document ${document}, not the deposit's payer (payer_must_match): the operator sends it back (a refund of the deposit)`
    : `the statement's counterparty document ${document} is not deposit ${d.id}'s payer (payer_must_match): nothing credited, the operator sends it back`;
}

/** The key of an amount in the by-amount maps: "10.50" and "10.5" are one amount. */
export const amountKey = (amount: string): string => toPlainString(dec(amount));

/** Days before the booking date a deposit or cashout may have been created (rule 2). */
export const DATE_WINDOW_DAYS = 7;

/** The deposit id a caja reference names, when it is one (checked, so a typo names nothing). */
export function depositIdOfReference(ref: string): number | null {
  // Bank transfer reference: 7 + 10-digit id + Luhn (payment-info.ts depositReference).
  if (/^7\d{11}$/.test(ref) && isValidLuhn(ref)) return Number(ref.slice(1, 11));
  // Cash voucher reference: 93 + 11-digit id + Luhn.
  if (/^93\d{12}$/.test(ref) && isValidLuhn(ref)) return Number(ref.slice(2, 13));
  return null;
}

/** SPEI's 7-digit numeric reference: the deposit id modulo a million, with a Luhn digit. */
export function speiRemainderOf(ref: string): number | null {
  return /^\d{7}$/.test(ref) && isValidLuhn(ref) ? Number(ref.slice(0, 6)) : null;
}

/** Boleto nosso número: the deposit id (payment-info.ts voucherMetadata's free field). */
export function depositIdOfNossoNumero(nn: string): number | null {
  return /^\d{1,10}$/.test(nn) && Number(nn) > 0 ? Number(nn) : null;
}

/** Every reference value of an entry, for loading what they could name. */
export function referenceValues(refs: EntryReferences): string[] {
  return Object.values(refs).filter((v): v is string => typeof v === 'string' && v.length > 0);
}

const known = (k: Knowledge, t: Target): KnownDeposit | KnownCashout | KnownRefund | undefined =>
  t.type === 'deposit' ? k.deposits.get(t.id) : t.type === 'cashout' ? k.cashouts.get(t.id) : k.refunds.get(t.id);

const candidateOf = (k: Knowledge, t: Target): Candidate => {
  const x = known(k, t)!;
  return { type: t.type, id: t.id, status: x.status, amount: x.amount, currency: x.currency };
};

/**
 * The references of an entry the bank itself asserts (the clearing's ids and its own): the only
 * ones that may name a cashout on a credit. A credit's remittance information is the payer's free
 * text: a payer who types a paid cashout's clave de rastreo there must not turn it into a return.
 */
const BANK_ASSERTED: (keyof EntryReferences)[] = ['endToEndId', 'claveRastreo', 'bankReference'];

/** The targets a set of references names, and whether any of them looked like caja's own. */
export function resolveReferences(
  k: Knowledge, refs: EntryReferences, entry: Pick<StatementEntry, 'amount' | 'currency'> & { direction?: StatementEntry['direction'] },
): { targets: Target[]; claimed: string[] } {
  const found = new Map<string, Target>();
  const claimed: string[] = [];
  const add = (t: Target) => found.set(`${t.type}:${t.id}`, t);
  for (const value of referenceValues(refs)) {
    const byPayment = k.depositByPayment.get(value);
    if (byPayment !== undefined) add({ type: 'deposit', id: byPayment });
  }
  // A debit is caja's own order (its text is caja's); a credit names a cashout only by what the bank asserts.
  const cashoutRefs = entry.direction === 'credit' ? BANK_ASSERTED.map((key) => refs[key]).filter((v): v is string => typeof v === 'string' && v.length > 0) : referenceValues(refs);
  for (const value of cashoutRefs) {
    const cashout = k.cashoutByBankReference.get(value);
    if (cashout !== undefined) add({ type: 'cashout', id: cashout });
  }
  // Money caja sent back: a debit naming a refund by what the provider and the clearing assert.
  if (entry.direction === 'debit') {
    for (const key of BANK_ASSERTED) {
      const value = refs[key];
      const refund = value ? k.refundByReference.get(value) : undefined;
      if (refund !== undefined) add({ type: 'refund', id: refund });
    }
  }
  // An SPEI credit by its clave de rastreo: the abono caja applied under it. A clave repeats
  // across sending banks and days, so a CLABE on the entry (the ordering or the beneficiary
  // account) must be one the abono names, and two abonos left are named both (ambiguous).
  if (entry.direction !== 'debit' && refs.claveRastreo) {
    const payments = (k.depositsByClave.get(refs.claveRastreo) ?? []).filter((p) => !refs.clabe || p.clabes.includes(refs.clabe));
    for (const p of payments) add({ type: 'deposit', id: p.depositId });
    if ((k.depositsByClave.get(refs.claveRastreo) ?? []).length > 0) claimed.push(refs.claveRastreo);
  }
  if (refs.depositReference) {
    const id = depositIdOfReference(refs.depositReference);
    if (id !== null) {
      claimed.push(refs.depositReference);
      if (k.deposits.has(id)) add({ type: 'deposit', id });
    }
    const remainder = speiRemainderOf(refs.depositReference);
    if (remainder !== null) {
      // Repeats every million deposits: only the PENDING MX deposits the statement completes count.
      for (const d of k.deposits.values()) {
        if (d.id % 1_000_000 === remainder && d.country === 'MX' && completedByStatement(k, d) && d.status === 'PENDING') add({ type: 'deposit', id: d.id });
      }
    }
  }
  if (refs.nossoNumero) {
    const id = depositIdOfNossoNumero(refs.nossoNumero);
    claimed.push(refs.nossoNumero);
    if (id !== null && k.deposits.has(id)) add({ type: 'deposit', id });
  }
  if (refs.clabe && found.size === 0) {
    const open = (k.openCashoutsByAmount.get(amountKey(entry.amount)) ?? []).filter((id) => {
      const c = k.cashouts.get(id)!;
      return c.bankAccount === refs.clabe && c.currency === entry.currency;
    });
    if (open.length === 1) add({ type: 'cashout', id: open[0]! });
  }
  return { targets: [...found.values()], claimed };
}

const sameAmount = (a: string, b: string) => cmp(dec(a), dec(b)) === 0;

/** Whether a statement line completes this deposit (its connector's kind matches on the charge's reference). */
export function completedByStatement(k: Pick<Knowledge, 'completedByStatement'>, d: Pick<KnownDeposit, 'connector'>): boolean {
  return d.connector !== null && k.completedByStatement.has(d.connector);
}

/**
 * What one entry's single target means. `used` holds the targets matched earlier in the same
 * statement (a second entry naming the same deposit is 'already_matched').
 */
function decideTarget(k: Knowledge, e: StatementEntry, t: Target, rule: Rule, used: Set<string>): Decision {
  const c = candidateOf(k, t);
  const exception = (reason: ExceptionReason, detail: string): Decision => ({ kind: 'exception', reason, detail, candidates: [c] });
  const match = (effect: Effect): Decision => ({ kind: 'match', rule, parts: [{ target: t, effect, amount: e.amount }], fee: null });
  const key = `${t.type}:${t.id}`;
  if (t.type === 'deposit') {
    const d = k.deposits.get(t.id)!;
    if (e.direction === 'debit') return exception('not_completable', `a debit names deposit ${d.id}; only credits pay deposits`);
    if (d.matched || used.has(key)) return exception('already_matched', `deposit ${d.id} was already matched to another bank entry`);
    if (d.currency !== e.currency || !sameAmount(d.amount, e.amount)) {
      return exception('amount_differs', `deposit ${d.id} expects ${d.amount} ${d.currency}, the bank received ${e.amount} ${e.currency}`);
    }
    const effect = depositCreditEffect(d.status, false);
    // The payer rule: money from another payer never credits the merchant (an own-accounts
    // deposit the entry would complete; a connector's deposit completed without the payer's document).
    const byStatement = completedByStatement(k, d);
    const credits = (effect === 'complete' && byStatement) || (effect === 'confirm' && !byStatement);
    if (credits && statementPayerCheck(d, e.counterparty.document) === 'mismatch') {
      return exception('payer_mismatch', payerMismatchDetail(d, e.counterparty.document!));
    }
    if (effect === 'complete') {
      return completedByStatement(k, d)
        ? match('complete')
        : exception('not_completable', d.connector === null
          ? `deposit ${d.id} is ${d.status} with no connector's charge, and the statement does not complete it`
          : `deposit ${d.id} is ${d.status} at its connector (${d.connector}), which completes it, not the statement`);
    }
    if (effect === 'confirm') {
      return completedByStatement(k, d)
        ? exception('already_completed', `deposit ${d.id} was completed before the bank showed its money`)
        : match('confirm');
    }
    return exception('not_completable', `deposit ${d.id} is ${d.status}`);
  }
  if (t.type === 'refund') return decideRefund(k.refunds.get(t.id)!, e, key, used, exception, match);
  const co = k.cashouts.get(t.id)!;
  if (co.currency !== e.currency || !sameAmount(co.amount, e.amount)) {
    return exception('amount_differs', `cashout ${co.id} sent ${co.amount} ${co.currency}, the bank shows ${e.amount} ${e.currency}`);
  }
  if (e.direction === 'credit') {
    if (co.returned || used.has(`${key}:return`)) return exception('already_matched', `cashout ${co.id}'s return was already matched`);
    // Only the bank's own word makes it a return (camt RvslInd, CNAB devolução): any other
    // credit naming a cashout is for the operator to judge, never a rejection on its own.
    if (!e.reversal) return exception('not_completable', `a credit names cashout ${co.id} but the bank does not mark it a return (no reversal): the operator decides`);
    if (cashoutEntryEffect(co.status, 'credit') === 'return') return match('return');
    return exception('not_completable', `cashout ${co.id} is ${co.status}; a return of it cannot apply`);
  }
  if (co.matched || used.has(key)) return exception('already_matched', `cashout ${co.id} was already matched to another bank entry`);
  const effect = cashoutEntryEffect(co.status, 'debit');
  if (effect) return match(effect);
  return exception('not_completable', `cashout ${co.id} is ${co.status}; the bank paid out a cashout caja did not send`);
}

/**
 * A debit naming a refund: the money its provider sent back. The provider completes a refund (its
 * connector reads the outcome back); the statement confirms a COMPLETED one. A refund still
 * PENDING, or refused, is for the operator: the bank shows money caja does not count as sent.
 */
function decideRefund(r: KnownRefund, e: StatementEntry, key: string, used: Set<string>,
  exception: (reason: ExceptionReason, detail: string) => Decision, match: (effect: Effect) => Decision): Decision {
  if (e.direction === 'credit') return exception('not_completable', `a credit names refund ${r.id}; a refund is money sent, a debit`);
  if (r.matched || used.has(key)) return exception('already_matched', `refund ${r.id} was already matched to another bank entry`);
  if (r.currency !== e.currency || !sameAmount(r.amount, e.amount)) {
    return exception('amount_differs', `refund ${r.id} sent ${r.amount} ${r.currency}, the bank shows ${e.amount} ${e.currency}`);
  }
  const effect = refundDebitEffect(r.status);
  if (effect) return match(effect);
  return exception('not_completable', `refund ${r.id} is ${r.status}; its provider has not completed it, yet the bank shows the money sent`);
}

/** What a bank debit naming a refund does: confirms a COMPLETED refund (its provider completed it); nothing else. */
export function refundDebitEffect(status: string): Effect | null {
  return status === 'COMPLETED' ? 'confirm' : null;
}

function batchDecision(k: Knowledge, e: StatementEntry, used: Set<string>): Decision {
  const parts: { target: Target; effect: Effect; amount: string }[] = [];
  const candidates: Candidate[] = [];
  const problems: string[] = [];
  let total = dec('0');
  for (const [i, p] of e.batch!.entries()) {
    const { targets } = resolveReferences(k, p.refs, { amount: p.amount, currency: e.currency, direction: e.direction });
    if (targets.length !== 1 || targets[0]!.type !== 'deposit') {
      problems.push(`part ${i + 1} names ${targets.length === 0 ? 'nothing caja knows' : 'more than one deposit'}`);
      continue;
    }
    const t = targets[0]!;
    const d = k.deposits.get(t.id)!;
    candidates.push(candidateOf(k, t));
    if (d.matched || used.has(`deposit:${d.id}`)) problems.push(`part ${i + 1}: deposit ${d.id} was already matched`);
    else if (d.status !== 'COMPLETED') problems.push(`part ${i + 1}: deposit ${d.id} is ${d.status}, not COMPLETED`);
    else if (d.currency !== e.currency || !sameAmount(d.amount, p.amount)) problems.push(`part ${i + 1}: deposit ${d.id} is ${d.amount} ${d.currency}, the part ${p.amount}`);
    else parts.push({ target: t, effect: 'confirm', amount: p.amount });
    total = add(total, dec(p.amount));
  }
  if (problems.length > 0) {
    const reason: ExceptionReason = problems.some((p) => p.includes('already matched')) ? 'already_matched' : problems.some((p) => p.includes('names')) ? 'unknown_reference' : 'amount_differs';
    return { kind: 'exception', reason, detail: `settlement batch: ${problems.join('; ')}`, candidates };
  }
  const fee = sub(total, dec(e.amount));
  if (fee.units < 0n) {
    return { kind: 'exception', reason: 'amount_differs', detail: `settlement batch: the bank credited ${e.amount}, more than its parts (${toDb(total)})`, candidates };
  }
  return { kind: 'match', rule: 'settlement_batch', parts, fee: toDb(fee) };
}

function withinWindow(created: Date, bookingDate: string): boolean {
  const booking = Date.parse(`${bookingDate}T23:59:59Z`);
  return created.getTime() <= booking + 86_400_000 && created.getTime() >= booking - DATE_WINDOW_DAYS * 86_400_000;
}

function byAmountDateDocument(k: Knowledge, e: StatementEntry, used: Set<string>): Decision {
  const document = e.counterparty.document;
  const key = amountKey(e.amount);
  const pool: Target[] = e.direction === 'credit'
    ? (k.pendingDepositsByAmount.get(key) ?? []).map((id) => ({ type: 'deposit' as const, id }))
    : (k.openCashoutsByAmount.get(key) ?? []).map((id) => ({ type: 'cashout' as const, id }));
  const inWindow = pool.filter((t) => {
    if (used.has(`${t.type}:${t.id}`)) return false;
    const x = t.type === 'deposit' ? k.deposits.get(t.id)! : k.cashouts.get(t.id)!;
    return x.currency === e.currency && withinWindow(x.createdAt, e.bookingDate);
  });
  if (!document) {
    return { kind: 'exception', reason: 'no_match', detail: 'no reference and no counterparty document: nothing to match on', candidates: inWindow.map((t) => candidateOf(k, t)) };
  }
  const same = inWindow.filter((t) => (t.type === 'deposit' ? k.deposits.get(t.id)!.payerDocument : k.cashouts.get(t.id)!.document) === document);
  if (same.length === 1) return decideTarget(k, e, same[0]!, 'amount_date_document', used);
  if (same.length > 1) {
    return { kind: 'exception', reason: 'ambiguous', detail: `${same.length} candidates of that amount, window and document`, candidates: same.map((t) => candidateOf(k, t)) };
  }
  return { kind: 'exception', reason: 'no_match', detail: `nothing of ${e.amount} ${e.currency} for document ${document} in the ${DATE_WINDOW_DAYS}-day window`, candidates: inWindow.map((t) => candidateOf(k, t)) };
}

/** The decision for one entry; `used` collects the targets it takes (same statement). */
export function decide(k: Knowledge, e: StatementEntry, used: Set<string>): Decision {
  let d: Decision;
  if (e.batch && e.batch.length > 1) d = batchDecision(k, e, used);
  else {
    const { targets, claimed } = resolveReferences(k, e.refs, e);
    if (targets.length === 1) d = decideTarget(k, e, targets[0]!, 'reference', used);
    else if (targets.length > 1) {
      d = { kind: 'exception', reason: 'ambiguous', detail: `the references name ${targets.length} different things`, candidates: targets.map((t) => candidateOf(k, t)) };
    } else if (claimed.length > 0) {
      d = { kind: 'exception', reason: 'unknown_reference', detail: `reference ${claimed.join(', ')} names no deposit or cashout caja has`, candidates: [] };
    } else d = byAmountDateDocument(k, e, used);
  }
  if (d.kind === 'match') for (const p of d.parts) used.add(`${p.target.type}:${p.target.id}${p.effect === 'return' ? ':return' : ''}`);
  return d;
}

/**
 * An operator's "match this entry to that": the same checks as the rules (currency, amount, not
 * matched twice), and what the match does. Unlike the rules, an operator may take a COMPLETED
 * own-accounts deposit as this entry's money (confirm) and complete a CANCELLED one as a late
 * payment. Returns the decision, or why the target does not fit.
 */
export function operatorDecision(k: Knowledge, e: StatementEntry, t: Target): { ok: true; effect: Effect | 'late_payment' } | { ok: false; reason: string } {
  const x = known(k, t);
  if (!x) return { ok: false, reason: `${t.type} ${t.id} does not exist` };
  if (x.currency !== e.currency || !sameAmount(x.amount, e.amount)) {
    return { ok: false, reason: `${t.type} ${t.id} is ${x.amount} ${x.currency}, the entry ${e.amount} ${e.currency}: book the difference instead` };
  }
  if (t.type === 'deposit') {
    const d = x as KnownDeposit;
    if (e.direction !== 'credit') return { ok: false, reason: 'only a credit pays a deposit' };
    if (d.matched) return { ok: false, reason: `deposit ${d.id} is already matched to another bank entry` };
    if (statementPayerCheck(d, e.counterparty.document) === 'mismatch') {
      return { ok: false, reason: `payer mismatch: the entry's counterparty document ${e.counterparty.document} is not deposit ${d.id}'s payer (payer_must_match); send it back` };
    }
    const effect = depositCreditEffect(d.status, true);
    return effect ? { ok: true, effect } : { ok: false, reason: `deposit ${d.id} is ${d.status}` };
  }
  if (t.type === 'refund') {
    const r = x as KnownRefund;
    if (e.direction !== 'debit') return { ok: false, reason: 'only a debit is a refund sent' };
    if (r.matched) return { ok: false, reason: `refund ${r.id} is already matched to another bank entry` };
    const effect = refundDebitEffect(r.status);
    return effect ? { ok: true, effect } : { ok: false, reason: `refund ${r.id} is ${r.status}` };
  }
  const c = x as KnownCashout;
  if (e.direction === 'credit') {
    if (c.returned) return { ok: false, reason: `cashout ${c.id}'s return is already matched` };
    const effect = cashoutEntryEffect(c.status, 'credit');
    return effect ? { ok: true, effect } : { ok: false, reason: `cashout ${c.id} is ${c.status}` };
  }
  if (c.matched) return { ok: false, reason: `cashout ${c.id} is already matched to another bank entry` };
  const effect = cashoutEntryEffect(c.status, 'debit');
  return effect ? { ok: true, effect } : { ok: false, reason: `cashout ${c.id} is ${c.status}` };
}

/**
 * An operator's many-to-one match: one bank credit is the settlement of these COMPLETED deposits
 * (a PSP or acquirer batch the file did not itemise, as OFX and CNAB never do). The parts' sum
 * less the credit is the fee kept, booked to fees; a credit above the parts is refused.
 */
export function operatorBatchDecision(k: Knowledge, e: StatementEntry, depositIds: number[]): { ok: true; fee: string; amounts: string[] } | { ok: false; reason: string } {
  if (e.direction !== 'credit') return { ok: false, reason: 'only a credit settles a batch of deposits' };
  if (new Set(depositIds).size !== depositIds.length) return { ok: false, reason: 'a deposit is named twice' };
  let total = dec('0');
  const amounts: string[] = [];
  for (const id of depositIds) {
    const d = k.deposits.get(id);
    if (!d) return { ok: false, reason: `deposit ${id} does not exist` };
    if (d.status !== 'COMPLETED') return { ok: false, reason: `deposit ${id} is ${d.status}; a settlement batch pays COMPLETED deposits` };
    if (d.matched) return { ok: false, reason: `deposit ${id} is already matched to another bank entry` };
    if (d.currency !== e.currency) return { ok: false, reason: `deposit ${id} is in ${d.currency}, the entry in ${e.currency}` };
    total = add(total, dec(d.amount));
    amounts.push(d.amount);
  }
  const fee = sub(total, dec(e.amount));
  if (fee.units < 0n) return { ok: false, reason: `the deposits sum to ${toDb(total)}, less than the ${e.amount} credited` };
  return { ok: true, fee: toDb(fee), amounts };
}
