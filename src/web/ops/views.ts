// The operator console's templates: each a pure function of its view model, built with the
// escaping html`…` tag (../html.ts); words from ./i18n.ts. The look is the merchant panel's
// (its stylesheet and form fields are shared); forms post with the session's CSRF token.
import type { Approval, HeldCashout } from '../../operators/approvals.ts';
import type { OpsAuditRow } from '../../operators/audit.ts';
import type { Operator } from '../../operators/accounts.ts';
import type { MerchantHit } from '../../operators/search.ts';
import { canOps, OPERATOR_ROLES } from '../../operators/roles.ts';
import { TOKEN_SCOPES, type TokenView } from '../../operators/tokens.ts';
import type { StoppedOrder } from '../../cashouts/payouts.ts';
import type { RateLine, SourceLine } from '../../rates/service.ts';
import type { ExceptionView, ImportView, MatchView } from '../../reconciliation/service.ts';
import { html, raw, type SafeHtml } from '../html.ts';
import { csrfField, fillText } from '../view-helpers.ts';
import { field } from '../../panel/views/pages.ts';
import type { OpsStrings } from './i18n.ts';
import type { FeeOverrides } from '../../domain/fees.ts';
import { feesCard } from './fees.ts';
import { connectorLinks } from './connector-settings.ts';
import { batchForm, uploadForm } from './statements.ts';
import { enrolmentLinkCard, operatorActions, operatorState, untilText } from './lifecycle-views.ts';

import { alert, bare, button, type BareFrame, frame, type Frame, notice, type Page, roleName, table, when } from './frame.ts';

export * from './frame.ts';

export function loginPage(b: BareFrame, v: { email?: string; error?: string; status?: number }): Page {
  const t = b.t;
  return bare(b, t.signInTitle, html`${alert(v.error)}<form method="post" action="/ops/login">
${field('email', t.email, v.email, { type: 'email', required: true, autocomplete: 'username' })}
${field('password', t.password, '', { type: 'password', required: true, autocomplete: 'current-password' })}
<button class="button wide">${t.signIn}</button></form>`, v.status);
}

export function codePage(b: BareFrame, v: { csrf: string; error?: string; status?: number }): Page {
  const t = b.t;
  return bare(b, t.codeTitle, html`${alert(v.error)}<form method="post" action="/ops/login/code"><input type="hidden" name="csrf" value="${v.csrf}">
${field('code', t.code, '', { required: true, autocomplete: 'one-time-code', inputmode: 'numeric', hint: t.codeHint })}
<button class="button wide">${t.verify}</button></form>`, v.status);
}

// ---------------------------------------------------------------- merchants

export function merchantsPage(f: Frame, v: { q: string; hits: MerchantHit[]; created?: { id: number; credentials: unknown }; error?: string }): Page {
  const t = f.t;
  const rows = v.hits.map((m) => [html`<a href="/ops/merchants/${m.id}">${m.id}</a>`, html`<a href="/ops/merchants/${m.id}">${m.name}</a>`, m.environment, html`<span class="wrap">${m.panel_email ?? '—'}</span>`, m.via, when(m.created_at)]);
  const created = v.created
    ? html`<div class="card"><p class="ok" role="status">${t.credentialsOnce}</p><pre class="secret">${JSON.stringify(v.created.credentials, null, 2)}</pre><p><a href="/ops/merchants/${v.created.id}">${t.settings}</a></p></div>`
    : '';
  const create = canOps(f.role, 'merchants.create')
    ? html`<details class="card"${v.error ? raw(' open') : ''}><summary>${t.createMerchant}</summary><form method="post" action="/ops/merchants">${csrfField(f)}
${field('name', t.name, '', { required: true })}${field('notification_url', t.notificationUrl, '', { type: 'url' })}${field('return_url', t.returnUrl, '', { type: 'url' })}
<button class="button">${t.create}</button></form></details>`
    : '';
  return frame(f, '/ops/merchants', t.navMerchants, html`${alert(v.error)}${created}
<form class="filters" method="get" action="/ops/merchants" role="search">${field('q', t.search, v.q, { cls: 'wide', hint: t.searchHint })}<button class="button">${t.search}</button></form>
${table(t.navMerchants, [t.id, t.name, t.environment, t.panelEmail, t.matchedBy, t.created], rows, [0], t.noResults)}
${create}`);
}

