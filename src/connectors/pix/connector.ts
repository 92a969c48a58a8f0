// The API Pix connector: Brazil's Pix (BR/IX) collected through any PSP that speaks the Central
// Bank's API Pix v2. A charge is a cob (PUT /cob/{txid}), a payment is read back with
// GET /pix/{e2eid} (the webhook only says which), reconciliation reads GET /pix?inicio&fim, a
// refund is a devolução (PUT/GET /pix/{e2eid}/devolucao/{id}). docs/connectors.md.
import type { AppContext } from '../../config/context.ts';
import { ConnectorError, type PayinConnector, type ProviderPayment } from '../payin.ts';
import { DEVOLUCAO_LOOKBACK_DAYS, pixAccountId, pixDayMovements, pixSendMovements, SEND_LOOKBACK_DAYS } from './day.ts';
import { recordHealth, type StoredConnector } from '../store.ts';
import { PixClient } from './client.ts';
import { buildPixPayouts, type PixPayoutSettings } from './payouts.ts';
import { cobBody, devolucaoMismatch, sameActiveCob, devolucaoOutcome, formatValor, matchPayment, newTxid, parsePixHint, paymentInfoFromCob, pixToPayment, sendBackShown } from './mapping.ts';

export const PIX_CONNECTOR = 'pix';

/** What PUT /admin/connectors/pix stores: settings shown back, secrets sealed. */
export interface PixSettings {
  api_url: string;
  token_url: string;
  client_id: string;
  pix_key: string;
  certificate: string;
  ca?: string;
  /** BR cashouts paid as Pix sends through the same PSP (./payouts.ts), as JSON text; absent: payouts off. */
  payouts?: string;
}

export interface PixSecrets {
  client_secret: string;
  private_key: string;
}

export interface PixConnector extends PayinConnector {
  readonly pixKey: string;
  readonly client: PixClient;
}

/** Days one GET /pix of the day's statement asks at most (a PSP may bound the interval). */
const WINDOW_DAYS = 5;

/** Pages of GET /pix read in one reconciliation pass at most (100 items each by default). */
const MAX_PAGES = 1000;

