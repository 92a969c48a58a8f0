// Streamline refunds: POST /api_curl/apd/refund (signed x_control, signed control in the
// answer) and POST /api_curl/query/refundstatus. Same refund service as v3.
import { depositForRefundRequest } from '../../deposits/lookups.ts';
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../config/context.ts';
import { streamlineAuth } from '../../auth/streamline.ts';
import { accountEmbedsBank, normalizeAccountType } from '../../domain/bank-accounts.ts';
import { findBank, namesBank } from '../../domain/banks.ts';
import { formatMinor } from '../../domain/currencies.ts';
import { type Decimal, fromDb, parseAmount } from '../../domain/money.ts';
import { type RefundAccountField, streamlineRefundDesc, streamlineRefundResult } from '../../domain/refund-rules.ts';
import { hmacHexUpper, refundRequestMessage, refundResponseMessage, verifyHmacHex } from '../../domain/signatures.ts';
import { parseId } from '../../domain/ids.ts';
import { fingerprint } from '../../deposits/service.ts';
import { createRefund, getRefund, isCardPaymentType, RefundError, type RefundRow } from '../../refunds/service.ts';
import { type Form, optional, required, sendRecord } from './face.ts';
import { StreamlineError } from './format.ts';

/** Streamline refund error codes beyond the shared ones (300, 301, 302, 401). */
export const REFUND_ERROR_CODES = { notFound: 600, notCompleted: 601, invalidAmount: 602, missingBankAccount: 603, refundNotFound: 604, insufficientFunds: 605, idempotencyKeyUsed: 606, noCardConnector: 607 } as const;

/** Fields that do not say which refund a form asks for: credentials, the key, the answer's format. */
const NOT_FINGERPRINTED = new Set(['x_login', 'x_trans_key', 'x_idempotency_key', 'type']);

/**
 * What an x_idempotency_key is compared by: every field of the form that says what to refund, in
 * name order, so that a retry of the same form matches whatever order its fields came in (and
 * no credential goes into a stored hash).
 */
function formFingerprint(form: Form): string {
  const fields = Object.keys(form).filter((k) => !NOT_FINGERPRINTED.has(k)).sort();
  return fingerprint(JSON.stringify(fields.map((k) => [k, form[k]])));
}

const ACCOUNT_TYPES = new Set(['C', 'S', 'V', 'O', 'P']);

/** The form field that carries each part of the account (streamline sends no document). */
const FORM_FIELDS: Record<RefundAccountField, string> = {
  account_number: 'x_bank_account',
  document: 'x_document',
  branch: 'x_bank_branch',
  account_type: 'x_account_type',
  bank_code: 'x_bank_code',
};

/** X-Idempotency-Key (also read as X-Idempontency-Key), as v3 reads it; '' when absent. */
function headerKey(headers: Record<string, string | string[] | undefined>): string {
  const raw = headers['x-idempotency-key'] ?? headers['x-idempontency-key'];
  return ((Array.isArray(raw) ? raw[0] : raw) ?? '').trim();
}

function streamlineRefundError(err: unknown): never {
  if (err instanceof RefundError && err.kind === 'bank_account') {
    const first = err.fields[0]!;
    throw new StreamlineError(300, `Invalid parameter: ${FORM_FIELDS[first.field]} ${first.reason}`);
  }
  if (err instanceof RefundError) {
    const code = {
      not_found: REFUND_ERROR_CODES.notFound,
      not_completed: REFUND_ERROR_CODES.notCompleted,
      amount: REFUND_ERROR_CODES.invalidAmount,
      missing_bank_account: REFUND_ERROR_CODES.missingBankAccount,
      insufficient_funds: REFUND_ERROR_CODES.insufficientFunds,
      idempotency_key_used: REFUND_ERROR_CODES.idempotencyKeyUsed,
      no_card_connector: REFUND_ERROR_CODES.noCardConnector,
      // The same answer: no provider can make this refund (607 names both).
      no_refund_route: REFUND_ERROR_CODES.noCardConnector,
    }[err.kind as Exclude<typeof err.kind, 'bank_account'>];
    throw new StreamlineError(code, err.kind === 'not_found' ? 'Transaction not found' : err.message);
  }
  throw err;
}

