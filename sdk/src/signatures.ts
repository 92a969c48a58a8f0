// Every signature caja checks or sends, computed the way the service's contract describes
// (HMAC-SHA256 over UTF-8 text, no separators). Kept free of I/O so merchants can use these in
// their own handlers and tests.
import { createHmac, timingSafeEqual } from 'node:crypto';

export function hmacHex(key: string, message: string | Uint8Array): string {
  return createHmac('sha256', key).update(message).digest('hex');
}

/** v3/v5 `Authorization: SVC <hash>`: the string to sign is X-Date + X-Login + raw body. */
export function v3StringToSign(xDate: string, xLogin: string, rawBody: string): string {
  return xDate + xLogin + rawBody;
}

/**
 * SVC2, caja's opt-in scheme that also covers the method and the path with its query, so a
 * captured signature cannot be replayed against another endpoint or id:
 * METHOD "\n" path?query "\n" X-Date "\n" X-Login "\n" raw body.
 */
export function svc2StringToSign(method: string, pathWithQuery: string, xDate: string, xLogin: string, rawBody: string): string {
  return `${method.toUpperCase()}\n${pathWithQuery}\n${xDate}\n${xLogin}\n${rawBody}`;
}

/**
 * The three headers of a signed v3/v5 request: SVC2 when the request's method and path are
 * given (what the client sends), else the spec's SVC.
 */
export function v3AuthHeaders(
  login: string,
  secretKey: string,
  rawBody: string,
  xDate = xDateNow(),
  request?: { method: string; pathWithQuery: string },
): Record<string, string> {
  const authorization = request
    ? `SVC2 ${hmacHex(secretKey, svc2StringToSign(request.method, request.pathWithQuery, xDate, login, rawBody))}`
    : `SVC ${hmacHex(secretKey, v3StringToSign(xDate, login, rawBody))}`;
  return { 'X-Date': xDate, 'X-Login': login, Authorization: authorization };
}

/**
 * `yyyy-MM-dd'T'HH:mm:ss.SSSZ`. caja answers an exact copy of a signed write (same X-Date, login
 * and body) with the first one's response, so two distinct calls with the same body in the same
 * second would be taken for one: the milliseconds keep them apart.
 */
export function xDateNow(now = new Date()): string {
  return now.toISOString();
}

/** Cashout `Payload-Signature`: hex HMAC of the raw body with cashouts.secret_key. */
export function payloadSignature(secretKey: string, rawBody: string): string {
  return hmacHex(secretKey, rawBody);
}

export class CajaSignatureVerificationError extends Error {
  constructor(readonly reason: 'malformed_header' | 'timestamp_outside_tolerance' | 'no_matching_signature', message: string) {
    super(message);
    this.name = 'CajaSignatureVerificationError';
  }
}

/**
 * Checks the `Caja-Signature: t=<unix seconds>,v1=<hex>` header of a notification against the
 * raw body as received (never a re-serialised one). The secret is deposits.secret_key for deposit
 * and refund notifications, cashouts.secret_key for cashout ones. Throws
 * CajaSignatureVerificationError; returns the signed timestamp (seconds) when valid, so the
 * caller can also drop notifications it has already seen.
 */
export function verifyNotification(rawBody: string | Uint8Array, header: string | undefined | null, secret: string, toleranceSeconds = 300, now = Date.now()): number {
  if (!header) throw new CajaSignatureVerificationError('malformed_header', 'Caja-Signature header missing');
  let t: number | undefined;
  const candidates: string[] = [];
  for (const part of header.split(',')) {
    const [k, v] = part.trim().split('=', 2);
    if (k === 't' && /^\d{1,12}$/.test(v ?? '')) t = Number(v);
    else if (k === 'v1' && /^[0-9a-fA-F]{64}$/.test(v ?? '')) candidates.push(v!.toLowerCase());
  }
  if (t === undefined || candidates.length === 0) throw new CajaSignatureVerificationError('malformed_header', 'Caja-Signature must be t=<unix seconds>,v1=<64 hex>');
  if (toleranceSeconds > 0 && Math.abs(now / 1000 - t) > toleranceSeconds) {
    throw new CajaSignatureVerificationError('timestamp_outside_tolerance', `Caja-Signature timestamp ${t} is more than ${toleranceSeconds} s from now`);
  }
  const body = typeof rawBody === 'string' ? Buffer.from(rawBody, 'utf8') : Buffer.from(rawBody);
  const expected = createHmac('sha256', secret).update(Buffer.concat([Buffer.from(`${t}.`, 'utf8'), body])).digest();
  if (!candidates.some((c) => timingSafeEqual(expected, Buffer.from(c, 'hex')))) {
    throw new CajaSignatureVerificationError('no_matching_signature', 'No v1 signature matches the body and secret');
  }
  return t;
}