export interface MerchantDetail {
  id: number;
  name: string;
  environment: string;
  notificationUrl: string | null;
  returnUrl: string | null;
  settlementCurrency: string;
  threshold: string | null;
  balances: { currency: string; available: string; reserved: string }[];
  feeSchedule: FeeOverrides | null;
  limits: { country: string; method: string; perTransaction: string; daily: string; monthly: string }[];
  connectors: { name: string; methods: string }[];
  credentialSets: readonly string[];
}

export function merchantPage(f: Frame, m: MerchantDetail, v: { notice?: string; error?: string; rotated?: { set: string; credentials: unknown; previousValidUntil: Date | null } }): Page {
  const t = f.t;
  const settings = canOps(f.role, 'merchants.settings')
    ? html`<form method="post" action="/ops/merchants/${m.id}/settings">${csrfField(f)}
${field('name', t.name, m.name, { required: true })}${field('notification_url', t.notificationUrl, m.notificationUrl ?? '', { type: 'url' })}
${field('return_url', t.returnUrl, m.returnUrl ?? '', { type: 'url' })}${field('cashout_approval_usd', t.threshold, m.threshold ?? '', { inputmode: 'decimal', hint: t.thresholdHint })}
<button class="button">${t.save}</button></form>`
    : html`<dl><dt>${t.name}</dt><dd>${m.name}</dd><dt>${t.notificationUrl}</dt><dd>${m.notificationUrl ?? '—'}</dd><dt>${t.threshold}</dt><dd>${m.threshold ?? '—'}</dd></dl>`;
  const until = v.rotated?.previousValidUntil ? html`<p class="hint">${fillText(t.rotatedUntil, { when: v.rotated.previousValidUntil.toISOString() })}</p>` : '';
  const rotated = v.rotated ? html`<div class="card"><p class="ok" role="status">${fillText(t.rotated, { set: v.rotated.set })}</p>${until}<pre class="secret">${JSON.stringify(v.rotated.credentials, null, 2)}</pre></div>` : '';
  // One form: which set, and how long its old values keep working (docs/security.md, Rotating credentials).
  const rotate = canOps(f.role, 'merchants.rotate')
    ? html`<form method="post" action="/ops/merchants/${m.id}/rotate">${csrfField(f)}<div class="row2">
${field('set', t.rotateSet, m.credentialSets[0] ?? '', { options: m.credentialSets.map((s): [string, string] => [s, s]) })}
${field('grace_hours', t.rotateGrace, '24', { options: [['24', fillText(t.rotateGraceHours, { n: 24 })], ['1', fillText(t.rotateGraceHours, { n: 1 })], ['72', fillText(t.rotateGraceHours, { n: 72 })], ['168', t.rotateGraceWeek], ['0', t.rotateGraceNone]] })}
</div><button class="button secondary">${t.rotateButton}</button></form>`
    : '';
  const adjust = canOps(f.role, 'money.request')
    ? html`<h3>${t.adjust}</h3><p class="hint">${t.adjustHint}</p><form method="post" action="/ops/merchants/${m.id}/adjustments">${csrfField(f)}
<div class="row2">${field('direction', t.direction, 'credit', { options: [['credit', t.credit], ['debit', t.debit]] })}${field('currency', t.currency, m.settlementCurrency, { required: true })}</div>
${field('amount', t.amount, '', { required: true, inputmode: 'decimal' })}${field('reason', t.reason, '', { required: true })}
<button class="button">${t.adjust}</button></form>`
    : '';
  return frame(f, '/ops/merchants', `${m.name} (${m.id})`, html`${notice(v.notice)}${alert(v.error)}${rotated}
<div class="grid2">
<section class="card"><h2>${t.settings}</h2>${settings}</section>
<section class="card"><h2>${t.balance}</h2>${table(t.balance, [t.currency, t.available, t.reserved], m.balances.map((b) => [b.currency, b.available, b.reserved]), [1, 2], t.noBalance)}${adjust}</section>
${feesCard(f, m)}
<section class="card"><h2>${t.settlements}</h2><p><a href="/ops/merchants/${m.id}/settlements">${t.settlements}</a></p></section>
<section class="card"><h2>${t.limits}</h2>${table(t.limits, [t.country, t.method, t.perTransaction, t.daily, t.monthly], m.limits.map((l) => [l.country, l.method, l.perTransaction, l.daily, l.monthly]), [2, 3, 4], t.noLimits)}
${canOps(f.role, 'merchants.settings') ? html`<h3>${t.setLimit}</h3><p class="hint">${t.limitHint}</p><form method="post" action="/ops/merchants/${m.id}/limits">${csrfField(f)}
<div class="row2">${field('country', t.country, '*', { required: true })}${field('payment_method', t.method, '*', { required: true })}</div>
<div class="row2">${field('per_transaction', t.perTransaction, '', { inputmode: 'decimal' })}${field('daily', t.daily, '', { inputmode: 'decimal' })}</div>
${field('monthly', t.monthly, '', { inputmode: 'decimal' })}<button class="button">${t.save}</button></form>` : ''}</section>
<section class="card"><h2>${t.connectors}</h2>${table(t.connectors, [t.connector, t.method], m.connectors.map((c) => [c.name, c.methods]), [], t.noConnectors)}</section>
<section class="card"><h2>${t.credentials}</h2>${rotate}</section>
</div>`);
}

