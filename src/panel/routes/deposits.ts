// Deposits: the list and its CSV, a deposit's page, its refunds, and (staging) the sandbox's outcomes.
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../config/context.ts';
import { ACCEPTED_COUNTRIES } from '../../domain/countries.ts';
import { methodsForCountry } from '../../domain/catalog.ts';
import { DEPOSIT_STATUSES, type DepositStatus } from '../../domain/deposit-states.ts';
import { listDeposits, notificationIdsOf, refundsOfDeposit, type DepositFilter } from '../../deposits/list.ts';
import { disputesShown } from '../../deposits/disputes.ts';
import { runSandboxAction } from '../../deposits/sandbox.ts';
import { findDeposit, statusHistory } from '../../deposits/store.ts';
import { getRefund, RefundTransitionError, transitionRefund } from '../../refunds/service.ts';
import { pageDepositError } from '../../http/errors.ts';
import { DepositError } from '../../deposits/errors.ts';
import { getNotification } from '../../notifications/store.ts';
import { parseId } from '../../domain/ids.ts';
import { entry } from '../services/audit.ts';
import { refundFromPanel } from '../services/refund.ts';
import { statusText } from '../views/i18n.ts';
import type { Ctx, PanelGate, Query } from './gate.ts';
import { EXPORT_BATCH, listExport, listFilter, PAGE_SIZE } from './lists.ts';
import * as V from '../views/pages.ts';

export function registerDeposits(app: FastifyInstance, ctx: AppContext, gate: PanelGate): void {
  const { route: panelRoute, notFound, staging } = gate;

  function depositFilter(q: Query): DepositFilter | string {
    const f = listFilter(q, DEPOSIT_STATUSES);
    return typeof f === 'string' ? f : { ...f, status: f.status as DepositStatus | undefined, method: q.method?.trim().toUpperCase() || undefined };
  }

  const countryCodes = ACCEPTED_COUNTRIES.map((x) => x.code);

  app.get('/panel/deposits', panelRoute('view', async (c) => {
    const f = depositFilter(c.query);
    if (typeof f === 'string') return V.depositsPage(c.f, { rows: [], next: null, q: c.query, countries: countryCodes, error: c.f.t.badRequest.replace('{reason}', f) });
    const { rows, next } = await listDeposits(ctx.db, c.s.actor.merchantId, f, PAGE_SIZE);
    return V.depositsPage(c.f, { rows, next, q: c.query, countries: countryCodes });
  }));


  app.get('/panel/deposits.csv', panelRoute('view', async (c) =>
    listExport(
      ctx, c, 'deposits', depositFilter(c.query),
      ['deposit_id', 'invoice_id', 'status', 'amount', 'currency', 'local_amount', 'local_currency', 'fee_local', 'usd_amount', 'country', 'payment_method', 'payer_email', 'payer_document', 'refunded_amount', 'created_at'],
      (filter) => listDeposits(ctx.db, c.s.actor.merchantId, filter, EXPORT_BATCH),
      (d) => [d.id, d.invoice_id, d.status, d.amount, d.currency, d.local_amount, d.local_currency, d.fee_local, d.usd_amount, d.country, d.payment_method, d.payer_email, d.payer_document, d.refunded_amount, d.created_at],
    )));

  async function ownDeposit(c: Ctx) {
    const id = parseId((c.request.params as Query).id);
    const d = id === null ? null : await findDeposit(ctx.db, id);
    // Another merchant's deposit is "not found", exactly like one that does not exist.
    return d && d.merchant_id === c.s.actor.merchantId ? d : null;
  }

  async function depositView(c: Ctx, d: NonNullable<Awaited<ReturnType<typeof ownDeposit>>>, extra: Partial<V.DepositView> = {}): Promise<V.Page> {
    const [history, refunds, ids, disputes] = await Promise.all([statusHistory(ctx.db, d.id, d.created_at), refundsOfDeposit(ctx.db, d.id), notificationIdsOf(ctx.db, d.merchant_id, d.id), disputesShown(ctx.db, d)]);
    const notifications = (await Promise.all(ids.map((id) => getNotification(ctx.db, id, d.merchant_id)))).filter((n) => n !== null);
    const methods = methodsForCountry(d.country).filter((m) => !d.payment_types?.length || d.payment_types.includes(m.type));
    const done =
      c.query.done === 'refund' ? c.f.t.refundCreated.replace('{id}', String(parseId(c.query.refund) ?? ''))
      : c.query.done === 'resend' || c.query.done?.startsWith('refund_') ? c.f.t.done
      : c.query.done ? c.f.t.depositNow.replace('{status}', statusText(c.f.t, d.status)) : undefined;
    return V.depositPage(c.f, { d, history, refunds, notifications, methods, staging, done, disputes, ...extra });
  }

  app.get('/panel/deposits/:id', panelRoute('view', async (c) => {
    const d = await ownDeposit(c);
    return d ? depositView(c, d) : notFound(c);
  }));

  app.post('/panel/deposits/:id/sandbox/:action', panelRoute('sandbox', async (c) => {
    const action = (c.request.params as Query).action;
    const d = await ownDeposit(c);
    if (!d || !staging || (action !== 'approve' && action !== 'cancel' && action !== 'expire')) return notFound(c);
    const method = c.body.payment_method?.trim().toUpperCase() || undefined;
    try {
      await runSandboxAction(ctx, d, action, 'panel', method, entry(c.s.actor, `deposit.sandbox_${action}`, `deposit:${d.id}`, method ? { payment_method: method } : {}, ctx.now()));
    } catch (err) {
      if (!(err instanceof DepositError)) throw err;
      return depositView(c, d, { refundError: pageDepositError(err).message });
    }
    return { redirect: `/panel/deposits/${d.id}?done=${action}` };
  }));

  app.post('/panel/deposits/:id/refund', panelRoute('money', async (c) => {
    const d = await ownDeposit(c);
    if (!d) return notFound(c);
    const r = await refundFromPanel(ctx, c.s.actor, d, c.body);
    if (!r.ok) return depositView(c, d, { refundForm: c.body as Record<string, string>, refundError: r.errors.join('; ') });
    return { redirect: `/panel/deposits/${d.id}?done=refund&refund=${r.refund.id}` };
  }));

  // Staging: the bank's answer to a pending refund, as POST /v3/sandbox/refunds/{id}/complete|reject.
  for (const action of ['complete', 'reject'] as const) {
    if (!staging) break;
    app.post(`/panel/refunds/:id/${action}`, panelRoute('sandbox', async (c) => {
      const id = parseId((c.request.params as Query).id);
      const refund = id === null ? null : await getRefund(ctx.db, c.s.actor.merchantId, id);
      if (!refund) return notFound(c);
      try {
        await transitionRefund(
          ctx, c.s.actor.merchantId, refund.id, action === 'complete' ? 'COMPLETED' : 'REJECTED', `sandbox ${action} (panel)`,
          action === 'reject' ? 'The beneficiary bank rejected the refund (sandbox)' : undefined, action === 'reject' ? 'SANDBOX_REJECTED' : undefined,
          entry(c.s.actor, `refund.sandbox_${action}`, `refund:${refund.id}`, { deposit_id: refund.deposit_id }, ctx.now()),
        );
      } catch (err) {
        if (!(err instanceof RefundTransitionError)) throw err;
        const d = await findDeposit(ctx.db, refund.deposit_id);
        return depositView(c, d!, { refundError: err.message });
      }
      return { redirect: `/panel/deposits/${refund.deposit_id}?done=refund_${action}` };
    }));
  }
}
