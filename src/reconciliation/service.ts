// Reconciliation against bank statements: the service the admin API, the CLI and the operator
// console call.
//
//   importStatement(ctx, format, bytes, ops)  parse (a malformed file imports nothing), then in
//                                        one transaction: the statement (a second import of the
//                                        same statement finds the first and changes nothing),
//                                        its new entries, each entry decided by the rules
//                                        (matching.ts), every match's effect through the
//                                        services that own it (deposit completion, cashout
//                                        completion or late rejection), its booking on the
//                                        ledger's bank side, the exceptions, the audit row
//   resolveException(ctx, id, resolution, ops)  an operator's decision on one exception, in
//                                        one transaction with its effect, booking and audit row
//   listImports / listMatches / listExceptions / getException   pages, newest first
import { createHash } from 'node:crypto';
import type { AppContext } from '../config/context.ts';
import type { Queryable } from '../db/db.ts';
import type { Page } from '../db/paging.ts';
import { type OpsActor, opsActorName, recordAudit } from '../audit/audit.ts';
import { connectorKind } from '../connectors/providers.ts';
import { applyStatementPayment, notePayerFromStatement, refuseStatementPayment } from '../deposits/payments.ts';
import { loadConnectorRows } from '../connectors/store.ts';
import { CashoutError, transitionCashoutIn } from '../cashouts/service.ts';
import { DepositError, transitionDepositIn } from '../deposits/service.ts';
import { add, dec, type Decimal, fromDb, neg, sub, toDb } from '../domain/money.ts';
import { bankAccount, type BankSideKind, cajaAccount, type Posting, transfer } from '../ledger/ledger.ts';
import { ReconciliationError } from './errors.ts';
import { ParseLimitError, parseStatementOffThread } from './off-thread.ts';
import { loadKnowledge, statementCompletes } from './knowledge.ts';
import { type Candidate, decide, type Decision, type Effect, type ExceptionReason, operatorBatchDecision, operatorDecision, type Rule, type Target } from './matching.ts';
import { type ParsedStatement, type StatementEntry, StatementFormatError, type StatementFormat } from './statement.ts';

export { ReconciliationError } from './errors.ts';

export interface ImportFigures {
  statement_id: number;
  entries: number;
  matched: number;
  exceptions: number;
  /** Entries already imported from an earlier statement (camt.054 before camt.053): stored once. */
  repeated: number;
}

export interface ImportResult extends ImportFigures {
  /** False when this statement had been imported already: nothing changed. */
  created: boolean;
}

const EFFECT_WORD: Record<Effect | 'late_payment', string> = { complete: 'completed', confirm: 'confirmed', return: 'returned', late_payment: 'completed' };
const CHUNK = 5000;

/** Signed as the bank sees it: a credit adds to the account. */
const signed = (e: { amount: string; direction: 'credit' | 'debit' }): Decimal => (e.direction === 'credit' ? dec(e.amount) : neg(dec(e.amount)));

/**
 * The ledger's bank side of one entry, booked once (kind bank.entry, subject the entry). caja's
 * ledger carries the money it holds as negative balances (settlement, the asset, goes below zero
 * when a deposit is credited), so the bank account moves opposite to the statement, and the
 * counter account clears what the deposit or cashout put in settlement. A batch's fee goes to
 * bank_fees: settlement clears the parts' sum, the bank got the sum less the fee.
 */
async function bookEntry(q: Queryable, entryId: number, bankAccountId: number, e: { amount: string; currency: string; direction: 'credit' | 'debit' },
  counter: Exclude<BankSideKind, 'bank'> | 'settlement', fee: string | null, description: string): Promise<void> {
  const s = signed(e);
  const f = fee === null ? dec('0') : dec(fee);
  const postings: Posting[] = [bankAccount(bankAccountId, e.currency, neg(s))];
  if (counter === 'settlement') postings.push(cajaAccount(e.currency, 'settlement', add(s, f)), cajaAccount(e.currency, 'bank_fees', neg(f)));
  else postings.push(cajaAccount(e.currency, counter, s));
  await transfer(q, { merchantId: null, kind: 'bank.entry', subjectType: 'bank_entry', subjectId: entryId, postings, description });
}

