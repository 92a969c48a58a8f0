// The shell every customer page shares: the document frame with its stylesheet and the one small
// script (copy and print buttons), and the security headers. The pages carry
// a bearer token in their URL and payment details in their body, hence no caching, no Referer
// to other sites (same-origin: our own form posts keep their Origin header, which the forms'
// forgery check reads; "no-referrer" would turn it into "null"),
// no framing unless the method is meant to be embedded, and a CSP that allows nothing but our
// own nonce'd style and script and images from us or inline data (the Pix QR). Markup itself is
// built with the escaping html`…` tag of ./html.ts; renderPage and sendHtml take its SafeHtml only.
import { randomBytes } from 'node:crypto';
import type { FastifyReply } from 'fastify';
import type { Lang } from './i18n.ts';
import { html, raw, type SafeHtml } from './html.ts';

/** A merchant-supplied URL fit for an href: absolute http(s) only (never javascript: or data:). */
export function safeHref(url: string | null | undefined): string | undefined {
  if (!url) return undefined;
  try {
    const u = new URL(url);
    return u.protocol === 'https:' || u.protocol === 'http:' ? u.toString() : undefined;
  } catch {
    return undefined;
  }
}

export function newNonce(): string {
  return randomBytes(16).toString('base64');
}

const CSS = raw(`
:root{color-scheme:light;--ink:#1b1f24;--muted:#57606a;--line:#d0d7de;--bg:#f6f8fa;--brand:#0f4c81;--ok:#1a7f37;--warn:#9a6700;--bad:#cf222e}
*{box-sizing:border-box}
html{-webkit-text-size-adjust:100%}
body{margin:0;background:var(--bg);color:var(--ink);font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,Helvetica,Arial,sans-serif}
main{max-width:34rem;margin:0 auto;padding:1rem}
.card{background:#fff;border:1px solid var(--line);border-radius:12px;padding:1.25rem;margin-bottom:1rem}
header.method{display:flex;align-items:center;gap:.75rem;margin-bottom:.5rem}
header.method img{width:72px;height:auto;border-radius:6px}
h1{font-size:1.35rem;margin:.25rem 0 1rem}
h2{font-size:1.1rem;margin:0 0 .5rem}
.amount{margin:0 0 1rem}
.amount .label{display:block;color:var(--muted);font-size:.9rem}
.amount data{font-size:2rem;font-weight:700;letter-spacing:-.01em}
dl{margin:0;display:grid;grid-template-columns:minmax(7rem,auto) 1fr;gap:.4rem 1rem}
dt{color:var(--muted)}
dd{margin:0;overflow-wrap:anywhere;font-weight:500}
.mono{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace}
.code{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;background:var(--bg);border:1px solid var(--line);border-radius:8px;padding:.6rem .75rem;overflow-wrap:anywhere;word-break:break-all;margin:.25rem 0 .5rem;font-size:.9rem}
.qr{display:block;width:240px;max-width:100%;height:auto;margin:.5rem auto;image-rendering:pixelated}
.barcode{display:block;max-width:100%;height:auto;margin:.5rem auto}
.badge{display:inline-block;border-radius:999px;padding:.05rem .6rem;font-size:.9rem;font-weight:600;background:var(--bg);border:1px solid var(--line)}
.badge.PENDING{color:var(--warn)}.badge.COMPLETED,.badge.APPROVED{color:var(--ok)}.badge.CANCELLED,.badge.EXPIRED{color:var(--bad)}
.notice{border-left:4px solid var(--muted);padding:.75rem 1rem;background:#fff;border-radius:8px;margin-bottom:1rem}
.notice.expired,.notice.cancelled{border-color:var(--bad)}.notice.completed,.notice.confirming{border-color:var(--ok)}.notice.unavailable{border-color:var(--warn)}
.notice p{margin:.25rem 0 0}
.button{display:inline-block;font:inherit;font-weight:600;text-decoration:none;border-radius:8px;padding:.55rem 1rem;border:1px solid var(--brand);background:var(--brand);color:#fff;cursor:pointer}
.button.secondary{background:#fff;color:var(--brand)}
.actions{display:flex;flex-wrap:wrap;gap:.5rem;margin-top:.75rem}
a{color:var(--brand)}
:focus-visible{outline:3px solid #0969da;outline-offset:2px}
footer{color:var(--muted);font-size:.8rem;text-align:center;margin:1rem 0}
.sr-only{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0);white-space:nowrap}
@media (max-width:26rem){dl{grid-template-columns:1fr}dt{margin-top:.35rem}.amount data{font-size:1.7rem}}
.staging{background:#fff8c5;border:1px solid #d4a72c;color:#3b2300;border-radius:8px;padding:.5rem .75rem;margin-bottom:1rem;font-weight:600}
nav.langs{display:flex;justify-content:flex-end;gap:.25rem;margin-bottom:.5rem;font-size:.9rem}
nav.langs a{padding:.15rem .5rem;border-radius:6px;text-decoration:none}
nav.langs a[aria-current]{background:var(--brand);color:#fff}
header.merchant{display:flex;align-items:center;gap:.75rem;margin-bottom:.75rem}
header.merchant img{max-height:40px;max-width:120px;width:auto}
header.merchant span{font-weight:700;font-size:1.1rem}
.was{color:var(--muted);margin:-.75rem 0 .5rem}.was del{font-weight:600}
.bonus{color:var(--ok);font-weight:600;margin:-.5rem 0 1rem}
.methods{list-style:none;margin:0;padding:0;display:grid;gap:.5rem}
.methods a{display:flex;align-items:center;gap:.75rem;border:1px solid var(--line);border-radius:10px;padding:.6rem .75rem;text-decoration:none;color:var(--ink);font-weight:600;min-height:3rem}
.methods a:hover{border-color:var(--brand)}
.methods img{width:60px;height:24px}
.group{margin-bottom:1rem}.group h3{font-size:.95rem;color:var(--muted);margin:0 0 .4rem}
.field{margin-bottom:.9rem}
.field label{display:block;font-weight:600;margin-bottom:.25rem}
.field input,.field select{font:inherit;width:100%;padding:.55rem .65rem;border:1px solid #8c959f;border-radius:8px;background:#fff;color:var(--ink)}
.field input[aria-invalid=true],.field select[aria-invalid=true]{border-color:var(--bad);border-width:2px}
.field .error{color:var(--bad);font-size:.9rem;margin:.25rem 0 0;font-weight:600}
.row2{display:grid;grid-template-columns:1fr 1fr;gap:0 .75rem}
.alert{border-left:4px solid var(--bad);background:#fff;padding:.6rem .9rem;border-radius:8px;margin-bottom:1rem;color:var(--bad);font-weight:600}
.hint{color:var(--muted);font-size:.9rem}
form.inline{display:inline}
.stack{display:flex;flex-wrap:wrap;gap:.5rem;align-items:center}
.button.wide{width:100%;font-size:1.05rem;padding:.7rem 1rem}
.button.danger{background:#fff;color:var(--bad);border-color:var(--bad)}
.countdown{font-variant-numeric:tabular-nums}
body.embedded{background:#fff}body.embedded main{max-width:none;padding:.5rem}
@media (max-width:26rem){.row2{grid-template-columns:1fr}}
@page{margin:15mm}
@media print{body{background:#fff;font-size:12pt}main{max-width:none;padding:0}.card{border:1px solid #000;border-radius:0;break-inside:avoid}.noprint{display:none!important}a{color:#000;text-decoration:none}.badge{border-color:#000;color:#000!important}}
`);

