// What a cashout status change sends (DESIGN.md Notifications): the form fields date,
// bank_reference_id, comments, external_id, control, cashout_id, status_reason to the cashout's
// notification_url, where control = upper hex HMAC-SHA256 of "Be4" + external_id + "Bo7" keyed
// with the cashouts secret. It is a hint: the merchant reads the status with POST /v3/cashout/status.
import type { AppContext } from '../config/context.ts';
import type { Queryable } from '../db/db.ts';
import { CASHOUT_STATUS_DESCRIPTION } from '../domain/cashout-states.ts';
import { formatDateTime } from '../domain/payment-info.ts';
import { cashoutNotificationMessage, hmacHexUpper } from '../domain/signatures.ts';
import { cashoutsSecretOf } from '../merchants/merchants.ts';
import type { OutgoingNotification } from '../notifications/outbox.ts';
import type { CashoutRow } from './row.ts';

/** The notification form of a cashout as it is now, signed with the cashouts secret. */
export function cashoutNotificationFields(c: CashoutRow, cashoutsSecret: string): Record<string, string> {
  return {
    date: formatDateTime(c.updated_at),
    bank_reference_id: c.bank_reference_id ?? '',
    comments: c.comments ?? '',
    external_id: c.external_id,
    control: hmacHexUpper(cashoutsSecret, cashoutNotificationMessage(c.external_id)),
    cashout_id: String(c.id),
    status_reason: c.rejection_reason ?? CASHOUT_STATUS_DESCRIPTION[c.status],
  };
}

export async function cashoutNotifications(q: Queryable, ctx: AppContext, c: CashoutRow): Promise<OutgoingNotification[]> {
  if (!c.notification_url) return [];
  const secret = await cashoutsSecretOf(q, ctx.box, c.merchant_id);
  if (!secret) return [];
  return [{
    kind: 'cashout',
    url: c.notification_url,
    contentType: 'application/x-www-form-urlencoded',
    body: new URLSearchParams(cashoutNotificationFields(c, secret)).toString(),
    signingSet: 'cashouts',
  }];
}