/** One match's effect through the service that owns the target; false when its state moved meanwhile. */
async function applyEffect(q: Queryable, ctx: AppContext, t: Target, effect: Effect | 'late_payment', entry: StoredEntry): Promise<boolean> {
  try {
    if (t.type === 'deposit') {
      if (effect === 'complete') {
        const applied = await applyStatementPayment(q, ctx, statementCompletes(), t.id, statementPaymentOf(entry));
        return applied === 'applied';
      }
      if (effect === 'confirm') await notePayerFromStatement(q, t.id, entry.counterparty.document);
      if (effect === 'late_payment') {
        await transitionDepositIn(q, ctx, t.id, 'COMPLETED', 'late_payment', { actor: 'operator', note: `bank statement entry ${entry.id}` });
      }
      return true;
    }
    // A refund's provider completes it; its debit on a statement only confirms (matching.ts refundDebitEffect).
    if (t.type === 'refund') return effect === 'confirm';
    if (effect === 'complete') await transitionCashoutIn(q, ctx, t.id, 'complete', { actor: 'bank', cause: `paid on the bank statement (entry ${entry.id})` });
    // The late-rejection rule of transitionCashoutIn: a COMPLETED cashout returned is REJECTED 809
    // and its money goes back to available; a DELIVERED one is rejected 808 and its reservation voided.
    if (effect === 'return') await transitionCashoutIn(q, ctx, t.id, 'reject', { actor: 'bank', cause: `returned on the bank statement (entry ${entry.id})` });
    return true;
  } catch (err) {
    // Both throw before writing anything when the state machine refuses.
    if ((err instanceof DepositError || err instanceof CashoutError) && err.kind === 'invalid_transition') return false;
    throw err;
  }
}

/** A statement entry as the payment it shows (its id unique per bank account and entry). */
const statementPaymentOf = (entry: StoredEntry) => ({
  id: `bank:${entry.bankAccountId}:${entry.key}`, amount: dec(entry.amount), currency: entry.currency, receiver: entry.account,
  paidAt: new Date(`${entry.bookingDate}T00:00:00Z`), payerDocument: entry.counterparty.document ?? null,
});

interface StoredEntry extends StatementEntry {
  id: number;
  bankAccountId: number;
  account: string;
}

/**
 * Records a match; false when the target is already matched (a concurrent import of another
 * account's statement confirmed it first: the unique index decides, and the caller makes the
 * entry an exception instead).
 */
async function insertMatch(q: Queryable, entryId: number, rule: Rule | 'operator', t: Target, effect: Effect | 'late_payment', amount: string): Promise<boolean> {
  const { rows } = await q.query(
    'INSERT INTO reconciliation_matches (entry_id, rule, target_type, target_id, effect, amount) VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT DO NOTHING RETURNING id',
    [entryId, rule, t.type, t.id, EFFECT_WORD[effect], amount],
  );
  return rows.length > 0;
}

async function upsertAccount(q: Queryable, s: ParsedStatement): Promise<{ id: number; opening: string | null }> {
  const { rows } = await q.query<{ id: number; currency: string; opening_balance: string | null }>(
    `INSERT INTO bank_accounts (identifier, currency) VALUES ($1, $2)
     ON CONFLICT (identifier) DO UPDATE SET identifier = EXCLUDED.identifier RETURNING id, currency, opening_balance::text`,
    [s.account, s.currency],
  );
  const a = rows[0]!;
  if (a.currency !== s.currency) throw new ReconciliationError('malformed', `account ${s.account} is in ${a.currency}; this statement says ${s.currency}`);
  return { id: a.id, opening: a.opening_balance };
}

async function parse(format: StatementFormat | 'camt', bytes: Buffer | string): Promise<ParsedStatement> {
  try {
    // Off the event loop, with a deadline and a memory limit (off-thread.ts).
    const parsed = await parseStatementOffThread(format, bytes);
    const seen = new Set<string>();
    parsed.entries.forEach((e, i) => {
      if (seen.has(e.key)) throw new StatementFormatError(parsed.format, `entry ${i + 1}`, `the entry id '${e.key}' appears twice in the file`);
      seen.add(e.key);
    });
    return parsed;
  } catch (err) {
    if (err instanceof StatementFormatError) throw new ReconciliationError('malformed', err.message, [`${err.at}: ${err.problem}`]);
    if (err instanceof ParseLimitError) throw new ReconciliationError('malformed', err.message, [err.message]);
    throw err;
  }
}

async function existingFigures(q: Queryable, bankAccountId: number, statementRef: string): Promise<ImportFigures> {
  const { rows } = await q.query<ImportFigures>(
    'SELECT id AS statement_id, entries, matched, exceptions, repeated FROM bank_statements WHERE bank_account_id = $1 AND statement_ref = $2',
    [bankAccountId, statementRef],
  );
  return rows[0]!;
}

/** An account number as banks and operators write it: letters and digits only, upper case. */
const accountKey = (a: string) => a.replace(/[^0-9a-z]/gi, '').toUpperCase();

/**
 * The ways a statement's account (as the parsers name it: `iban:…`, `acct:…` or
 * `br:BANK:BRANCH:ACCOUNT`) may be registered: the whole identifier, the number, branch and number.
 */