export function buildPixConnector(ctx: AppContext, stored: StoredConnector): PixConnector {
  const settings = stored.settings as unknown as PixSettings;
  const secrets = stored.secrets as unknown as PixSecrets;
  const client = new PixClient({
    apiUrl: settings.api_url,
    tokenUrl: settings.token_url,
    clientId: settings.client_id,
    clientSecret: secrets.client_secret,
    certificate: settings.certificate,
    privateKey: secrets.private_key,
    ca: settings.ca || undefined,
    timeoutMs: ctx.config.connectors.timeoutMs,
    onToken: () => void recordHealth(ctx, PIX_CONNECTOR, { kind: 'token' }),
  });
  const pixKey = settings.pix_key;

  /** GET /pix?inicio&fim (or Efí's list of sends), page by page: every Pix the PSP lists in [from, to]. */
  async function* pixBetween(from: Date, to: Date, path = '/pix', filters: Record<string, string> = {}): AsyncIterable<unknown> {
    for (let page = 0; page < MAX_PAGES; page++) {
      const { body } = await guarded('pix list', () => client.call<{ pix?: unknown; parametros?: { paginacao?: { quantidadeDePaginas?: unknown } } }>('GET', path, undefined, {
        inicio: from.toISOString(),
        fim: to.toISOString(),
        'paginacao.paginaAtual': String(page),
        ...filters,
      }));
      const list = Array.isArray(body?.pix) ? body.pix : [];
      yield* list;
      const pages = body?.parametros?.paginacao?.quantidadeDePaginas;
      if (typeof pages !== 'number' || page + 1 >= pages || list.length === 0) return;
    }
  }

  /** Runs a PSP call; a failure is recorded as the connector's last error and rethrown. */
  async function guarded<T>(what: string, run: () => Promise<T>): Promise<T> {
    try {
      return await run();
    } catch (err) {
      if (err instanceof ConnectorError && err.kind !== 'not_found') await recordHealth(ctx, PIX_CONNECTOR, { kind: 'error', message: `${what}: ${err.message}` });
      throw err;
    }
  }

  const payoutSettings = settings.payouts ? (JSON.parse(settings.payouts) as PixPayoutSettings) : null;
  const payout = payoutSettings ? buildPixPayouts(ctx, PIX_CONNECTOR, client, payoutSettings) : undefined;

  return {
    name: PIX_CONNECTOR,
    simulated: false,
    pixKey,
    client,
    ...(payout ? { payout } : {}),

    async createCharge(order) {
      // Random (never from the deposit id, which a restored database gives again); the retry
      // below, after a PUT whose answer was lost, names the same one.
      const txid = newTxid();
      type Cob = { pixCopiaECola?: unknown; txid?: unknown; status?: unknown };
      let body: Cob | null;
      try {
        ({ body } = await guarded('cob', () => client.call<Cob>('PUT', `/cob/${txid}`, cobBody(order, pixKey, ctx.now()))));
      } catch (err) {
        // The PUT may have created the cob though its answer was lost: the same cob, read back by
        // its txid and still active with this amount and key, is taken; anything else fails.
        if (!(err instanceof ConnectorError) || (err.kind !== 'refused' && err.kind !== 'unavailable')) throw err;
        const existing = await client.call<Cob>('GET', `/cob/${txid}`).catch(() => null);
        if (!existing || !sameActiveCob(existing.body, order, pixKey)) throw err;
        body = existing.body;
      }
      if (!body || typeof body !== 'object' || typeof body.pixCopiaECola !== 'string' || body.pixCopiaECola === '') {
        throw new ConnectorError('invalid_response', `PUT /cob/${txid}: the answer has no pixCopiaECola`);
      }
      if (body.txid !== undefined && body.txid !== txid) throw new ConnectorError('invalid_response', `PUT /cob/${txid}: the answer names txid ${String(body.txid)}`);
      return { paymentInfo: paymentInfoFromCob(order, txid, body), reference: txid };
    },

    async chargeStatus(txid) {
      const { body } = await guarded('cob status', () => client.call<{ status?: unknown; pix?: unknown }>('GET', `/cob/${txid}`));
      const payments = Array.isArray(body?.pix) ? body.pix.map(pixToPayment).filter((p): p is ProviderPayment => p !== null) : [];
      if (body?.status === 'CONCLUIDA') return { status: 'paid', payments };
      if (typeof body?.status === 'string' && body.status.startsWith('REMOVIDA')) return { status: 'cancelled', reason: body.status };
      return { status: 'pending' };
    },

    async readPayment(e2eid) {
      try {
        const { body } = await guarded('pix', () => client.call('GET', `/pix/${encodeURIComponent(e2eid)}`));
        const payment = pixToPayment(body);
        if (!payment) throw new ConnectorError('invalid_response', `GET /pix/${e2eid}: unreadable Pix`);
        // The PSP answered another payment than the one asked: not this one.
        return payment.id === e2eid ? payment : null;
      } catch (err) {
        if (err instanceof ConnectorError && err.kind === 'not_found') return null;
        throw err;
      }
    },

    parseHint: parsePixHint,

    checkPayment(payment, deposit) {
      return matchPayment(payment, { status: deposit.status, payerAmount: deposit.payerAmount, txid: deposit.reference, expiresAt: deposit.expiresAt }, pixKey);
    },

    async refund(order) {
      if (!order.paymentId) throw new ConnectorError('refused', 'the deposit has no Pix payment to return');
      // The devolução id stored with the refund's row (random: src/connectors/refund-routes.ts).
      const id = order.reference;
      const { body } = await guarded('devolucao', () => client.call('PUT', `/pix/${encodeURIComponent(order.paymentId!)}/devolucao/${id}`, { valor: formatValor(order.amount) }));
      const outcome = devolucaoOutcome(body) ?? { status: 'PENDING' as const, reference: id };
      const mismatch = body && typeof body === 'object' && 'valor' in body ? devolucaoMismatch(body, order.amount) : null;
      return mismatch ? { status: 'MISMATCH', reason: mismatch } : outcome;
    },

    async refundStatus(order) {
      if (!order.paymentId) return null;
      const id = order.reference;
      try {
        const { body } = await guarded('devolucao status', () => client.call('GET', `/pix/${encodeURIComponent(order.paymentId!)}/devolucao/${id}`));
        const outcome = devolucaoOutcome(body);
        if (!outcome) throw new ConnectorError('invalid_response', `GET devolucao ${id}: unknown status`);
        // A devolução found under the id that is not this refund's (another amount) is never adopted.
        const mismatch = devolucaoMismatch(body, order.amount);
        return mismatch ? { status: 'MISMATCH', reason: mismatch } : outcome;
      } catch (err) {
        if (err instanceof ConnectorError && err.kind === 'not_found') return null;
        throw err;
      }
    },

    async returnPayment(payment, reference, reason) {
      const { body } = await guarded('devolucao', () => client.call('PUT', `/pix/${encodeURIComponent(payment.id)}/devolucao/${reference}`, { valor: formatValor(payment.amount), descricao: reason.slice(0, 140) }));
      return sendBackShown(body, payment.amount) ?? { state: 'pending' };
    },

    async lookupReturn(payment, reference) {
      try {
        const { body } = await guarded('devolucao status', () => client.call('GET', `/pix/${encodeURIComponent(payment.id)}/devolucao/${reference}`));
        const shown = sendBackShown(body, payment.amount);
        if (!shown) throw new ConnectorError('invalid_response', `GET devolucao ${reference}: unknown status`);
        return shown;
      } catch (err) {
        if (err instanceof ConnectorError && err.kind === 'not_found') return null;
        throw err;
      }
    },

    async cancelCharge(txid) {
      await guarded('cob removal', () => client.call('PATCH', `/cob/${txid}`, { status: 'REMOVIDA_PELO_USUARIO_RECEBEDOR' }));
    },

    async registerCallback(url) {
      await guarded('webhook', () => client.call('PUT', `/webhook/${encodeURIComponent(pixKey)}`, { webhookUrl: url }));
      // The payer key of sends needs its own webhook when it is another key (Efí requires one).
      const payer = payoutSettings?.payer_key;
      if (payer && payer !== pixKey) await guarded('webhook (payer key)', () => client.call('PUT', `/webhook/${encodeURIComponent(payer)}`, { webhookUrl: url }));
      await recordHealth(ctx, PIX_CONNECTOR, { kind: 'webhook', url });
    },

    async *paymentsBetween(from, to, opts) {
      // withReturns: only the Pix that have devoluções (the MED pass of the poll).
      for await (const entry of pixBetween(from, to, '/pix', opts?.withReturns ? { devolucaoPresente: 'true' } : {})) {
        const payment = pixToPayment(entry);
        if (payment) yield payment;
      }
    },

    async dayMovements(date) {
      // Pix received that day, and devoluções settled that day of Pix received up to the lookback before it.
      // Read in windows of a few days: PSPs bound the interval one GET /pix may ask.
      const end = new Date(`${date}T23:59:59.999Z`).getTime();
      const start = end + 1 - (DEVOLUCAO_LOOKBACK_DAYS + 1) * 86_400_000;
      const list: unknown[] = [];
      for (let from = start; from <= end; from += WINDOW_DAYS * 86_400_000) {
        for await (const entry of pixBetween(new Date(from), new Date(Math.min(end, from + WINDOW_DAYS * 86_400_000 - 1)))) list.push(entry);
      }
      const received = pixDayMovements(list, date);
      // The cashouts paid as Pix sends, when this connector pays them.
      const sends: unknown[] = [];
      if (payout) {
        for await (const entry of pixBetween(new Date(end + 1 - (SEND_LOOKBACK_DAYS + 1) * 86_400_000), new Date(end), '/gn/pix/enviados')) sends.push(entry);
      }
      const sent = pixSendMovements(sends, date);
      const unreadable = [...received.unreadable, ...sent.unreadable];
      if (unreadable.length) throw new ConnectorError('invalid_response', `pix lists of ${date}: unreadable ${unreadable.slice(0, 5).join(', ')}`);
      return { account: pixAccountId(pixKey), currency: 'BRL', date, movements: [...received.movements, ...sent.movements] };
    },

    close() {
      // Calls in flight finish first (each has its deadline).
      setTimeout(() => client.close(), 2 * ctx.config.connectors.timeoutMs).unref();
    },

    async health() {
      try {
        await client.bearer();
        return { ok: true, token_obtained: true };
      } catch (err) {
        return { ok: false, token_obtained: false, error: err instanceof Error ? err.message : String(err) };
      }
    },
  };
}
