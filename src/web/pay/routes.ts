// The customer-facing pages behind the links merchants hand out: GET /pay/<token> (payment
// information of a ONE_SHOT deposit, or of a HOSTED one once its customer chose a method) and
// GET /vouchers/<token> (printable voucher, the receipt_url); the hosted checkout itself is in
// ../checkout/. Everything shown comes from the stored deposit and its stored payment_info, so the
// page says exactly what the merchant's API response said. Once a deposit is expired, cancelled
// or paid, no payment instructions are shown (spec: the QR code must not be shown after
// expiration_date). Staging pages carry a banner and the "Simulate payment" buttons.
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../config/context.ts';
import { toPlainString, fromDb } from '../../domain/money.ts';
import { runSandboxAction } from '../../deposits/sandbox.ts';
import { DepositError } from '../../deposits/errors.ts';
import { isValidBoletoBarcode } from '../../domain/vouchers.ts';
import { code128Svg } from '../code128.ts';
import { itfSvg } from '../itf.ts';
import type { Strings } from '../i18n.ts';
import { EMPTY, html, type SafeHtml } from '../html.ts';
import { safeHref } from '../layout.ts';
import { checkCsrf, csrfInput } from '../csrf.ts';
import type { Loaded } from '../customer/view-model.ts';
import { amountBlock, amountLabel, methodHeader, pageEnd, pageLink, pageTop, phaseNotice, returnLink, row, stateInputs, summary } from '../customer/fragments.ts';
import { customerRoute, formRefused, type Rendered } from '../customer/route.ts';

/** Hidden until the page script shows it; `id` names the element whose text it copies. */
function copyButton(t: Strings, id: string): SafeHtml {
  return html`<div class="actions noprint"><button type="button" class="button secondary" hidden data-copy="${id}" data-done="${t.copied}">${t.copy}</button><span id="${id}-status" aria-live="polite"></span></div>`;
}

function codeWithCopy(t: Strings, id: string, field: string, value: string): SafeHtml {
  return html`<p class="code" id="${id}" data-field="${field}">${value}</p>${copyButton(t, id)}`;
}

/**
 * The bar code drawn from its digits: 2 px (0.53 mm in print) per module, 64 px (17 mm) high.
 * A boleto's 44 digits are drawn in Interleaved 2 of 5, the symbology Brazilian banks scan;
 * other vouchers in Code 128.
 */
function barcode(value: string, label: string): SafeHtml {
  try {
    const opts = { label, modulePx: 2, heightPx: 64 };
    return isValidBoletoBarcode(value) ? itfSvg(value, opts) : code128Svg(value, opts);
  } catch {
    return EMPTY;
  }
}

/** The payment instructions, drawn from the charge's next action (never from the method's name). */
function instructions(l: Loaded): SafeHtml {
  const { t } = l;
  const a = l.nextAction;
  switch (a.type) {
    case 'qr_code': {
      const qr = a.image ? html`<img class="qr" src="data:image/png;base64,${a.image}" alt="${t.pixQrAlt}" width="240" height="240" data-field="qr_code">` : '';
      return html`<section class="card" aria-labelledby="pay-how"><h2 id="pay-how">${t.pixScan}</h2>${qr}<p>${t.pixCopy}</p>${codeWithCopy(t, 'pix-code', 'digitable_line', a.code)}${
        a.beneficiaryName ? html`<dl>${row(t.beneficiary, a.beneficiaryName, 'beneficiary_name')}${a.beneficiaryDocument ? row(t.cnpj, a.beneficiaryDocument, 'CNPJ', true) : ''}</dl>` : ''}</section>`;
    }
    case 'bank_details': {
      const rows = [
        a.beneficiaryName ? row(t.beneficiary, a.beneficiaryName, 'beneficiary_name') : '',
        a.agency ? row(t.agency, a.agency, 'agency', true) : '',
        a.account ? row(a.clabe ? t.clabe : t.account, html`<span id="account-copy">${a.account}</span>`, 'account', true) : '',
        a.document ? row(t.cnpj, a.document, 'CNPJ', true) : '',
        a.payerDocument ? row(t.payerDocument, a.payerDocument, 'payer_document', true) : '',
      ];
      // An 18-digit CLABE is what people mistype; it gets a copy button.
      return html`<section class="card" aria-labelledby="pay-how"><h2 id="pay-how">${a.deposit ? t.depositIntro : t.bankIntro}</h2><dl>${rows}</dl>${a.clabe ? copyButton(t, 'account-copy') : ''}</section>`;
    }
    case 'voucher': {
      const receipt = safeHref(a.url);
      return html`<section class="card" aria-labelledby="pay-how"><h2 id="pay-how">${t.voucherIntro}</h2>${
        a.barCode ? html`${barcode(a.barCode, `${t.barCode}: ${a.barCode}`)}<dl>${row(t.barCode, a.barCode, 'bar_code', true)}</dl>` : ''}${
        a.digitableLine ? html`<p>${t.digitableLine}</p>${codeWithCopy(t, 'voucher-line', 'digitable_line', a.digitableLine)}` : ''}${
        receipt ? html`<p><a href="${receipt}" data-field="receipt_url">${t.openVoucher}</a></p>` : ''}</section>`;
    }
    default:
      return html`<section class="card"><p>${t.noInstructions}</p></section>`;
  }
}