/** Builds a Caja-Signature header, as caja does; for tests of a merchant's own handler. */
export function signNotification(rawBody: string, secret: string, unixSeconds = Math.floor(Date.now() / 1000)): string {
  return `t=${unixSeconds},v1=${hmacHex(secret, `${unixSeconds}.${rawBody}`)}`;
}

// Streamline (form-encoded) controls: upper-case hex, keyed with deposits.secret_key, messages
// per the contract's table; empty fields count as empty text.
const s = (v: string | undefined | null) => v ?? '';
const upper = (key: string, message: string) => hmacHex(key, message).toUpperCase();

export interface NewInvoiceFields {
  x_invoice: string;
  x_amount: string;
  x_iduser: string;
  x_bank: string;
  x_cpf: string;
  x_bdate?: string;
  x_email?: string;
  x_zip?: string;
  x_address?: string;
  x_city?: string;
  x_state?: string;
}

/** The message NewInvoice's `control` signs. */
export function newInvoiceStringToSign(f: NewInvoiceFields): string {
  return `${s(f.x_invoice)}V${s(f.x_amount)}I${s(f.x_iduser)}2${s(f.x_bank)}1${s(f.x_cpf)}H${s(f.x_bdate)}G${s(f.x_email)}Y${s(f.x_zip)}A${s(f.x_address)}P${s(f.x_city)}S${s(f.x_state)}P`;
}

/** NewInvoice `control`. */
export function newInvoiceControl(secretKey: string, f: NewInvoiceFields): string {
  return upper(secretKey, newInvoiceStringToSign(f));
}

/** webpaystatus `Sign`, return redirect and confirmation notification `x_control`. */
export function depositResultControl(secretKey: string, xLogin: string, result: string, xAmount: string, xInvoice: string): string {
  return upper(secretKey, xLogin + result + xAmount + xInvoice);
}

/** Checks a confirmation notification's or return redirect's form fields (x_control). */
export function verifyDepositResult(secretKey: string, xLogin: string, fields: Record<string, string | undefined>): boolean {
  const given = fields.x_control ?? fields.Sign ?? '';
  if (!/^[0-9a-fA-F]{64}$/.test(given)) return false;
  const expected = depositResultControl(secretKey, xLogin, s(fields.result), s(fields.x_amount), s(fields.x_invoice));
  return timingSafeEqual(Buffer.from(expected, 'hex'), Buffer.from(given, 'hex'));
}

export interface RefundRequestFields {
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
export function refundRequestControl(secretKey: string, f: RefundRequestFields): string {
  return upper(secretKey, `A${s(f.x_invoice)}${s(f.x_document)}${s(f.x_amount)}${s(f.x_bank_beneficiary)}${s(f.x_bank)}${s(f.x_bank_account)}${s(f.x_account_type)}${s(f.x_bank_branch)}`);
}

/** Streamline refund response `control`, to check an answer. */
export function refundResponseControl(secretKey: string, r: { result: string; x_amount: string; x_currency: string; x_invoice: string; x_document: string; x_refund: string }): string {
  return upper(secretKey, r.result + r.x_amount + r.x_currency + r.x_invoice + r.x_document + r.x_refund);
}

/** Cashout notification `control` (cashouts.secret_key): "Be4" + external_id + "Bo7". */
export function cashoutNotificationControl(secretKey: string, externalId: string): string {
  return upper(secretKey, `Be4${externalId}Bo7`);
}
