// Escaping by default: every page is built with the html`…` tag, which escapes each interpolated
// value for element content and quoted attributes alike, unless the value is SafeHtml itself (a
// nested html`…`, or raw() for a trusted constant such as the stylesheet). Arrays are joined,
// null, undefined and false render nothing, numbers are stringified. sendHtml takes SafeHtml
// only, so a page built without the tag does not compile; test/web/escaping.test.ts scans the
// templates for HTML built otherwise. URLs in href still go through safeHref (layout.ts): the
// tag escapes, it does not check schemes.

const ENTITIES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** HTML known to be safe: built by html`…`, or a trusted fragment passed through raw(). */
export class SafeHtml {
  readonly #text: string;
  constructor(text: string) {
    this.#text = text;
  }
  toString(): string {
    return this.#text;
  }
}

/** Escapes text for element content and double- or single-quoted attributes alike. */
function esc(value: unknown): string {
  return String(value).replace(/[&<>"']/g, (c) => ENTITIES[c]!);
}

function render(value: unknown): string {
  if (value === null || value === undefined || value === false) return '';
  if (value instanceof SafeHtml) return value.toString();
  if (Array.isArray(value)) return value.map(render).join('');
  return esc(value);
}

export function html(strings: TemplateStringsArray, ...values: unknown[]): SafeHtml {
  let out = strings[0]!;
  for (let i = 0; i < values.length; i++) out += render(values[i]) + strings[i + 1]!;
  return new SafeHtml(out);
}

/** A trusted fragment, passed through as it is: constants of ours only, never input. */
export function raw(trusted: string): SafeHtml {
  return new SafeHtml(trusted);
}

/** Parts joined with a separator (plain text separators are escaped like any value). */
export function join(parts: readonly unknown[], separator: unknown = ''): SafeHtml {
  const sep = render(separator);
  return new SafeHtml(parts.map(render).join(sep));
}

export const EMPTY = raw('');
