import { test } from 'node:test';
import assert from 'node:assert/strict';
import { buildClabe, clabeBankCode, clabeCheckDigit, isValidClabe } from '../../src/domain/clabe.ts';
import { qrPngBase64 } from '../../src/domain/qr.ts';

test('published CLABE examples are valid', () => {
  // 032180000118359719: the example in Banxico/Wikipedia material (IXE, plaza 180).
  assert.equal(isValidClabe('032180000118359719'), true);
  assert.equal(clabeCheckDigit('03218000011835971'), 9);
  assert.equal(clabeBankCode('032180000118359719'), '032');
  // 002010077777777771: another widely circulated example (Banamex, plaza 010).
  assert.equal(isValidClabe('002010077777777771'), true);
});

test('any single changed digit or wrong length is rejected', () => {
  const good = '032180000118359719';
  for (let i = 0; i < 18; i++) {
    const d = (Number(good[i]) + 1) % 10;
    const bad = good.slice(0, i) + d + good.slice(i + 1);
    assert.equal(isValidClabe(bad), false, bad);
  }
  assert.equal(isValidClabe('03218000011835971'), false);
  assert.equal(isValidClabe('0321800001183597190'), false);
  assert.equal(isValidClabe('03218000011835971X'), false);
  assert.equal(isValidClabe(''), false);
});

test('buildClabe appends the check digit and validates parts', () => {
  assert.equal(buildClabe('032', '180', '00011835971'), '032180000118359719');
  assert.equal(buildClabe('002', '010', '07777777777'), '002010077777777771');
  const built = buildClabe('646', '180', '12345678901');
  assert.equal(isValidClabe(built), true);
  assert.throws(() => buildClabe('32', '180', '00011835971'), /bank code/);
  assert.throws(() => buildClabe('032', '18', '00011835971'), /plaza/);
  assert.throws(() => buildClabe('032', '180', '1183597'), /account/);
  assert.throws(() => clabeCheckDigit('123'), /17 digits/);
});

test('qrPngBase64 returns a PNG with a square image header', async () => {
  const b64 = await qrPngBase64('00020126580014br.gov.bcb.pix0136123e4567-e12b-12d1-a456-4266554400005204000053039865802BR5913Fulano de Tal6008BRASILIA62070503***63041D3D');
  assert.ok(!b64.startsWith('data:'));
  assert.match(b64, /^[A-Za-z0-9+/]+=*$/);
  const png = Buffer.from(b64, 'base64');
  assert.deepEqual([...png.subarray(0, 8)], [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  assert.equal(png.subarray(12, 16).toString('ascii'), 'IHDR');
  const width = png.readUInt32BE(16);
  const height = png.readUInt32BE(20);
  assert.equal(width, height);
  assert.ok(width >= 100, `width ${width}`);
  // A longer text needs a larger QR version, so the image grows.
  const bigger = Buffer.from(await qrPngBase64('x'.repeat(400)), 'base64').readUInt32BE(16);
  assert.ok(bigger > width);
});