/** Staging only: the sandbox's outcomes as buttons, for a payable deposit with a method. */
function simulateForm(ctx: AppContext, l: Loaded): SafeHtml {
  if (!l.staging || l.phase !== 'payable' || !l.d.payment_method) return EMPTY;
  const t = l.t;
  return html`<section class="card noprint" aria-labelledby="simulate"><h2 id="simulate">${t.simulateTitle}</h2><p class="hint">${t.simulateHint}</p><form method="post" action="/pay/${l.d.token}/simulate">${csrfInput(ctx, l.d.token, 'simulate')}${stateInputs(l)}<div class="stack"><button type="submit" name="action" value="approve" class="button">${t.simulatePayment}</button><button type="submit" name="action" value="cancel" class="button danger">${t.simulateCancellation}</button></div></form></section>`;
}

// ---------------------------------------------------------------------------------------------
// Pages

function payPage(ctx: AppContext, l: Loaded, base: string): Rendered {
  const { t, info, d } = l;
  const exact = info?.amount ?? toPlainString(fromDb(d.payer_amount));
  const currency = info?.currency ?? d.local_currency;
  const body = html`${pageTop(l, `/pay/${d.token}`)}<section class="card">${methodHeader(l)}<h1>${t.payTitle}</h1>${amountBlock(amountLabel(l), exact, currency, l.locale)}${summary(l, t.expires)}</section>${
    l.phase === 'payable' ? instructions(l) : phaseNotice(l)}${simulateForm(ctx, l)}${returnLink(l, base)}${pageEnd(l)}`;
  return { title: t.payTitle, body, script: l.phase === 'payable' };
}

function voucherPage(l: Loaded, barCode: string, digitableLine: string | null): Rendered {
  const { t, info } = l;
  const payable = l.phase === 'payable';
  const code = payable
    ? html`<section class="card" aria-labelledby="pay-how"><h2 id="pay-how">${t.voucherIntro}</h2>${barcode(barCode, `${t.barCode}: ${barCode}`)}<dl>${row(t.barCode, barCode, 'bar_code', true)}${
      digitableLine ? row(t.digitableLine, digitableLine, 'digitable_line', true) : ''}</dl></section><p class="noprint"><button type="button" class="button" hidden data-print>${t.print}</button></p>`
    : phaseNotice(l);
  const body = html`${pageTop(l, `/vouchers/${l.d.token}`)}<section class="card">${methodHeader(l)}<h1>${t.voucherTitle}</h1>${amountBlock(amountLabel(l), info!.amount!, info!.currency!, l.locale)}${summary(l, t.due)}</section>${code}${pageEnd(l)}`;
  return { title: t.voucherTitle, body, script: payable };
}

export function registerCustomerPages(app: FastifyInstance, ctx: AppContext): void {
  const base = () => ctx.config.publicBaseUrl;
  // A HOSTED deposit has payment information once its customer has chosen a (non-card) method.
  app.get('/pay/:token', { schema: { hide: true } }, customerRoute(ctx, (l) => (l.info ? payPage(ctx, l, base()) : null)));
  app.get(
    '/vouchers/:token',
    { schema: { hide: true } },
    customerRoute(ctx, (l) => {
      const a = l.nextAction;
      return a.type === 'voucher' && a.barCode && l.info?.amount && l.info.currency ? voucherPage(l, a.barCode, a.digitableLine) : null;
    }),
  );
  if (ctx.config.sandbox) {
    app.post(
      '/pay/:token/simulate',
      { schema: { hide: true } },
      customerRoute(ctx, async (l, request) => {
        const body = request.body ?? {};
        if (!l.info) return null;
        if (!checkCsrf(ctx, request, l.d.token, 'simulate', body.csrf)) return formRefused(l);
        const action = body.action === 'approve' ? 'approve' : body.action === 'cancel' ? 'cancel' : null;
        if (!action) return null;
        try {
          await runSandboxAction(ctx, l.d, action, 'sandbox');
        } catch (err) {
          // A second click after the first changed the status: the page shows the state as it is.
          if (!(err instanceof DepositError)) throw err;
        }
        return { redirect: pageLink(l, `/pay/${l.d.token}`) };
      }),
    );
  }
}
