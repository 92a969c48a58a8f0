// A Pix deposit's payment_info carries its QR image (secondary_metadata.qr_code: ≈850 base64
// characters of PNG), and that image is drawn from the BR Code beside it (digitable_line) by
// every builder (src/domain/payment-info.ts, src/connectors/pix/mapping.ts). Stored, it was
// nearly half of the deposit row (1,849 bytes with it, 1,008 without): deposits are the largest
// table, and at millions of rows the share of them the page cache holds is what a deposit's
// lookup costs (docs/performance.md, At scale). So a row keeps payment_info without the image,
// and where a stored payment_info is served again (a replayed creation, the customer's pay
// page) the image is drawn again from the BR Code (≈60 µs). The stored text keeps the member,
// `"qr_code":null`, so only a payment_info stored this way is drawn again (a boleto's
// metadata.digitable_line is no BR Code); rows stored with their image (before this) are served
// as they are.
//
// Both directions work on the JSON text, not on a parse of it: payment_info's numbers are written
// with their exact digits (src/deposits/json.ts), and the answer must be the same bytes as the
// creation's.
import { qrPngBase64 } from '../domain/qr.ts';

/** The image, followed by the BR Code it is drawn from, as toJson writes them. */
const IMAGE = /"qr_code":"[A-Za-z0-9+/]*=*"(?=,"digitable_line":")/;
/** A stored image's place, and the BR Code after it (a JSON string literal). */
const PLACE = /"qr_code":null,"digitable_line":("(?:[^"\\]|\\.)*")/;

/** payment_info as a row keeps it: without an image its BR Code draws again. */
export function storedPaymentInfo(info: string): string;
export function storedPaymentInfo(info: string | null): string | null;
export function storedPaymentInfo(info: string | null): string | null {
  return info === null ? null : info.replace(IMAGE, '"qr_code":null');
}

/** payment_info as answered: a stored one with its image drawn again from its BR Code. */
export function servedPaymentInfo(stored: string): string;
export function servedPaymentInfo(stored: string | null): string | null;
export function servedPaymentInfo(stored: string | null): string | null {
  const m = stored === null ? null : PLACE.exec(stored);
  if (!m) return stored;
  const image = qrPngBase64(JSON.parse(m[1]!) as string);
  return `${stored!.slice(0, m.index)}"qr_code":"${image}"${stored!.slice(m.index + '"qr_code":null'.length)}`;
}
