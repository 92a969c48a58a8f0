// Small pieces the console's forms share beyond the panel's `field`: a text area for PEM blocks,
// and a validator's "where: why" details turned into errors by field name.
import { html, raw, type SafeHtml } from '../html.ts';

/** A labelled text area (a PEM certificate or key), described by its hint and error as `field` does. */
export function area(name: string, label: string, value: string, o: { hint?: string; error?: string } = {}): SafeHtml {
  const id = `f-${name}`;
  const described = [o.hint ? `${id}-hint` : '', o.error ? `${id}-err` : ''].filter(Boolean).join(' ');
  return html`<div class="field"><label for="${id}">${label}</label><textarea id="${id}" name="${name}" rows="4" spellcheck="false"${o.error ? raw(' aria-invalid="true"') : ''}${described ? html` aria-describedby="${described}"` : ''}>${value}</textarea>${o.hint ? html`<p class="hint" id="${id}-hint">${o.hint}</p>` : ''}${o.error ? html`<p class="error" id="${id}-err">${o.error}</p>` : ''}</div>`;
}

/**
 * Validators answer "api_url: must be an https URL" or "fee.VOUCHER: …": each detail becomes the
 * error of the field it names (dots as the form's dashes); details naming no field stay general.
 */
export function errorsByField(details: string[], fields: readonly string[]): { byField: Record<string, string>; general: string[] } {
  const byField: Record<string, string> = {};
  const general: string[] = [];
  for (const d of details) {
    const at = d.indexOf(': ');
    const name = at > 0 ? d.slice(0, at).replace('.', '-') : '';
    if (name && fields.includes(name)) byField[name] = byField[name] ? `${byField[name]}; ${d.slice(at + 2)}` : d.slice(at + 2);
    else general.push(d);
  }
  return { byField, general };
}

/** The console's additions to the panel stylesheet: text areas and grouped boxes. */
export const FORM_CSS = raw(`
.field textarea{font:inherit;font-family:ui-monospace,Menlo,Consolas,monospace;font-size:.85rem;width:100%;padding:.55rem .65rem;border:1px solid #8c959f;border-radius:8px;background:#fff;color:var(--ink)}
.field textarea[aria-invalid=true]{border-color:var(--bad);border-width:2px}
fieldset.card{margin:0 0 1rem;min-width:0}fieldset.card legend{font-weight:700;padding:0 .25rem}
`);
