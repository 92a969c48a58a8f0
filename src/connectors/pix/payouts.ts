// Brazilian cashouts paid as Pix sends through the operator's PSP: Efí's send API ("Enviar Pix",
// PUT {api_url}/gn/pix/{idEnvio}; "Pix enviados", GET {api_url}/gn/pix/enviados/id-envio/{idEnvio}),
// on the same host, client certificate and OAuth2 client as the API Pix (./client.ts). It is one
// more OrderPayoutConnector: src/cashouts/payouts.ts stores the idEnvio before the send, leases the
// row, looks the send up before any resend and applies the outcome. docs/connectors.md "Pix payouts".
//
//   send     201 → accepted (its e2eId); 409 id_envio_duplicado → exists (looked up); a documented
//            refusal → rejected with its code, or retried when it is the operator's side (payer
//            key, blocked document, balance); 429/5xx/no answer → retried with backoff, a 429's
//            Retry-After honoured by this process (no send to the PSP before it)
//   look-up  404 → none; EM_PROCESSAMENTO / REALIZADO / NAO_REALIZADO (and a later return by the
//            receiving bank) → processing / paid / rejected (returned); found but not the
//            cashout's (amount, key or account, document) → mismatch: never adopted
import type { AppContext } from '../../config/context.ts';
import { ConnectorError } from '../payin.ts';
import type { OrderPayoutConnector, OrderSendResult, OrderState } from '../payout.ts';
import { recordHealth } from '../store.ts';
import type { PixClient } from './client.ts';
import { newIdEnvio, sendBody, sendResult, sendState } from './payout-mapping.ts';
import { add, cmp, fromDb, toDb } from '../../domain/money.ts';

/** The payouts block of the Pix connector's configuration (PUT /admin/connectors/pix). */
export interface PixPayoutSettings {
  /** The operator's Pix key the PSP debits (its webhook must be registered, as Efí requires). */
  payer_key: string;
  /** The largest payout, BRL: a larger cashout is refused at creation. */
  max_amount: string;
  /** Seconds after which a send not heard of (no webhook) is looked up. */
  check_seconds: number;
  /** The most sent in one day (São Paulo), BRL: a send that would pass it waits for the next day. */
  daily_limit?: string;
  /** Shown to the beneficiary (infoPagador), at most 140 characters. */
  info_pagador?: string;
}

export function buildPixPayouts(ctx: AppContext, name: string, client: PixClient, settings: PixPayoutSettings): OrderPayoutConnector {
  /** Until when this process sends nothing (a 429's Retry-After), epoch ms. */
  let pausedUntil = 0;
  const error = (message: string) => recordHealth(ctx, name, { kind: 'error', message }).catch(() => undefined);

  return {
    name,
    countries: ['BR'],
    maxAmount: settings.max_amount,
    checkSeconds: settings.check_seconds,
    // The end-to-end id names the Pix for the beneficiary and both banks.
    providerIdIsBankReference: true,
    newReference: newIdEnvio,

    async send(order, reference, facts): Promise<OrderSendResult> {
      const built = sendBody(order, { key: settings.payer_key, info: settings.info_pagador });
      if (!built.ok) return { kind: 'rejected', code: built.code, error: built.reason };
      // The limit was lowered after the cashout was created: not sent.
      if (cmp(fromDb(order.amount), fromDb(settings.max_amount)) > 0) {
        return { kind: 'rejected', code: '802', error: `${order.amount} BRL is above the payout limit of ${settings.max_amount} BRL` };
      }
      const now = ctx.now().getTime();
      if (pausedUntil > now) return { kind: 'retry', error: `the PSP asked to wait (rate limit) until ${new Date(pausedUntil).toISOString()}` };
      if (settings.daily_limit !== undefined) {
        if (!facts) return { kind: 'retry', error: 'the daily limit cannot be checked: no count of the day\'s sends was given' };
        const sent = fromDb(await facts.handedOverSince(todayStart(ctx.now())));
        if (cmp(add(sent, fromDb(order.amount)), fromDb(settings.daily_limit)) > 0) {
          return { kind: 'retry', error: `the daily limit of ${settings.daily_limit} BRL is reached (${toDb(sent)} BRL sent today): sent when the day allows` };
        }
      }
      let res;
      try {
        res = await client.exchange('PUT', `/gn/pix/${reference}`, built.body);
      } catch (err) {
        // No answer: the send may have arrived. Thrown, so the row stays 'sending' and the send
        // is looked up before anything is sent again.
        if (err instanceof ConnectorError) await error(`send ${reference}: ${err.message}`);
        throw err;
      }
      const result = sendResult(res.status, res.body, built.by, res.retryAfter);
      if (res.status === 429) {
        const seconds = Number(res.retryAfter);
        pausedUntil = ctx.now().getTime() + (Number.isFinite(seconds) && seconds > 0 ? Math.min(seconds, 3600) : 5) * 1000;
      }
      if (result.kind === 'retry') await error(`send ${reference}: ${result.error}`);
      if (result.unknownReason) ctx.log.warn({ connector: name, cashoutId: order.cashoutId, reference, reason: result.unknownReason }, 'Pix send refused for a reason the PSP does not document: rejected with 808');
      const { unknownReason: _, ...plain } = result;
      return plain as OrderSendResult;
    },

    async lookup(order, reference): Promise<OrderState | null> {
      let res;
      try {
        res = await client.exchange('GET', `/gn/pix/enviados/id-envio/${reference}`);
      } catch (err) {
        if (err instanceof ConnectorError) await error(`send look-up ${reference}: ${err.message}`);
        throw err;
      }
      if (res.status === 404) return null;
      if (res.status < 200 || res.status >= 300) {
        const kind = res.status === 401 || res.status === 403 ? 'auth' : res.status >= 500 || res.status === 429 || res.status === 408 ? 'unavailable' : 'refused';
        const e = new ConnectorError(kind, `send look-up ${reference}: the PSP answered ${res.status}`);
        await error(e.message);
        throw e;
      }
      const state = sendState(res.body, {
        amount: order.amount, payerKey: settings.payer_key, pixKey: order.pixKey, bankAccount: order.bankAccount, bankBranch: order.bankBranch, documentId: order.documentId,
      });
      if (!state) throw new ConnectorError('invalid_response', `send look-up ${reference}: no status caja knows`);
      if ('unknownReason' in state && state.unknownReason) {
        ctx.log.warn({ connector: name, cashoutId: order.cashoutId, reference, reason: state.unknownReason }, 'Pix send not made for a reason caja does not know: rejected with 808');
      }
      const { unknownReason: _, ...plain } = state as OrderState & { unknownReason?: string };
      return plain as OrderState;
    },
  };
}

/** Brazil's offset from UTC (no daylight saving time since 2019). */
const BRT_OFFSET_MS = -3 * 3600_000;

/** The start of São Paulo's day containing `now`, as an instant. */
function todayStart(now: Date): Date {
  const local = now.getTime() + BRT_OFFSET_MS;
  return new Date(local - (local % 86_400_000) - BRT_OFFSET_MS);
}
