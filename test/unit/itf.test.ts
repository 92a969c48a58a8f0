import { test } from 'node:test';
import assert from 'node:assert/strict';
import { decodeItfWidths, itfSvg, itfWidths } from '../../src/web/itf.ts';

test('start, stop and the digit patterns of ISO/IEC 16390', () => {
  // "12": 1 = WNNNW in the bars, 2 = NWNNW in the spaces, wide = 3 modules.
  assert.deepEqual(itfWidths('12'), [1, 1, 1, 1, 3, 1, 1, 3, 1, 1, 1, 1, 3, 3, 3, 1, 1]);
});

test('every digit has exactly two wide elements, and a boleto is 405 modules', () => {
  for (let d = 0; d <= 9; d++) {
    const w = itfWidths(`${d}0`).slice(4, -3).filter((_, i) => i % 2 === 0);
    assert.equal(w.filter((x) => x === 3).length, 2, `digit ${d}`);
  }
  const boleto = '34197164100000151501090000000002000000000000';
  assert.equal(itfWidths(boleto).reduce((a, b) => a + b, 0), 405);
});

test('round trip, and refusal of odd lengths and letters', () => {
  for (const digits of ['00', '0123456789', '34197164100000151501090000000002000000000000']) assert.equal(decodeItfWidths(itfWidths(digits)), digits);
  assert.throws(() => itfWidths('123'));
  assert.throws(() => itfWidths('12a4'));
  assert.equal(decodeItfWidths([1, 1, 1, 1, 2, 2]), null);
});

test('the SVG draws one rect per bar inside quiet zones', () => {
  const svg = String(itfSvg('12', { label: 'x<y' }));
  assert.equal([...svg.matchAll(/<rect x="\d+" y="0" width="\d+" height="50"\/>/g)].length, 9);
  assert.match(svg, /viewBox="0 0 47 50"/);
  assert.match(svg, /aria-label="x&lt;y"/);
});
