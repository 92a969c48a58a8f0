// The view model every customer page renders from (the pay and voucher pages of ../pay/, the
// hosted checkout of ../checkout/): the stored deposit and its stored payment_info, so a page says
// exactly what the merchant's API response said, and the phase that decides what it may show.
import { parse as parseLossless } from 'lossless-json';
import type { AppContext } from '../../config/context.ts';
import { findMethod, type PaymentMethod } from '../../domain/catalog.ts';
import { COUNTRY_TIME_ZONES } from '../../domain/payment-info.ts';
import type { DepositRow } from '../../deposits/store.ts';
import type { CardDetail } from '../../domain/cards.ts';
import { customerDeposit, isPayable } from '../../deposits/checkout.ts';
import { servedPaymentInfo } from '../../deposits/stored-payment-info.ts';
import { type NextAction, nextActionOf, storedNextAction } from '../../domain/next-action.ts';
import { localeOf, PAGE_LANGUAGES, resolveLang, strings, type Lang, type Strings } from '../i18n.ts';

/** payment_info as stored; numbers kept as their exact JSON text. */
interface StoredPaymentInfo {
  type?: string;
  payment_method?: string;
  payment_method_name?: string;
  amount?: string;
  currency?: string;
  expiration_date?: string;
  metadata?: Record<string, string>;
  secondary_metadata?: Record<string, string>;
}

/** What the customer can still do with a deposit. */
export type Phase = 'payable' | 'expired' | 'cancelled' | 'completed' | 'confirming';

/** What the request asks of the page besides the token: the switcher's language, embedding. */
export interface PageRequest {
  lang?: string;
  acceptLanguage?: string;
  iframe: boolean;
}

/** The view model every customer page renders from. */
export interface Loaded {
  d: DepositRow;
  merchantName: string;
  /** The deposit's `logo`, else the merchant's setting. */
  merchantLogo: string | null;
  merchantReturnUrl: string | null;
  cardDetail: CardDetail | null;
  method: PaymentMethod | undefined;
  info: StoredPaymentInfo | null;
  /** What the customer does next (src/domain/next-action.ts): stored, else what payment_info shows. */
  nextAction: NextAction;
  phase: Phase;
  lang: Lang;
  /** The language picked with the switcher, carried on our own links and forms. */
  chosenLang: Lang | undefined;
  t: Strings;
  locale: string;
  timeZone: string;
  staging: boolean;
  /** Opened with iframe_view=1 and allowed to be framed. */
  embedded: boolean;
  /** Who may frame it then: the merchant's origins (domain/frame-origins.ts); empty, nobody. */
  frameOrigins: string[];
  now: Date;
}

function parseInfo(text: string | null): StoredPaymentInfo | null {
  if (!text) return null;
  const raw = parseLossless(text, null, (digits: string) => digits) as Record<string, unknown>;
  const strMap = (v: unknown) =>
    v && typeof v === 'object' ? Object.fromEntries(Object.entries(v as Record<string, unknown>).map(([k, x]) => [k, String(x)])) : undefined;
  const str = (v: unknown) => (v === undefined || v === null ? undefined : String(v));
  return {
    type: str(raw.type),
    payment_method: str(raw.payment_method),
    payment_method_name: str(raw.payment_method_name),
    amount: str(raw.amount),
    currency: str(raw.currency),
    expiration_date: str(raw.expiration_date),
    metadata: strMap(raw.metadata),
    secondary_metadata: strMap(raw.secondary_metadata),
  };
}

function phaseOf(d: DepositRow, cancelCause: string | null, now: Date): Phase {
  switch (d.status) {
    case 'COMPLETED':
      return 'completed';
    case 'APPROVED':
      return 'confirming';
    case 'CANCELLED':
      // Expiry and cancellation both end in CANCELLED; the customer is told which one it was.
      return cancelCause === 'expiry' ? 'expired' : 'cancelled';
    default:
      // PENDING: the checkout's own rule (the expiry worker runs every so often; the page does not wait for it).
      return isPayable(d, now) ? 'payable' : 'expired';
  }
}

/** Framing is allowed for the hosted checkout and for methods meant to be embedded. */
function mayFrame(d: DepositRow, method: PaymentMethod | undefined): boolean {
  return d.checkout_type === 'HOSTED' || method?.iframe === true;
}

export async function load(ctx: AppContext, token: string, req: PageRequest): Promise<Loaded | null> {
  const c = await customerDeposit(ctx, token);
  if (!c) return null;
  const { d } = c;
  const now = ctx.now();
  const chosenLang = (PAGE_LANGUAGES as readonly string[]).includes(req.lang ?? '') ? (req.lang as Lang) : undefined;
  const lang = resolveLang(chosenLang, d.language, req.acceptLanguage, d.country);
  const phase = phaseOf(d, c.cancelCause, now);
  const method = d.payment_method ? findMethod(d.country, d.payment_method) : undefined;
  const info = parseInfo(servedPaymentInfo(d.payment_info));
  return {
    d,
    merchantName: c.merchantName,
    merchantLogo: c.merchantLogo,
    merchantReturnUrl: c.merchantReturnUrl,
    cardDetail: c.cardDetail,
    method,
    info,
    nextAction: storedNextAction(d.next_action) ?? nextActionOf(method?.kind, info, d.country),
    phase,
    lang,
    chosenLang,
    t: strings(lang),
    locale: localeOf(lang, d.country),
    timeZone: COUNTRY_TIME_ZONES[d.country] ?? 'UTC',
    staging: ctx.config.sandbox,
    embedded: req.iframe && mayFrame(d, method),
    frameOrigins: c.frameOrigins,
    now,
  };
}
