// The customer pages as a customer's browser meets them: deposits are created through
// POST /v3/deposits as a merchant would, then /pay, /vouchers and /checkout are fetched over
// real HTTP and read back. The pages must show exactly the payment_info the merchant received,
// stop showing payment instructions once a deposit can no longer be paid, escape every
// merchant-supplied value, carry their security headers, and answer 404 pages for bad tokens.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { backends, startTestServer, type TestServer } from '../helpers/server.ts';
import { admin, createMerchant, V3Client, type Credentials, type Res } from '../helpers/clients.ts';
import { PATTERNS } from '../../src/web/code128.ts';

const BR_PAYER = { document: '529.982.247-25', first_name: 'Ana', last_name: 'Silva', email: 'ana@example.com' };
const MX_PAYER = { document: 'GODE561231GR8', first_name: 'Eva', last_name: 'Gómez', email: 'eva@example.com' };
const BR_ADDRESS = { street: 'Av. Paulista 1000', city: 'São Paulo', state: 'SP', zip_code: '01310-100' };

interface Page {
  status: number;
  headers: Headers;
  html: string;
}

async function page(url: string, headers: Record<string, string> = {}): Promise<Page> {
  const r = await fetch(url, { headers });
  return { status: r.status, headers: r.headers, html: await r.text() };
}