/**
 * Copy buttons (data-copy names the element whose text is copied) and print buttons; both are
 * rendered hidden and shown only here, so without script the page simply has no dead buttons.
 */
const SCRIPT = raw(`
for (const b of document.querySelectorAll('button[data-copy]')) {
  const el = document.getElementById(b.dataset.copy);
  const live = document.getElementById(b.dataset.copy + '-status');
  if (!el) continue;
  b.hidden = false;
  b.addEventListener('click', async () => {
    const text = el.textContent.trim();
    try { await navigator.clipboard.writeText(text); }
    catch { const r = document.createRange(); r.selectNodeContents(el); const s = getSelection(); s.removeAllRanges(); s.addRange(r); document.execCommand('copy'); }
    if (live) { live.textContent = b.dataset.done; setTimeout(() => { live.textContent = ''; }, 2500); }
  });
}
for (const b of document.querySelectorAll('button[data-print]')) { b.hidden = false; b.addEventListener('click', () => window.print()); }
for (const el of document.querySelectorAll('[data-countdown]')) {
  const end = Date.parse(el.dataset.countdown);
  const tick = () => {
    const s = Math.max(0, Math.floor((end - Date.now()) / 1000));
    const p = (n) => String(n).padStart(2, '0');
    el.textContent = (s >= 86400 ? Math.floor(s / 86400) + 'd ' : '') + Math.floor((s % 86400) / 3600) + ':' + p(Math.floor((s % 3600) / 60)) + ':' + p(s % 60);
  };
  // A page left open reloads just after expiry, so it stops showing the QR and codes. (Not a
  // meta refresh: that is a timed reload no one can pause, WCAG 2.2.1.)
  tick(); setInterval(tick, 1000);
  const left = end - Date.now() + 1000;
  if (left < 2 ** 31 - 1) setTimeout(() => location.reload(), Math.max(left, 1000));
}
for (const input of document.querySelectorAll('input[data-card-number]')) {
  const out = document.getElementById(input.dataset.cardNumber);
  const brand = (d) => /^4/.test(d) ? 'Visa' : /^(5[1-5]|22[2-9]|2[3-6]|27[01]|2720)/.test(d) ? 'Mastercard' : /^3[47]/.test(d) ? 'American Express' : '';
  input.addEventListener('input', () => { if (out) out.textContent = brand(input.value.replace(/[^0-9]/g, '')); });
}
`);

