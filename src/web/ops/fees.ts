// The console's fee schedule of a merchant (/ops/merchants/{id}/fees): its fee and surcharge
// percentages per method type, each box empty for the global schedule's (shown as the hint).
// The rule is src/domain/fees.ts validateFeeOverrides, the change src/merchants/fees.ts (audited
// with the operator in its transaction); finance and admin roles ('merchants.settings').
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../config/context.ts';
import { PAYMENT_TYPES, type PaymentType } from '../../domain/catalog.ts';
import { CHARGEBACK_FEE_USD, effectiveSchedule, type FeeOverrides, FEE_PERCENT, SURCHARGE_PERCENT, validateFeeOverrides } from '../../domain/fees.ts';
import { parseId } from '../../domain/ids.ts';
import { setMerchantFees } from '../../merchants/fees.ts';
import { getMerchant, type Merchant } from '../../merchants/merchants.ts';
import { actorOf } from '../../operators/auth.ts';
import { canOps } from '../../operators/roles.ts';
import { field } from '../../panel/views/pages.ts';
import { html, raw, type SafeHtml } from '../html.ts';
import { csrfField, fillText } from '../view-helpers.ts';
import { errorsByField } from './form-bits.ts';
import type { OpsRouteOf } from './route-types.ts';
import * as V from './frame.ts';

const KINDS = ['fee', 'surcharge'] as const;
type Kind = (typeof KINDS)[number];
const globalOf = (kind: Kind, t: PaymentType) => (kind === 'fee' ? FEE_PERCENT[t] : SURCHARGE_PERCENT[t] ?? '0');

/** The merchant page's fee card: what is in effect per type, its own values marked. */
export function feesCard(f: V.Frame, m: { id: number; feeSchedule: FeeOverrides | null }): SafeHtml {
  const t = f.t;
  const s = effectiveSchedule(m.feeSchedule);
  const mark = (kind: Kind, type: PaymentType) => (m.feeSchedule?.[kind]?.[type] !== undefined ? html`<b>${s[kind][type]}</b><br><span class="hint">${t.feeOwn}</span>` : s[kind][type]);
  const rows = PAYMENT_TYPES.map((type) => html`<tr><td>${type}</td><td class="num">${mark('fee', type)}</td><td class="num">${mark('surcharge', type)}</td></tr>`);
  return html`<section class="card"><h2>${t.fees}</h2><p class="hint">${m.feeSchedule ? t.feeHintOwn : t.feeHintGlobal}</p>
<div class="scroll" role="region" aria-label="${t.fees}" tabindex="0"><table><thead><tr><th scope="col">${t.type}</th><th scope="col" class="num">${t.fee}</th><th scope="col" class="num">${t.surcharge}</th></tr></thead><tbody>${rows}</tbody></table></div>
<p>${t.chargebackFee}: <span id="chargeback-fee">${m.feeSchedule?.chargeback !== undefined ? html`<b>${s.chargeback}</b> (${t.feeOwn})` : s.chargeback}</span></p>
<p><a href="/ops/merchants/${m.id}/fees">${canOps(f.role, 'merchants.settings') ? t.feeEdit : t.feeView}</a></p></section>`;
}

interface FeesForm {
  values: Record<string, string>;
  errors: Record<string, string>;
  error?: string;
  notice?: string;
}

