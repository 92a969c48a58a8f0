// A refund made from a deposit's page: the form's fields checked as the v3 refund endpoint checks
// them (amount, required account parts, account type), then the refunds service itself, which
// holds every other rule (the account against the deposit's country, completed only, what
// remains, balance). The panel's words for the service's refusals are the API's descriptions.
import type { AppContext } from '../../config/context.ts';
import { ACCOUNT_TYPE_MESSAGE, normalizeAccountType } from '../../domain/bank-accounts.ts';
import { type Decimal, parseAmount } from '../../domain/money.ts';
import type { DepositRow } from '../../deposits/store.ts';
import { createRefund, isCardPaymentType, RefundError, type RefundBankAccount, type RefundRow } from '../../refunds/service.ts';
import { type Actor, entry } from './audit.ts';

export type PanelRefund = { ok: true; refund: RefundRow } | { ok: false; errors: string[] };

export async function refundFromPanel(ctx: AppContext, a: Actor, d: DepositRow, form: Record<string, string | undefined>): Promise<PanelRefund> {
  const errors: string[] = [];
  const v = (k: string) => form[k]?.trim() || undefined;
  let amount: Decimal | undefined;
  if (v('amount')) {
    const parsed = parseAmount(v('amount'));
    if (!parsed.ok) errors.push(`amount: ${parsed.reason}`);
    else amount = parsed.value;
  }
  let bankAccount: RefundBankAccount | undefined;
  if (!isCardPaymentType(d.payment_type)) {
    const accountType = v('account_type') ? normalizeAccountType(v('account_type')!) : null;
    if (v('account_type') && !accountType) errors.push(`bank_account.account_type: ${ACCOUNT_TYPE_MESSAGE}`);
    bankAccount = {
      beneficiary: v('beneficiary'), bank_code: v('bank_code'), branch: v('branch'), account_number: v('account_number'), account_type: accountType ?? undefined,
    };
    if (!bankAccount.beneficiary) errors.push('bank_account.beneficiary: is required');
    if (!bankAccount.bank_code) errors.push('bank_account.bank_code: is required');
    if (!bankAccount.account_number) errors.push('bank_account.account_number: is required');
  }
  const comments = v('comments');
  if (comments && comments.length > 200) errors.push('comments: must be at most 200 characters');
  if (errors.length) return { ok: false, errors };
  try {
    // The audit row is written in the refund's own transaction: both are kept or neither.
    const { refund } = await createRefund(
      ctx, a.merchantId, { source: 'v3', depositId: d.id, amount, amountInLocal: false, bankAccount, comments },
      (r) => entry(a, 'refund.created', `deposit:${d.id}`, { refund_id: r.id, amount: r.amount, currency: r.currency }, ctx.now()),
    );
    return { ok: true, refund };
  } catch (err) {
    if (err instanceof RefundError && err.kind === 'bank_account') return { ok: false, errors: err.fields.map((f) => `bank_account.${f.field}: ${f.reason}`) };
    if (err instanceof RefundError) return { ok: false, errors: [err.message] };
    throw err;
  }
}
