// Draws a linear bar code from its element widths (bar, space, bar, … in modules) as an SVG:
// one rect per bar in a viewBox of one unit per module, quiet zones included. `modulePx` sizes
// it (width and height attributes, which a CSP allows where a style attribute would not) at a
// whole number of pixels per module, so bars stay crisp and even on screen and in print.
import { html, type SafeHtml } from './html.ts';

export interface BarsSvgOptions {
  height?: number;
  label?: string;
  modulePx?: number;
  heightPx?: number;
}

export function barsSvg(widths: number[], quietZone: number, text: string, opts: BarsSvgOptions = {}): SafeHtml {
  const height = opts.height ?? 50;
  let x = quietZone;
  const bars: SafeHtml[] = [];
  widths.forEach((w, i) => {
    if (i % 2 === 0) bars.push(html`<rect x="${x}" y="0" width="${w}" height="${height}"/>`);
    x += w;
  });
  const total = x + quietZone;
  const size = opts.modulePx ? html` width="${total * opts.modulePx}" height="${opts.heightPx ?? height}"` : '';
  return html`<svg xmlns="http://www.w3.org/2000/svg" class="barcode"${size} viewBox="0 0 ${total} ${height}" preserveAspectRatio="none" shape-rendering="crispEdges" role="img" aria-label="${opts.label ?? text}" data-modules="${total}"><rect x="0" y="0" width="${total}" height="${height}" fill="#fff"/><g fill="#000">${bars}</g></svg>`;
}