function feesPage(f: V.Frame, m: Merchant, form: FeesForm, status?: number): V.Page {
  const t = f.t;
  const may = canOps(f.role, 'merchants.settings');
  const groups = PAYMENT_TYPES.map((type) => {
    const box = (kind: Kind) => {
      const name = `${kind}-${type}`;
      const label = kind === 'fee' ? t.fee : t.surcharge;
      return field(name, label, form.values[name] ?? '', { inputmode: 'decimal', hint: fillText(t.feeDefault, { percent: globalOf(kind, type) }), error: form.errors[name] });
    };
    return html`<fieldset class="card"><legend>${type}</legend><div class="row2">${box('fee')}${box('surcharge')}</div></fieldset>`;
  });
  const s = effectiveSchedule(m.fee_schedule);
  const chargeback = html`<fieldset class="card"><legend>${t.chargebackFee}</legend>${field('chargeback', t.chargebackFee, form.values.chargeback ?? '', {
    inputmode: 'decimal', hint: fillText(t.chargebackFeeHint, { amount: CHARGEBACK_FEE_USD }), error: form.errors.chargeback,
  })}</fieldset>`;
  const body = may
    ? html`<p>${t.feeFormHint}</p><form method="post" action="/ops/merchants/${m.id}/fees" novalidate>${csrfField(f)}<div class="grid2">${groups}</div>${chargeback}<button class="button">${t.save}</button></form>`
    : html`<div class="scroll" role="region" aria-label="${t.fees}" tabindex="0"><table><thead><tr><th scope="col">${t.type}</th><th scope="col" class="num">${t.fee}</th><th scope="col" class="num">${t.surcharge}</th></tr></thead><tbody>${PAYMENT_TYPES.map((type) => html`<tr><td>${type}</td><td class="num">${s.fee[type]}</td><td class="num">${s.surcharge[type]}</td></tr>`)}</tbody></table></div>
<p>${t.chargebackFee}: ${s.chargeback}</p>`;
  const notice = form.notice ? html`<p class="ok" role="status">${form.notice}</p>` : '';
  const alert = form.error ? html`<p class="alert" role="alert">${form.error}</p>` : '';
  return V.frame(f, '/ops/merchants', fillText(t.feeTitle, { name: m.name }), html`${notice}${alert}<p><a href="/ops/merchants/${m.id}">${raw('&larr;')} ${m.name} (${m.id})</a></p>${body}`, status);
}

/** The form's boxes as the merchant's overrides are now: empty where the global schedule applies. */
const valuesOf = (o: FeeOverrides | null): Record<string, string> => ({
  ...Object.fromEntries(KINDS.flatMap((k) => PAYMENT_TYPES.map((type) => [`${k}-${type}`, o?.[k]?.[type] ?? '']))),
  chargeback: o?.chargeback ?? '',
});

export function registerOpsFees(app: FastifyInstance, ctx: AppContext, opsRoute: OpsRouteOf): void {
  app.get('/ops/merchants/:id/fees', opsRoute('view', async (c) => {
    const id = parseId(c.params.id);
    const m = id === null ? null : await getMerchant(ctx.db, id);
    if (!m) return V.messagePage(c.f, c.f.t.notFoundTitle, c.f.t.notFound, 404, c.f);
    return feesPage(c.f, m, { values: valuesOf(m.fee_schedule), errors: {}, notice: c.query.done === 'saved' ? c.f.t.saved : undefined });
  }));

  app.post('/ops/merchants/:id/fees', opsRoute('merchants.settings', async (c) => {
    const id = parseId(c.params.id);
    const m = id === null ? null : await getMerchant(ctx.db, id);
    if (!m || id === null) return V.messagePage(c.f, c.f.t.notFoundTitle, c.f.t.notFound, 404, c.f);
    const values: Record<string, string> = {};
    const body: { fee: Record<string, string>; surcharge: Record<string, string>; chargeback?: string } = { fee: {}, surcharge: {} };
    for (const kind of KINDS) {
      for (const type of PAYMENT_TYPES) {
        const name = `${kind}-${type}`;
        const v = typeof c.body[name] === 'string' ? c.body[name]!.trim().slice(0, 40) : '';
        values[name] = v;
        if (v) body[kind][type] = v;
      }
    }
    const cb = typeof c.body.chargeback === 'string' ? c.body.chargeback.trim().slice(0, 40) : '';
    values.chargeback = cb;
    if (cb) body.chargeback = cb;
    const checked = validateFeeOverrides(body);
    if (!checked.ok) {
      // "fee.VOUCHER: must be less than 100" is the box fee-VOUCHER's error.
      const { byField, general } = errorsByField(checked.details, Object.keys(values));
      return feesPage(c.f, m, { values, errors: byField, error: [fillText(c.f.t.feeInvalid, { count: checked.details.length }), ...general].join(' ') }, 400);
    }
    await setMerchantFees(ctx.db, id, checked.value, (before) => ({
      ops: actorOf(c.s), action: 'merchant.fees', merchantId: id, subject: `merchant:${id}`, detail: { before, after: checked.value }, at: ctx.now(),
    }), ctx.cache);
    return { redirect: `/ops/merchants/${id}/fees?done=saved` };
  }));
}