export function statementAccountKeys(identifier: string): string[] {
  const parts = identifier.split(':');
  const keys = [accountKey(identifier), accountKey(parts.slice(1).join(''))];
  if (parts[0] === 'br' && parts.length === 4) keys.push(accountKey(parts[3]!), accountKey(`${parts[2]}${parts[3]}`));
  return keys.filter(Boolean);
}

/**
 * The accounts the operator registered: the own accounts' (account, or agency and account), the
 * STP connector's ordering CLABE, the Pix connector's PSP account (connectors/pix/day.ts
 * pixAccountId), and CAJA_STATEMENT_ACCOUNTS (a PSP's settlement account at a bank).
 */
export async function registeredAccounts(ctx: AppContext): Promise<Set<string>> {
  const keys = new Set(ctx.config.statementAccounts.map(accountKey));
  for (const c of await loadConnectorRows(ctx)) {
    // Each kind names the accounts a configuration of it holds (src/connectors/kind.ts statementAccounts).
    for (const a of connectorKind(c.name)?.statementAccounts?.(c) ?? []) keys.add(accountKey(a));
  }
  keys.delete('');
  return keys;
}

/** Production imports statements only of accounts the operator registered: a file for any other account (an invented one) is refused. */
async function checkRegistered(ctx: AppContext, account: string): Promise<void> {
  const registered = await registeredAccounts(ctx);
  if (statementAccountKeys(account).some((k) => registered.has(k))) return;
  throw new ReconciliationError('unknown_account', `The statement's account ${account} is not an account the operator registered; nothing was imported`, [
    `account: ${account} is none of the own accounts, STP's ordering CLABE or CAJA_STATEMENT_ACCOUNTS`,
  ]);
}

/** An import's match held for a second operator: its exception and the resolution that would apply it. */
export interface HeldMatch {
  exceptionId: number;
  target: Target;
}

/**
 * Imports one statement file. Throws ReconciliationError 'malformed' (nothing imported) or, in
 * production, 'unknown_account'. With `hold`, a match whose effect credits a merchant is not
 * applied: its entry becomes an exception (awaits_approval) and `hold` is called with them in the
 * import's transaction (src/operators/four-eyes.ts records the requests there).
 */
