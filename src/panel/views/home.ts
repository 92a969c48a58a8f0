// The panel's home page: the stats and balances.
import type { MerchantBalance } from '../../ledger/ledger.ts';
import type { HomeStats } from '../services/stats.ts';
import { html } from '../../web/html.ts';
import { barChart } from './chart.ts';
import { type Frame, type Page, money, frame, table } from './frame.ts';

export function homePage(f: Frame, v: { stats: HomeStats; balances: MerchantBalance[] }): Page {
  const t = f.t;
  const s = v.stats;
  const created = s.days.reduce((a, d) => a + d.created, 0);
  const completed = s.days.reduce((a, d) => a + d.completed, 0);
  const conversion = created ? `${((completed / created) * 100).toFixed(1)}%` : '—';
  const kpis = html`<div class="kpis">
${v.balances.map((b) => html`<div class="kpi">${t.available} ${b.currency}<b>${money(b.available, b.currency)}</b>${t.reserved}: ${money(b.reserved, b.currency)}</div>`)}
<div class="kpi">${t.conversion}<b>${conversion}</b>${completed} / ${created}</div></div>`;
  const short = (d: string) => d.slice(5);
  const charts = html`<div class="grid2 charts"><section class="card"><h2>${t.chartVolume}</h2>${barChart('c-vol', t.chartVolume, s.days.map((d) => ({ label: short(d.day), value: Number(d.volumeUsd) })))}</section>
<section class="card"><h2>${t.chartCount}</h2>${barChart('c-count', t.chartCount, s.days.map((d) => ({ label: short(d.day), value: d.created })))}</section>
<section class="card"><h2>${t.refundsCount}</h2>${barChart('c-ref', t.refundsCount, s.days.map((d) => ({ label: short(d.day), value: d.refunds })))}</section>
<section class="card"><h2>${t.cashoutsCount}</h2>${barChart('c-co', t.cashoutsCount, s.days.map((d) => ({ label: short(d.day), value: d.cashouts })))}</section></div>`;
  const groupTable = (label: string, rows: HomeStats['byCountry']) =>
    table(label, [label, t.createdCount, t.completedCount, t.convShort, t.volumeUsd], rows.map((g) => [g.key, String(g.created), String(g.completed), g.created ? `${((g.completed / g.created) * 100).toFixed(1)}%` : '—', g.volumeUsd]), [1, 2, 3, 4], t.none);
  const dayTable = table(t.tableOfNumbers, [t.day, t.createdCount, t.completedCount, t.volumeUsd, t.refundsCount, t.cashoutsCount],
    s.days.filter((d) => d.created || d.refunds || d.cashouts).map((d) => [d.day, String(d.created), String(d.completed), d.volumeUsd, String(d.refunds), String(d.cashouts)]), [1, 2, 3, 4, 5], t.none);
  return frame(f, '/panel', t.homeTitle, html`${kpis}${charts}
<div class="grid2"><section><h2>${t.byCountry}</h2>${groupTable(t.country, s.byCountry)}</section><section><h2>${t.byMethod}</h2>${groupTable(t.method, s.byMethod)}</section></div>
<h2>${t.tableOfNumbers}</h2>${dayTable}`);
}
