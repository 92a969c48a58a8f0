// What the customer does next to pay a charge: the step a connector's charge answers
// (src/connectors/payin.ts, Charge.nextAction) and the one the checkout and pay pages render
// (src/web/pay/, src/web/checkout/), whatever the method is called. Pure.
//
//   qr_code       scan or copy a code (Pix: the BR Code and its QR image)
//   bank_details  transfer to, or deposit at, an account (a CLABE, an agency and account)
//   voucher       pay a voucher at a bank, shop or online (boleto, OXXO): bar code, digitable
//                 line, where to download it, until when
//   redirect      go to the provider's page (a hosted card page, a wallet) and come back through
//                 the return leg, /connectors/<name>/return/<token>
//   challenge     the card issuer asks the customer to confirm (3-D Secure): its page, then the
//                 return leg as for a redirect
//   none          nothing to show: the method's own page drives the payment (wallets, crypto)
//
// qr_code, bank_details and voucher are read from the stored payment_info (nextActionOf), so a
// reload shows the same; redirect and challenge are stored with the deposit (deposits.next_action).

import type { PaymentKind } from './catalog.ts';

export type NextAction =
  | { type: 'qr_code'; code: string; image: string | null; beneficiaryName: string | null; beneficiaryDocument: string | null }
  | { type: 'bank_details'; deposit: boolean; beneficiaryName: string | null; agency: string | null; account: string | null; clabe: boolean; document: string | null; payerDocument: string | null }
  | { type: 'voucher'; barCode: string | null; digitableLine: string | null; url: string | null; expiresAt: string | null }
  | { type: 'redirect'; url: string; method: 'GET' | 'POST'; data?: Record<string, string> }
  | { type: 'challenge'; url: string; method: 'GET' | 'POST'; data?: Record<string, string> }
  | { type: 'none' };

/** payment_info as a page reads it: every value a string (exact digits kept). */
export interface PaymentInfoText {
  expiration_date?: string;
  metadata?: Record<string, string>;
  secondary_metadata?: Record<string, string>;
}

const text = (v: string | undefined): string | null => (v === undefined || v === '' ? null : v);

/**
 * The next action a charge's payment_info gives, by the method's kind: what every connector that
 * answers payment_info (the staging simulator, API Pix, STP, own accounts) means by it.
 */
export function nextActionOf(kind: PaymentKind | undefined, info: PaymentInfoText | null, country: string): NextAction {
  const md = info?.metadata ?? {};
  const sec = info?.secondary_metadata ?? {};
  switch (kind) {
    case 'pix':
      if (!sec.digitable_line) return { type: 'none' };
      return {
        type: 'qr_code', code: sec.digitable_line, image: /^[A-Za-z0-9+/]+=*$/.test(sec.qr_code ?? '') ? sec.qr_code! : null,
        beneficiaryName: text(md.beneficiary_name), beneficiaryDocument: text(md.CNPJ),
      };
    case 'bank_transfer':
    case 'bank_deposit':
      return {
        type: 'bank_details', deposit: kind === 'bank_deposit', beneficiaryName: text(md.beneficiary_name), agency: text(md.agency),
        account: text(md.account), clabe: country === 'MX' && /^\d{18}$/.test(md.account ?? ''), document: text(md.CNPJ), payerDocument: text(md.payer_document),
      };
    case 'voucher':
      return { type: 'voucher', barCode: text(md.bar_code), digitableLine: text(md.digitable_line), url: text(md.receipt_url), expiresAt: text(info?.expiration_date) };
    default:
      return { type: 'none' };
  }
}

/** A stored next action (deposits.next_action), or null when it is not one this code knows. */
export function storedNextAction(v: unknown): NextAction | null {
  if (!v || typeof v !== 'object') return null;
  const a = v as { type?: unknown; url?: unknown; method?: unknown };
  if ((a.type === 'redirect' || a.type === 'challenge') && typeof a.url === 'string' && (a.method === 'GET' || a.method === 'POST')) return v as NextAction;
  return null;
}
