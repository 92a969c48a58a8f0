// Streamline deposits: NewInvoice (create), webpaystatus (status), and the return redirect that
// sends the customer's browser back to the merchant by POST. A thin adapter: the form is mapped
// onto the v3 request shape and goes through the same validation and deposit service.
import { depositStatusRow } from '../../deposits/lookups.ts';
import type { FastifyInstance, FastifyReply } from 'fastify';
import type { AppContext } from '../../config/context.ts';
import { streamlineAuth } from '../../auth/streamline.ts';
import { approvalDetail, storedCardRefusal } from '../../domain/cards.ts';
import { findMethod } from '../../domain/catalog.ts';
import { isCountryAccepted } from '../../domain/countries.ts';
import { formatMinor } from '../../domain/currencies.ts';
import { fromDb, toFixed } from '../../domain/money.ts';
import { toInternational } from '../../domain/phones.ts';
import { depositResultMessage, hmacHexUpper, newInvoiceControlMessage, verifyHmacHex } from '../../domain/signatures.ts';
import { checkCallbackUrl } from '../../domain/urls.ts';
import { INVOICE_ERROR_CODES, streamlineDepositError } from '../../http/errors.ts';
import { depositsSignerOf } from '../../merchants/merchants.ts';
import { streamlineFields } from '../../deposits/notifications.ts';
import { type CreatedDeposit, createDeposit, DepositError, prepareDepositRequest } from '../../deposits/service.ts';
import { type DepositRow, findDepositByToken } from '../../deposits/store.ts';
import { redirectUrl } from '../../deposits/views.ts';
import { html, join, type SafeHtml } from '../../web/html.ts';
import { newNonce, sendHtml } from '../../web/layout.ts';
import { type Form, optional, required, sendRecord } from './face.ts';
import { StreamlineError } from './format.ts';

/** Streamline error codes (shared: 300 invalid, 301 empty, 302 control, 401 credentials, 505 country). */
/** 320/321: the method's payment provider did not answer / refused the charge (docs/connectors.md). */
export { INVOICE_ERROR_CODES };

const AFRICA = new Set(['CM', 'GH', 'KE', 'NG', 'TZ', 'UG', 'ZA']);

/** Country rules of the spec's table: which optional fields become mandatory. */
export function countryMandatoryFields(country: string): string[] {
  const fields: string[] = [];
  if (country === 'CO' || AFRICA.has(country)) fields.push('x_mobile');
  if (country === 'BR') fields.push('x_address', 'x_zip', 'x_state');
  if (country === 'CO') fields.push('x_address');
  return fields;
}

/** v3 field paths in validation details, renamed to the form fields the merchant sent. */
const FIELD_NAMES: [RegExp, string][] = [
  [/^payer\.document/, 'x_cpf'],
  [/^payer\.email/, 'x_email'],
  [/^payer\.phone/, 'x_mobile'],
  [/^payer\.address\.street/, 'x_address'],
  [/^payer\.address\.city/, 'x_city'],
  [/^payer\.address\.state/, 'x_state'],
  [/^payer\.address\.zip_code/, 'x_zip'],
  [/^payer\.(first|last)_name/, 'x_name'],
  [/^payer\.id/, 'x_iduser'],
  [/^invoice_id/, 'x_invoice'],
  [/^amount/, 'x_amount'],
  [/^currency/, 'x_currency'],
  [/^payment_method/, 'x_bank'],
  [/^description/, 'x_description'],
  [/^notification_url/, 'x_confirmation'],
];

export function renameDetail(detail: string): string {
  for (const [pattern, name] of FIELD_NAMES) if (pattern.test(detail)) return detail.replace(/^[\w.]+/, name);
  return detail;
}

const LIMITS: [string, number][] = [
  ['x_invoice', 125], ['x_amount', 21], ['x_country', 2], ['x_bank', 3], ['x_iduser', 128], ['x_cpf', 30], ['x_name', 100],
  ['x_email', 100], ['x_return', 200], ['x_mobile', 20], ['x_currency', 3], ['x_description', 200], ['x_bdate', 8],
  ['x_address', 255], ['x_zip', 10], ['x_city', 100], ['x_state', 20], ['x_confirmation', 200], ['type', 20],
];

