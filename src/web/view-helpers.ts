// Small view pieces the server-rendered consoles share (the merchant panel, the operator console):
// dictionary texts with placeholders, the CSRF field of every form, a time in UTC.
import { html, raw, type SafeHtml } from './html.ts';

/** A dictionary text (trusted, ours) with its {placeholders} filled with escaped values. */
export const fill = (s: string, v: Record<string, string | number>): SafeHtml =>
  raw(s.replace(/\{(\w+)\}/g, (_, k: string) => String(html`${v[k] ?? ''}`)));

/** The same as plain text, for a title or a hint the tag escapes where it lands. */
export const fillText = (s: string, v: Record<string, string | number>): string =>
  s.replace(/\{(\w+)\}/g, (_, k: string) => String(v[k] ?? ''));

/** The hidden field every form posts its session's CSRF token in (src/web/csrf.ts checks it). */
export const csrfField = (f: { csrf: string }): SafeHtml => html`<input type="hidden" name="csrf" value="${f.csrf}">`;

/** A moment as `YYYY-MM-DD hh:mm:ss UTC` in a <time> element; `empty` where there is none. */
export const when = (d: Date | null | undefined, empty = ''): SafeHtml | string =>
  d ? html`<time datetime="${d.toISOString()}">${d.toISOString().replace('T', ' ').slice(0, 19)} UTC</time>` : empty;