// ---------------------------------------------------------------- rates

export function ratesPage(f: Frame, v: { rates: RateLine[]; sources: SourceLine[]; markups: Record<string, string>; maxAgeHours: number; notice?: string; error?: string }): Page {
  const t = f.t;
  const rows = v.rates.map((r) => [r.currency, html`<b>${r.usdRate}</b>`, r.sourceRate, r.markupPercent, r.source, when(r.rateAt), r.stale ? html`<span class="badge CANCELLED">${t.stale}</span>` : html`<span class="badge COMPLETED">${t.fresh}</span>`]);
  const srcRows = v.sources.map((s) => [s.source, s.currency, when(s.lastSuccessAt), s.lastError ?? '—']);
  const edit = canOps(f.role, 'rates.edit')
    ? html`<div class="grid2">
<section class="card"><h2>${t.setMarkup}</h2><form method="post" action="/ops/rates/markup">${csrfField(f)}<div class="row2">${field('currency', t.currency, '', { required: true })}${field('markup', t.markup, '', { required: true, inputmode: 'decimal' })}</div><button class="button">${t.save}</button></form></section>
<section class="card"><h2>${t.setManual}</h2><p class="hint">${t.manualHint}</p><form method="post" action="/ops/rates/manual">${csrfField(f)}<div class="row2">${field('currency', t.currency, '', { required: true })}${field('rate', t.rate, '', { required: true, inputmode: 'decimal' })}</div><button class="button">${t.save}</button></form></section>
</div>`
    : '';
  return frame(f, '/ops/rates', t.navRates, html`${notice(v.notice)}${alert(v.error)}<p>${fillText(t.maxAge, { hours: v.maxAgeHours })}</p>
<h2>${t.rates}</h2>${table(t.rates, [t.currency, t.rate, t.sourceRate, t.markup, t.source, t.published, t.status], rows, [1, 2, 3])}
<h2>${t.sources}</h2>${v.sources.length ? table(t.sources, [t.source, t.currency, t.lastSuccess, t.lastError], srcRows) : html`<p>${t.noSources}</p>`}
${v.sources.length && canOps(f.role, 'rates.edit') ? button(f, '/ops/rates/fetch', t.fetchNow) : ''}
<h2>${t.markups}</h2>${table(t.markups, [t.currency, t.markup], Object.entries(v.markups), [1], t.noMarkups)}
${edit}`);
}

// ---------------------------------------------------------------- connectors