const unescape = (s: string) =>
  s.replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&quot;/g, '"').replace(/&#39;/g, "'").replace(/&amp;/g, '&');

/** Text content of the element marked data-field="name" (tags stripped, entities decoded). */
function field(html: string, name: string): string | undefined {
  const m = new RegExp(`<(\\w+)[^>]*\\sdata-field="${name}"[^>]*>([\\s\\S]*?)</\\1>`).exec(html);
  return m ? unescape(m[2]!.replace(/<[^>]+>/g, '')).trim() : undefined;
}

function attr(html: string, selector: RegExp, name: string): string | undefined {
  const tag = selector.exec(html)?.[0];
  const m = tag ? new RegExp(`\\s${name}="([^"]*)"`).exec(tag) : null;
  return m ? unescape(m[1]!) : undefined;
}

/** The exact JSON text of payment_info.amount in a creation response. */
const rawAmount = (r: Res) => /"amount":(-?[\d.]+)/.exec(r.text)![1]!;

/** `YYYY-MM-DD HH:mm:ss` (UTC, as bodies carry it) to the page's <time datetime>. */
const isoOf = (bodyDate: string) => `${bodyDate.replace(' ', 'T')}Z`;

/**
 * Reads a Code 128 SVG back into text from its bar geometry alone: rect positions give the
 * module string, run lengths give the widths, six widths a symbol (seven for Stop). Checks the
 * quiet zones, the check symbol and the stop, and follows Code B / Code C switches.
 */
/** Element widths (bar, space, …) of an SVG bar code, with its quiet zones checked. */
function svgWidths(svg: string): number[] {
  const total = Number(/viewBox="0 0 (\d+) \d+"/.exec(svg)![1]);
  const bars = [...svg.matchAll(/<rect x="(\d+)" y="0" width="(\d+)" height="\d+"\/>/g)].map((m) => [Number(m[1]), Number(m[2])] as const);
  let modules = '';
  for (const [x, w] of bars) modules += '0'.repeat(x - modules.length) + '1'.repeat(w);
  const quiet = /^(0*)/.exec(modules)![1]!.length;
  assert.ok(quiet >= 10 && total - modules.length >= 10, 'quiet zones of 10 modules');
  return modules.slice(quiet).match(/1+|0+/g)!.map((run) => run.length);
}

/** Interleaved 2 of 5 read from the bar geometry: start 1111, pairs of digits, stop 311. */
function decodeItfSvg(svg: string): string {
  const digits = ['NNWWN', 'WNNNW', 'NWNNW', 'WWNNN', 'NNWNW', 'WNWNN', 'NWWNN', 'NNNWW', 'WNNWN', 'NWNWN'];
  const widths = svgWidths(svg);
  const narrow = Math.min(...widths);
  const nw = (w: number) => (w === narrow ? 'N' : 'W');
  assert.equal(widths.slice(0, 4).map(nw).join(''), 'NNNN', 'start');
  assert.equal(widths.slice(-3).map(nw).join(''), 'WNN', 'stop');
  const body = widths.slice(4, -3);
  let out = '';
  for (let i = 0; i < body.length; i += 10) {
    const chunk = body.slice(i, i + 10).map(nw);
    for (const parity of [0, 1]) {
      const d = digits.indexOf(chunk.filter((_, k) => k % 2 === parity).join(''));
      assert.ok(d >= 0, `pattern at ${i}`);
      out += d;
    }
  }
  return out;
}

function decodeCode128Svg(svg: string): string {
  const total = Number(/viewBox="0 0 (\d+) \d+"/.exec(svg)![1]);
  const bars = [...svg.matchAll(/<rect x="(\d+)" y="0" width="(\d+)" height="\d+"\/>/g)].map((m) => [Number(m[1]), Number(m[2])] as const);
  let modules = '';
  for (const [x, w] of bars) modules += '0'.repeat(x - modules.length) + '1'.repeat(w);
  modules += '0'.repeat(total - modules.length);
  const quiet = /^(0*)/.exec(modules)![1]!.length;
  assert.ok(quiet >= 10 && total - modules.trimEnd().replace(/0+$/, '').length >= 10, 'quiet zones of 10 modules');
  const symbol = modules.slice(quiet).replace(/0+$/, '');
  const widths = symbol.match(/1+|0+/g)!.map((run) => run.length);
  const values: number[] = [];
  for (let i = 0; i < widths.length; ) {
    const n = widths.length - i === 7 ? 7 : 6;
    const v = PATTERNS.indexOf(widths.slice(i, i + n).join(''));
    assert.ok(v >= 0, `unknown symbol at ${i}`);
    values.push(v);
    i += n;
  }
  assert.equal(values.at(-1), 106, 'stop');
  const data = values.slice(1, -2);
  const check = values.at(-2)!;
  assert.equal(check, [values[0]!, ...data].reduce((sum, v, i) => sum + v * (i || 1), 0) % 103, 'check symbol');
  let set = values[0] === 105 ? 'C' : values[0] === 104 ? 'B' : '?';
  assert.notEqual(set, '?', 'start B or C');
  let out = '';
  for (const v of data) {
    if (v === 99) set = 'C';
    else if (v === 100) set = 'B';
    else out += set === 'C' ? String(v).padStart(2, '0') : String.fromCharCode(v + 32);
  }
  return out;
}

function assertSecurityHeaders(p: Page, framing: 'deny' | 'allow' = 'deny') {
  assert.equal(p.headers.get('content-type'), 'text/html; charset=utf-8');
  assert.equal(p.headers.get('cache-control'), 'no-store');
  assert.equal(p.headers.get('referrer-policy'), 'same-origin', 'no Referer (with its token) to other sites');
  assert.equal(p.headers.get('x-content-type-options'), 'nosniff');
  const csp = p.headers.get('content-security-policy') ?? '';
  assert.match(csp, /default-src 'none'/);
  assert.match(csp, /img-src 'self' data:/);
  assert.match(csp, /script-src 'nonce-[A-Za-z0-9+/=]+'/);
  assert.doesNotMatch(csp, /unsafe-inline|unsafe-eval/);
  const nonce = /style-src 'nonce-([A-Za-z0-9+/=]+)'/.exec(csp)?.[1];
  assert.ok(nonce, 'style nonce');
  // Every inline style and script carries this response's nonce; no inline handlers or styles.
  for (const m of p.html.matchAll(/<(style|script)\b([^>]*)>/g)) assert.match(m[2]!, new RegExp(`nonce="${nonce!.replace(/[+/]/g, '\\$&')}"`));
  assert.doesNotMatch(p.html, /\son\w+=|\sstyle=/i);
  if (framing === 'deny') {
    assert.match(csp, /frame-ancestors 'none'/);
    assert.equal(p.headers.get('x-frame-options'), 'DENY');
  } else {
    // Only the merchant's own origins (set below), never any https site.
    assert.match(csp, /frame-ancestors https:\/\/shop\.example(;|$)/);
    assert.equal(p.headers.get('x-frame-options'), null);
  }
}

const phase = (html: string) => /data-phase="(\w+)"/.exec(html)?.[1];

let seq = 0;
const inv = (p: string) => `${p}-${process.pid}-${++seq}`;

for (const backend of backends()) {
  describe(`customer pages (${backend})`, () => {
    let s: TestServer;
    let creds: Credentials;
    let v3: V3Client;

    before(async () => {
      s = await startTestServer(backend);
      creds = await createMerchant(s.url, 'Loja <b>Ana</b> & "Filhos"');
      v3 = V3Client.deposits(s.url, creds);
    });
    after(() => s.close());

    async function create(body: Record<string, unknown>, client = v3): Promise<Res> {
      const r = await client.post('/v3/deposits', { invoice_id: inv('web'), ...body });
      assert.equal(r.status, 200, r.text);
      return r;
    }

    const pix = (extra: Record<string, unknown> = {}) =>
      create({ country: 'BR', amount: '1234.56', currency: 'BRL', payment_method: 'IX', payer: BR_PAYER, ...extra });

    test('Pix: the page shows exactly the stored payment_info, QR and copia e cola included', async () => {
      const r = await pix({ language: 'pt' });
      const pi = r.body.payment_info;
      const p = await page(r.body.redirect_url);
      assert.equal(p.status, 200);
      assertSecurityHeaders(p);
      assert.match(p.html, /<html lang="pt">/);
      assert.equal(attr(p.html, /<data [^>]*data-field="amount"[^>]*>/, 'value'), rawAmount(r));
      assert.equal(field(p.html, 'amount'), 'BRL 1.234,56', 'pt-BR separators, exact digits');
      assert.equal(field(p.html, 'payment_method_name'), pi.payment_method_name);
      assert.equal(field(p.html, 'reference'), pi.secondary_metadata.reference);
      assert.equal(field(p.html, 'digitable_line'), pi.secondary_metadata.digitable_line);
      assert.equal(field(p.html, 'beneficiary_name'), pi.metadata.beneficiary_name);
      assert.equal(field(p.html, 'CNPJ'), pi.metadata.CNPJ);
      assert.equal(attr(p.html, /<img [^>]*data-field="qr_code"[^>]*>/, 'src'), `data:image/png;base64,${pi.secondary_metadata.qr_code}`);
      assert.equal(attr(p.html, /<img [^>]*data-field="qr_code"[^>]*>/, 'alt'), 'QR code Pix');
      assert.equal(attr(p.html, /<dd data-field="expiration_date">[\s\S]*?<\/time>/, 'datetime'), isoOf(pi.expiration_date));
      assert.equal(attr(p.html, /<span class="badge[^>]*>/, 'data-status'), 'PENDING');
      assert.equal(field(p.html, 'merchant'), 'Loja <b>Ana</b> & "Filhos"');
      assert.match(p.html, /<button type="button" class="button secondary" hidden data-copy="pix-code"/);
      assert.equal(phase(p.html), undefined);
      // Left open, the page counts down and reloads just after expiry (Pix: an hour), so the QR
      // does not linger; the script that does it carries the page's nonce.
      assert.equal(attr(p.html, /<span class="countdown"[^>]*>/, 'data-countdown')!.slice(0, 19), isoOf(pi.expiration_date).slice(0, 19));
      assert.match(field(p.html, 'time_left')!, /^0:59:\d\d$/);
      assert.match(p.html, /location\.reload\(\)/);
      // The logo it points at is served, from the same origin the CSP allows.
      const logo = attr(p.html, /<header class="method"><img [^>]*>/, 'src')!;
      assert.match(logo, /^\/logos\/br\/ix\.svg$/);
      assert.equal((await fetch(s.url + logo)).status, 200);
    });

    test("language: the request's, else the browser's Accept-Language, else the country's; the switcher wins", async () => {
      const en = await page((await pix({ language: 'en' })).body.redirect_url, { 'accept-language': 'es' });
      assert.match(en.html, /<html lang="en">/);
      assert.match(en.html, /Amount to pay/);
      assert.equal(field(en.html, 'amount'), 'BRL 1,234.56');
      const es = await page((await pix({ language: 'es' })).body.redirect_url);
      assert.match(es.html, /<html lang="es">/);
      assert.match(es.html, /Monto a pagar/);
      const open = (await pix()).body.redirect_url;
      assert.match((await page(open, { 'accept-language': 'fr-FR,fr;q=0.9,es;q=0.8,en;q=0.5' })).html, /<html lang="es">/, 'first supported by weight');
      assert.match((await page(open, { 'accept-language': 'de' })).html, /<html lang="pt">/, "Brazil's language");
      assert.match((await page(open)).html, /<html lang="pt">/);
      const switched = await page(`${open}?lang=en`, { 'accept-language': 'es' });
      assert.match(switched.html, /<html lang="en">/);
      assert.match(switched.html, /<nav class="langs noprint" aria-label="Language">/);
      assert.match(switched.html, /hreflang="en" aria-current="true"/);
      assert.match((await page(`${open}?lang=xx`)).html, /<html lang="pt">/, 'an unknown choice is ignored');
    });

    test('SPEI: beneficiary, CLABE and reference as stored, in Spanish with Mexican separators', async () => {
      const r = await create({ country: 'MX', amount: '1500.5', currency: 'MXN', payment_method: 'SE', payer: MX_PAYER, language: 'es' });
      const md = r.body.payment_info.metadata;
      const p = await page(r.body.redirect_url);
      assert.equal(p.status, 200);
      assertSecurityHeaders(p);
      assert.equal(field(p.html, 'beneficiary_name'), md.beneficiary_name);
      assert.equal(field(p.html, 'account'), md.account);
      assert.match(p.html, /<dt>CLABE<\/dt><dd data-field="account"/);
      assert.equal(field(p.html, 'reference'), md.reference);
      assert.equal(attr(p.html, /<data [^>]*data-field="amount"[^>]*>/, 'value'), rawAmount(r));
      assert.match(field(p.html, 'amount')!, /^MXN \d{1,3}(,\d{3})*\.\d{2}$/);
      assert.equal(attr(p.html, /<dd data-field="expiration_date">[\s\S]*?<\/time>/, 'datetime'), isoOf(r.body.payment_info.expiration_date));
    });

    test('Brazilian bank transfer: agency, account, CNPJ, reference', async () => {
      const r = await create({ country: 'BR', amount: '50.00', currency: 'BRL', payment_method: 'I', payer: BR_PAYER });
      const md = r.body.payment_info.metadata;
      const p = await page(r.body.redirect_url);
      for (const k of ['beneficiary_name', 'agency', 'account', 'CNPJ', 'reference']) assert.equal(field(p.html, k), md[k], k);
    });

    test('OXXO voucher: codes and the printable voucher link on /pay; /vouchers draws the bar code', async () => {
      const r = await create({ country: 'MX', amount: 250, currency: 'MXN', payment_method: 'OX', payer: MX_PAYER });
      const pi = r.body.payment_info;
      const md = pi.metadata;
      const p = await page(r.body.redirect_url);
      assert.equal(field(p.html, 'bar_code'), md.bar_code);
      assert.equal(field(p.html, 'digitable_line'), md.digitable_line);
      assert.equal(field(p.html, 'reference'), md.reference);
      assert.equal(attr(p.html, /<a [^>]*data-field="receipt_url"[^>]*>/, 'href'), md.receipt_url);

      const v = await page(md.receipt_url);
      assert.equal(v.status, 200);
      assertSecurityHeaders(v);
      assert.match(v.html, /@media print/);
      assert.equal(field(v.html, 'merchant'), 'Loja <b>Ana</b> & "Filhos"');
      assert.equal(attr(v.html, /<data [^>]*data-field="amount"[^>]*>/, 'value'), rawAmount(r));
      assert.match(field(v.html, 'amount')!, new RegExp(`^${pi.currency} `));
      assert.equal(attr(v.html, /<dd data-field="expiration_date">[\s\S]*?<\/time>/, 'datetime'), isoOf(pi.expiration_date));
      assert.equal(field(v.html, 'reference'), md.reference);
      assert.equal(field(v.html, 'bar_code'), md.bar_code);
      assert.equal(field(v.html, 'digitable_line'), md.digitable_line);
      const svg = /<svg [\s\S]*?<\/svg>/.exec(v.html)![0];
      assert.equal(decodeCode128Svg(svg), md.bar_code);
      assert.match(svg, /^<svg [^>]*width="\d+" height="\d+"/, 'whole pixels per module');
    });

    test('Boleto: the voucher bar code is Interleaved 2 of 5 and decodes back to the 44-digit bar_code', async () => {
      const r = await create({ country: 'BR', amount: 100, currency: 'BRL', payment_method: 'BL', payer: { ...BR_PAYER, address: BR_ADDRESS }, language: 'pt' });
      const md = r.body.payment_info.metadata;
      const v = await page(md.receipt_url);
      assert.equal(v.status, 200);
      const svg = /<svg [\s\S]*?<\/svg>/.exec(v.html)![0];
      assert.equal(decodeItfSvg(svg), md.bar_code);
      assert.equal(field(v.html, 'digitable_line'), md.digitable_line);
      assert.match(v.html, /Linha digitável/);
    });

    test('past expiration_date the QR and the instructions are gone, even before the expiry worker runs', async () => {
      const r = await pix({ language: 'en' });
      const pi = r.body.payment_info;
      await s.ctx.db.query('UPDATE deposits SET expires_at = $1 WHERE id = $2', [new Date(Date.now() - 60_000), r.body.deposit_id]);
      const p = await page(r.body.redirect_url);
      assert.equal(p.status, 200);
      assert.equal(phase(p.html), 'expired');
      assert.match(p.html, /This payment has expired\./);
      assert.doesNotMatch(p.html, /data:image\/png/);
      assert.ok(!p.html.includes(pi.secondary_metadata.digitable_line));
      assert.ok(!p.html.includes(pi.secondary_metadata.qr_code.slice(0, 40)));
      assert.doesNotMatch(p.html, /<script/, 'nothing left to copy or count down');
      assert.doesNotMatch(p.html, /Amount to pay/);
      assert.doesNotMatch(p.html, /data-countdown/);
      assert.equal(attr(p.html, /<span class="badge[^>]*>/, 'data-status'), 'EXPIRED');
    });

    test('expired through the sandbox (CANCELLED by expiry) and cancelled read differently; a voucher stops printing', async () => {
      const a = await pix();
      assert.equal((await v3.post(`/v3/sandbox/deposits/${a.body.deposit_id}/expire`, '')).body.status, 'CANCELLED');
      const pa = await page(a.body.redirect_url);
      assert.equal(phase(pa.html), 'expired');
      assert.doesNotMatch(pa.html, /data:image\/png/);

      const b = await create({ country: 'MX', amount: 120, currency: 'MXN', payment_method: 'OX', payer: MX_PAYER, language: 'en' });
      await v3.post(`/v3/sandbox/deposits/${b.body.deposit_id}/cancel`, '');
      const pb = await page(b.body.redirect_url);
      assert.equal(phase(pb.html), 'cancelled');
      assert.match(pb.html, /This payment was cancelled\./);
      assert.ok(!pb.html.includes(b.body.payment_info.metadata.bar_code));
      const vb = await page(b.body.payment_info.metadata.receipt_url);
      assert.equal(vb.status, 200);
      assert.equal(phase(vb.html), 'cancelled');
      assert.doesNotMatch(vb.html, /<svg/);
      assert.ok(!vb.html.includes(b.body.payment_info.metadata.bar_code));
    });

    test('once paid the QR is gone and the page says so', async () => {
      const r = await pix({ language: 'es' });
      assert.equal((await v3.post(`/v3/sandbox/deposits/${r.body.deposit_id}/approve`, '')).body.status, 'COMPLETED');
      const p = await page(r.body.redirect_url);
      assert.equal(phase(p.html), 'completed');
      assert.match(p.html, /Este pago fue completado\./);
      assert.doesNotMatch(p.html, /data:image\/png/);
      assert.ok(!p.html.includes(r.body.payment_info.secondary_metadata.digitable_line));
      assert.equal(attr(p.html, /<span class="badge[^>]*>/, 'data-status'), 'COMPLETED');
    });

    test('merchant-supplied text is escaped', async () => {
      const evil = `<img src=x onerror="alert(1)">'&</dd><script>alert(2)</script>`.slice(0, 100);
      const r = await pix({ description: evil });
      const p = await page(r.body.redirect_url);
      assert.equal(field(p.html, 'description'), evil);
      assert.ok(!p.html.includes('<img src=x'));
      assert.ok(!p.html.includes('<script>alert'));
      assert.match(p.html, /&lt;img src=x onerror=&quot;alert\(1\)&quot;&gt;&#39;&amp;&lt;\/dd&gt;/);
      assert.ok(!p.html.includes('<b>Ana</b>'), 'merchant name too');
    });

    test('return link: the signed return redirect when the merchant has a return URL, else success_url or back_url', async () => {
      const withSuccess = await pix({ success_url: 'https://shop.example.com/ok?a=1&b=2', back_url: 'https://shop.example.com/back' });
      const p1 = await page(withSuccess.body.redirect_url);
      assert.equal(attr(p1.html, /<a [^>]*data-link="return"[^>]*>/, 'href'), 'https://shop.example.com/ok?a=1&b=2');
      assert.match(p1.html, /href="https:\/\/shop\.example\.com\/ok\?a=1&amp;b=2"/);

      await v3.post(`/v3/sandbox/deposits/${withSuccess.body.deposit_id}/cancel`, '');
      const p1c = await page(withSuccess.body.redirect_url);
      assert.equal(attr(p1c.html, /<a [^>]*data-link="return"[^>]*>/, 'href'), 'https://shop.example.com/back', 'back_url once cancelled');

      const none = await page((await pix()).body.redirect_url);
      assert.doesNotMatch(none.html, /data-link="return"/);

      const other = await createMerchant(s.url, 'Returns Ltd', { return_url: 'https://returns.example.com/done' });
      const r = await create({ country: 'BR', amount: '20.00', currency: 'BRL', payment_method: 'IX', payer: BR_PAYER }, V3Client.deposits(s.url, other));
      const p2 = await page(r.body.redirect_url);
      const token = r.body.redirect_url.split('/').pop();
      const href = attr(p2.html, /<a [^>]*data-link="return"[^>]*>/, 'href')!;
      assert.equal(href, `${s.url}/return/${token}`);
      const back = await page(href);
      assert.equal(back.status, 200);
      assert.match(back.html, /action="https:\/\/returns\.example\.com\/done"/);
    });

    test('framing: allowed with iframe_view=1 for the hosted checkout and methods that support an iframe, by the merchant\'s origins', async () => {
      const set = await admin(s.url, 'PATCH', `/admin/merchants/${creds.merchant_id}`, { frame_origins: ['https://shop.example'] });
      assert.equal(set.status, 200, set.text);
      // Card methods (the iframe-capable ones) always go through the hosted checkout.
      const card = await create({ country: 'BR', amount: '30.00', currency: 'BRL', payment_method: 'VI', payer: BR_PAYER });
      assert.match(card.body.redirect_url, /\/checkout\//);
      assertSecurityHeaders(await page(`${card.body.redirect_url}?iframe_view=1`), 'allow');
      assertSecurityHeaders(await page(card.body.redirect_url), 'deny');
      const open = await create({ country: 'BR', amount: '30.00' });
      assertSecurityHeaders(await page(`${open.body.redirect_url}?iframe_view=1`), 'allow');
      assertSecurityHeaders(await page(open.body.redirect_url), 'deny');
      const p = await pix();
      assertSecurityHeaders(await page(`${p.body.redirect_url}?iframe_view=1`), 'deny');
    });

    test('bad, unknown and mismatched tokens: a 404 page with the same headers, never a stack trace', async () => {
      const hosted = (await create({ country: 'BR', amount: '5.00' })).body.redirect_url.split('/').pop();
      const pixToken = (await pix()).body.redirect_url.split('/').pop();
      const paths = [
        '/pay/short', `/pay/${'A'.repeat(23)}`, `/pay/${'A'.repeat(21)}%3C`, '/pay/%3Cscript%3Ealert(1)%3C%2Fscript%3E12345',
        `/pay/${'A'.repeat(22)}`, `/vouchers/${'B'.repeat(22)}`, `/checkout/${'C'.repeat(22)}`, '/vouchers/..%2F..%2Fetc%2Fpasswd',
        `/pay/${hosted}`, `/vouchers/${hosted}`, `/vouchers/${pixToken}`, `/checkout/${pixToken}`,
      ];
      for (const path of paths) {
        const p = await page(s.url + path, { 'accept-language': 'en' });
        assert.equal(p.status, 404, path);
        assertSecurityHeaders(p);
        assert.match(p.html, /Payment not found/, path);
        assert.doesNotMatch(p.html, /\bat \w+ \(|node_modules|Error:/, path);
        assert.ok(!p.html.includes('<script>'), path);
      }
      const es = await page(`${s.url}/pay/${'A'.repeat(22)}`, { 'accept-language': 'es-MX,es;q=0.9' });
      assert.match(es.html, /Pago no encontrado/);
      assert.match(es.html, /<html lang="es">/);
    });
  });
}