export function registerStreamlineRefunds(app: FastifyInstance, ctx: AppContext): void {
  app.post<{ Body: Form }>(
    '/api_curl/apd/refund',
    { config: { streamline: { defaultFormat: 'json', errorShape: 'standard' } }, schema: { hide: true } },
    async (request, reply) => {
      const form = request.body;
      const caller = await streamlineAuth(ctx, form.x_login, form.x_trans_key, ['deposits']);
      const f = {
        x_invoice: optional(form, 'x_invoice', 125),
        x_document: optional(form, 'x_document', 11),
        x_amount: optional(form, 'x_amount', 21),
        x_currency: optional(form, 'x_currency', 3),
        x_bank_beneficiary: optional(form, 'x_bank_beneficiary', 100),
        x_bank: optional(form, 'x_bank', 45),
        x_bank_code: optional(form, 'x_bank_code', 10),
        x_bank_account: optional(form, 'x_bank_account', 45),
        x_account_type: optional(form, 'x_account_type', 1),
        x_bank_branch: optional(form, 'x_bank_branch', 15),
        x_comments: optional(form, 'x_comments', 200),
      };
      const control = required(form, 'x_control');
      if (!verifyHmacHex(caller.secret, refundRequestMessage(f), control.trim())) throw new StreamlineError(302, 'Invalid control string');
      if (!f.x_invoice && !f.x_document) throw new StreamlineError(301, 'Empty parameter: x_invoice or x_document');
      const documentId = f.x_document ? parseId(f.x_document) : null;
      if (f.x_document && documentId === null) throw new StreamlineError(300, 'Invalid parameter: x_document must be the caja transaction id');
      if (f.x_account_type && !ACCOUNT_TYPES.has(f.x_account_type.toUpperCase())) throw new StreamlineError(300, 'Invalid parameter: x_account_type must be C, S, V, O or P');
      let amount: Decimal | undefined;
      if (f.x_amount) {
        const parsed = parseAmount(f.x_amount.trim());
        if (!parsed.ok) throw new StreamlineError(300, `Invalid parameter: x_amount ${parsed.reason}`);
        amount = parsed.value;
      }
      // The currency of x_amount: the local currency by default, or the deposit's own.
      const deposit = await depositForRefundRequest(ctx.db, caller.merchant.id, f.x_document ? { id: documentId! } : { invoiceId: f.x_invoice! });
      if (!deposit || (f.x_invoice && deposit.invoice_id !== f.x_invoice)) throw new StreamlineError(REFUND_ERROR_CODES.notFound, 'Transaction not found');
      // The account itself is checked against the deposit's country by the refunds service
      // (RefundError 'bank_account', 300 naming the form field); a card refund goes back to the card.
      if (f.x_bank_account && !isCardPaymentType(deposit.payment_type)) {
        // x_bank_code is outside x_control: it may only repeat what covered fields say, the bank
        // the account number embeds or the one x_bank names.
        const code = f.x_bank_code.trim();
        if (code && !accountEmbedsBank(deposit.country, f.x_bank_account)) {
          const bank = findBank(deposit.country, code);
          if (!bank || !namesBank(deposit.country, bank, f.x_bank)) {
            throw new StreamlineError(300, `Invalid parameter: x_bank_code ${code} is not the bank x_bank names ('${f.x_bank}'): x_bank_code is not covered by x_control, so x_bank must name the same bank, by its code or its name in the bank list`);
          }
        }
      }
      // x_currency is outside x_control too: it cannot change what x_amount means. A refund is in
      // the deposit's currency, the local currency x_amount defaults to; another one is refused.
      const currency = (f.x_currency.trim() || deposit.local_currency).toUpperCase();
      if (currency !== deposit.local_currency) {
        throw new StreamlineError(300, `Invalid parameter: x_currency must be ${deposit.local_currency}, the deposit's currency (x_currency is not covered by x_control)`);
      }
      // Identical forms are distinct refunds: the form carries no date, so a replay cannot be told
      // from an intended twin. A merchant makes its retries safe with x_idempotency_key (or the
      // X-Idempotency-Key header): the same key and form answer the first refund again.
      const rawKey = optional(form, 'x_idempotency_key', 255).trim() || headerKey(request.headers);
      if (rawKey.length > 255) throw new StreamlineError(300, 'Invalid parameter: X-Idempotency-Key must be at most 255 characters');
      let refund: RefundRow;
      let replayed: boolean;
      try {
        ({ refund, replayed } = await createRefund(ctx, caller.merchant.id, {
          source: 'streamline',
          depositId: deposit.id,
          amount,
          amountInLocal: true,
          requestedAmount: f.x_amount || undefined,
          requestedCurrency: f.x_currency || undefined,
          bankAccount: f.x_bank_account
            ? {
                beneficiary: f.x_bank_beneficiary || undefined,
                bank_name: f.x_bank || undefined,
                bank_code: f.x_bank_code || undefined,
                account_number: f.x_bank_account,
                account_type: f.x_account_type ? normalizeAccountType(f.x_account_type) ?? undefined : undefined,
                branch: f.x_bank_branch || undefined,
              }
            : undefined,
          comments: f.x_comments || undefined,
          idempotency: rawKey ? { key: rawKey, fingerprint: formFingerprint(form) } : undefined,
        }));
      } catch (err) {
        streamlineRefundError(err);
      }
      if (replayed) reply.header('Idempotent-Replayed', 'true');
      const result = streamlineRefundResult(refund.status);
      const xAmount = f.x_amount || formatMinor(fromDb(refund.local_amount), refund.local_currency);
      const xCurrency = f.x_currency || refund.local_currency;
      const xDocument = String(refund.deposit_id);
      const xRefund = String(refund.id);
      return sendRecord(request, reply, [
        ['status', 'OK'],
        ['desc', streamlineRefundDesc(refund.status)],
        ['control', hmacHexUpper(caller.secret, refundResponseMessage(result, xAmount, xCurrency, refund.invoice_id, xDocument, xRefund))],
        ['result', result],
        ['x_invoice', refund.invoice_id],
        ['x_document', xDocument],
        ['x_amount', xAmount],
        ['x_currency', xCurrency],
        ['x_amount_refunded', formatMinor(fromDb(refund.local_amount), refund.local_currency)],
        ['x_refund', xRefund],
      ]);
    },
  );

  app.post<{ Body: Form }>(
    '/api_curl/query/refundstatus',
    { config: { streamline: { defaultFormat: 'json', errorShape: 'standard' } }, schema: { hide: true } },
    async (request, reply) => {
      const form = request.body;
      const caller = await streamlineAuth(ctx, form.x_login, form.x_trans_key, ['web_status']);
      const id = required(form, 'x_refund').trim();
      const refundId = parseId(id);
      if (refundId === null) throw new StreamlineError(300, 'Invalid parameter: x_refund');
      const refund = await getRefund(ctx.db, caller.merchant.id, refundId);
      if (!refund) throw new StreamlineError(REFUND_ERROR_CODES.refundNotFound, 'Refund not found');
      return sendRecord(request, reply, [
        ['result', streamlineRefundResult(refund.status)],
        ['x_invoice', refund.invoice_id],
        ['x_document', String(refund.deposit_id)],
        ['x_refund', String(refund.id)],
        ['desc', streamlineRefundDesc(refund.status)],
        ['x_amount_refunded', formatMinor(fromDb(refund.local_amount), refund.local_currency)],
        ['x_currency', refund.local_currency],
      ]);
    },
  );
}
