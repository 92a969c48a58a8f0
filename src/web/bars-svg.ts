// Draws a linear bar code from its element widths (bar, space, bar, … in modules) as an SVG:
// one rect per bar in a viewBox of one unit per module, quiet zones included. `modulePx` sizes
// it (width and height attributes, which a CSP allows where a style attribute would not) at a
// whole number of pixels per module, so bars stay crisp and even on screen and in print.
import { esc } from './layout.ts';

export interface BarsSvgOptions {
  height?: number;
  label?: string;
  modulePx?: number;
  heightPx?: number;
}

export function barsSvg(widths: number[], quietZone: number, text: string, opts: BarsSvgOptions = {}): string {
  const height = opts.height ?? 50;
  let x = quietZone;
  const bars: string[] = [];
  widths.forEach((w, i) => {
    if (i % 2 === 0) bars.push(`<rect x="${x}" y="0" width="${w}" height="${height}"/>`);
    x += w;
  });
  const total = x + quietZone;
  const size = opts.modulePx ? ` width="${total * opts.modulePx}" height="${opts.heightPx ?? height}"` : '';
  return (
    `<svg xmlns="http://www.w3.org/2000/svg" class="barcode"${size} viewBox="0 0 ${total} ${height}" preserveAspectRatio="none" ` +
    `shape-rendering="crispEdges" role="img" aria-label="${esc(opts.label ?? text)}" data-modules="${total}">` +
    `<rect x="0" y="0" width="${total}" height="${height}" fill="#fff"/><g fill="#000">${bars.join('')}</g></svg>`
  );
}
