// Code 128 encoder: the symbol table's invariants, the check symbol, Annex E subset choice, and
// bit-exact symbols published in ISO/IEC 15417 and reproduced by zint's test suite.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { checksum, code128Svg, encodeModules, encodeValues, PATTERNS, QUIET_ZONE } from '../../src/web/code128.ts';

test('every symbol is 11 modules (Stop 13), with an even bar total, and all are distinct', () => {
  assert.equal(PATTERNS.length, 107);
  PATTERNS.forEach((p, v) => {
    const w = [...p].map(Number);
    assert.equal(w.reduce((a, b) => a + b, 0), v === 106 ? 13 : 11, `symbol ${v}`);
    assert.equal((w[0]! + w[2]! + w[4]!) % 2, 0, `symbol ${v} bar parity`);
  });
  assert.equal(new Set(PATTERNS).size, 107);
});

test('check symbol: weighted sum mod 103 (the classic PJJ123C example)', () => {
  // Start B, P J J 1 2 3 C: 104 + 48·1 + 42·2 + 42·3 + 17·4 + 18·5 + 19·6 + 35·7 = 879 ≡ 55.
  assert.equal(checksum([104, 48, 42, 42, 17, 18, 19, 35]), 55);
  assert.deepEqual(encodeValues('PJJ123C'), [104, 48, 42, 42, 17, 18, 19, 35, 55, 106]);
});

test('subset choice follows Annex E', () => {
  assert.deepEqual(encodeValues('1'), [104, 17, 18, 106]);
  assert.deepEqual(encodeValues('12'), [105, 12, 14, 106]);
  assert.deepEqual(encodeValues('123'), [104, 17, 18, 19, 8, 106]);
  assert.deepEqual(encodeValues('1234'), [105, 12, 34, 82, 106]);
  assert.deepEqual(encodeValues('12345'), [105, 12, 34, 100, 21, 54, 106]);
  assert.deepEqual(encodeValues('AAAa12345aAA'), [104, 33, 33, 33, 65, 17, 99, 23, 45, 100, 65, 33, 33, 54, 106]);
});

test('published symbols, module for module', () => {
  // ISO/IEC 15417:2007 Figure 1.
  assert.equal(encodeModules('AIM'), '11010010000101000110001100010001010111011000101110110001100011101011');
  assert.equal(
    encodeModules('1234567890'),
    '110100111001011001110010001011000111000101101100001010011011110110100111100101100011101011',
  );
});

test('refuses what subsets B and C cannot carry', () => {
  assert.throws(() => encodeValues(''));
  assert.throws(() => encodeValues('a\u001fb'));
  assert.throws(() => encodeValues('ação'));
});

test('the SVG draws exactly the symbol between two quiet zones', () => {
  const svg = String(code128Svg('1234567890', { label: '<x>' }));
  assert.match(svg, /aria-label="&lt;x&gt;"/);
  const rects = [...svg.matchAll(/<rect x="(\d+)" y="0" width="(\d+)" height="50"\/>/g)].map((m) => [Number(m[1]), Number(m[2])]);
  const modules = encodeModules('1234567890');
  let drawn = '';
  let x = QUIET_ZONE;
  for (const [rx, w] of rects) {
    drawn += '0'.repeat(rx! - x) + '1'.repeat(w!);
    x = rx! + w!;
  }
  assert.equal(drawn, modules);
  assert.match(svg, new RegExp(`viewBox="0 0 ${modules.length + 2 * QUIET_ZONE} 50"`));
});