function splitName(name: string): { first_name: string; last_name?: string } {
  const parts = name.trim().split(/\s+/);
  return parts.length > 1 ? { first_name: parts[0], last_name: parts.slice(1).join(' ') } : { first_name: parts[0] };
}

function isTrue(v: string | undefined): boolean {
  return v !== undefined && /^(1|true|yes|on)$/i.test(v.trim());
}

/** Signed result fields for one deposit (webpaystatus and the return redirect). */
async function signedFields(ctx: AppContext, d: DepositRow): Promise<Record<string, string>> {
  const signer = await depositsSignerOf(ctx.db, ctx.box, d.merchant_id);
  if (!signer) throw new StreamlineError(500, 'Merchant credentials unavailable');
  return streamlineFields(d, signer.login, signer.secret);
}

/** The masked card of a card deposit (deposits.card_detail: brand and last four, never more), or ''. */
function maskedCard(detail: unknown): string {
  const m = (detail as { masked_card?: unknown } | null)?.masked_card;
  return typeof m === 'string' ? m : '';
}

/** A deposit as webpaystatus needs it (its twelve columns: depositStatusRow). */
async function findStatusRow(ctx: AppContext, merchantId: number, invoiceId: string): Promise<DepositRow | null> {
  // streamlineFields reads only DepositStatusRow's columns (a test compares the answer with the whole row's).
  return (await depositStatusRow(ctx.db, merchantId, invoiceId)) as DepositRow | null;
}

/** An auto-submitting form: the spec's return redirect is a browser POST. */
/** Submits itself with a nonce'd script: the page's CSP allows no inline handler. */
export function autoPostPage(url: string, fields: Record<string, string>, nonce: string): SafeHtml {
  const inputs = join(
    Object.entries(fields).map(([k, v]) => html`<input type="hidden" name="${k}" value="${v}">`),
    '\n    ',
  );
  return html`<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>Returning to the merchant…</title></head>
<body>
  <form method="post" action="${url}">
    ${inputs}
    <noscript><p>Your payment details are ready.</p></noscript>
    <button type="submit">Return to the merchant</button>
  </form>
  <script nonce="${nonce}">document.forms[0].submit()</script>
</body>
</html>`;
}

