// The panel's balance page: balances, movements and settlement reports.
import type { MerchantBalance } from '../../ledger/ledger.ts';
import type { Movement } from '../services/balance.ts';
import type { SettlementReport } from '../../settlements/service.ts';
import { html } from '../../web/html.ts';
import { fill, when } from '../../web/view-helpers.ts';
import { type Frame, type Page, money, frame, table, pager } from './frame.ts';

export function balancePage(f: Frame, v: { balances: MerchantBalance[]; currency: string; rows: Movement[]; next: number | null; before?: string; reports: SettlementReport[] }): Page {
  const t = f.t;
  const kpis = html`<div class="kpis">${v.balances.map((b) => html`<div class="kpi"><a href="/panel/balance?currency=${b.currency}">${b.currency}</a><b>${money(b.available, b.currency)}</b>${t.reserved}: ${money(b.reserved, b.currency)}</div>`)}${v.balances.length ? '' : html`<p>${t.none}</p>`}</div>`;
  const rows = v.rows.map((m) => [
    when(m.created_at), m.type + (m.pending ? ` (${t.pending})` : ''), `${m.source.type} ${m.source.id}`,
    money(m.amount, m.currency), money(m.reserved, m.currency), money(m.availableAfter, m.currency),
  ]);
  return frame(f, '/panel/balance', t.balanceTitle, html`${kpis}<h2>${t.movements} · ${v.currency}</h2>
<p><a class="button secondary" href="/panel/balance.csv?currency=${v.currency}" download>${t.exportCsv}</a></p>
${rows.length ? table(t.movements, [t.date, t.type, t.source, t.available, t.reserved, t.runningBalance], rows, [3, 4, 5]) : html`<p>${t.none}</p>`}
${pager(t, '/panel/balance', { currency: v.currency, before: v.before }, v.next, !v.before)}
<h2>${t.settlementReports} · ${v.currency}</h2><p class="hint">${fill(t.settlementHelp, { tz: v.reports[0]?.timezone ?? 'UTC' })}</p>
${v.reports.length ? table(t.settlementReports, [t.settlementDay, t.opening, t.closing, t.lines, t.actions], v.reports.map((r) => [
    r.day, money(r.opening.available, r.currency), money(r.closing.available, r.currency), String(r.lineCount),
    html`<a href="/panel/balance/settlements/${r.currency}/${r.day}.csv" download>CSV</a>`,
  ]), [1, 2, 3]) : html`<p>${t.none}</p>`}`);
}
