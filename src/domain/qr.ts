// QR images for payment_info.secondary_metadata.qr_code, which carries bare base64
// PNG data (clients add their own data: prefix when displaying it).

import QRCode from 'qrcode';

/** Error correction M: BR Codes stay scannable from phone screens with a small logo or glare. */
export async function qrPngBase64(text: string): Promise<string> {
  const png = await QRCode.toBuffer(text, { type: 'png', errorCorrectionLevel: 'M', margin: 2 });
  return png.toString('base64');
}