export function registerStreamlineDeposits(app: FastifyInstance, ctx: AppContext): void {
  app.post<{ Body: Form }>(
    '/api_curl/streamline/NewInvoice',
    { config: { streamline: { defaultFormat: 'xml', errorShape: 'invoice' } }, schema: { hide: true } },
    async (request, reply) => {
      const form = request.body;
      const caller = await streamlineAuth(ctx, form.x_login, form.x_trans_key, ['deposits']);
      for (const name of ['x_invoice', 'x_amount', 'x_country', 'x_bank', 'x_iduser', 'x_cpf', 'x_name', 'x_email']) required(form, name);
      const control = required(form, 'control');
      for (const [name, max] of LIMITS) optional(form, name, max);
      // The control covers the fields exactly as sent; empty values count as empty text.
      if (!verifyHmacHex(caller.secret, newInvoiceControlMessage(form), control.trim())) throw new StreamlineError(302, 'Invalid control string');

      const country = form.x_country.trim().toUpperCase();
      if (!isCountryAccepted(country)) throw new StreamlineError(505, `Country not found: ${country}`);
      for (const name of countryMandatoryFields(country)) required(form, name);
      // The spec's x_iduser is a number of up to 11 digits; the provider's own documentation and
      // integrations send any user id text (`userId123`, an e-mail prefix), so text up to 128
      // characters (the v3 payer.id limit) is accepted as well.
      if (/[\u0000-\u001f\u007f]/.test(form.x_iduser)) throw new StreamlineError(300, 'Invalid parameter: x_iduser must be printable text');
      if (form.x_bdate && !/^\d{8}$/.test(form.x_bdate.trim())) throw new StreamlineError(300, 'Invalid parameter: x_bdate must be YYYYMMDD');
      const returnUrl = form.x_return?.trim() || caller.merchant.return_url;
      if (!returnUrl) throw new StreamlineError(301, 'Empty parameter: x_return (and no return URL in the merchant settings)');
      for (const [name, value] of [['x_return', form.x_return?.trim()], ['x_confirmation', form.x_confirmation?.trim()]] as const) {
        const reason = value ? checkCallbackUrl(value, ctx.config, 200) : null;
        if (reason) throw new StreamlineError(INVOICE_ERROR_CODES.invalidUrl, `Invalid parameter: ${name} ${reason}`);
      }
      const bank = form.x_bank.trim();
      if (!findMethod(country, bank)) throw new StreamlineError(300, `Invalid parameter: x_bank '${bank}' is not a payment method of ${country} (see get_banks_by_country)`);

      // x_currency is outside the control: a merchant that pinned its currencies refuses others,
      // so a captured form cannot be re-priced (docs/security.md, field by field).
      const currency = form.x_currency?.trim() || 'USD';
      const pinned = caller.merchant.newinvoice_currencies;
      if (pinned && !pinned.includes(currency.toUpperCase())) {
        throw new StreamlineError(300, `Invalid parameter: x_currency must be ${pinned.join(' or ')} for this merchant (x_currency is not covered by control)`);
      }
      const body = {
        country,
        amount: form.x_amount.trim(),
        currency,
        invoice_id: form.x_invoice,
        payment_method: bank,
        description: form.x_description || undefined,
        mobile: isTrue(form.x_mobile_device),
        payer: {
          id: form.x_iduser.trim(),
          document: form.x_cpf,
          ...splitName(form.x_name),
          email: form.x_email.trim(),
          ...(form.x_mobile ? { phone: toInternational(country, form.x_mobile) } : {}),
          address: {
            ...(form.x_address ? { street: form.x_address } : {}),
            ...(form.x_city ? { city: form.x_city } : {}),
            ...(form.x_state ? { state: form.x_state } : {}),
            ...(form.x_zip ? { zip_code: form.x_zip } : {}),
          },
        },
      };
      // With the merchant, the customer-limit rules are read in the same round trip as the
      // exchange rates (as v3 does); without it createDeposit reads them in one more.
      // A rate too old to use (rate_stale) is refused here, in the invoice endpoint's codes.
      const prepared = await prepareDepositRequest(ctx, body, { invoiceMaxLength: 125, merchantId: caller.merchant.id }).catch((err: unknown) => {
        if (!(err instanceof DepositError)) throw err;
        const e = streamlineDepositError(err, form.x_invoice);
        throw new StreamlineError(e.code, e.message);
      });
      if (!prepared.ok) {
        const details = prepared.details.map(renameDetail);
        const documentOnly = details.every((d) => d.startsWith('x_cpf'));
        throw new StreamlineError(documentOnly ? INVOICE_ERROR_CODES.invalidDocument : 300, `Invalid parameters: ${details.join('; ')}`);
      }
      let deposit: CreatedDeposit;
      try {
        ({ deposit } = await createDeposit(ctx, caller.merchant, prepared.value, {
          source: 'streamline',
          confirmationUrl: form.x_confirmation?.trim() || null,
          returnUrl,
          extra: { x_version: form.x_version ?? '1.0', ...(form.x_bdate ? { x_bdate: form.x_bdate } : {}) },
        }));
      } catch (err) {
        if (!(err instanceof DepositError)) throw err;
        const e = streamlineDepositError(err, form.x_invoice);
        throw new StreamlineError(e.code, e.message);
      }
      let link = redirectUrl(ctx.config.publicBaseUrl, deposit);
      if (isTrue(form.iframe_view)) link += `${link.includes('?') ? '&' : '?'}iframe_view=1`;
      const fields: [string, string][] = [['status', '0'], ['link', link]];
      if (form.x_version !== undefined && Number(form.x_version) >= 1.1) {
        fields.push(
          ['local_amount', formatMinor(fromDb(deposit.local_amount), deposit.local_currency)],
          ['usd_amount', toFixed(fromDb(deposit.usd_amount), 2)],
          ['local_currency', deposit.local_currency],
          ['x_document', String(deposit.id)],
          ['amount_to_deposit', formatMinor(fromDb(deposit.payer_amount), deposit.local_currency)],
        );
      }
      return sendRecord(request, reply, fields);
    },
  );

  app.post<{ Body: Form }>(
    '/apd/webpaystatus',
    { config: { streamline: { defaultFormat: 'string', errorShape: 'standard' } }, schema: { hide: true } },
    async (request, reply) => {
      const form = request.body;
      const caller = await streamlineAuth(
        ctx,
        form.x_login ?? form.x_login_webpaystatus,
        form.x_trans_key ?? form.x_trans_key_webpaystatus,
        ['web_status'],
      );
      const invoice = required(form, 'x_invoice');
      optional(form, 'x_invoice', 125);
      const d = await findStatusRow(ctx, caller.merchant.id, invoice);
      const sign = (result: string, amount: string) => hmacHexUpper(caller.secret, depositResultMessage(caller.depositsLogin, result, amount, invoice));
      if (!d) {
        return sendRecord(request, reply, [
          ['result', '6'], ['x_iduser', '0'], ['x_invoice', invoice], ['x_amount', '0'], ['PT', '0'], ['Sign', sign('6', '0')],
          ['x_document', '-1'], ['x_bank', ' '], ['x_payment_type', '0'], ['x_bank_name', ' '], ['x_currency', ' '],
        ]);
      }
      const f = streamlineFields(d, caller.depositsLogin, caller.secret);
      const card = f.x_payment_type === '03';
      return sendRecord(request, reply, [
        ['result', f.result], ['x_iduser', f.x_iduser], ['x_invoice', f.x_invoice], ['x_amount', f.x_amount],
        ['PT', d.test || ctx.config.sandbox ? '1' : '0'], ['Sign', f.x_control],
        ['x_document', f.x_document], ['x_bank', f.x_bank], ['x_payment_type', f.x_payment_type], ['x_bank_name', f.x_bank_name],
        ['x_currency', f.x_currency],
        ...(card ? ([['x_approval_detail', approvalDetail(d.status, storedCardRefusal(d.card_refusal))], ['card_number', maskedCard(d.card_detail)]] as [string, string][]) : []),
      ]);
    },
  );
}