export async function importStatement(ctx: AppContext, format: StatementFormat | 'camt', bytes: Buffer | string, ops: OpsActor,
  hold?: (q: Queryable, held: HeldMatch[]) => Promise<void>): Promise<ImportResult> {
  const sha = createHash('sha256').update(bytes).digest('hex');
  // The very same bytes again: the first import's figures, without parsing a large file twice.
  const same = await ctx.db.query<ImportFigures>(
    'SELECT id AS statement_id, entries, matched, exceptions, repeated FROM bank_statements WHERE file_sha256 = $1 ORDER BY id LIMIT 1', [sha]);
  if (same.rows[0]) return { ...same.rows[0], created: false };
  const s = await parse(format, bytes);
  if (!ctx.config.relaxedChecks) await checkRegistered(ctx, s.account);
  return ctx.db.tx(async (q) => {
    const account = await upsertAccount(q, s);
    // The statement row first: a concurrent import of the same statement waits here for this
    // transaction, then finds it and changes nothing.
    const inserted = await q.query<{ id: number }>(
      `INSERT INTO bank_statements (bank_account_id, statement_ref, format, file_sha256, statement_date, opening_balance, closing_balance, entries, matched, exceptions, imported_by)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, 0, 0, $9) ON CONFLICT (bank_account_id, statement_ref) DO NOTHING RETURNING id`,
      [account.id, s.statementRef, s.format, sha, s.date, s.openingBalance, s.closingBalance, s.entries.length, opsActorName(ops)],
    );
    if (!inserted.rows[0]) return { ...(await existingFigures(q, account.id, s.statementRef)), created: false };
    const statementId = inserted.rows[0].id;

    const known = new Set<string>();
    for (let i = 0; i < s.entries.length; i += CHUNK) {
      const { rows } = await q.query<{ entry_key: string }>('SELECT entry_key FROM bank_entries WHERE bank_account_id = $1 AND entry_key = ANY($2::text[])',
        [account.id, s.entries.slice(i, i + CHUNK).map((e) => e.key)]);
      for (const r of rows) known.add(r.entry_key);
    }
    const fresh = s.entries.filter((e) => !known.has(e.key));
    await bookOpening(q, account, s, statementId);

    const knowledge = await loadKnowledge(q, fresh);
    const used = new Set<string>();
    const decisions: Decision[] = fresh.map((e) => decide(knowledge, e, used));

    const ids: number[] = [];
    for (let i = 0; i < fresh.length; i += CHUNK) {
      const part = fresh.slice(i, i + CHUNK);
      const ds = decisions.slice(i, i + CHUNK);
      const { rows } = await q.query<{ id: number; entry_key: string }>(
        `INSERT INTO bank_entries (statement_id, bank_account_id, entry_key, booking_date, value_date, amount, currency, direction, reversal, refs,
                                   counterparty_document, counterparty_name, description, status)
         SELECT $1::integer, $2::integer, * FROM unnest($3::text[], $4::date[], $5::date[], $6::numeric[], $7::text[], $8::text[], $9::boolean[],
                                      $10::jsonb[], $11::text[], $12::text[], $13::text[], $14::text[])
         RETURNING id, entry_key`,
        [statementId, account.id, part.map((e) => e.key), part.map((e) => e.bookingDate), part.map((e) => e.valueDate), part.map((e) => e.amount),
          part.map((e) => e.currency), part.map((e) => e.direction), part.map((e) => e.reversal),
          part.map((e) => JSON.stringify(e.batch ? { ...e.refs, batch: e.batch } : e.refs)),
          part.map((e) => e.counterparty.document ?? null), part.map((e) => e.counterparty.name ?? null), part.map((e) => e.description ?? null),
          ds.map((d) => (d.kind === 'match' ? 'matched' : 'exception'))],
      );
      const byKey = new Map(rows.map((r) => [r.entry_key, r.id]));
      ids.push(...part.map((e) => byKey.get(e.key)!));
    }

    let matched = 0;
    const exceptions: { entryId: number; reason: ExceptionReason; detail: string; candidates: Candidate[] }[] = [];
    const held = new Map<number, Target>();
    for (let i = 0; i < fresh.length; i++) {
      const d = decisions[i]!;
      const entry: StoredEntry = { ...fresh[i]!, id: ids[i]!, bankAccountId: account.id, account: s.account };
      if (d.kind === 'exception') {
        exceptions.push({ entryId: entry.id, reason: d.reason, detail: d.detail, candidates: d.candidates });
        // Another payer's money for a PENDING own-accounts deposit: kept refused, the merchant notified; the operator sends it back.
        const c = d.candidates[0];
        if (d.reason === 'payer_mismatch' && c?.type === 'deposit' && c.status === 'PENDING') {
          await refuseStatementPayment(q, ctx, c.id, statementPaymentOf(entry));
        }
        continue;
      }
      const only = d.parts.length === 1 ? d.parts[0]! : null;
      if (hold && only && CREDITS_MERCHANT(only.target, only.effect)) {
        await q.query("UPDATE bank_entries SET status = 'exception' WHERE id = $1", [entry.id]);
        held.set(entry.id, only.target);
        exceptions.push({
          entryId: entry.id, reason: 'awaits_approval', candidates: [],
          detail: `rule ${d.rule} matched ${only.target.type} ${only.target.id}; what credits a merchant waits for a second operator's approval`,
        });
        continue;
      }
      // The matches first: only a confirmation (which changes nothing) can find its target taken.
      let recorded = true;
      for (const p of d.parts) if (!(await insertMatch(q, entry.id, d.rule, p.target, p.effect, p.amount))) recorded = false;
      let applied = recorded;
      if (recorded) for (const p of d.parts) if (!(await applyEffect(q, ctx, p.target, p.effect, entry))) applied = false;
      if (!applied) {
        // Its state changed after the snapshot (a provider, an operator or another import got
        // there first). Effects refuse before writing, and a batch's parts are confirmations.
        await q.query('DELETE FROM reconciliation_matches WHERE entry_id = $1', [entry.id]);
        await q.query("UPDATE bank_entries SET status = 'exception' WHERE id = $1", [entry.id]);
        exceptions.push({
          entryId: entry.id, reason: recorded ? 'not_completable' : 'already_matched',
          detail: recorded ? 'the target changed state while the statement was imported' : 'another statement matched the target while this one was imported', candidates: [],
        });
        continue;
      }
      await bookEntry(q, entry.id, account.id, entry, 'settlement', d.fee, `${d.rule} match`);
      matched++;
    }
    for (let i = 0; i < exceptions.length; i += CHUNK) {
      const part = exceptions.slice(i, i + CHUNK);
      const { rows } = await q.query<{ id: number; entry_id: number }>(
        `INSERT INTO reconciliation_exceptions (entry_id, reason, detail, candidates)
         SELECT * FROM unnest($1::integer[], $2::text[], $3::text[], $4::jsonb[]) RETURNING id, entry_id`,
        [part.map((x) => x.entryId), part.map((x) => x.reason), part.map((x) => x.detail), part.map((x) => JSON.stringify(x.candidates))],
      );
      const mine = rows.filter((r) => held.has(r.entry_id)).map((r) => ({ exceptionId: r.id, target: held.get(r.entry_id)! }));
      if (hold && mine.length) await hold(q, mine);
    }
    const figures: ImportFigures = { statement_id: statementId, entries: s.entries.length, matched, exceptions: exceptions.length, repeated: known.size };
    await q.query('UPDATE bank_statements SET matched = $2, exceptions = $3, repeated = $4 WHERE id = $1', [statementId, matched, exceptions.length, known.size]);
    await recordAudit(q, { ops, action: 'reconciliation.import', subject: `statement:${statementId}`, detail: { format: s.format, statement_ref: s.statementRef, sha256: sha, ...figures } });
    return { ...figures, created: true };
  });
}

