// v3/v5 header authentication: X-Date, X-Login and `Authorization: SVC <hex>` (alias D24), an
// HMAC-SHA256 of X-Date + X-Login + the raw body, keyed with the set's signature secret; or
// `SVC2 <hex>`, which also covers the method and the path with its query (docs/security.md).
// A v3 call that changes state is also claimed against replays, by its route's rule (./replay.ts).
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../../config/context.ts';
import { svc2AuthMessage, v3AuthMessage, verifyHmacHex } from '../../domain/signatures.ts';
import { canonicalRoute, claimOrWait, requestHash, sendStored, WRITE_METHODS } from '../../auth/replay.ts';
import { v3Errors } from '../../http/errors.ts';
import { findSigningSecret, type Merchant } from '../../merchants/merchants.ts';
import { v3LoginDetails, v3SignatureDetails } from '../../auth/signature-debug.ts';

declare module 'fastify' {
  interface FastifyRequest {
    merchant?: Merchant;
  }
}

const X_DATE = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2})(\.\d{1,9})?(Z|[+-]\d{2}:?\d{2})$/;

/** Parses `yyyy-MM-dd'T'HH:mm:ssZ`, also with milliseconds and `+hh:mm`/`+hhmm` offsets. */
export function parseXDate(value: string): Date | null {
  const m = X_DATE.exec(value);
  if (!m) return null;
  const offset = m[3] === 'Z' ? 'Z' : `${m[3].slice(0, 3)}:${m[3].slice(-2)}`;
  const ms = m[2] ? m[2].slice(0, 4).padEnd(4, '0') : '';
  const t = Date.parse(`${m[1]}${ms}${offset}`);
  if (Number.isNaN(t)) return null;
  // Date.parse rolls impossible days over (Feb 30 → Mar 2); such a date is invalid, not late.
  const [y, mo, d] = m[1].slice(0, 10).split('-').map(Number);
  const calendar = new Date(Date.UTC(y, mo - 1, d));
  if (calendar.getUTCMonth() !== mo - 1 || calendar.getUTCDate() !== d) return null;
  return new Date(t);
}

const AUTHORIZATION = /^(SVC2|SVC|D24)\s+(\S+)$/i;

function header(request: FastifyRequest, name: 'X-Date' | 'X-Login' | 'Authorization'): string {
  const v = request.headers[name.toLowerCase()];
  if (v === undefined) throw v3Errors.missingHeader(name);
  const text = (Array.isArray(v) ? v[0] : v).trim();
  if (text === '') throw v3Errors.emptyHeader(name);
  return text;
}

/**
 * Checks headers, date, login and signature, in that order; sets request.merchant. A v3 write
 * seen before is answered here from the first copy's stored response.
 */
export function v3HeaderAuth(ctx: AppContext, set: 'deposits' | 'cashouts') {
  return async function authenticate(request: FastifyRequest, reply?: FastifyReply): Promise<FastifyReply | void> {
    const xDate = header(request, 'X-Date');
    const xLogin = header(request, 'X-Login');
    const authorization = header(request, 'Authorization');
    const auth = AUTHORIZATION.exec(authorization);
    if (!auth) throw v3Errors.invalidSignature("Authorization must be 'SVC <64 hex characters>' or 'SVC2 <64 hex characters>'");
    const date = parseXDate(xDate);
    if (!date) throw v3Errors.invalidDateRange("X-Date must be an ISO 8601 date-time with timezone, like 2026-01-31T12:00:00Z");
    const now = ctx.now();
    const age = (now.getTime() - date.getTime()) / 1000;
    if (age > ctx.config.xDateToleranceSeconds) {
      throw v3Errors.invalidDateRange(`X-Date is more than ${ctx.config.xDateToleranceSeconds} seconds away from server time`);
    }
    // A date far ahead would keep a captured request valid for longer than the window.
    if (-age > ctx.config.xDateFutureSeconds) {
      throw v3Errors.invalidDateRange(`X-Date is more than ${ctx.config.xDateFutureSeconds} seconds ahead of server time`);
    }
    const found = await findSigningSecret(ctx.db, ctx.box, set, xLogin, ctx.cache);
    // Staging explains a refusal (the signature debugger); production says no more than the code.
    const debug = ctx.config.relaxedChecks;
    if (!found) throw v3Errors.invalidCredentials(undefined, debug ? await v3LoginDetails(ctx, set, xLogin) : undefined);
    const rawBody = request.rawBody ?? Buffer.alloc(0);
    const svc2 = auth[1]!.toUpperCase() === 'SVC2';
    const message = svc2 ? svc2AuthMessage(request.method, request.url, xDate, xLogin, rawBody) : v3AuthMessage(xDate, xLogin, rawBody);
    if (!verifyHmacHex(found.secret, message, auth[2])) {
      throw v3Errors.invalidSignature(undefined, debug ? v3SignatureDetails(set, message, rawBody, date, ctx.now()) : undefined);
    }
    if (!svc2 && found.merchant.require_svc2) throw v3Errors.invalidSignature('This merchant requires SVC2 signatures (method and path covered)');
    request.merchant = found.merchant;
    // v5 calls only read (account and key validation), so only v3 writes are claimed.
    if (set !== 'deposits' || !reply || !WRITE_METHODS.has(request.method)) return;
    const rule = request.routeOptions.config.replayRule ?? 'request';
    if (rule === 'none') return;
    // A money-moving call is the signature it carries (either hex case, any scheme word): no
    // unsigned part (path spelling, query, X-Idempotency-Key) makes a captured copy new. Other
    // writes are their route and signed content: an empty-body SVC signature is the same for
    // every path in one second, so it cannot name the request alone.
    const hash = rule === 'signature'
      ? requestHash(['v3-signature', auth[2]!.toLowerCase()])
      : requestHash(['v3-request', request.method, canonicalRoute(request), xDate, xLogin, rawBody]);
    const expiresAt = new Date(date.getTime() + ctx.config.xDateToleranceSeconds * 1000);
    const claim = await claimOrWait(ctx, found.merchant.id, hash, now, expiresAt);
    if (claim.claimed) {
      request.replayClaim = { merchantId: found.merchant.id, hash };
      return;
    }
    if (claim.stored) return sendStored(reply, claim.stored);
    throw v3Errors.requestInFlight();
  };
}
