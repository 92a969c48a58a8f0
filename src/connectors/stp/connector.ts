// The STP connector: Mexico's SPEI through STP (Sistema de Transferencias y Pagos, participant
// 90646), both directions. docs/connectors.md, "The STP connector".
//   collections  a MX SE deposit gets its own CLABE inside the operator's range (clabe_prefix);
//                STP posts each incoming transfer (abono) to /connectors/stp/abono, which is read
//                back (consOrdenesFech, received orders) and applied through applyPayment; the
//                payments worker's poll reads the day's received orders to catch lost posts
//   payouts      a MX cashout is an order (ordenPago/registra, signed), its claveRastreo random
//                and stored before sending; looked up by it (consOrdEnvRastreo) on every operation
//                day STP may have dated it, before any resend and for its state; an order found
//                that is not the cashout's is never adopted (src/cashouts/payouts.ts, the send-once primitive)
//   refunds      a refund of an SPEI deposit is an order back to the abono's ordering account
//                (./refunds.ts), sent and tracked by src/refunds/provider-refunds.ts
import type { AppContext } from '../../config/context.ts';
import { dec } from '../../domain/money.ts';
import { paymentInfoBase, speiReference } from '../../domain/payment-info.ts';
import { ConnectorError, type PayinConnector, paymentInfoInput, type ProviderPayment } from '../payin.ts';
import type { OrderPayoutConnector, OrderState } from '../payout.ts';
import { connectorView, recordHealth, type StoredConnector } from '../store.ts';
import { StpClient } from './client.ts';
import { checkAbono, depositRemaindersNamed, receivedKept, newClaveRastreo, fechaOperacion, operationDays, orderBody, orderMismatch, orderOutcome, receivedToPayment, splitPaymentId } from './mapping.ts';
import { stpRefunds } from './refunds.ts';
import { orderIsRefund, returnClaveRastreo, returnOrderBody } from './refund-mapping.ts';
import { stpDayMovements, stpFecha } from './day.ts';
import type { StpSecrets, StpSettings } from './settings.ts';
import { allocateClabe, markSeenClabes } from './clabes.ts';
import { OWN_ACCOUNTS_CONNECTOR, storedAccounts } from '../own-accounts.ts';
import { isValidClabe } from '../../domain/clabe.ts';
import { kindSeconds } from '../kind.ts';
import { STP_INTERVALS } from './settings.ts';

export const STP_CONNECTOR = 'stp';

export interface StpConnector extends PayinConnector {
  readonly payout: OrderPayoutConnector;
  readonly client: StpClient;
  /** The shared secret a callback must carry (X-Stp-Webhook-Secret), when the operator set one. */
  readonly webhookSecret: string | null;
  /** Whether a CLABE is a deposit's: in the operator's range, and none of the operator's own accounts. */
  isDepositClabe(clabe: string | null): Promise<boolean>;
}

const DAY_MS = 24 * 3600_000;
/** At most this many days of received orders are read in one reconciliation pass. */
const MAX_DAYS = 7;