/**
 * The account's balance before caja's first statement of it, booked once (bank.opening) against
 * bank_adjustments, so that the ledger's bank account follows the bank's. Entries of earlier
 * statements booked before it (a camt.054 of the same day) are taken out of it.
 */
async function bookOpening(q: Queryable, account: { id: number; opening: string | null }, s: ParsedStatement, statementId: number): Promise<void> {
  if (account.opening !== null) return;
  let opening = s.openingBalance === null ? null : dec(s.openingBalance);
  if (opening === null && s.closingBalance !== null) {
    opening = s.entries.reduce((acc, e) => sub(acc, signed(e)), dec(s.closingBalance));
  }
  if (opening === null) return;
  const first = s.entries.reduce((m, e) => (e.bookingDate < m ? e.bookingDate : m), s.date ?? '9999-12-31');
  const { rows } = await q.query<{ before: string }>(
    `SELECT coalesce(sum(CASE WHEN direction = 'credit' THEN amount ELSE -amount END), 0)::text AS before
     FROM bank_entries WHERE bank_account_id = $1 AND booking_date < $2`,
    [account.id, first],
  );
  const value = sub(opening, fromDb(rows[0]!.before));
  await q.query('UPDATE bank_accounts SET opening_balance = $2 WHERE id = $1', [account.id, toDb(value)]);
  await transfer(q, {
    merchantId: null, kind: 'bank.opening', subjectType: 'bank_account', subjectId: account.id, description: `opening balance from statement ${statementId}`,
    postings: [bankAccount(account.id, s.currency, neg(value)), cajaAccount(s.currency, 'bank_adjustments', value)],
  });
}

// ——— Resolving exceptions ———

export type Resolution =
  | { action: 'match'; target: Target; note?: string }
  /** Many-to-one: the entry settles these COMPLETED deposits, the difference booked as the fee. */
  | { action: 'match'; targets: Target[]; note?: string }
  | { action: 'book_fee' | 'book_adjustment'; reason: string }
  | { action: 'send_back'; reason?: string };

/** Checks a resolution body; every problem at once. */
export function validateResolution(body: unknown): { ok: true; value: Resolution } | { ok: false; details: string[] } {
  const b = body && typeof body === 'object' && !Array.isArray(body) ? (body as Record<string, unknown>) : null;
  if (!b) return { ok: false, details: ['body: must be an object {action, target?, reason?}'] };
  const action = b.action;
  const reason = typeof b.reason === 'string' ? b.reason.trim() : undefined;
  if (b.reason !== undefined && (typeof b.reason !== 'string' || reason!.length > 500)) return { ok: false, details: ['reason: must be text of at most 500 characters'] };
  if (action === 'match') {
    const details: string[] = [];
    const targetOf = (v: unknown, at: string): Target | null => {
      const t = v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : null;
      if (!t) {
        details.push(`${at}: must be {type: deposit|cashout|refund, id}`);
        return null;
      }
      const before = details.length;
      if (t.type !== 'deposit' && t.type !== 'cashout' && t.type !== 'refund') details.push(`${at}.type: must be deposit, cashout or refund`);
      if (typeof t.id !== 'number' || !Number.isInteger(t.id) || t.id < 1 || t.id > 2147483647) details.push(`${at}.id: must be a positive integer id`);
      return details.length === before ? { type: t.type as Target['type'], id: t.id as number } : null;
    };
    const note = reason ? { note: reason } : {};
    if (b.targets !== undefined) {
      if (b.target !== undefined) return { ok: false, details: ['target, targets: one or the other'] };
      if (!Array.isArray(b.targets) || b.targets.length < 1 || b.targets.length > 1000) return { ok: false, details: ['targets: 1 to 1000 deposits'] };
      const targets = b.targets.map((t, i) => targetOf(t, `targets[${i}]`));
      if (details.length) return { ok: false, details };
      if (targets.some((t) => t!.type !== 'deposit')) return { ok: false, details: ['targets: a settlement batch is of deposits'] };
      return { ok: true, value: { action, targets: targets as Target[], ...note } };
    }
    if (b.target === undefined) return { ok: false, details: ['target: required for match, {type: deposit|cashout|refund, id} (or targets: [...] for a settlement batch)'] };
    const target = targetOf(b.target, 'target');
    if (!target) return { ok: false, details };
    return { ok: true, value: { action, target, ...note } };
  }
  if (action === 'book_fee' || action === 'book_adjustment') {
    if (!reason) return { ok: false, details: [`reason: required for ${action}`] };
    return { ok: true, value: { action, reason } };
  }
  if (action === 'send_back') return { ok: true, value: { action, ...(reason ? { reason } : {}) } };
  return { ok: false, details: ['action: must be match, book_fee, book_adjustment or send_back'] };
}

