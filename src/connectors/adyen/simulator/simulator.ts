// An acquirer that speaks Adyen's Checkout API v71 (Adyen/adyen-openapi, CheckoutService), for
// tests: a separate process with its own CA and server certificate, X-API-Key authentication,
// Idempotency-Key replays, and a control port (plain HTTP on 127.0.0.1). docs/connectors.md,
// "The Adyen simulator".
//   POST /checkout/v71/sessions                  a hosted-checkout session (mode hosted): its url
//   GET  /hosted/{id}, POST /hosted/{id}         the hosted card page; the documented test cards
//   POST /hosted/{id}/challenge                  the 3-D Secure 2 challenge (password "password")
//   GET  /checkout/v71/sessions/{id}?sessionResult=   the session's result
//   POST /checkout/v71/payments                  boletobancario / oxxo: a voucher action
//   POST /checkout/v71/payments/{psp}/refunds    a refund (REFUND / REFUND_FAILED later)
//   POST /checkout/v71/payments/{psp}/cancels    a cancel (CANCELLATION later)
// Notifications are signed with HMAC-SHA256 (the documented item string, hex key) and posted to
// the receiver the control port names: delivered, dropped, duplicated, held and released out of
// order, or forged on demand.
import { createHmac, randomBytes, randomInt } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Fastify, { type FastifyReply, type FastifyRequest } from 'fastify';
import { loadOrCreatePki } from '../../pix/simulator/certs.ts';
import { buildBoleto } from '../../../domain/vouchers.ts';

type Json = any;
export type Delivery = 'deliver' | 'drop' | 'duplicate' | 'hold';

export interface AdyenSimulatorInfo {
  api_url: string;
  control_url: string;
  ca_file: string;
  api_key: string;
  hmac_key: string;
  merchant_account: string;
}

interface Identity {
  api_key: string;
  hmac_key: string;
  merchant_account: string;
}

/** Documented test cards (docs.adyen.com, "Test card numbers"): brand, and whether 3-D Secure 2 challenges. */
const TEST_CARDS: Record<string, { brand: string; challenge: boolean }> = {
  '4111111145551142': { brand: 'visa', challenge: false },
  '5555341244441115': { brand: 'mc', challenge: false },
  '4917610000000000': { brand: 'visa', challenge: true },
  '5454545454545454': { brand: 'mc', challenge: true },
};

/** Refusals by the holder name, as Adyen's test environment does: refusalReason and its code. */
const REFUSALS: Record<string, [string, string]> = {
  DECLINED: ['Refused', '2'],
  NOT_ENOUGH_BALANCE: ['Not enough balance', '12'],
  BLOCK_CARD: ['Blocked Card', '5'],
  CARD_EXPIRED: ['Expired Card', '6'],
  INVALID_CARD: ['Invalid Card Number', '8'],
  CVC_DECLINED: ['CVC Declined', '24'],
  FRAUD: ['FRAUD', '20'],
  ISSUER_UNAVAILABLE: ['Issuer Unavailable', '10'],
  ACQUIRER_ERROR: ['Acquirer Error', '4'],
};

interface Payment {
  pspReference: string;
  merchantReference: string;
  amount: { value: number; currency: string };
  method: string;
  brand: string | null;
  last4: string | null;
  holder: string | null;
  resultCode: string;
  refusalReason?: string;
  refusalReasonCode?: string;
  voucher?: Json;
  status: 'authorised' | 'refused' | 'pending' | 'paid' | 'expired' | 'cancelled';
  refunded: number;
}

interface Session {
  id: string;
  reference: string;
  amount: { value: number; currency: string };
  returnUrl: string;
  countryCode: string;
  expiresAt: string;
  status: 'active' | 'completed' | 'refused' | 'canceled' | 'expired';
  payments: string[];
  refusals: number;
  challenge: { number: string; holder: string } | null;
  result: string;
}

const pspReference = () => String(randomInt(1e7, 1e8)) + String(randomInt(1e7, 1e8));

function loadOrCreateIdentity(dir: string): Identity {
  const file = join(dir, 'adyen-identity.json');
  if (existsSync(file)) return JSON.parse(readFileSync(file, 'utf8')) as Identity;
  const id: Identity = {
    api_key: `AQE${randomBytes(24).toString('base64url')}`,
    hmac_key: randomBytes(32).toString('hex').toUpperCase(),
    merchant_account: `CajaECOM${randomInt(100, 999)}`,
  };
  writeFileSync(file, JSON.stringify(id), { mode: 0o600 });
  return id;
}

