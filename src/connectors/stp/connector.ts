// The STP connector: Mexico's SPEI through STP (Sistema de Transferencias y Pagos, participant
// 90646), both directions. docs/connectors.md, "The STP connector".
//   collections  a MX SE deposit gets its own CLABE inside the operator's range (clabe_prefix);
//                STP posts each incoming transfer (abono) to /connectors/stp/abono, which is read
//                back (consOrdenesFech, received orders) and applied through applyPayment; the
//                connectors worker reads the day's received orders to catch lost posts
//   payouts      a MX cashout is an order (ordenPago/registra, signed), its claveRastreo random
//                and stored before sending; looked up by it (consOrdEnvRastreo) on every operation
//                day STP may have dated it, before any resend and for its state; an order found
//                that is not the cashout's is never adopted (src/connectors/payouts.ts)
import type { AppContext } from '../../config/context.ts';
import { dec } from '../../domain/money.ts';
import { paymentInfoBase, speiReference } from '../../domain/payment-info.ts';
import { ConnectorError, type PayinConnector, paymentInfoInput, type ProviderPayment } from '../payin.ts';
import type { OrderPayoutConnector, OrderState } from '../payout.ts';
import type { ConnectorKind } from '../registry.ts';
import { recordHealth, type StoredConnector } from '../store.ts';
import { StpClient } from './client.ts';
import { checkAbono, clabeInRange, receivedKept, newClaveRastreo, fechaOperacion, operationDays, orderBody, orderMismatch, orderOutcome, receivedToPayment, splitPaymentId } from './mapping.ts';
import type { StpSecrets, StpSettings } from './settings.ts';

export const STP_CONNECTOR = 'stp';

export interface StpConnector extends PayinConnector {
  readonly payout: OrderPayoutConnector;
  readonly client: StpClient;
  /** The shared secret a callback must carry (X-Stp-Webhook-Secret), when the operator set one. */
  readonly webhookSecret: string | null;
  /** Whether a CLABE is a deposit's: in the operator's range, and not its concentrating account. */
  isDepositClabe(clabe: string | null): boolean;
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

  // The concentrating account usually lies in the range too (its account number 0, which the
  // sequence never gives): money sent to it is the operator's, never a deposit's.
  const isDepositClabe = (clabe: string | null) => clabe !== null && clabe.startsWith(settings.clabe_prefix) && clabe !== settings.ordering_clabe;

  /** The received orders of one day that were paid into the operator's CLABE range. */
  async function receivedOn(fecha: string | undefined): Promise<ProviderPayment[]> {
    const list = await guarded('consOrdenesFech', () => client.ordersOfDay('R', fecha));
    // A transfer STP returned (devuelta, or after caja answered devolver) credits nothing.
    return list.filter(receivedKept).map(receivedToPayment)
      .filter((p): p is ProviderPayment => p !== null && isDepositClabe(p.chargeReference));
  }

  const payout: OrderPayoutConnector = {
    name: STP_CONNECTOR,
    countries: ['MX'],
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
    isDepositClabe,

    async createCharge(order) {
      // A number of the range is taken once, never given again: a CLABE is never reused.
      let n: number;
      try {
        const { rows } = await ctx.db.query<{ n: string }>("SELECT nextval('stp_clabe_numbers')::text AS n");
        n = Number(rows[0]!.n);
      } catch (err) {
        if (!(err instanceof Error && /maximum value/i.test(err.message))) throw err;
        ctx.log.error({ err }, 'STP: no CLABE left in the range');
        throw new ConnectorError('not_configured', 'the CLABE range of clabe_prefix is exhausted');
      }
      const clabe = clabeInRange(settings.clabe_prefix, n);
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

    checkPayment: checkAbono,

    async refund() {
      // A refund of an SPEI deposit is a transfer the operator makes (STP's portal): it stays PENDING.
      return { status: 'PENDING' };
    },

    async refundStatus() {
      return { status: 'PENDING' };
    },

    async *paymentsBetween(from, to) {
      const start = Math.max(from.getTime(), to.getTime() - MAX_DAYS * DAY_MS);
      const days = new Set<string>();
      for (let t = start; t < to.getTime() + DAY_MS; t += DAY_MS) days.add(fechaOperacion(new Date(Math.min(t, to.getTime()))));
      const today = fechaOperacion(ctx.now());
      for (const day of days) for (const p of await receivedOn(day === today ? undefined : day)) yield p;
    },

    close() {
      setTimeout(() => client.close(), 2 * ctx.config.connectors.timeoutMs).unref();
    },

    async health() {
      return { ok: true, empresa: settings.empresa, clabe_prefix: settings.clabe_prefix };
    },
  };
}

export const stpKind: ConnectorKind = {
  name: STP_CONNECTOR,
  serves: [{ country: 'MX', method: 'SE' }],
  build: buildStpConnector,
};