interface EntryRow {
  id: number; bank_account_id: number; identifier: string; entry_key: string; booking_date: string; value_date: string | null; amount: string;
  currency: string; direction: 'credit' | 'debit'; reversal: boolean; refs: Record<string, unknown>; counterparty_document: string | null;
  counterparty_name: string | null; description: string | null; status: string;
}

const ENTRY_SELECT = `SELECT e.id, e.bank_account_id, a.identifier, e.entry_key, to_char(e.booking_date, 'YYYY-MM-DD') AS booking_date,
  to_char(e.value_date, 'YYYY-MM-DD') AS value_date, e.amount::text AS amount, e.currency, e.direction, e.reversal, e.refs,
  e.counterparty_document, e.counterparty_name, e.description, e.status
  FROM bank_entries e JOIN bank_accounts a ON a.id = e.bank_account_id`;

/** `ops` (an operator in the console, or an admin token) is recorded as the resolver and in the audit row. */
export async function resolveException(ctx: AppContext, exceptionId: number, resolution: Resolution, ops: OpsActor): Promise<ExceptionView> {
  return ctx.db.tx((q) => resolveExceptionIn(q, ctx, exceptionId, resolution, ops));
}

/**
 * Whether this resolution would credit a merchant (a match completing a PENDING deposit, a late
 * payment of a CANCELLED one, a cashout's return): in production those wait for a second operator
 * (src/operators/four-eyes.ts). Throws as resolveException would for an unknown, resolved or
 * unfitting exception, so a request is never made for what could not be applied.
 */
export async function resolutionCredits(q: Queryable, exceptionId: number, resolution: Resolution): Promise<boolean> {
  if (resolution.action !== 'match' || 'targets' in resolution) return false;
  const x = (await q.query<{ entry_id: number; status: string }>('SELECT entry_id, status FROM reconciliation_exceptions WHERE id = $1', [exceptionId])).rows[0];
  if (!x) throw new ReconciliationError('not_found', `Reconciliation exception ${exceptionId} not found`);
  if (x.status !== 'open') throw new ReconciliationError('already_resolved', `Reconciliation exception ${exceptionId} is already resolved`);
  const entry = storedEntry((await q.query<EntryRow>(`${ENTRY_SELECT} WHERE e.id = $1`, [x.entry_id])).rows[0]!);
  const t = resolution.target;
  const k = await loadKnowledge(q, [], knowledgeOf(t));
  const fit = operatorDecision(k, entry, t);
  if (!fit.ok) throw new ReconciliationError('target_mismatch', fit.reason);
  return CREDITS_MERCHANT(t, fit.effect);
}

/** What to load for an operator's chosen target. */
const knowledgeOf = (t: Target) => (t.type === 'deposit' ? { deposits: [t.id] } : t.type === 'cashout' ? { cashouts: [t.id] } : { refunds: [t.id] });

/** Effects that put money in a merchant's available balance. */
const CREDITS_MERCHANT = (t: Target, effect: Effect | 'late_payment'): boolean =>
  (t.type === 'deposit' && (effect === 'complete' || effect === 'late_payment')) || (t.type === 'cashout' && effect === 'return');

function storedEntry(e: EntryRow): StoredEntry {
  return {
    id: e.id, bankAccountId: e.bank_account_id, account: e.identifier, key: e.entry_key, bookingDate: e.booking_date, valueDate: e.value_date,
    amount: toDb(fromDb(e.amount)), currency: e.currency, direction: e.direction, reversal: e.reversal, refs: {},
    counterparty: e.counterparty_document ? { document: e.counterparty_document } : {},
  };
}