/**
 * The return redirect (`GET /return/{token}`), where the payment pages send the customer when
 * they are done: an auto-submitting POST of the signed result fields to x_return, else the
 * merchant's return URL.
 */
export function registerReturnRedirect(app: FastifyInstance, ctx: AppContext): void {
  app.get<{ Params: { token: string } }>('/return/:token', { schema: { hide: true } }, async (request, reply: FastifyReply) => {
    const d = /^[\w-]{16,64}$/.test(request.params.token) ? await findDepositByToken(ctx.db, request.params.token) : null;
    if (!d) return reply.status(404).type('text/plain; charset=utf-8').send('This payment link is not valid.');
    const merchantReturn = (await ctx.db.query<{ return_url: string | null }>('SELECT return_url FROM merchants WHERE id = $1', [d.merchant_id])).rows[0]?.return_url;
    const url = d.return_url ?? merchantReturn;
    if (!url) return reply.status(404).type('text/plain; charset=utf-8').send('The merchant has no return address for this payment.');
    const f = await signedFields(ctx, d);
    const fields = {
      result: f.result, x_invoice: f.x_invoice, x_iduser: f.x_iduser, x_description: f.x_description,
      x_document: f.x_document, x_bank: f.x_bank, x_amount: f.x_amount, x_control: f.x_control,
    };
    // The same headers as every other page: a nonce CSP that lets the form post only to the
    // merchant's return address, never framed, not cached.
    const nonce = newNonce();
    return sendHtml(reply, autoPostPage(url, fields, nonce), { nonce, formAction: [new URL(url).origin] });
  });
}