export function connectorsPage(f: Frame, v: { connectors: { name: string; updatedAt: Date; health: Record<string, unknown> }[]; stopped: StoppedOrder[] }): Page {
  const t = f.t;
  const rows = v.connectors.map((c) => [c.name, when(c.updatedAt), html`<pre>${JSON.stringify(c.health, null, 1)}</pre>`]);
  // Orders the provider holds something else under: never completed nor sent again (src/cashouts/payouts.ts).
  const stopped = v.stopped.map((o) => [
    `${o.kind === 'cashout' ? t.stoppedCashout : t.stoppedRefund} ${o.id}`,
    o.connector, html`<code>${o.reference}</code>`, html`<span class="wrap">${o.problem ?? ''}</span>`, when(o.at),
  ]);
  return frame(f, '/ops/connectors', t.connectorHealth, html`${table(t.connectorHealth, [t.connector, t.updated, t.health], rows, [], t.noConnectors)}
<h2>${t.stoppedOrders}</h2>${table(t.stoppedOrders, [t.subjectRow, t.connector, t.reference, t.problem, t.when], stopped, [], t.noStoppedOrders)}${connectorLinks(f)}`);
}

// ---------------------------------------------------------------- approvals

function approvalText(t: OpsStrings, a: Approval): string {
  if (a.kind === 'cashout_release') return fillText(t.kindcashout_release, { id: a.cashout_id ?? '' });
  const p = a.payload;
  if (a.kind === 'reconciliation_match') return fillText(t.kindreconciliation_match, { exception: p.exception_id ?? '', target: p.target ?? '' });
  if (a.kind === 'exchange_rate') return fillText(t.kindexchange_rate, { currency: p.currency ?? '', rate: p.rate ?? '', source: p.source_rate || '—', band: p.band_percent ?? '' });
  return fillText(t.kindbalance_adjustment, { direction: p.direction === 'debit' ? t.debit : t.credit, amount: p.amount ?? '', currency: p.currency ?? '', reason: p.reason ?? '' });
}

export function approvalsPage(f: Frame, v: { held: HeldCashout[]; open: Approval[]; decided: Approval[]; notice?: string; error?: string }): Page {
  const t = f.t;
  const mayAsk = canOps(f.role, 'money.request');
  const mayDecide = canOps(f.role, 'money.approve');
  const held = v.held.map((c) => [
    c.id, html`<a href="/ops/merchants/${c.merchant_id}">${c.merchant_name}</a>`, c.external_id, `${c.amount} ${c.currency}`, c.usd_amount, when(c.created_at),
    c.open_request ? `#${c.open_request}` : mayAsk ? button(f, `/ops/approvals/cashouts/${c.id}/request`, t.askRelease) : '—',
  ]);
  const open = v.open.map((a) => [
    `#${a.id}`, a.merchant_id === null ? '—' : html`<a href="/ops/merchants/${a.merchant_id}">${a.merchant_name}</a>`, approvalText(t, a), a.requested_by_email, when(a.requested_at),
    a.requested_by === f.operatorId ? html`<span class="hint">${t.yourOwn}</span>` : mayDecide ? html`<div class="stack">${button(f, `/ops/approvals/${a.id}/approve`, t.approve, '')}${button(f, `/ops/approvals/${a.id}/reject`, t.reject, 'danger')}</div>` : '—',
  ]);
  const decided = v.decided.map((a) => [`#${a.id}`, a.merchant_name ?? '—', approvalText(t, a), a.requested_by_email, a.decided_by_email ?? '—', t[`status${a.status}`], when(a.decided_at)]);
  return frame(f, '/ops/approvals', t.navApprovals, html`${notice(v.notice)}${alert(v.error)}
<h2>${t.openRequests}</h2>${table(t.openRequests, [t.id, t.merchant, t.kind, t.requestedBy, t.when, t.action], open, [], t.noOpen)}
<h2>${t.heldCashouts}</h2>${table(t.heldCashouts, [t.id, t.merchant, t.externalId, t.amount, t.usd, t.created, t.action], held, [0, 4], t.noHeld)}
<h2>${t.decided}</h2>${table(t.decided, [t.id, t.merchant, t.kind, t.requestedBy, t.decidedBy, t.status, t.when], decided, [], t.noDecided)}`);
}