/** resolveException inside the caller's transaction (a four-eyes approval applies it with the decision). */
export async function resolveExceptionIn(q: Queryable, ctx: AppContext, exceptionId: number, resolution: Resolution, ops: OpsActor): Promise<ExceptionView> {
  const { rows } = await q.query<{ id: number; entry_id: number; status: string }>('SELECT id, entry_id, status FROM reconciliation_exceptions WHERE id = $1 FOR UPDATE', [exceptionId]);
  const x = rows[0];
  if (!x) throw new ReconciliationError('not_found', `Reconciliation exception ${exceptionId} not found`);
  if (x.status !== 'open') throw new ReconciliationError('already_resolved', `Reconciliation exception ${exceptionId} is already resolved`);
  const entry = storedEntry((await q.query<EntryRow>(`${ENTRY_SELECT} WHERE e.id = $1`, [x.entry_id])).rows[0]!);
  if (resolution.action === 'match' && 'targets' in resolution) {
    const ids = resolution.targets.map((t) => t.id);
    const k = await loadKnowledge(q, [], { deposits: ids });
    const fit = operatorBatchDecision(k, entry, ids);
    if (!fit.ok) throw new ReconciliationError('target_mismatch', fit.reason);
    for (const [i, t] of resolution.targets.entries()) {
      if (!(await insertMatch(q, entry.id, 'operator', t, 'confirm', fit.amounts[i]!))) throw new ReconciliationError('target_mismatch', `deposit ${t.id} is already matched`);
    }
    await bookEntry(q, entry.id, entry.bankAccountId, entry, 'settlement', fit.fee, `operator match to deposits ${ids.join(', ')}`);
  } else if (resolution.action === 'match') {
    const t = resolution.target;
    const k = await loadKnowledge(q, [], knowledgeOf(t));
    const fit = operatorDecision(k, entry, t);
    if (!fit.ok) throw new ReconciliationError('target_mismatch', fit.reason);
    if (!(await insertMatch(q, entry.id, 'operator', t, fit.effect, entry.amount))) throw new ReconciliationError('target_mismatch', `${t.type} ${t.id} is already matched`);
    if (!(await applyEffect(q, ctx, t, fit.effect, entry))) throw new ReconciliationError('target_mismatch', `${t.type} ${t.id} cannot take this entry in its current state`);
    await bookEntry(q, entry.id, entry.bankAccountId, entry, 'settlement', null, `operator match to ${t.type} ${t.id}`);
  } else {
    const counter = resolution.action === 'book_fee' ? 'bank_fees' : resolution.action === 'book_adjustment' ? 'bank_adjustments' : 'bank_unapplied';
    await bookEntry(q, entry.id, entry.bankAccountId, entry, counter, null, `${resolution.action}: ${resolution.reason ?? ''}`.trim());
  }
  await q.query("UPDATE bank_entries SET status = 'resolved' WHERE id = $1", [entry.id]);
  await q.query("UPDATE reconciliation_exceptions SET status = 'resolved', resolution = $2, resolved_by = $3, resolved_at = $4 WHERE id = $1",
    [x.id, JSON.stringify(resolution), opsActorName(ops), ctx.now()]);
  await recordAudit(q, { ops, action: 'reconciliation.resolve', subject: `exception:${x.id}`, detail: { entry_id: entry.id, resolution }, at: ctx.now() });
  return (await getException(q, x.id))!;
}

// ——— Reading ———

export interface PageQuery {
  before?: number;
  limit: number;
}

function paged<T extends { id: number }>(rows: T[], limit: number): Page<T> {
  return { rows: rows.slice(0, limit), next: rows.length > limit ? rows[limit - 1]!.id : null };
}

export interface EntryView {
  id: number; statement_id?: number; account: string; booking_date: string; value_date: string | null; amount: string; currency: string;
  direction: 'credit' | 'debit'; reversal: boolean; references: Record<string, unknown>; counterparty: { document: string | null; name: string | null };
  description: string | null; status: string;
}

const entryView = (e: EntryRow): EntryView => ({
  id: e.id, account: e.identifier, booking_date: e.booking_date, value_date: e.value_date, amount: toDb(fromDb(e.amount)), currency: e.currency,
  direction: e.direction, reversal: e.reversal, references: e.refs, counterparty: { document: e.counterparty_document, name: e.counterparty_name },
  description: e.description, status: e.status,
});

export interface ExceptionView {
  id: number; status: 'open' | 'resolved'; reason: ExceptionReason; detail: string; candidates: Candidate[]; entry: EntryView;
  resolution: Resolution | null; resolved_by: string | null; resolved_at: string | null; created_at: string;
}

interface ExceptionRow {
  id: number; status: 'open' | 'resolved'; reason: ExceptionReason; detail: string; candidates: Candidate[]; resolution: Resolution | null;
  resolved_by: string | null; resolved_at: Date | null; created_at: Date; entry_id: number;
}

