// The panel's deposits: the list and one deposit's page.
import type { DepositRow, StatusChange } from '../../deposits/store.ts';
import type { DepositRefund } from '../../deposits/list.ts';
import { type DepositDispute, disputeStatus } from '../../deposits/disputes.ts';
import { storedCardRefusal } from '../../domain/cards.ts';
import type { PaymentMethod } from '../../domain/catalog.ts';
import type { AttemptRow, NotificationRow } from '../../notifications/store.ts';
import { can } from '../services/roles.ts';
import { html, type SafeHtml } from '../../web/html.ts';
import { csrfField, fillText, when } from '../../web/view-helpers.ts';
import { statusText } from './i18n.ts';
import { type Frame, type Page, money, badge, frame, field, table, ACCOUNT_TYPE_OPTIONS, notice, alert, pager, actionButton, type ListQuery } from './frame.ts';

export function depositsPage(f: Frame, v: { rows: DepositRow[]; next: number | null; q: ListQuery; countries: string[]; error?: string }): Page {
  const t = f.t;
  const statuses: [string, string][] = [['', t.any], ...['PENDING', 'APPROVED', 'COMPLETED', 'CANCELLED'].map((s): [string, string] => [s, statusText(t, s)])];
  const filters = html`<form class="filters" method="get" action="/panel/deposits" role="search">
${field('q', t.search, v.q.q, { hint: t.depositSearchHint, cls: 'wide', type: 'search' })}
${field('status', t.status, v.q.status, { options: statuses })}
${field('country', t.country, v.q.country, { options: [['', t.any], ...v.countries.map((c): [string, string] => [c, c])] })}
${field('method', t.method, v.q.method)}
${field('from', t.from, v.q.from, { type: 'date' })}${field('to', t.to, v.q.to, { type: 'date' })}
<button class="button">${t.filter}</button><a href="/panel/deposits">${t.clear}</a></form>`;
  const exportQ = new URLSearchParams(Object.entries(v.q).filter(([k, x]) => x && k !== 'before') as [string, string][]).toString();
  const rows = v.rows.map((d) => [
    html`<a href="/panel/deposits/${d.id}">${d.id}</a>`, d.invoice_id, badge(t, d.status), money(d.amount, d.currency), d.country, d.payment_method ?? '',
    d.payer_email ?? '', when(d.created_at),
  ]);
  return frame(f, '/panel/deposits', t.depositsTitle, html`${alert(v.error)}${filters}
<p><a class="button secondary" href="/panel/deposits.csv${exportQ ? `?${exportQ}` : ''}" download>${t.exportCsv}</a></p>
${rows.length ? table(t.depositsTitle, [t.id, t.invoice, t.status, t.amount, t.country, t.method, t.payer, t.created], rows, [3]) : html`<p>${t.none}</p>`}
${pager(t, '/panel/deposits', v.q, v.next, !v.q.before)}`, v.error ? 400 : undefined);
}

export interface DepositView {
  d: DepositRow;
  history: StatusChange[];
  refunds: DepositRefund[];
  notifications: (NotificationRow & { attempts: AttemptRow[] })[];
  methods: PaymentMethod[];
  staging: boolean;
  /** The deposit's disputes (chargebacks), with their defence deadline. */
  disputes: DepositDispute[];
  refundForm?: Record<string, string>;
  refundError?: string;
  done?: string;
}

