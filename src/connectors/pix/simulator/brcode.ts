// The dynamic BR Code ("Pix copia e cola") of a cob: EMV merchant-presented payload whose Pix
// template (field 26) carries the GUI and the payload location (sub-field 25) instead of a key;
// the payer's app fetches the charge from that location. Shares CRC and text folding with the
// static codes of src/domain/pix.ts.
import { PIX_GUI, asciiFold, crc16CcittFalse } from '../../../domain/pix.ts';

function tlv(id: string, value: string): string {
  if (value.length > 99) throw new RangeError(`BR Code field ${id} longer than 99 characters`);
  return id + String(value.length).padStart(2, '0') + value;
}

export interface DynamicBrCodeInput {
  /** Payload location without scheme, e.g. `localhost:8443/qr/v2/9d36…`. */
  location: string;
  merchantName: string;
  merchantCity: string;
  /** Two-decimal amount ("10.50"); omitted when the payer may change it. */
  amount?: string;
}

export function dynamicBrCode(input: DynamicBrCodeInput): string {
  let payload = tlv('00', '01') + tlv('01', '12'); // 12: the code is for one payment
  payload += tlv('26', tlv('00', PIX_GUI) + tlv('25', input.location));
  payload += tlv('52', '0000') + tlv('53', '986');
  if (input.amount !== undefined) payload += tlv('54', input.amount);
  payload += tlv('58', 'BR') + tlv('59', asciiFold(input.merchantName, 25)) + tlv('60', asciiFold(input.merchantCity, 15));
  payload += tlv('62', tlv('05', '***')); // dynamic codes carry the txid at the location, not here
  payload += '6304';
  return payload + crc16CcittFalse(payload);
}
