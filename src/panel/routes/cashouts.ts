// Cashouts: the list and its CSV, the form, the CSV import (the one multipart post), a cashout's page and its transitions.
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../config/context.ts';
import { CashoutError, createCashout, findCashout, transitionCashout } from '../../cashouts/service.ts';
import { cashoutHistory, listCashouts, type CashoutFilter } from '../../cashouts/list.ts';
import { validateCashoutRequest } from '../../domain/cashout-request.ts';
import { CASHOUT_STATUSES, type CashoutStatus, type CashoutTrigger } from '../../domain/cashout-states.ts';
import { getMerchant } from '../../merchants/merchants.ts';
import { parseId } from '../../domain/ids.ts';
import { entry } from '../services/audit.ts';
import { csrfMatches } from '../services/auth.ts';
import { IMPORT_COLUMNS, importCashouts } from '../services/cashout-import.ts';
import { csvLine } from '../services/csv.ts';
import type { Action } from '../services/roles.ts';
import { statusText } from '../views/i18n.ts';
import type { Ctx, PanelGate, Query } from './gate.ts';
import { countryOptions, EXPORT_BATCH, listExport, listFilter, PAGE_SIZE } from './lists.ts';
import * as V from '../views/pages.ts';

export function registerCashouts(app: FastifyInstance, ctx: AppContext, gate: PanelGate): void {
  const { route: panelRoute, sameOrigin, notFound, staging } = gate;

  function cashoutFilter(q: Query): CashoutFilter | string {
    const f = listFilter(q, CASHOUT_STATUSES);
    return typeof f === 'string' ? f : { ...f, status: f.status as CashoutStatus | undefined };
  }


  app.get('/panel/cashouts', panelRoute('view', async (c) => {
    const f = cashoutFilter(c.query);
    if (typeof f === 'string') return V.cashoutsPage(c.f, { rows: [], next: null, q: c.query, error: c.f.t.badRequest.replace('{reason}', f) });
    const { rows, next } = await listCashouts(ctx.db, c.s.actor.merchantId, f, PAGE_SIZE);
    return V.cashoutsPage(c.f, { rows, next, q: c.query });
  }));

  app.get('/panel/cashouts.csv', panelRoute('view', async (c) =>
    listExport(
      ctx, c, 'cashouts', cashoutFilter(c.query),
      ['cashout_id', 'external_id', 'status', 'amount', 'currency', 'local_amount', 'local_currency', 'settlement_amount', 'settlement_currency', 'country', 'beneficiary_name', 'beneficiary_lastname', 'bank_code', 'bank_account', 'rejection_code', 'created_at'],
      (filter) => listCashouts(ctx.db, c.s.actor.merchantId, filter, EXPORT_BATCH),
      (x) => [x.id, x.external_id, x.status, x.amount, x.currency, x.local_amount, x.local_currency, x.settlement_amount, x.settlement_currency, x.country, x.beneficiary_name, x.beneficiary_lastname, x.bank_code, x.bank_account, x.rejection_code, x.created_at],
    )));

  app.get('/panel/cashouts/new', panelRoute('money', async (c) => V.cashoutFormPage(c.f, { form: { currency: 'USD' }, errors: [], countries: countryOptions() })));

  app.post('/panel/cashouts', panelRoute('money', async (c) => {
    const { csrf: _csrf, ...form } = c.body;
    const v = validateCashoutRequest(form, ctx.config);
    const again = (errors: string[]) => V.cashoutFormPage(c.f, { form: form as Record<string, string>, errors, countries: countryOptions() });
    if (!v.ok) return again(v.details);
    const merchant = await getMerchant(ctx.db, c.s.actor.merchantId);
    try {
      const created = await createCashout(ctx, merchant!, v.value, (x) =>
        entry(c.s.actor, 'cashout.created', `cashout:${x.id}`, { external_id: x.external_id, amount: x.amount, currency: x.currency }, ctx.now()));
      return { redirect: `/panel/cashouts/${created.id}?done=created` };
    } catch (err) {
      if (err instanceof CashoutError) return again([err.message]);
      throw err;
    }
  }));

  app.get('/panel/cashouts/import', panelRoute('money', async (c) => V.importPage(c.f, { columns: IMPORT_COLUMNS })));

  app.post('/panel/cashouts/import', panelRoute('money', async (c) => {
    const t = c.f.t;
    const raw = c.request.body;
    let file: Buffer | null = null;
    let csrf: unknown;
    if (Buffer.isBuffer(raw)) {
      try {
        const form = await new Response(new Uint8Array(raw), { headers: { 'content-type': c.request.headers['content-type'] ?? '' } }).formData();
        csrf = form.get('csrf');
        const f = form.get('file');
        if (f && typeof f !== 'string') file = Buffer.from(await f.arrayBuffer());
      } catch {
        file = null;
      }
    }
    if (!sameOrigin(c.request) || !csrfMatches(c.s, csrf)) return V.messagePage(c.f, t.csrfTitle, t.csrf, 403, c.f);
    if (!file || file.length === 0) return V.importPage(c.f, { columns: IMPORT_COLUMNS, error: t.importUnreadable.replace('{reason}', 'no file') });
    const merchant = await getMerchant(ctx.db, c.s.actor.merchantId);
    const r = await importCashouts(ctx, c.s.actor, merchant!, file);
    const reportHref = (rows: { line: number; external_id: string; reasons: string[] }[]) =>
      `data:text/csv;charset=utf-8,${encodeURIComponent(csvLine(['line', 'external_id', 'reasons']) + rows.map((x) => csvLine([x.line, x.external_id, x.reasons.join('; ')])).join(''))}`;
    switch (r.kind) {
      case 'unreadable':
        return V.importPage(c.f, { columns: IMPORT_COLUMNS, error: t.importUnreadable.replace('{reason}', r.reason) });
      case 'rejected':
        return V.importPage(c.f, {
          columns: IMPORT_COLUMNS, error: t.importRejected.replace('{bad}', String(r.rejected.length)).replace('{rows}', String(r.rows)),
          rejected: r.rejected, reportHref: reportHref(r.rejected),
        });
      case 'duplicate':
        return V.importPage(c.f, { columns: IMPORT_COLUMNS, message: t.importDuplicate.replace('{at}', r.at.toISOString().slice(0, 16).replace('T', ' ')).replace('{count}', String(r.created)) });
      case 'created':
        return V.importPage(c.f, {
          columns: IMPORT_COLUMNS, message: t.importCreated.replace('{count}', String(r.created.length)),
          rejected: r.rejected, reportHref: r.rejected.length ? reportHref(r.rejected) : undefined,
        });
    }
  }, { upload: true }));

  async function ownCashout(c: Ctx) {
    const id = parseId((c.request.params as Query).id);
    return id === null ? null : findCashout(ctx.db, c.s.actor.merchantId, { cashoutId: id });
  }

  app.get('/panel/cashouts/:id', panelRoute('view', async (c) => {
    const x = await ownCashout(c);
    if (!x) return notFound(c);
    return V.cashoutPage(c.f, { c: x, history: await cashoutHistory(ctx.db, x.id), staging, done: c.query.done ? c.f.t.cashoutNow.replace('{status}', statusText(c.f.t, x.status)) : undefined });
  }));

  const CASHOUT_TRIGGERS: Record<string, { perm: Action; staging: boolean }> = {
    hold: { perm: 'money', staging: false }, release: { perm: 'money', staging: false }, cancel: { perm: 'money', staging: false },
    deliver: { perm: 'sandbox', staging: true }, complete: { perm: 'sandbox', staging: true }, reject: { perm: 'sandbox', staging: true },
  };
  for (const [trigger, rule] of Object.entries(CASHOUT_TRIGGERS)) {
    if (rule.staging && !staging) continue;
    app.post(`/panel/cashouts/:id/${trigger}`, panelRoute(rule.perm, async (c) => {
      const x = await ownCashout(c);
      if (!x) return notFound(c);
      try {
        await transitionCashout(ctx, x.id, trigger as CashoutTrigger, {
          actor: rule.staging ? 'sandbox' : 'panel', cause: `panel ${trigger} by ${c.s.actor.email}`, merchantId: c.s.actor.merchantId,
          audit: entry(c.s.actor, `cashout.${trigger}`, `cashout:${x.id}`, { external_id: x.external_id, from: x.status }, ctx.now()),
        });
      } catch (err) {
        if (!(err instanceof CashoutError)) throw err;
        return V.cashoutPage(c.f, { c: x, history: await cashoutHistory(ctx.db, x.id), staging, error: err.message });
      }
      return { redirect: `/panel/cashouts/${x.id}?done=${trigger}` };
    }));
  }
}