export function depositPage(f: Frame, v: DepositView): Page {
  const t = f.t;
  const d = v.d;
  const dl = (rows: [string, string | SafeHtml][]) => html`<dl>${rows.filter(([, x]) => x).map(([k, x]) => html`<dt>${k}</dt><dd>${x}</dd>`)}</dl>`;
  const summary = html`<section class="card">${dl([
    [t.status, badge(t, d.status)], [t.invoice, d.invoice_id], [t.amount, money(d.amount, d.currency)],
    [t.localAmount, money(d.local_amount, d.local_currency)], [t.usdAmount, money(d.usd_amount, 'USD')], [t.fee, money(d.fee_local, d.local_currency)],
    [t.payerAmount, money(d.payer_amount, d.local_currency)], [t.refunded, d.refunded_amount !== '0' && d.refunded_amount !== '0.00' ? money(d.refunded_amount, d.currency) : ''],
    [t.returned, Number(d.returned_amount ?? 0) > 0 ? money(d.returned_amount!, d.local_currency) : ''],
    [t.country, d.country], [t.method, d.payment_method ?? ''], [t.payer, [d.payer_name, d.payer_email].filter(Boolean).join(' · ')],
    [t.document, [d.payer_document_type, d.payer_document].filter(Boolean).join(' ')], [t.created, when(d.created_at)],
  ])}</section>`;
  const refusal = storedCardRefusal(d.card_refusal);
  const refused = refusal && d.status !== 'COMPLETED'
    ? html`<section class="card" id="card-refusal"><h2>${t.cardRefused}</h2><p>${fillText(t.cardRefusedText, { reason: refusal.reason, code: refusal.reason_code ?? '—', when: refusal.refused_at.replace('T', ' ').slice(0, 19) + ' UTC', attempts: refusal.attempts })}</p></section>`
    : '';
  const disputes = v.disputes.length
    ? html`<section class="card" id="disputes"><h2>${t.disputes}</h2><p class="hint">${t.disputeHint}</p>${table(t.disputes,
      [t.id, t.status, t.reasonCode, t.amount, t.defenseDeadline, t.disputeOpened, t.disputeClosed, t.disputeDebit, t.chargebackFee],
      v.disputes.map((x) => {
        const shown = disputeStatus(x.status);
        return [String(x.id), html`<span class="badge ${shown}">${t[`ds${shown}`]}</span>`, [x.reason_code, x.reason].filter(Boolean).join(' · '), money(x.disputed_amount, x.disputed_currency),
          when(x.deadline_at), when(x.created_at), x.status === 'reversed' ? when(x.updated_at) : '',
          x.debit !== null && x.debit_currency ? money(x.debit, x.debit_currency) : '', x.fee !== null && x.debit_currency ? money(x.fee, x.debit_currency) : ''];
      }), [3, 7, 8])}</section>`
    : '';
  const timeline = table(t.timeline, [t.when, t.status, t.cause, t.actor], v.history.map((h) => [when(h.created_at), badge(t, h.to_status), h.cause, h.actor]));
  let sandbox: SafeHtml | string = '';
  if (v.staging && can(f.role, 'sandbox') && (d.status === 'PENDING' || d.status === 'APPROVED')) {
    const needsMethod = !d.payment_method;
    const methodSelect = needsMethod
      ? field('payment_method', t.approveMethod, v.methods[0]?.code, { options: v.methods.map((m): [string, string] => [m.code, `${m.code} — ${m.name}`]) })
      : '';
    sandbox = html`<section class="card"><h2>${t.sandboxActions}</h2><div class="stack">
<form method="post" action="/panel/deposits/${d.id}/sandbox/approve" class="stack">${csrfField(f)}${methodSelect}<button class="button">${t.approve}</button></form>
${d.status === 'PENDING' ? html`${actionButton(f, `/panel/deposits/${d.id}/sandbox/cancel`, t.cancelDeposit, 'danger')}${actionButton(f, `/panel/deposits/${d.id}/sandbox/expire`, t.expire, 'secondary')}` : ''}
</div></section>`;
  }
  const refundButtons = (r: DepositRefund) =>
    v.staging && r.status === 'PENDING' && can(f.role, 'sandbox')
      ? html`<div class="stack">${actionButton(f, `/panel/refunds/${r.id}/complete`, t.complete)}${actionButton(f, `/panel/refunds/${r.id}/reject`, t.reject, 'danger')}</div>`
      : '';
  const refunds = v.refunds.length
    ? table(t.refunds, [t.id, t.status, t.amount, t.created, t.actions], v.refunds.map((r) => [String(r.id), badge(t, r.status), money(r.amount, r.currency), when(r.created_at), refundButtons(r)]), [2])
    : html`<p>${t.none}</p>`;
  let refundForm: SafeHtml | string = '';
  if (d.status === 'COMPLETED' && can(f.role, 'money')) {
    const r = v.refundForm ?? {};
    const card = d.payment_type === 'CREDIT_CARD' || d.payment_type === 'DEBIT_CARD';
    const bank = card ? '' : html`<p class="hint">${t.bankAccountHint}</p><div class="row2">
${field('beneficiary', t.beneficiary, r.beneficiary ?? d.payer_name ?? '')}${field('bank_code', t.bankCode, r.bank_code)}
${field('branch', t.branch, r.branch)}${field('account_number', t.accountNumber, r.account_number)}
${field('account_type', t.accountType, r.account_type, { options: ACCOUNT_TYPE_OPTIONS })}</div>`;
    refundForm = html`<section class="card"><h2>${t.refundTitle}</h2>${alert(v.refundError)}
<form method="post" action="/panel/deposits/${d.id}/refund">${csrfField(f)}
${field('amount', t.amount, r.amount, { hint: fillText(t.refundHint, { currency: d.currency }), inputmode: 'decimal' })}${bank}
${field('comments', t.comments, r.comments)}
<button class="button">${t.refundButton}</button></form></section>`;
  }
  const notes = v.notifications.length
    ? v.notifications.map((n) => html`<section class="card"><h3>${n.event_type} → <span class="mono">${n.url}</span> ${badge(t, n.status.toUpperCase())}</h3>
${n.attempts.length ? table(t.attempts, ['#', t.when, t.responseCode, t.excerpt], n.attempts.map((a) => [String(a.attempt_no), when(a.started_at), a.status_code ?? a.error ?? '', a.response_excerpt ? html`<pre>${a.response_excerpt}</pre>` : ''])) : html`<p>${t.noAttempts}</p>`}
${can(f.role, 'notifications') ? actionButton(f, `/panel/notifications/${n.id}/resend?deposit=${d.id}`, t.resend) : ''}</section>`)
    : html`<p>${t.none}</p>`;
  return frame(f, '/panel/deposits', fillText(t.depositTitle, { id: d.id }), html`${notice(v.done)}${summary}${refused}${disputes}${sandbox}
<h2>${t.timeline}</h2>${timeline}<h2>${t.refunds}</h2>${refunds}${refundForm}<h2>${t.notifications}</h2>${notes}`, v.refundError ? 422 : undefined);
}