export interface PageParts {
  lang: Lang;
  title: string;
  body: SafeHtml;
  nonce: string;
  /** Only pages with copy or print buttons carry the script. */
  script?: boolean;
  /** Rendered inside a merchant's iframe: no page background or outer margins. */
  embedded?: boolean;
  /** The panel's extra rules and wide frame (src/panel/views/): same stylesheet element, same nonce. */
  css?: SafeHtml;
  bodyClass?: string;
  /** Inner HTML of a header above main (the panel's navigation). */
  header?: SafeHtml;
}

export function renderPage(p: PageParts): SafeHtml {
  return html`<!doctype html>
<html lang="${p.lang}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="same-origin">
<meta name="robots" content="noindex, nofollow">
<link rel="icon" href="data:,">
<title>${p.title}</title>
<style nonce="${p.nonce}">${CSS}${p.css}</style>
</head>
<body${p.embedded ? raw(' class="embedded"') : p.bodyClass ? html` class="${p.bodyClass}"` : ''}>
${p.header}<main${p.header ? raw(' id="main"') : ''}>
${p.body}
</main>
${p.script ? html`<script nonce="${p.nonce}">${SCRIPT}</script>` : ''}
</body>
</html>
`;
}

export interface SendOptions {
  status?: number;
  nonce: string;
  /** CSP frame-ancestors sources when the page may be embedded; absent: never framed. */
  frameAncestors?: string;
  /**
   * CSP form-action sources: 'self' for pages with forms, plus the merchant origins our form
   * posts redirect to (browsers check redirects of a form submission against it). Absent: 'none'.
   */
  formAction?: string[];
  /** Extra image origins (the merchant's logo); our own images and data: are always allowed. */
  imgSources?: string[];
}

/** Takes SafeHtml only: a page has to be built with the html`…` tag (html.ts) to be sent. */
export function sendHtml(reply: FastifyReply, page: SafeHtml, o: SendOptions): FastifyReply {
  const csp = [
    "default-src 'none'",
    ["img-src 'self' data:", ...(o.imgSources ?? [])].join(' '),
    `style-src 'nonce-${o.nonce}'`,
    `script-src 'nonce-${o.nonce}'`,
    "base-uri 'none'",
    `form-action ${o.formAction?.length ? o.formAction.join(' ') : "'none'"}`,
    `frame-ancestors ${o.frameAncestors ?? "'none'"}`,
  ].join('; ');
  reply
    .status(o.status ?? 200)
    .header('content-type', 'text/html; charset=utf-8')
    .header('cache-control', 'no-store')
    .header('referrer-policy', 'same-origin')
    .header('x-content-type-options', 'nosniff')
    .header('content-security-policy', csp);
  // X-Frame-Options has no "these origins" form older browsers honour, so it is sent only to deny.
  if (!o.frameAncestors) reply.header('x-frame-options', 'DENY');
  return reply.send(page.toString());
}