// ---------------------------------------------------------------- audit

export function auditPage(f: Frame, v: { rows: OpsAuditRow[]; next: number | null }): Page {
  const t = f.t;
  // A token's actions name it by id too (the id is what GET /admin/tokens and the logs' admin_token say).
  const who = (r: OpsAuditRow) => (r.token_id !== null ? `${r.actor} (token #${r.token_id})` : r.actor);
  const rows = v.rows.map((r) => [when(r.created_at), html`<span class="wrap">${who(r)}</span>`, r.action, r.merchant_id ?? '', r.subject ?? '', html`<span class="wrap">${JSON.stringify(r.detail)}</span>`]);
  return frame(f, '/ops/audit', t.navAudit, html`${table(t.navAudit, [t.when, t.who, t.action, t.merchant, t.subject, t.detail], rows, [], t.noResults)}
${v.next ? html`<nav class="pager" aria-label="${t.older}"><a href="/ops/audit?before=${v.next}" rel="next">${t.older}</a></nav>` : ''}`);
}

// ---------------------------------------------------------------- operators and tokens

export function operatorsPage(f: Frame, v: { operators: Operator[]; tokens: TokenView[]; made?: { email: string; link: string; until: Date }; token?: string; error?: string; notice?: string; lifecycle?: SafeHtml }): Page {
  const t = f.t;
  const made = v.made ? enrolmentLinkCard(fillText(t.operatorLink, { email: v.made.email, until: untilText(v.made.until) }), v.made.link) : '';
  const token = v.token ? html`<div class="card"><p class="ok" role="status">${t.tokenOnce}</p><p class="secret">${v.token}</p></div>` : '';
  const ops = v.operators.map((o) => [o.id, o.email, roleName(t, o.role), operatorState(t, o, new Date()), when(o.created_at), operatorActions(f, o)]);
  const tokens = v.tokens.map((x) => [x.id, x.name, x.scopes.join(', '), when(x.created_at), x.revoked_at ? t.revoked : html`<div class="stack">${button(f, `/ops/tokens/${x.id}/rotate`, fillText(t.rotate, { set: x.name }))}${button(f, `/ops/tokens/${x.id}/revoke`, t.revoke, 'danger')}</div>`]);
  return frame(f, '/ops/operators', t.navOperators, html`${alert(v.error)}${notice(v.notice)}${made}${token}${v.lifecycle ?? ''}
<h2>${t.operators}</h2>${table(t.operators, [t.id, t.email, t.role, t.status, t.created, t.action], ops, [0])}
<details class="card"><summary>${t.createOperator}</summary><form method="post" action="/ops/operators">${csrfField(f)}
${field('email', t.email, '', { type: 'email', required: true })}${field('role', t.role, 'read_only', { options: OPERATOR_ROLES.map((r) => [r, roleName(t, r)]) })}
<button class="button">${t.create}</button></form></details>
<h2>${t.tokens}</h2>${table(t.tokens, [t.id, t.name, t.scopes, t.created, t.action], tokens, [0], t.noResults)}
<details class="card"><summary>${t.createToken}</summary><form method="post" action="/ops/tokens">${csrfField(f)}
${field('name', t.name, '', { required: true })}${field('scopes', t.scopes, 'read', { required: true, hint: TOKEN_SCOPES.join(', ') })}
<button class="button">${t.create}</button></form></details>`);
}

// ---------------------------------------------------------------- reconciliation

export interface ReconView {
  imports: ImportView[];
  perRule: Record<string, number>;
  matches: MatchView[];
  exceptions: ExceptionView[];
  resolved: ExceptionView[];
  notice?: string;
  error?: string;
}

function entryText(e: ExceptionView['entry']): string {
  const refs = Object.entries(e.references ?? {}).map(([k, v]) => `${k}=${String(v)}`).join(' ');
  return `${e.booking_date} · ${e.direction === 'credit' ? '+' : '−'}${e.amount} ${e.currency}${e.reversal ? ' (reversal)' : ''} · ${e.account}${refs ? ` · ${refs}` : ''}${e.description ? ` · ${e.description}` : ''}${e.counterparty.name ? ` · ${e.counterparty.name}` : ''}`;
}

