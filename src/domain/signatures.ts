// Every signature message of the two API styles, in one place (DESIGN.md "Signatures").
// All are HMAC-SHA256 over UTF-8 text; inputs are compared in constant time and either hex case
// is accepted.
import { createHmac, timingSafeEqual } from 'node:crypto';

export function hmacHex(key: string, message: string | Buffer): string {
  return createHmac('sha256', key).update(message).digest('hex');
}

export function hmacHexUpper(key: string, message: string | Buffer): string {
  return hmacHex(key, message).toUpperCase();
}

/** True when `given` is the hex HMAC of message under key, in either case. */
export function verifyHmacHex(key: string, message: string | Buffer, given: string): boolean {
  if (!/^[0-9a-fA-F]{64}$/.test(given)) return false;
  const expected = createHmac('sha256', key).update(message).digest();
  return timingSafeEqual(expected, Buffer.from(given, 'hex'));
}

/** v3/v5 `Authorization: SVC <hash>`: X-Date + X-Login + raw body. */
export function v3AuthMessage(xDate: string, xLogin: string, rawBody: Buffer | string): Buffer {
  return Buffer.concat([Buffer.from(xDate + xLogin, 'utf8'), Buffer.isBuffer(rawBody) ? rawBody : Buffer.from(rawBody, 'utf8')]);
}

/**
 * SVC2, caja's opt-in v3/v5 signature: also covers the method and the path with its query, so a
 * captured signature cannot be replayed against another endpoint or another id. Message:
 * METHOD "\n" path?query "\n" X-Date "\n" X-Login "\n" raw body.
 */
export function svc2AuthMessage(method: string, pathWithQuery: string, xDate: string, xLogin: string, rawBody: Buffer | string): Buffer {
  return Buffer.concat([
    Buffer.from(`${method.toUpperCase()}\n${pathWithQuery}\n${xDate}\n${xLogin}\n`, 'utf8'),
    Buffer.isBuffer(rawBody) ? rawBody : Buffer.from(rawBody, 'utf8'),
  ]);
}

const s = (v: string | undefined | null) => v ?? '';

export interface NewInvoiceSigned {
  x_invoice?: string;
  x_amount?: string;
  x_iduser?: string;
  x_bank?: string;
  x_cpf?: string;
  x_bdate?: string;
  x_email?: string;
  x_zip?: string;
  x_address?: string;
  x_city?: string;
  x_state?: string;
}

/** Streamline NewInvoice `control`, per the spec's table. */
export function newInvoiceControlMessage(f: NewInvoiceSigned): string {
  return (
    s(f.x_invoice) + 'V' + s(f.x_amount) + 'I' + s(f.x_iduser) + '2' + s(f.x_bank) + '1' + s(f.x_cpf) + 'H' +
    s(f.x_bdate) + 'G' + s(f.x_email) + 'Y' + s(f.x_zip) + 'A' + s(f.x_address) + 'P' + s(f.x_city) + 'S' +
    s(f.x_state) + 'P'
  );
}

/** webpaystatus `Sign`, return redirect and confirmation `x_control`. */
export function depositResultMessage(xLogin: string, result: string, xAmount: string, xInvoice: string): string {
  return xLogin + result + xAmount + xInvoice;
}

export interface RefundRequestSigned {
  x_invoice?: string;
  x_document?: string;
  x_amount?: string;
  x_bank_beneficiary?: string;
  x_bank?: string;
  x_bank_account?: string;
  x_account_type?: string;
  x_bank_branch?: string;
}

/** Streamline refund request `x_control`. */
export function refundRequestMessage(f: RefundRequestSigned): string {
  return 'A' + s(f.x_invoice) + s(f.x_document) + s(f.x_amount) + s(f.x_bank_beneficiary) + s(f.x_bank) + s(f.x_bank_account) + s(f.x_account_type) + s(f.x_bank_branch);
}

/** Streamline refund response `control`. */
export function refundResponseMessage(result: string, xAmount: string, xCurrency: string, xInvoice: string, xDocument: string, xRefund: string): string {
  return result + xAmount + xCurrency + xInvoice + xDocument + xRefund;
}

/** Cashout notification `control`. */
export function cashoutNotificationMessage(externalId: string): string {
  return `Be4${externalId}Bo7`;
}

/**
 * `Caja-Signature: t=<unix seconds>,v1=<hex HMAC of "<t>.<body>">` on every notification; one
 * `v1` per valid secret (the current one first; during a rotation's overlap, the replaced one
 * too), so an integration verifies with whichever it holds.
 */
export function cajaSignatureHeader(secrets: string | readonly string[], unixSeconds: number, body: string): string {
  const message = `${unixSeconds}.${body}`;
  return `t=${unixSeconds}${(typeof secrets === 'string' ? [secrets] : secrets).map((secret) => `,v1=${hmacHex(secret, message)}`).join('')}`;
}