export function buildStpConnector(ctx: AppContext, stored: StoredConnector): StpConnector {
  const settings = stored.settings as unknown as StpSettings;
  const secrets = stored.secrets as unknown as StpSecrets;
  const client = new StpClient({
    apiUrl: settings.api_url,
    empresa: settings.empresa,
    privateKey: secrets.private_key,
    passphrase: secrets.private_key_passphrase,
    ca: settings.ca || undefined,
    timeoutMs: ctx.config.connectors.timeoutMs,
  });

  async function guarded<T>(what: string, run: () => Promise<T>): Promise<T> {
    try {
      return await run();
    } catch (err) {
      if (err instanceof ConnectorError) await recordHealth(ctx, STP_CONNECTOR, { kind: 'error', message: `${what}: ${err.message}` });
      throw err;
    }
  }

  /**
   * The operator's own accounts: the concentrating account (ordering_clabe) and every MX CLABE of
   * the own-accounts connector. They may lie inside the range (the company's accounts share it):
   * never given to a deposit, and money sent to them is the operator's, never a deposit's. Read
   * again before each use (the own-accounts list can change); `ownKnown` keeps the last read.
   */
  let ownKnown = new Set([settings.ordering_clabe]);
  async function ownClabes(): Promise<Set<string>> {
    const own = await connectorView(ctx, OWN_ACCOUNTS_CONNECTOR);
    const accounts = own ? storedAccounts(own).filter((a) => a.country === 'MX').map((a) => a.account.replace(/\D/g, '')).filter(isValidClabe) : [];
    ownKnown = new Set([settings.ordering_clabe, ...accounts]);
    return ownKnown;
  }

  const isDepositClabe = (clabe: string | null) => clabe !== null && clabe.startsWith(settings.clabe_prefix) && !ownKnown.has(clabe);

  /**
   * The received orders of one day: those paid into a deposit's CLABE, and those paid into one of
   * the operator's own accounts (ownAccountNames: deposits keeps those that name a deposit's
   * reference, a customer who sent the money to the wrong account, for the operator).
   */
  async function receivedOn(fecha: string | undefined): Promise<ProviderPayment[]> {
    const list = await guarded('consOrdenesFech', () => client.ordersOfDay('R', fecha));
    await ownClabes();
    // A transfer STP returned (devuelta, or after caja answered devolver) credits nothing; one that
    // was confirmed and applied before is a return by the ordering bank (kept: false, its return only).
    const all = list.map((o) => {
      const p = receivedToPayment(o);
      if (!p || receivedKept(o)) return p;
      const estado = String((o as { estado?: unknown }).estado ?? '').trim().toUpperCase();
      return { ...p, kept: false, returns: [{ id: `${p.id}:${estado}`, amount: p.amount, reason: `estado ${estado}`, description: 'SPEI transfer taken back by the ordering bank', bankInitiated: true, kind: 'spei_return' as const, status: 'settled' as const, returnedAt: null }] };
    }).filter((p): p is ProviderPayment => p !== null);
    const deposits = all.filter((p) => isDepositClabe(p.chargeReference));
    // A CLABE STP shows money in is never drawn again, even one this database does not know.
    await markSeenClabes(ctx.db, settings.clabe_prefix, deposits.map((p) => p.chargeReference!));
    return [...deposits, ...all.filter((p) => !isDepositClabe(p.chargeReference))];
  }

  /** The order that sends a refused abono back in full to its ordering account (refused when the abono names none). */
  function sendBackBody(payment: ProviderPayment, reference: string) {
    const parts = splitPaymentId(payment.id);
    const body = returnOrderBody({
      empresa: settings.empresa, claveRastreo: reference, abonoClave: parts?.claveRastreo ?? payment.id, amount: payment.amount, raw: payment.raw,
      orderingClabe: settings.ordering_clabe, orderingName: settings.ordering_name, orderingRfc: settings.ordering_rfc,
    });
    if (!body.ok) throw new ConnectorError('refused', `the refused abono ${payment.id} cannot be sent back: ${body.reason}`);
    return body;
  }

  const payout: OrderPayoutConnector = {
    name: STP_CONNECTOR,
    countries: ['MX'],
    checkSeconds: kindSeconds(ctx.config, STP_INTERVALS.orderCheck),
    newReference: newClaveRastreo,

    async send(order, reference) {
      const body = orderBody({
        empresa: settings.empresa, claveRastreo: reference, amount: dec(order.amount), beneficiaryAccount: order.bankAccount,
        beneficiaryName: order.beneficiaryName, beneficiaryDocument: order.documentId, bankCode: order.bankCode,
        orderingClabe: settings.ordering_clabe, orderingName: settings.ordering_name, orderingRfc: settings.ordering_rfc, cashoutId: order.cashoutId,
      });
      if (!body.ok) return { kind: 'rejected', code: body.code, error: body.reason };
      const result = await guarded('registra', () => client.registra(body.orden));
      switch (result.kind) {
        case 'accepted': return { kind: 'accepted', providerId: result.id };
        case 'exists': return { kind: 'exists' };
        case 'rejected': return { kind: 'rejected', code: result.code, error: result.error };
        case 'retry':
          await recordHealth(ctx, STP_CONNECTOR, { kind: 'error', message: `registra: ${result.error}` });
          return { kind: 'retry', error: result.error };
        // STP answered something unreadable: the order may exist. Thrown, so it stays 'sending'
        // and is looked up before anything is sent again.
        case 'unreadable': throw new ConnectorError('invalid_response', `registra: ${result.error}`);
      }
    },

    async lookup(order, reference, handedAt, knownDay): Promise<OrderState | null> {
      // Every operation day STP may have dated the order (the hand-over day, or a later business
      // day after its cut-off), the day an earlier look-up found it first. Today's is asked
      // without a date (STP's documented usage), the others by their day.
      const today = fechaOperacion(ctx.now());
      const days = [...new Set([...(knownDay ? [knownDay] : []), ...operationDays(handedAt, ctx.now())])];
      let orden: Record<string, unknown> | null = null;
      let day: string | undefined;
      for (const d of days) {
        orden = await guarded('consOrdEnvRastreo', () => client.sentOrder(reference, d === today ? undefined : d));
        if (orden) {
          day = /^\d{8}$/.test(String(orden.fechaOperacion ?? '')) ? String(orden.fechaOperacion) : d;
          break;
        }
      }
      if (!orden) return null;
      const outcome = orderOutcome(orden);
      if (!outcome) throw new ConnectorError('invalid_response', `consOrdEnvRastreo ${reference}: no estado`);
      const providerId = orden.idEF !== undefined ? String(orden.idEF) : orden.id !== undefined ? String(orden.id) : undefined;
      const mismatch = orderMismatch(orden, { amount: dec(order.amount), beneficiaryAccount: order.bankAccount, beneficiaryName: order.beneficiaryName }) ?? undefined;
      const found = { state: outcome.estado, providerId, day, ...(mismatch ? { mismatch } : {}) };
      switch (outcome.kind) {
        case 'processing': return { kind: 'processing', ...found };
        case 'liquidated': return { kind: 'paid', ...found };
        case 'cancelled': return { kind: 'rejected', ...found, code: '808', cause: `cancelled at STP (${outcome.estado})` };
        case 'returned': return { kind: 'returned', ...found, code: outcome.code, cause: `returned by the beneficiary bank: ${outcome.cause}` };
      }
    },
  };

  return {
    name: STP_CONNECTOR,
    simulated: false,
    client,
    payout,
    webhookSecret: secrets.webhook_secret ?? null,
    async isDepositClabe(clabe) {
      await ownClabes();
      return isDepositClabe(clabe);
    },
    ownAccountNames(payment) {
      if (isDepositClabe(payment.chargeReference)) return null;
      return { remainders: depositRemaindersNamed(payment.raw), references: payment.chargeReference ? [payment.chargeReference] : [] };
    },

    async createCharge(order) {
      // Drawn at random in the range and reserved before the deposit shows it: never given again,
      // not even after the database is restored to an earlier point (src/connectors/stp/clabes.ts).
      const clabe = await allocateClabe(ctx.db, { prefix: settings.clabe_prefix, skip: await ownClabes() }, order.depositId);
      if (clabe === null) {
        ctx.log.error({ connector: STP_CONNECTOR }, 'STP: no CLABE left in the range');
        throw new ConnectorError('not_configured', 'the CLABE range of clabe_prefix is exhausted');
      }
      const paymentInfo = {
        ...paymentInfoBase(paymentInfoInput(order)),
        metadata: { beneficiary_name: settings.ordering_name, bank_name: 'STP', account: clabe, reference: speiReference(order.depositId) },
      };
      return { paymentInfo, reference: clabe };
    },

    async chargeStatus() {
      // A CLABE has no state at STP: its payments arrive as abonos and in the day's received orders.
      return { status: 'pending' };
    },

    async readPayment(id) {
      const parts = splitPaymentId(id);
      if (!parts) return null;
      const day = parts.fecha === fechaOperacion(ctx.now()) ? undefined : parts.fecha;
      const found = (await receivedOn(day)).find((p) => p.id === id);
      return found ?? null;
    },

    parseHint() {
      // STP posts to /connectors/stp/abono and /estado (src/connectors/stp/routes.ts), not the generic webhook.
      return [];
    },

    checkPayment(payment, deposit, named = []) {
      // Paid into the operator's own account: never a deposit's completion, kept for the operator.
      if (!isDepositClabe(payment.chargeReference)) {
        return { ok: false, reason: `own_account: paid into the operator's own account ${payment.chargeReference ?? ''}, naming the reference of deposit ${named.join(', ') || '(unknown)'}: kept for the operator` };
      }
      return checkAbono(payment, deposit);
    },

    // A refund of an SPEI deposit is an order back to the account the abono came from (./refunds.ts).
    ...stpRefunds(settings, client, guarded, ctx.now),

    // An abono the payer rule refused is answered devolver when its post arrives (STP returns it);
    // one the poll found first (its post lost, STP had accepted the money) is sent back by an
    // order of the full amount to the ordering account (docs/connectors.md, "The payer rule").
    returnsByAnswer: true,
    newReturnReference: returnClaveRastreo,

    async returnPayment(payment, reference) {
      const body = sendBackBody(payment, reference);
      const result = await guarded('registra', () => client.registra(body.orden));
      switch (result.kind) {
        case 'accepted': return { state: 'pending', providerId: result.id, providerState: 'registered' };
        // STP holds an order under this claveRastreo already (an earlier request arrived): looked up next.
        case 'exists': return null;
        case 'rejected': throw new ConnectorError('refused', `registra (send-back of abono ${payment.id}): ${result.error}`);
        case 'retry': throw new ConnectorError('unavailable', `registra: ${result.error}`);
        case 'unreadable': throw new ConnectorError('invalid_response', `registra: ${result.error}`);
      }
    },

    async lookupReturn(payment, reference) {
      const body = sendBackBody(payment, reference);
      // On every operation day the order may carry, from the abono's day.
      const today = fechaOperacion(ctx.now());
      for (const d of [...new Set([today, ...operationDays(payment.paidAt, ctx.now())])]) {
        const orden = await guarded('consOrdEnvRastreo', () => client.sentOrder(reference, d === today ? undefined : d));
        if (!orden) continue;
        const outcome = orderOutcome(orden);
        if (!outcome) throw new ConnectorError('invalid_response', `consOrdEnvRastreo ${reference}: no estado`);
        const mine = orderIsRefund(orden, body.orden);
        const providerId = orden.idEF !== undefined ? String(orden.idEF) : orden.id !== undefined ? String(orden.id) : undefined;
        const state = outcome.kind === 'liquidated' ? 'done' : outcome.kind === 'processing' ? 'pending' : 'failed';
        return {
          state, providerId, providerState: outcome.estado,
          ...(state === 'failed' ? { reason: outcome.kind === 'returned' ? `returned by the beneficiary bank: ${outcome.cause}` : `cancelled at STP (${outcome.estado})` } : {}),
          ...(mine.ok ? {} : { mismatch: mine.reason }),
        };
      }
      return null;
    },

    async *paymentsBetween(from, to) {
      const start = Math.max(from.getTime(), to.getTime() - MAX_DAYS * DAY_MS);
      const days = new Set<string>();
      for (let t = start; t < to.getTime() + DAY_MS; t += DAY_MS) days.add(fechaOperacion(new Date(Math.min(t, to.getTime()))));
      const today = fechaOperacion(ctx.now());
      for (const day of days) for (const p of await receivedOn(day === today ? undefined : day)) yield p;
    },

    // STP's reconciliation query: the operation day's received and sent orders, as movements of the ordering account.
    async dayMovements(date) {
      const fecha = stpFecha(date);
      const asked = fecha === fechaOperacion(ctx.now()) ? undefined : fecha;
      const received = await guarded('consOrdenesFech', () => client.ordersOfDay('R', asked));
      const sent = await guarded('consOrdenesFech', () => client.ordersOfDay('E', asked));
      const { movements, unreadable } = stpDayMovements(received, sent, date);
      if (unreadable.length) throw new ConnectorError('invalid_response', `orders of ${fecha}: unreadable ${unreadable.slice(0, 5).join(', ')}`);
      return { account: settings.ordering_clabe, currency: 'MXN', date, movements };
    },

    close() {
      setTimeout(() => client.close(), 2 * ctx.config.connectors.timeoutMs).unref();
    },

    async health() {
      return { ok: true, empresa: settings.empresa, clabe_prefix: settings.clabe_prefix };
    },
  };
}
