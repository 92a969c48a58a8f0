// Adyen's standard notifications (webhooks) as caja receives them: a JSON body
// {live, notificationItems: [{NotificationRequestItem: {...}}]} posted to the connector's callback
// path, each item signed with HMAC-SHA256 (additionalData.hmacSignature, base64) under the
// operator's HMAC key (hex, as the Customer Area shows it). The signed string is the item's
//   pspReference:originalReference:merchantAccountCode:merchantReference:value:currency:eventCode:success
// (empty for an absent field). Adyen expects the answer "[accepted]" once the batch is stored.
// Pure: verification is constant-time, against each configured key (two while rotating).
import { createHmac, timingSafeEqual } from 'node:crypto';

export interface AdyenNotification {
  pspReference: string;
  originalReference: string | null;
  merchantAccountCode: string;
  merchantReference: string;
  /** Minor units, as Adyen sends them. */
  value: number;
  currency: string;
  eventCode: string;
  success: boolean;
  eventDate: string | null;
  reason: string | null;
  additionalData: Record<string, string>;
  paymentMethod: string | null;
}

/** The string Adyen signs for one notification item. */
export function signedString(item: Record<string, unknown>): string {
  const amount = (item.amount ?? {}) as { value?: unknown; currency?: unknown };
  const s = (v: unknown) => (v === undefined || v === null ? '' : String(v));
  return [s(item.pspReference), s(item.originalReference), s(item.merchantAccountCode), s(item.merchantReference), s(amount.value), s(amount.currency), s(item.eventCode), s(item.success)].join(':');
}

/** The item's HMAC-SHA256 under a hex key, base64 (what additionalData.hmacSignature carries). */
export function hmacOf(item: Record<string, unknown>, hexKey: string): string {
  return createHmac('sha256', Buffer.from(hexKey, 'hex')).update(signedString(item), 'utf8').digest('base64');
}

function sameSignature(a: string, b: string): boolean {
  const x = Buffer.from(a, 'utf8');
  const y = Buffer.from(b, 'utf8');
  return x.length === y.length && timingSafeEqual(x, y);
}

/**
 * The additionalData keys caja keeps of a notification (adyen_events.additional_data): what it
 * reads (the card's last four, the refusal and chargeback codes, the defence deadline) and nothing
 * else, so whatever else the merchant account adds (a holder's name, a BIN, an issuer) is never
 * stored (docs/security.md, "Card data").
 */
export const KEPT_ADDITIONAL_DATA = new Set(['cardSummary', 'refusalReasonCode', 'chargebackReasonCode', 'chargebackSchemeCode', 'defensePeriodEndsAt', 'disputeStatus', 'paymentMethodVariant']);

export type ParsedBatch =
  | { ok: true; items: AdyenNotification[] }
  /** The body is not a notification batch, or an item is unsigned or signed with no configured key. */
  | { ok: false; reason: string };

/**
 * The items of a notification batch, each checked against `hexKeys` (the current key and, while
 * rotating, the next one) and the merchant account configured. One bad item refuses the batch:
 * nothing of a forged or tampered body is applied.
 */
export function parseNotifications(body: unknown, hexKeys: readonly string[], merchantAccount: string): ParsedBatch {
  if (!body || typeof body !== 'object') return { ok: false, reason: 'not a notification batch' };
  const list = (body as { notificationItems?: unknown }).notificationItems;
  if (!Array.isArray(list) || list.length === 0) return { ok: false, reason: 'notificationItems is missing or empty' };
  const items: AdyenNotification[] = [];
  for (const wrapped of list) {
    const raw = (wrapped as { NotificationRequestItem?: unknown } | null)?.NotificationRequestItem;
    if (!raw || typeof raw !== 'object') return { ok: false, reason: 'an item is not a NotificationRequestItem' };
    const item = raw as Record<string, unknown>;
    const additional = (item.additionalData && typeof item.additionalData === 'object' ? item.additionalData : {}) as Record<string, unknown>;
    const signature = typeof additional.hmacSignature === 'string' ? additional.hmacSignature : '';
    if (!signature) return { ok: false, reason: 'an item carries no hmacSignature' };
    if (!hexKeys.some((k) => sameSignature(hmacOf(item, k), signature))) return { ok: false, reason: 'an item\'s hmacSignature does not verify' };
    const amount = (item.amount ?? {}) as { value?: unknown; currency?: unknown };
    const value = Number(amount.value);
    if (typeof item.pspReference !== 'string' || !item.pspReference || typeof item.eventCode !== 'string' || !Number.isSafeInteger(value) || typeof amount.currency !== 'string') {
      return { ok: false, reason: 'an item lacks pspReference, eventCode or amount' };
    }
    if (item.merchantAccountCode !== merchantAccount) return { ok: false, reason: `an item is for another merchant account (${String(item.merchantAccountCode)})` };
    items.push({
      pspReference: item.pspReference,
      originalReference: typeof item.originalReference === 'string' && item.originalReference ? item.originalReference : null,
      merchantAccountCode: item.merchantAccountCode,
      merchantReference: typeof item.merchantReference === 'string' ? item.merchantReference : '',
      value,
      currency: amount.currency,
      eventCode: item.eventCode,
      success: item.success === 'true' || item.success === true,
      eventDate: typeof item.eventDate === 'string' ? item.eventDate : null,
      reason: typeof item.reason === 'string' && item.reason ? item.reason : null,
      additionalData: Object.fromEntries(Object.entries(additional).filter(([k, v]) => KEPT_ADDITIONAL_DATA.has(k) && typeof v === 'string')) as Record<string, string>,
      paymentMethod: typeof item.paymentMethod === 'string' ? item.paymentMethod : null,
    });
  }
  return { ok: true, items };
}

/** What Adyen expects as the answer to a stored batch. */
export const ACCEPTED = '[accepted]';
