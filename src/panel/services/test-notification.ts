// "Send a test notification" of Settings → API Access: one POST to the merchant's notification
// URL, through the same address guard and signing as real notifications (Caja-Signature keyed
// with the deposits secret), answered with what was sent and what came back. Not queued, not
// retried: it is a probe a person watches.
import type { AppContext } from '../../config/context.ts';
import { cajaSignatureHeader } from '../../domain/signatures.ts';
import { depositsSignerOf, getMerchant } from '../../merchants/merchants.ts';
import { isPublicAddress, policyFor, refusalText, resolveTarget } from '../../notifications/address-guard.ts';
import { postNotification } from '../../notifications/http-post.ts';
import { type Actor, audit } from './audit.ts';

export interface TestNotification {
  request: string;
  status?: number;
  /** Absent when the destination is a loopback or private address (see below). */
  body?: string;
  error?: string;
}

export async function sendTestNotification(ctx: AppContext, a: Actor): Promise<TestNotification> {
  const merchant = await getMerchant(ctx.db, a.merchantId);
  const url = merchant?.notification_url;
  if (!url) return { request: '', error: 'no notification URL is set' };
  const signer = await depositsSignerOf(ctx.db, ctx.box, a.merchantId);
  const body = JSON.stringify({ test: true, merchant_id: a.merchantId, sent_at: ctx.now().toISOString() });
  const headers = {
    'Content-Type': 'application/json',
    'Caja-Signature': cajaSignatureHeader(signer?.secret ?? '', Math.floor(ctx.now().getTime() / 1000), body),
    'User-Agent': 'caja-notifications (test)',
  };
  const request = `POST ${url}\n${Object.entries(headers).map(([k, v]) => `${k}: ${v}`).join('\n')}\n\n${body}`;
  let result: TestNotification;
  try {
    const target = await resolveTarget(url, policyFor(ctx.config));
    const r = await postNotification(target, headers, body, 10_000);
    // As for real notifications (worker.ts): the answer of a loopback or private destination
    // may be an internal service's, so it is never shown; the status code is.
    const answer = isPublicAddress(target.address) ? (r.excerpt ?? '') : undefined;
    result = r.error ? { request, error: r.error } : { request, status: r.statusCode ?? undefined, body: answer };
  } catch (err) {
    // Production: "refused: private address", never the address the host resolved to.
    result = { request, error: refusalText(err, policyFor(ctx.config)) };
  }
  await audit(ctx.db, a, 'notification.test_sent', null, { url, status: result.status ?? null, error: result.error ?? null }, ctx.now());
  return result;
}