function signedString(item: Json): string {
  const s = (v: unknown) => (v === undefined || v === null ? '' : String(v));
  return [s(item.pspReference), s(item.originalReference), s(item.merchantAccountCode), s(item.merchantReference), s(item.amount?.value), s(item.amount?.currency), s(item.eventCode), s(item.success)].join(':');
}

const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

function page(title: string, body: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(title)}</title>
<style>body{font-family:sans-serif;max-width:28rem;margin:2rem auto;color:#00112c}h1{font-size:1.3rem}label{display:block;margin:.6rem 0 .2rem}
input{width:100%;padding:.5rem;font-size:1rem;box-sizing:border-box}button{margin-top:1rem;padding:.6rem 1.2rem;background:#006b2d;color:#fff;border:0;font-size:1rem}
.err{color:#c00}.brand{color:#444;font-size:.8rem}</style></head><body><main><p class="brand">Adyen simulator · hosted checkout</p>${body}</main></body></html>`;
}

export async function startAdyenSimulator(opts: { dir: string; port?: number; controlPort?: number }) {
  const pki = loadOrCreatePki(opts.dir, 'caja-adyen');
  const identity = loadOrCreateIdentity(opts.dir);
  let hmacKey = identity.hmac_key;
  const sessions = new Map<string, Session>();
  const payments = new Map<string, Payment>();
  const idempotent = new Map<string, { status: number; body: Json }>();
  const requests: Array<{ method: string; path: string; status: number }> = [];
  const deliveries: Array<{ body: Json; status: number | null; answer: string }> = [];
  let held: Json[] = [];
  let receiver: string | null = null;
  let delivery: Delivery = 'deliver';
  let outage: 'none' | '503' | 'hang' = 'none';
  /** The next n API answers are lost: the request is carried out, its answer never sent. */
  let loseAnswers = 0;
  let refundOutcome: 'settle' | 'fail' | 'hold' = 'settle';
  const pendingRefunds: Json[] = [];

  const api = Fastify({ logger: false, forceCloseConnections: true, https: { key: pki.server.key, cert: pki.server.cert } });
  api.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string' }, (_req, body, done) => done(null, Object.fromEntries(new URLSearchParams(body as string))));
  // Where the API listens (known once it does; the handlers read it then).
  let base = '';

  const error = (reply: FastifyReply, status: number, errorCode: string, message: string, errorType = 'validation') =>
    reply.status(status).send({ status, errorCode, message, errorType });

  function item(p: Payment, eventCode: string, success: boolean, extra: Json = {}): Json {
    const i: Json = {
      amount: extra.amount ?? p.amount, eventCode, eventDate: new Date().toISOString(), merchantAccountCode: identity.merchant_account,
      merchantReference: extra.merchantReference ?? p.merchantReference, pspReference: extra.pspReference ?? p.pspReference,
      ...(extra.originalReference ? { originalReference: extra.originalReference } : {}),
      paymentMethod: p.brand ?? p.method, reason: extra.reason ?? '', success: String(success),
      additionalData: { ...(p.last4 ? { cardSummary: p.last4, expiryDate: '03/2030' } : {}), ...(extra.additionalData ?? {}) },
    };
    i.additionalData.hmacSignature = createHmac('sha256', Buffer.from(hmacKey, 'hex')).update(signedString(i), 'utf8').digest('base64');
    return i;
  }

  async function post(body: Json): Promise<void> {
    if (!receiver) {
      deliveries.push({ body, status: null, answer: 'no receiver' });
      return;
    }
    try {
      const res = await fetch(receiver, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body), signal: AbortSignal.timeout(10_000) });
      deliveries.push({ body, status: res.status, answer: await res.text() });
    } catch (e) {
      deliveries.push({ body, status: null, answer: (e as Error).message });
    }
  }

  /** Sends one notification as the delivery mode says. */
  async function notify(items: Json[], mode: Delivery = delivery): Promise<void> {
    const body = { live: 'false', notificationItems: items.map((i) => ({ NotificationRequestItem: i })) };
    if (mode === 'drop') return void deliveries.push({ body, status: null, answer: 'dropped' });
    if (mode === 'hold') return void held.push(body);
    await post(body);
    if (mode === 'duplicate') await post(body);
  }

  api.addHook('onResponse', async (req, reply) => {
    if (!req.url.startsWith('/hosted')) requests.push({ method: req.method, path: req.url.split('?')[0]!, status: reply.statusCode });
  });

  api.addHook('onSend', async (req, _reply, payload) => {
    if (loseAnswers > 0 && req.url.startsWith('/checkout/')) {
      loseAnswers--;
      return new Promise<never>(() => undefined);
    }
    return payload;
  });

  api.addHook('preHandler', async (req, reply) => {
    if (!req.url.startsWith('/checkout/')) return;
    if (outage === '503') return error(reply, 503, '000', 'Service Unavailable', 'internal');
    if (outage === 'hang') return new Promise<void>(() => undefined);
    const key = req.headers['x-api-key'];
    if (key !== identity.api_key) return error(reply, 401, '000', 'HTTP Status Response - Unauthorized', 'security');
    const body = req.body as Json;
    if (req.method === 'POST' && body?.merchantAccount !== identity.merchant_account) return error(reply, 403, '901', 'Invalid Merchant Account', 'security');
    const idem = req.headers['idempotency-key'];
    if (typeof idem === 'string' && idempotent.has(`${req.url}|${idem}`)) {
      const prev = idempotent.get(`${req.url}|${idem}`)!;
      return reply.status(prev.status).header('idempotent-replay', 'true').send(prev.body);
    }
  });
  const remember = (req: FastifyRequest, status: number, body: Json) => {
    const idem = req.headers['idempotency-key'];
    if (typeof idem === 'string') idempotent.set(`${req.url}|${idem}`, { status, body });
    return body;
  };

  const amountOk = (a: Json) => a && Number.isSafeInteger(a.value) && a.value > 0 && typeof a.currency === 'string' && /^[A-Z]{3}$/.test(a.currency);

  api.post('/checkout/v71/sessions', async (req, reply) => {
    const b = req.body as Json;
    if (!amountOk(b.amount)) return error(reply, 422, '137', 'Invalid amount specified');
    if (typeof b.reference !== 'string' || !b.reference || b.reference.length > 80) return error(reply, 422, '130', 'Reference Missing');
    if (typeof b.returnUrl !== 'string' || !/^https?:\/\//.test(b.returnUrl)) return error(reply, 422, '14_012', 'The provided returnUrl is invalid');
    if (b.mode !== 'hosted') return error(reply, 422, '14_030', 'This simulator serves mode hosted only');
    const id = `CS${randomBytes(8).toString('hex').toUpperCase()}`;
    const s: Session = {
      id, reference: b.reference, amount: b.amount, returnUrl: b.returnUrl, countryCode: b.countryCode ?? '', status: 'active', payments: [], refusals: 0, challenge: null,
      expiresAt: typeof b.expiresAt === 'string' ? b.expiresAt : new Date(Date.now() + 3600_000).toISOString(), result: '',
    };
    sessions.set(id, s);
    return reply.status(201).send(remember(req, 201, {
      id, amount: s.amount, reference: s.reference, returnUrl: s.returnUrl, expiresAt: s.expiresAt, merchantAccount: identity.merchant_account,
      mode: 'hosted', url: `${base}/hosted/${id}`, sessionData: randomBytes(24).toString('base64'), countryCode: s.countryCode,
    }));
  });

  api.get<{ Params: { id: string }; Querystring: { sessionResult?: string } }>('/checkout/v71/sessions/:id', async (req, reply) => {
    const s = sessions.get(req.params.id);
    if (!s) return error(reply, 404, '000', 'Session not found');
    if (req.query.sessionResult !== s.result || !s.result) return error(reply, 422, '14_0417', 'Invalid sessionResult');
    return {
      id: s.id, status: s.status, reference: s.reference,
      payments: s.payments.map((psp) => payments.get(psp)!).filter((p) => p.status !== 'refused').map((p) => ({
        pspReference: p.pspReference, resultCode: p.resultCode, amount: p.amount, paymentMethod: { type: 'scheme', brand: p.brand },
      })),
      additionalData: (() => {
        const p = s.payments.map((psp) => payments.get(psp)!).find((x) => x.status === 'authorised');
        return p ? { cardSummary: p.last4, paymentMethod: p.brand, cardHolderName: p.holder } : {};
      })(),
    };
  });

  function finish(s: Session, status: Session['status']): string {
    s.status = status;
    s.result = randomBytes(18).toString('base64url');
    const u = new URL(s.returnUrl);
    u.searchParams.set('sessionId', s.id);
    u.searchParams.set('sessionResult', s.result);
    return u.toString();
  }

  /** One card attempt on a session: the next page (a URL to redirect to, or the challenge / form again). */
  async function attempt(s: Session, number: string, holder: string, challengePassed?: boolean): Promise<{ redirect?: string; challenge?: boolean; refused?: string }> {
    const card = TEST_CARDS[number];
    const refusal = REFUSALS[holder.trim().toUpperCase()];
    if (card?.challenge && challengePassed === undefined && !refusal) {
      s.challenge = { number, holder };
      return { challenge: true };
    }
    const p: Payment = {
      pspReference: pspReference(), merchantReference: s.reference, amount: s.amount, method: 'scheme', brand: card?.brand ?? 'visa',
      last4: number.slice(-4), holder, resultCode: 'Authorised', status: 'authorised', refunded: 0,
    };
    if (!card) Object.assign(p, { resultCode: 'Refused', status: 'refused', refusalReason: 'Invalid Card Number', refusalReasonCode: '8' });
    else if (refusal) Object.assign(p, { resultCode: 'Refused', status: 'refused', refusalReason: refusal[0], refusalReasonCode: refusal[1] });
    else if (challengePassed === false) Object.assign(p, { resultCode: 'Refused', status: 'refused', refusalReason: '3D Not Authenticated', refusalReasonCode: '11' });
    payments.set(p.pspReference, p);
    s.payments.push(p.pspReference);
    s.challenge = null;
    await notify([item(p, 'AUTHORISATION', p.status === 'authorised', { reason: p.refusalReason ?? `${p.last4}:${'03/2030'}` , additionalData: p.refusalReasonCode ? { refusalReasonCode: p.refusalReasonCode } : {} })]);
    if (p.status === 'authorised') return { redirect: finish(s, 'completed') };
    s.refusals++;
    if (s.refusals >= 3) return { redirect: finish(s, 'refused') };
    return { refused: p.refusalReason };
  }

  const cardForm = (s: Session, err?: string) => page('Pay by card', `<h1>Pay ${(s.amount.value / 100).toFixed(2)} ${s.amount.currency}</h1>
${err ? `<p class="err" id="error">Refused: ${escapeHtml(err)}</p>` : ''}
<form method="post" action="/hosted/${s.id}"><label for="number">Card number</label><input id="number" name="number" autocomplete="cc-number">
<label for="expiry">Expiry (MM/YY)</label><input id="expiry" name="expiry"><label for="cvc">Security code</label><input id="cvc" name="cvc">
<label for="holder">Name on card</label><input id="holder" name="holder"><button id="pay" type="submit">Pay</button></form>
<form method="post" action="/hosted/${s.id}/cancel"><button id="cancel" type="submit" style="background:#444">Cancel</button></form>`);

  api.get<{ Params: { id: string } }>('/hosted/:id', async (req, reply) => {
    const s = sessions.get(req.params.id);
    if (!s || s.status !== 'active') return reply.status(404).type('text/html').send(page('Not found', '<h1>This payment session has ended</h1>'));
    return reply.type('text/html').send(cardForm(s));
  });

  api.post<{ Params: { id: string } }>('/hosted/:id', async (req, reply) => {
    const s = sessions.get(req.params.id);
    if (!s || s.status !== 'active') return reply.status(404).type('text/html').send(page('Not found', '<h1>This payment session has ended</h1>'));
    const b = (req.body ?? {}) as Record<string, string>;
    const r = await attempt(s, String(b.number ?? '').replace(/\s+/g, ''), String(b.holder ?? ''));
    if (r.redirect) return reply.redirect(r.redirect, 303);
    if (r.challenge) return reply.type('text/html').send(page('3-D Secure', `<h1>Your bank asks you to confirm</h1><p>Card ending ${escapeHtml(s.challenge!.number.slice(-4))}. Test password: password</p>
<form method="post" action="/hosted/${s.id}/challenge"><label for="password">Password</label><input id="password" name="password" type="password"><button id="submit" type="submit">Submit</button></form>`));
    return reply.type('text/html').send(cardForm(s, r.refused));
  });

  api.post<{ Params: { id: string } }>('/hosted/:id/challenge', async (req, reply) => {
    const s = sessions.get(req.params.id);
    if (!s || s.status !== 'active' || !s.challenge) return reply.status(404).type('text/html').send(page('Not found', '<h1>No challenge is open</h1>'));
    const b = (req.body ?? {}) as Record<string, string>;
    const r = await attempt(s, s.challenge.number, s.challenge.holder, b.password === 'password');
    if (r.redirect) return reply.redirect(r.redirect, 303);
    return reply.type('text/html').send(cardForm(s, r.refused));
  });

  api.post<{ Params: { id: string } }>('/hosted/:id/cancel', async (req, reply) => {
    const s = sessions.get(req.params.id);
    if (!s || s.status !== 'active') return reply.status(404).type('text/html').send(page('Not found', '<h1>This payment session has ended</h1>'));
    return reply.redirect(finish(s, 'canceled'), 303);
  });

  /** A boleto as the issuing bank (Adyen's, 341 Itaú here) prints it: the amount and due date in its bar code. */
  function boletoLine(amount: { value: number }, due: string): string {
    let free = '';
    while (free.length < 25) free += String(randomInt(0, 10));
    return buildBoleto({ bankCode: '341', dueDate: due.slice(0, 10), amount: (amount.value / 100).toFixed(2), freeField25: free }).digitableLineFormatted;
  }

  api.post('/checkout/v71/payments', async (req, reply) => {
    const b = req.body as Json;
    const type = b.paymentMethod?.type;
    if (!amountOk(b.amount)) return error(reply, 422, '137', 'Invalid amount specified');
    if (typeof b.reference !== 'string' || !b.reference) return error(reply, 422, '130', 'Reference Missing');
    if (type !== 'boletobancario' && type !== 'oxxo') return error(reply, 422, '905_1', `Could not find an acquirer account for the provided currency (${type})`, 'configuration');
    if (type === 'boletobancario') {
      if (b.amount.currency !== 'BRL' || b.countryCode !== 'BR') return error(reply, 422, '905_1', 'boletobancario is BRL in BR only');
      if (!b.shopperName?.firstName || !b.shopperName?.lastName) return error(reply, 422, '159', 'Shopper name missing');
      if (typeof b.socialSecurityNumber !== 'string' || !/^\d{11}$|^\d{14}$/.test(b.socialSecurityNumber)) return error(reply, 422, '132', 'Invalid socialSecurityNumber');
    } else if (b.amount.currency !== 'MXN' || b.countryCode !== 'MX') return error(reply, 422, '905_1', 'oxxo is MXN in MX only');
    const psp = pspReference();
    const expiresAt = typeof b.deliveryDate === 'string' ? b.deliveryDate : new Date(Date.now() + 3 * 86400_000).toISOString();
    const ref = type === 'boletobancario' ? boletoLine(b.amount, expiresAt) : String(randomInt(1e7, 1e8)) + String(randomInt(1e6, 1e7));
    const action: Json = {
      type: 'voucher', paymentMethodType: type, reference: ref, expiresAt, initialAmount: b.amount, totalAmount: b.amount,
      merchantName: 'Caja test', downloadUrl: `${base}/vouchers/${psp}.pdf`, instructionsUrl: `${base}/vouchers/${psp}/instructions`,
      ...(type === 'oxxo' ? { alternativeReference: ref.slice(0, 12) } : {}),
    };
    payments.set(psp, {
      pspReference: psp, merchantReference: b.reference, amount: b.amount, method: type, brand: null, last4: null, holder: null,
      resultCode: 'PresentToShopper', status: 'pending', voucher: action, refunded: 0,
    });
    return reply.status(200).send(remember(req, 200, { pspReference: psp, resultCode: 'PresentToShopper', action, merchantReference: b.reference, amount: b.amount }));
  });

  api.get<{ Params: { file: string } }>('/vouchers/:file', async (req, reply) => reply.type('application/pdf').send(Buffer.from(`%PDF-1.4 voucher ${req.params.file}`)));

  api.post<{ Params: { psp: string } }>('/checkout/v71/payments/:psp/refunds', async (req, reply) => {
    const p = payments.get(req.params.psp);
    const b = req.body as Json;
    if (!p) return error(reply, 422, '167', 'Original pspReference required for this operation');
    if (p.method !== 'scheme') return error(reply, 422, '905_3', `Refunds are not supported for ${p.method}`, 'configuration');
    if (p.status !== 'authorised') return error(reply, 422, '167', 'The payment cannot be refunded in its state');
    if (!amountOk(b.amount) || b.amount.currency !== p.amount.currency) return error(reply, 422, '137', 'Invalid amount specified');
    if (p.refunded + b.amount.value > p.amount.value) return error(reply, 422, '137', 'Refund amount exceeds the captured amount');
    const psp = pspReference();
    p.refunded += b.amount.value;
    const answer = { merchantAccount: identity.merchant_account, paymentPspReference: p.pspReference, pspReference: psp, reference: b.reference, status: 'received', amount: b.amount };
    const it = { p, psp, amount: b.amount, reference: b.reference };
    if (refundOutcome === 'hold') pendingRefunds.push(it);
    else setTimeout(() => void settleRefund(it, refundOutcome as 'settle' | 'fail'), 20);
    return reply.status(201).send(remember(req, 201, answer));
  });

  async function settleRefund(it: Json, how: 'settle' | 'fail'): Promise<void> {
    if (how === 'fail') it.p.refunded -= it.amount.value;
    await notify([item(it.p, how === 'settle' ? 'REFUND' : 'REFUND_FAILED', how === 'settle', {
      pspReference: it.psp, originalReference: it.p.pspReference, merchantReference: it.reference, amount: it.amount, reason: how === 'fail' ? 'Refund failed at the issuer' : '',
    })]);
  }

  api.post<{ Params: { psp: string } }>('/checkout/v71/payments/:psp/cancels', async (req, reply) => {
    const p = payments.get(req.params.psp);
    const b = req.body as Json;
    if (!p) return error(reply, 422, '167', 'Original pspReference required for this operation');
    const psp = pspReference();
    const ok = p.status === 'authorised' || p.status === 'pending';
    if (ok) p.status = 'cancelled';
    setTimeout(() => void notify([item(p, 'CANCELLATION', ok, { pspReference: psp, originalReference: p.pspReference, merchantReference: b.reference ?? p.merchantReference })]), 20);
    return reply.status(201).send(remember(req, 201, { merchantAccount: identity.merchant_account, paymentPspReference: p.pspReference, pspReference: psp, reference: b.reference, status: 'received' }));
  });

  await api.listen({ host: '127.0.0.1', port: opts.port ?? 0 });
  base = `https://127.0.0.1:${(api.server.address() as { port: number }).port}`;

  // ---- control port --------------------------------------------------------------------------
  const control = Fastify({ logger: false, forceCloseConnections: true });
  const bad = (reply: FastifyReply, message: string) => reply.status(400).send({ error: message });
  control.post('/receiver', async (req, reply) => {
    const b = req.body as Json;
    if (typeof b?.url !== 'string' || !/^https?:\/\//.test(b.url)) return bad(reply, 'url must be an http(s) URL');
    receiver = b.url;
    return { ok: true };
  });
  control.post('/delivery', async (req, reply) => {
    const m = (req.body as Json)?.mode;
    if (!['deliver', 'drop', 'duplicate', 'hold'].includes(m)) return bad(reply, 'mode: deliver|drop|duplicate|hold');
    delivery = m;
    return { ok: true };
  });
  /** Delivers the held notifications newest first (out of order). */
  control.post('/release', async () => {
    const list = held.reverse();
    held = [];
    for (const body of list) await post(body);
    return { released: list.length };
  });
  control.post('/outage', async (req, reply) => {
    const m = (req.body as Json)?.mode;
    if (!['none', '503', 'hang'].includes(m)) return bad(reply, 'mode: none|503|hang');
    outage = m;
    return { ok: true };
  });
  control.post('/lose-answers', async (req, reply) => {
    const count = (req.body as Json)?.count;
    if (!Number.isInteger(count) || count < 0) return bad(reply, 'count: a whole number');
    loseAnswers = count;
    return { ok: true };
  });
  control.post('/refund-outcome', async (req, reply) => {
    const m = (req.body as Json)?.mode;
    if (!['settle', 'fail', 'hold'].includes(m)) return bad(reply, 'mode: settle|fail|hold');
    refundOutcome = m;
    return { ok: true };
  });
  /** Pays a session on the hosted page as a browser would (tests without a browser). */
  control.post<{ Params: { id: string } }>('/sessions/:id/pay', async (req, reply) => {
    const s = sessions.get(req.params.id);
    const b = req.body as Json;
    if (!s || s.status !== 'active') return bad(reply, 'no active session');
    if (b.challenge !== undefined) {
      if (!s.challenge) return bad(reply, 'no challenge is open');
      return attempt(s, s.challenge.number, s.challenge.holder, b.challenge === 'password');
    }
    return attempt(s, String(b.number ?? ''), String(b.holder ?? 'J. Smith'));
  });
  control.post<{ Params: { psp: string } }>('/vouchers/:psp/pay', async (req, reply) => {
    const p = payments.get(req.params.psp);
    if (!p || p.status !== 'pending') return bad(reply, 'no open voucher');
    p.status = 'paid';
    p.resultCode = 'Authorised';
    await notify([item(p, 'AUTHORISATION', true)], ((req.body as Json)?.delivery as Delivery) ?? delivery);
    return { ok: true };
  });
  control.post<{ Params: { psp: string } }>('/vouchers/:psp/expire', async (req, reply) => {
    const p = payments.get(req.params.psp);
    if (!p || p.status !== 'pending') return bad(reply, 'no open voucher');
    p.status = 'expired';
    await notify([item(p, 'OFFER_CLOSED', true)]);
    return { ok: true };
  });
  control.post('/refunds/release', async (req) => {
    const how = ((req.body as Json)?.mode ?? 'settle') as 'settle' | 'fail';
    const list = pendingRefunds.splice(0);
    for (const it of list) await settleRefund(it, how);
    return { released: list.length };
  });
  /** A dispute notification on a payment: NOTIFICATION_OF_CHARGEBACK, CHARGEBACK, CHARGEBACK_REVERSED, SECOND_CHARGEBACK. */
  control.post<{ Params: { psp: string } }>('/payments/:psp/dispute', async (req, reply) => {
    const p = payments.get(req.params.psp);
    const b = req.body as Json;
    if (!p) return bad(reply, 'no such payment');
    if (!['NOTIFICATION_OF_CHARGEBACK', 'CHARGEBACK', 'CHARGEBACK_REVERSED', 'SECOND_CHARGEBACK'].includes(b?.eventCode)) return bad(reply, 'eventCode');
    await notify([item(p, b.eventCode, true, {
      pspReference: pspReference(), originalReference: p.pspReference, amount: b.amount ?? p.amount, reason: b.reason ?? 'Fraudulent transaction',
      additionalData: { chargebackReasonCode: String(b.reasonCode ?? '10.4'), defensePeriodEndsAt: b.defensePeriodEndsAt ?? new Date(Date.now() + 20 * 86400_000).toISOString(), disputeStatus: b.eventCode === 'CHARGEBACK_REVERSED' ? 'Won' : 'Undefended' },
    })]);
    return { ok: true };
  });
  /** A forged notification: the payment's item with a signature under another key (or none). */
  control.post('/forge', async (req) => {
    const b = req.body as Json;
    const it = { ...b.item, merchantAccountCode: b.item?.merchantAccountCode ?? identity.merchant_account };
    it.additionalData = { ...(it.additionalData ?? {}), hmacSignature: createHmac('sha256', randomBytes(32)).update(signedString(it)).digest('base64') };
    await post({ live: 'false', notificationItems: [{ NotificationRequestItem: it }] });
    return { delivery: deliveries.at(-1) };
  });
  control.post('/rotate-hmac', async () => {
    hmacKey = randomBytes(32).toString('hex').toUpperCase();
    return { hmac_key: hmacKey };
  });
  control.get('/state', async () => ({
    sessions: [...sessions.values()], payments: [...payments.values()], requests, deliveries, held: held.length,
  }));
  await control.listen({ host: '127.0.0.1', port: opts.controlPort ?? 0 });
  const controlPort = (control.server.address() as { port: number }).port;

  const info: AdyenSimulatorInfo = {
    api_url: `${base}/checkout/v71`, control_url: `http://127.0.0.1:${controlPort}`, ca_file: pki.files.ca,
    api_key: identity.api_key, hmac_key: identity.hmac_key, merchant_account: identity.merchant_account,
  };
  return {
    info,
    async close() {
      await Promise.allSettled([api.close(), control.close()]);
    },
  };
}
