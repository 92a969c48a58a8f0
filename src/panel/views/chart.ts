// The panel's charting: bar charts drawn as inline SVG on the server, so they need no script,
// no CDN and no network, print, and obey the page's CSP (attributes only, no style). Each chart
// is an image with a text title for screen readers; the page also shows the numbers in a table.
import { html, type SafeHtml } from '../../web/html.ts';

export interface Bar {
  label: string;
  value: number;
}

export function barChart(id: string, title: string, bars: Bar[], opts: { width?: number; height?: number } = {}): SafeHtml {
  const width = opts.width ?? 400;
  const height = opts.height ?? 170;
  const pad = { top: 10, right: 8, bottom: 22, left: 40 };
  const max = Math.max(1, ...bars.map((b) => b.value));
  const plotW = width - pad.left - pad.right;
  const plotH = height - pad.top - pad.bottom;
  const step = plotW / Math.max(1, bars.length);
  const barW = Math.max(2, step * 0.7);
  const ticks = [0, max / 2, max];
  const fmt = (n: number) => (n >= 1000 ? `${Math.round(n / 100) / 10}k` : String(Math.round(n * 100) / 100));
  const parts: SafeHtml[] = [];
  for (const tk of ticks) {
    const y = pad.top + plotH - (tk / max) * plotH;
    parts.push(html`<line x1="${pad.left}" x2="${width - pad.right}" y1="${y.toFixed(1)}" y2="${y.toFixed(1)}" stroke="#d0d7de"/>`);
    parts.push(html`<text x="${pad.left - 6}" y="${(y + 4).toFixed(1)}" text-anchor="end" font-size="12" fill="#57606a">${fmt(tk)}</text>`);
  }
  bars.forEach((b, i) => {
    const h = (b.value / max) * plotH;
    const x = pad.left + i * step + (step - barW) / 2;
    parts.push(
      html`<rect x="${x.toFixed(1)}" y="${(pad.top + plotH - h).toFixed(1)}" width="${barW.toFixed(1)}" height="${h.toFixed(1)}" fill="#0f4c81"><title>${`${b.label}: ${b.value}`}</title></rect>`,
    );
    // Every seventh label keeps 30 daily labels readable.
    if (i % 7 === 0) {
      parts.push(html`<text x="${(x + barW / 2).toFixed(1)}" y="${height - 6}" text-anchor="middle" font-size="12" fill="#57606a">${b.label}</text>`);
    }
  });
  return html`<svg class="chart" viewBox="0 0 ${width} ${height}" width="100%" role="img" aria-labelledby="${id}-t" preserveAspectRatio="xMidYMid meet"><title id="${id}-t">${title}</title>${parts}</svg>`;
}