/** Imports, matches per rule and the exceptions an operator resolves (issue 29 section 1's service). */
export function reconciliationPage(f: Frame, v: ReconView): Page {
  const t = f.t;
  const mayResolve = canOps(f.role, 'reconciliation');
  const imports = v.imports.map((i) => [i.id, i.format, i.account, i.statement_date ?? '—', i.entries, i.matched, i.exceptions, i.imported_by, i.created_at.replace('T', ' ').slice(0, 19)]);
  const rules = Object.entries(v.perRule).map(([r, n]) => [r, n]);
  const matches = v.matches.map((m) => [m.id, m.entry_id, m.rule, `${m.target.type} ${m.target.id}`, m.effect, m.amount]);
  const resolveForms = (x: ExceptionView) => {
    const id = `x${x.id}`;
    return html`<details><summary>${t.resolve}</summary>
<form method="post" action="/ops/reconciliation/exceptions/${x.id}/resolve">${csrfField(f)}<input type="hidden" name="action" value="match">
<div class="row2">${field(`${id}-type`, t.targetType, x.candidates[0]?.type ?? 'deposit', { options: [['deposit', 'deposit'], ['cashout', 'cashout'], ['refund', 'refund']] })}${field(`${id}-target`, t.targetId, x.candidates[0] ? String(x.candidates[0].id) : '', { required: true, inputmode: 'numeric' })}</div>
<input type="hidden" name="prefix" value="${id}"><button class="button">${t.matchByHand}</button></form>
<form method="post" action="/ops/reconciliation/exceptions/${x.id}/resolve">${csrfField(f)}<input type="hidden" name="prefix" value="${id}">
${field(`${id}-action`, t.action, 'book_fee', { options: [['book_fee', t.bookFee], ['book_adjustment', t.bookAdjustment], ['send_back', t.sendBack]] })}
${field(`${id}-reason`, t.reason, '', { hint: t.reasonHint })}<button class="button secondary">${t.resolve}</button></form>${batchForm(f, x)}</details>`;
  };
  const open = v.exceptions.map((x) => [
    x.id, html`<span class="wrap">${entryText(x.entry)}</span>`, html`<b>${x.reason}</b><br><span class="hint">${x.detail}</span>`,
    x.candidates.length ? x.candidates.map((c) => `${c.type} ${c.id} (${c.status}, ${c.amount} ${c.currency})`).join('; ') : '—',
    mayResolve ? resolveForms(x) : '—',
  ]);
  const resolved = v.resolved.map((x) => [x.id, html`<span class="wrap">${entryText(x.entry)}</span>`, x.reason, html`<span class="wrap">${JSON.stringify(x.resolution)}</span>`, x.resolved_by ?? '', x.resolved_at?.replace('T', ' ').slice(0, 19) ?? '']);
  return frame(f, '/ops/reconciliation', t.reconTitle, html`${notice(v.notice)}${alert(v.error)}${mayResolve ? uploadForm(f) : ''}
<h2>${t.reconExceptions}</h2>${table(t.reconExceptions, [t.id, t.reconEntry, t.reason, t.reconCandidates, t.action], open, [0], t.reconNoExceptions)}
<h2>${t.reconImports}</h2>${table(t.reconImports, [t.id, t.reconFormat, t.reconAccount, t.reconDate, t.reconEntries, t.reconMatched, t.reconExceptions, t.who, t.when], imports, [0, 4, 5, 6], t.reconNoImports)}
<h2>${t.reconPerRule}</h2>${table(t.reconPerRule, [t.reconRule, t.reconMatched], rules, [1], t.reconNoMatches)}
<h2>${t.reconMatches}</h2>${table(t.reconMatches, [t.id, t.reconEntry, t.reconRule, t.reconTarget, t.reconEffect, t.amount], matches, [0, 1, 5], t.reconNoMatches)}
<h2>${t.reconResolved}</h2>${table(t.reconResolved, [t.id, t.reconEntry, t.reason, t.reconResolution, t.who, t.when], resolved, [0], t.noDecided)}`);
}
