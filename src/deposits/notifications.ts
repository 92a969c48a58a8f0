// What a deposit status change sends, by the face that created the deposit:
//   v3          JSON {"deposit_id": N} to the deposit's notification_url, else the merchant's.
//   streamline  the spec's confirmation form (result, x_invoice, ..., x_control) to x_confirmation,
//               else the merchant's notification_url; x_control = upper hex HMAC-SHA256 of
//               deposits login + result + x_amount + x_invoice, keyed with the deposits secret.
// No destination: no outbox row (the event is still recorded by the caller).
import type { AppContext } from '../config/context.ts';
import type { Queryable } from '../db/db.ts';
import { findMethod } from '../domain/catalog.ts';
import { streamlineResult } from '../domain/deposit-states.ts';
import { depositResultMessage, hmacHexUpper } from '../domain/signatures.ts';
import { depositsSignerOf } from '../merchants/merchants.ts';
import type { OutgoingNotification } from '../notifications/outbox.ts';
import type { DepositRow } from './store.ts';

/**
 * The streamline result fields of a deposit (webpaystatus, return redirect and confirmation share
 * them), signed. `x_amount` is the amount the merchant asked for, as stored ("10.00").
 */
export function streamlineFields(d: DepositRow, depositsLogin: string, depositsSecret: string): Record<string, string> {
  const method = d.payment_method ? findMethod(d.country, d.payment_method) : undefined;
  const result = streamlineResult(d.status);
  const x_amount = d.amount;
  return {
    result,
    x_invoice: d.invoice_id,
    x_iduser: d.user_id,
    x_description: d.description ?? '',
    x_document: String(d.id),
    x_bank: d.payment_method ?? d.bank_code ?? '',
    x_payment_type: method?.streamlinePaymentType ?? '',
    x_bank_name: method?.name ?? '',
    x_amount,
    x_currency: d.currency,
    x_control: hmacHexUpper(depositsSecret, depositResultMessage(depositsLogin, result, x_amount, d.invoice_id)),
  };
}

/**
 * The deposit's notification. `extra` adds documented fields to the v3 body beside deposit_id (a
 * dispute's change: `{"dispute": {"dispute_id", "status"}}`, docs/notifications.md); streamline's
 * confirmation form is the spec's, whatever changed.
 */
export async function depositNotifications(
  q: Queryable,
  ctx: AppContext,
  d: DepositRow,
  merchantNotificationUrl: string | null,
  extra?: Record<string, unknown>,
): Promise<OutgoingNotification[]> {
  if (d.source === 'streamline') {
    const url = d.confirmation_url ?? merchantNotificationUrl;
    if (!url) return [];
    const signer = await depositsSignerOf(q, ctx.box, d.merchant_id);
    if (!signer) return [];
    return [{
      kind: 'streamline.confirmation',
      url,
      contentType: 'application/x-www-form-urlencoded',
      body: new URLSearchParams(streamlineFields(d, signer.login, signer.secret)).toString(),
      signingSet: 'deposits',
    }];
  }
  const url = d.notification_url ?? merchantNotificationUrl;
  if (!url) return [];
  return [{ kind: 'v3.deposit', url, contentType: 'application/json', body: JSON.stringify({ deposit_id: d.id, ...extra }), signingSet: 'deposits' }];
}
