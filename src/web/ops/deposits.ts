// The console's page of one deposit (/ops/deposits/{id}), any merchant's, read-only ('view'):
// its status and amounts, the provider and reference its charge was made with, the card (masked)
// and the last refused card attempt, its disputes (chargebacks) with their defence deadline, what
// they took and the chargeback fees, and the returns by the payer's bank. Support reaches it from
// a merchant's returns and from the disputes; nothing on it changes money.
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../config/context.ts';
import { disputeStatus, disputesShown } from '../../deposits/disputes.ts';
import { returnsOfDeposit } from '../../deposits/returns.ts';
import { findDeposit } from '../../deposits/store.ts';
import { storedCardRefusal } from '../../domain/cards.ts';
import { parseId } from '../../domain/ids.ts';
import { getMerchant } from '../../merchants/merchants.ts';
import { html, raw, type SafeHtml } from '../html.ts';
import { fillText, when } from '../view-helpers.ts';
import type { OpsRouteOf } from './route-types.ts';
import * as V from './views.ts';

const table = (label: string, head: string[], rows: (string | SafeHtml)[][], numCols: number[]) => html`<div class="scroll" role="region" aria-label="${label}" tabindex="0"><table>
<thead><tr>${head.map((h, i) => html`<th scope="col"${numCols.includes(i) ? raw(' class="num"') : ''}>${h}</th>`)}</tr></thead>
<tbody>${rows.map((r) => html`<tr>${r.map((x, i) => html`<td${numCols.includes(i) ? raw(' class="num"') : ''}>${x}</td>`)}</tr>`)}</tbody></table></div>`;

export function registerOpsDeposits(app: FastifyInstance, ctx: AppContext, opsRoute: OpsRouteOf): void {
  app.get('/ops/deposits/:id', opsRoute('view', async (c) => {
    const t = c.f.t;
    const id = parseId(c.params.id);
    const d = id === null ? null : await findDeposit(ctx.db, id);
    if (!d) return V.messagePage(c.f, t.notFoundTitle, t.notFound, 404, c.f);
    const [m, disputes, returns] = await Promise.all([getMerchant(ctx.db, d.merchant_id), disputesShown(ctx.db, d), returnsOfDeposit(ctx.db, d.id)]);
    const card = (d.card_detail as { masked_card?: unknown; brand?: unknown } | null);
    const refusal = storedCardRefusal(d.card_refusal);
    const dl = (rows: [string, string | SafeHtml][]) => html`<dl>${rows.filter(([, x]) => x).map(([k, x]) => html`<dt>${k}</dt><dd>${x}</dd>`)}</dl>`;
    const summary = html`<section class="card">${dl([
      [t.depositStatus, d.status], [t.invoice, d.invoice_id], [t.amount, `${d.amount} ${d.currency}`], [t.method, [d.country, d.payment_method ?? ''].join(' ')],
      [t.connectorRef, d.connector ? `${d.connector} ${d.connector_reference ?? ''}` : ''],
      [t.card, card && typeof card.masked_card === 'string' ? `${typeof card.brand === 'string' ? card.brand : ''} ${card.masked_card}` : ''],
      [t.created, when(d.created_at)],
    ])}</section>`;
    const refused = refusal && d.status !== 'COMPLETED'
      ? html`<section class="card" id="card-refusal"><h2>${t.cardRefused}</h2><p>${fillText(t.cardRefusedText, { reason: refusal.reason, code: refusal.reason_code ?? '—', when: `${refusal.refused_at.replace('T', ' ').slice(0, 19)} UTC`, attempts: refusal.attempts })}</p></section>`
      : '';
    const disputeRows = disputes.map((x) => {
      const shown = disputeStatus(x.status);
      return [String(x.id), html`<span class="badge ${shown}">${t[`ds${shown}`]}</span>`, [x.reason_code, x.reason].filter(Boolean).join(' · '), `${x.disputed_amount} ${x.disputed_currency}`,
        when(x.deadline_at), when(x.created_at), x.status === 'reversed' ? when(x.updated_at) : '',
        x.debit !== null ? `${x.debit} ${x.debit_currency ?? ''}` : '', x.fee !== null ? `${x.fee} ${x.debit_currency ?? ''}` : ''];
    });
    const disputesCard = html`<section class="card" id="disputes"><h2>${t.disputes}</h2><p class="hint">${t.disputeHint}</p>${disputeRows.length
      ? table(t.disputes, [t.id, t.status, t.reasonCode, t.amount, t.defenseDeadline, t.disputeOpened, t.disputeClosed, t.returnDebit, t.chargebackFee], disputeRows, [3, 7, 8])
      : html`<p>${t.noDisputes}</p>`}</section>`;
    const returnRows = returns.map((r) => [when(r.created_at), r.provider, r.kind, r.reason, r.status, `${r.amount} ${r.currency}`, r.debit === null ? '' : `${r.debit} ${r.debit_currency ?? ''}`, r.fee === null ? '' : `${r.fee} ${r.debit_currency ?? ''}`]);
    const returnsCard = html`<section class="card" id="returns"><h2>${t.returns}</h2>${returnRows.length
      ? table(t.returns, [t.when, t.type, t.type, t.returnReason, t.status, t.amount, t.returnDebit, t.chargebackFee], returnRows, [5, 6, 7])
      : html`<p>${t.noReturns}</p>`}</section>`;
    const back = m ? html`<p><a href="/ops/merchants/${m.id}">${raw('&larr;')} ${m.name} (${m.id})</a> · <a href="/ops/merchants/${m.id}/returns">${t.returns}</a></p>` : '';
    return V.frame(c.f, '/ops/merchants', fillText(t.depositTitle, { id: d.id }), html`${back}${summary}${refused}${disputesCard}${returnsCard}`);
  }));
}
