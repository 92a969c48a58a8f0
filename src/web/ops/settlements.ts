// The console's settlement reports of a merchant (docs/balance.md#settlement-reports):
//   /ops/merchants/{id}/settlements                     the last reports, every currency
//   /ops/merchants/{id}/settlements/{currency}/{date}   one report: balances, every movement, its CSV
//   /ops/merchants/{id}/returns                         the merchant's returns by payers' banks (MED, …) with their reasons
//   /ops/returns                                        every return caja could not match (operator exceptions)
// Read-only ('view'): reports are made by the worker and never change. The merchant page links here.
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../config/context.ts';
import { parseId } from '../../domain/ids.ts';
import { toDb } from '../../domain/money.ts';
import { getMerchant } from '../../merchants/merchants.ts';
import { getReport, listReports, reportCsv } from '../../settlements/service.ts';
import { listReturns } from '../../deposits/returns.ts';
import { html, raw } from '../html.ts';
import { fillText } from '../view-helpers.ts';
import type { Ctx, OpsRouteOf, Result } from './route-types.ts';
import * as V from './views.ts';

const cell = (rows: unknown[][]) => rows.map((r) => html`<tr>${r.map((c, i) => html`<td${i >= 5 ? raw(' class="num"') : ''}>${c}</td>`)}</tr>`);