async function exceptionViews(q: Queryable, rows: ExceptionRow[]): Promise<ExceptionView[]> {
  const entries = await q.query<EntryRow>(`${ENTRY_SELECT} WHERE e.id = ANY($1::integer[])`, [rows.map((r) => r.entry_id)]);
  const byId = new Map(entries.rows.map((e) => [e.id, entryView(e)]));
  return rows.map((r) => ({
    id: r.id, status: r.status, reason: r.reason, detail: r.detail, candidates: r.candidates, entry: byId.get(r.entry_id)!,
    resolution: r.resolution, resolved_by: r.resolved_by, resolved_at: r.resolved_at?.toISOString() ?? null, created_at: r.created_at.toISOString(),
  }));
}

export async function listExceptions(q: Queryable, f: PageQuery & { status?: 'open' | 'resolved' }): Promise<Page<ExceptionView>> {
  const { rows } = await q.query<ExceptionRow>(
    `SELECT * FROM reconciliation_exceptions WHERE ($1::text IS NULL OR status = $1) AND ($2::bigint IS NULL OR id < $2) ORDER BY id DESC LIMIT $3`,
    [f.status ?? null, f.before ?? null, f.limit + 1],
  );
  const page = paged(rows, f.limit);
  return { rows: await exceptionViews(q, page.rows), next: page.next };
}

export async function getException(q: Queryable, id: number): Promise<ExceptionView | null> {
  const { rows } = await q.query<ExceptionRow>('SELECT * FROM reconciliation_exceptions WHERE id = $1', [id]);
  return rows[0] ? (await exceptionViews(q, rows))[0]! : null;
}

export interface ImportView {
  id: number; account: string; statement_ref: string; format: StatementFormat; statement_date: string | null; opening_balance: string | null;
  closing_balance: string | null; entries: number; matched: number; exceptions: number; repeated: number; imported_by: string; created_at: string;
}

export async function listImports(q: Queryable, f: PageQuery): Promise<Page<ImportView>> {
  const { rows } = await q.query<Omit<ImportView, 'created_at'> & { created_at: Date }>(
    `SELECT s.id, a.identifier AS account, s.statement_ref, s.format, to_char(s.statement_date, 'YYYY-MM-DD') AS statement_date,
            s.opening_balance::text AS opening_balance, s.closing_balance::text AS closing_balance, s.entries, s.matched, s.exceptions, s.repeated,
            s.imported_by, s.created_at
     FROM bank_statements s JOIN bank_accounts a ON a.id = s.bank_account_id
     WHERE ($1::bigint IS NULL OR s.id < $1) ORDER BY s.id DESC LIMIT $2`,
    [f.before ?? null, f.limit + 1],
  );
  const page = paged(rows, f.limit);
  return { rows: page.rows.map((r) => ({ ...r, created_at: r.created_at.toISOString() })), next: page.next };
}

export interface MatchView {
  id: number; entry_id: number; statement_id: number; rule: Rule | 'operator'; target: Target; effect: string; amount: string; created_at: string;
}

export async function listMatches(q: Queryable, f: PageQuery & { statementId?: number }): Promise<Page<MatchView>> {
  const { rows } = await q.query<{ id: number; entry_id: number; statement_id: number; rule: Rule | 'operator'; target_type: Target['type']; target_id: number;
    effect: string; amount: string; created_at: Date }>(
    `SELECT m.id, m.entry_id, e.statement_id, m.rule, m.target_type, m.target_id, m.effect, m.amount::text AS amount, m.created_at
     FROM reconciliation_matches m JOIN bank_entries e ON e.id = m.entry_id
     WHERE ($1::integer IS NULL OR e.statement_id = $1) AND ($2::bigint IS NULL OR m.id < $2) ORDER BY m.id DESC LIMIT $3`,
    [f.statementId ?? null, f.before ?? null, f.limit + 1],
  );
  const page = paged(rows, f.limit);
  return {
    rows: page.rows.map((r) => ({ id: r.id, entry_id: r.entry_id, statement_id: r.statement_id, rule: r.rule, target: { type: r.target_type, id: r.target_id },
      effect: r.effect, amount: toDb(fromDb(r.amount)), created_at: r.created_at.toISOString() })),
    next: page.next,
  };
}

/** Matches per rule, for the figures an operator (and the closing report) reads. */
export async function matchesPerRule(q: Queryable, statementId?: number): Promise<Record<string, number>> {
  const { rows } = await q.query<{ rule: string; n: number }>(
    `SELECT m.rule, count(DISTINCT m.entry_id)::int AS n FROM reconciliation_matches m JOIN bank_entries e ON e.id = m.entry_id
     WHERE ($1::integer IS NULL OR e.statement_id = $1) GROUP BY m.rule ORDER BY m.rule`,
    [statementId ?? null],
  );
  return Object.fromEntries(rows.map((r) => [r.rule, r.n]));
}