export function registerOpsSettlements(app: FastifyInstance, ctx: AppContext, opsRoute: OpsRouteOf): void {
  app.get('/ops/merchants/:id/settlements', opsRoute('view', async (c) => {
    const id = parseId(c.params.id);
    const m = id === null ? null : await getMerchant(ctx.db, id);
    if (!m) return V.messagePage(c.f, c.f.t.notFoundTitle, c.f.t.notFound, 404, c.f);
    const t = c.f.t;
    const reports = await listReports(ctx.db, m.id, { limit: 62 });
    const rows = reports.map((r) => html`<tr><td><a href="/ops/merchants/${m.id}/settlements/${r.currency}/${r.day}">${r.day}</a></td><td>${r.currency}</td>
<td class="num">${toDb(r.opening.available)}</td><td class="num">${toDb(r.closing.available)}</td><td class="num">${toDb(r.closing.reserved)}</td><td class="num">${String(r.lineCount)}</td></tr>`);
    const body = reports.length
      ? html`<div class="scroll" role="region" aria-label="${t.settlements}" tabindex="0"><table><thead><tr><th scope="col">${t.day}</th><th scope="col">${t.currency}</th>
<th scope="col" class="num">${t.opening}</th><th scope="col" class="num">${t.closing}</th><th scope="col" class="num">${t.reserved}</th><th scope="col" class="num">${t.movements}</th></tr></thead><tbody>${rows}</tbody></table></div>`
      : html`<p>${t.noSettlements}</p>`;
    return V.frame(c.f, '/ops/merchants', fillText(t.settlementsTitle, { name: m.name }),
      html`<p><a href="/ops/merchants/${m.id}">${raw('&larr;')} ${m.name} (${m.id})</a></p><p class="hint">${fillText(t.settlementsHint, { tz: m.timezone })}</p>${body}`);
  }));

  const returnsPage = (unmatchedOnly: boolean) => async (c: Ctx): Promise<Result> => {
    const t = c.f.t;
    // The returns no deposit took (no merchant), or one merchant's.
    const unmatched = unmatchedOnly;
    const id = unmatched ? null : parseId(c.params.id);
    const m = id === null ? null : await getMerchant(ctx.db, id);
    if (!unmatched && !m) return V.messagePage(c.f, c.f.t.notFoundTitle, c.f.t.notFound, 404, c.f);
    const list = await listReturns(ctx.db, unmatched ? { status: 'unmatched', limit: 200 } : { merchantId: m!.id, limit: 200 });
    const rows = list.map((r) => [r.created_at.toISOString(), r.deposit_id === null ? '' : html`<a href="/ops/deposits/${r.deposit_id}">${r.deposit_id}</a>`, r.provider, r.kind, r.reason, r.description ?? '', r.status,
      `${r.amount} ${r.currency}`, r.debit === null ? '' : `${r.debit} ${r.debit_currency ?? ''}`]);
    const body = list.length
      ? html`<div class="scroll" role="region" aria-label="${t.returns}" tabindex="0"><table><thead><tr><th scope="col">${t.when}</th><th scope="col">#</th><th scope="col">${t.type}</th><th scope="col">${t.type}</th>
<th scope="col">${t.returnReason}</th><th scope="col">${t.reference}</th><th scope="col">${t.status}</th><th scope="col" class="num">${t.amount}</th><th scope="col" class="num">${t.returnDebit}</th></tr></thead>
<tbody>${rows.map((r) => html`<tr>${r.map((x, i) => html`<td${i >= 7 ? raw(' class="num"') : ''}>${x}</td>`)}</tr>`)}</tbody></table></div>`
      : html`<p>${t.noReturns}</p>`;
    return V.frame(c.f, '/ops/merchants', fillText(t.returnsTitle, { name: m ? m.name : t.returns }),
      html`${m ? html`<p><a href="/ops/merchants/${m.id}">${raw('&larr;')} ${m.name} (${m.id})</a></p>` : ''}<p class="hint">${t.returnsHint}</p>${body}`);
  };
  app.get('/ops/returns', opsRoute('view', returnsPage(true)));
  app.get('/ops/merchants/:id/returns', opsRoute('view', returnsPage(false)));

  app.get('/ops/merchants/:id/settlements/:currency/:date', opsRoute('view', async (c) => {
    const id = parseId(c.params.id);
    const { currency = '', date = '' } = c.params as Record<string, string | undefined>;
    const m = id === null ? null : await getMerchant(ctx.db, id);
    const found = m && /^[A-Z]{3}$/.test(currency) && /^\d{4}-\d\d-\d\d$/.test(date) ? await getReport(ctx.db, m.id, currency, date) : null;
    if (!m || !found) return V.messagePage(c.f, c.f.t.notFoundTitle, c.f.t.notFound, 404, c.f);
    const t = c.f.t;
    const { report: r, lines } = found;
    const csv = `data:text/csv;charset=utf-8,${encodeURIComponent(reportCsv(r, lines))}`;
    const balances = (label: string, b: typeof r.opening) => html`<tr><th scope="row">${label}</th><td class="num">${toDb(b.available)}</td><td class="num">${toDb(b.reserved)}</td><td class="num">${toDb(b.fees)}</td></tr>`;
    const body = html`<p><a href="/ops/merchants/${m.id}/settlements">${raw('&larr;')} ${t.settlements}</a> · <a href="${csv}" download="settlement-${m.id}-${r.currency}-${r.day}.csv">${t.downloadCsv}</a></p>
<p class="hint">${r.timezone}: ${r.periodStart.toISOString()} – ${r.periodEnd.toISOString()}</p>
<section class="card"><table><thead><tr><th></th><th scope="col" class="num">${t.available}</th><th scope="col" class="num">${t.reserved}</th><th scope="col" class="num">${t.fees}</th></tr></thead>
<tbody>${balances(t.opening, r.opening)}${balances(t.closing, r.closing)}</tbody></table></section>
<div class="scroll" role="region" aria-label="${t.movements}" tabindex="0"><table><thead><tr><th scope="col">#</th><th scope="col">${t.type}</th><th scope="col">${t.reference}</th><th scope="col">${t.correction}</th><th scope="col">${t.when}</th>
<th scope="col" class="num">${t.available}</th><th scope="col" class="num">${t.reserved}</th><th scope="col" class="num">${t.fees}</th></tr></thead>
<tbody>${cell(lines.map((l) => [String(l.line), `${l.type} (${l.source.type} ${l.source.id})`, l.reference ?? '', l.correction ? t.correction : '', l.bookedAt.toISOString(),
    toDb(l.available), toDb(l.reserved), toDb(l.fee)]))}</tbody></table></div>`;
    return V.frame(c.f, '/ops/merchants', fillText(t.settlementTitle, { currency: r.currency, date: r.day, name: m.name }), body);
  }));
}
