// payment_info of ONE_SHOT deposits: what the customer needs to pay without our hosted page.
// Per kind of method:
//   pix            secondary_metadata: BR Code (copia e cola, CRC16) + its QR as base64 PNG + reference
//   bank transfer  beneficiary_name, agency, account (a CLABE with its check digit for Mexico),
//   /deposit       CNPJ in Brazil, reference
//   voucher        reference, bar_code, digitable_line (Brazil: a boleto with its check digits;
//                  elsewhere a Luhn-checked reference and barcode), receipt_url (printable voucher)
//   wallet/crypto  no metadata: the payment page at redirect_url drives the payment
// Everything is derived from the deposit id and token, so rebuilding it gives the same values.
import type { PaymentMethod } from './catalog.ts';
import { buildClabe } from './clabe.ts';
import { type Decimal, toFixed } from './money.ts';
import { buildPixBrCode } from './pix.ts';
import { qrPngBase64 } from './qr.ts';
import { buildBoleto, buildNumericReference, buildVoucherBarcode } from './vouchers.ts';

/**
 * Who receives the money in staging: made-up collection accounts (plausible and valid, held by
 * nobody). Only staging's simulator (a stand-in connector kind) shows them; production
 * shows what a connector really holds (an API Pix charge, the operator's own accounts).
 */
export const STAGING_BENEFICIARY = {
  name: 'Caja Pagos',
  brName: 'Caja Pagamentos Ltda',
  brCity: 'Sao Paulo',
  /** A CNPJ with valid check digits; also the Pix key payments go to. */
  cnpj: '11222333000181',
  /** STP, the SPEI participant collection CLABEs are opened at, and its plaza. */
  mxBank: '646',
  mxPlaza: '180',
};

export const COUNTRY_TIME_ZONES: Record<string, string> = {
  AR: 'America/Argentina/Buenos_Aires', BR: 'America/Sao_Paulo', CL: 'America/Santiago', CM: 'Africa/Douala',
  CN: 'Asia/Shanghai', CO: 'America/Bogota', EC: 'America/Guayaquil', GH: 'Africa/Accra', IN: 'Asia/Kolkata',
  ID: 'Asia/Jakarta', KE: 'Africa/Nairobi', MY: 'Asia/Kuala_Lumpur', MX: 'America/Mexico_City', NG: 'Africa/Lagos',
  PA: 'America/Panama', PE: 'America/Lima', PH: 'Asia/Manila', PY: 'America/Asuncion', TH: 'Asia/Bangkok',
  TZ: 'Africa/Dar_es_Salaam', UG: 'Africa/Kampala', UY: 'America/Montevideo', VN: 'Asia/Ho_Chi_Minh', ZA: 'Africa/Johannesburg',
};

/** ABM codes of Mexican banks that take branch deposits for us, by method code. */
const MX_DEPOSIT_BANKS: Record<string, string> = { BV: '012', BN: '072', ST: '014' };

/** Brazilian collection accounts by method code: COMPE bank, agency, account with digit. */
const BR_ACCOUNTS: Record<string, { agency: string; account: string }> = {
  BB: { agency: '3064', account: '48732-9' },
  I: { agency: '0912', account: '21045-3' },
  B: { agency: '2372', account: '0087412-6' },
  CA: { agency: '0235', account: '00019834-1' },
  SB: { agency: '4417', account: '13009218-7' },
};

export interface PaymentInfoInput {
  depositId: number;
  token: string;
  method: PaymentMethod;
  /** What the customer pays, in the method's currency. */
  amount: Decimal;
  createdAt: Date;
  expiresAt: Date;
  payerDocument?: string;
  payerDocumentType?: string;
  publicBaseUrl: string;
}

export interface PaymentInfo {
  type: string;
  payment_method: string;
  payment_method_name: string;
  amount: Decimal;
  currency: string;
  expiration_date: string;
  created_at: string;
  metadata?: Record<string, string>;
  secondary_metadata?: Record<string, string>;
}

const pad = (n: number) => String(n).padStart(2, '0');

/** `YYYY-MM-DD HH:mm:ss` in UTC, the date format of every body. */
export function formatDateTime(d: Date): string {
  return `${d.getUTCFullYear()}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())} ${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())}`;
}

/** The deposit reference customers quote: 12 digits, Luhn-checked, unique per deposit id. */
export function depositReference(depositId: number): string {
  return buildNumericReference('7', depositId, 12);
}

/** Groups digits in fours, the way vouchers print a reference to type in. */
function groups(digits: string): string {
  return digits.replace(/(\d{4})(?=\d)/g, '$1 ');
}

/** The SPEI numeric reference of a deposit: SPEI references have at most 7 digits. */
export function speiReference(depositId: number): string {
  return buildNumericReference('', depositId % 1_000_000, 7);
}

/** The fields every payment_info has, whatever the method and whoever collects it. */
export function paymentInfoBase(input: Pick<PaymentInfoInput, 'method' | 'amount' | 'createdAt' | 'expiresAt'>): PaymentInfo {
  const { method } = input;
  return {
    type: method.type,
    payment_method: method.code,
    payment_method_name: method.name,
    amount: input.amount,
    currency: method.currency,
    expiration_date: formatDateTime(input.expiresAt),
    created_at: formatDateTime(input.createdAt),
  };
}

/** Staging's simulated collection details (see STAGING_BENEFICIARY): never shown in production. */
export async function buildPaymentInfo(input: PaymentInfoInput): Promise<PaymentInfo> {
  const { method, depositId } = input;
  const base = paymentInfoBase(input);
  const reference = depositReference(depositId);
  switch (method.kind) {
    case 'pix': {
      const brCode = buildPixBrCode({
        key: STAGING_BENEFICIARY.cnpj,
        merchantName: STAGING_BENEFICIARY.brName,
        merchantCity: STAGING_BENEFICIARY.brCity,
        amount: toFixed(input.amount, 2),
        txid: `CAJA${depositId}`,
      });
      return {
        ...base,
        metadata: { beneficiary_name: STAGING_BENEFICIARY.brName, CNPJ: STAGING_BENEFICIARY.cnpj, reference },
        secondary_metadata: { reference, qr_code: await qrPngBase64(brCode), digitable_line: brCode },
      };
    }
    case 'bank_transfer':
    case 'bank_deposit':
      return { ...base, metadata: bankMetadata(input, reference) };
    case 'voucher':
      return { ...base, metadata: voucherMetadata(input, reference) };
    default:
      return base;
  }
}

function bankMetadata(input: PaymentInfoInput, reference: string): Record<string, string> {
  const { method, depositId } = input;
  if (method.country === 'MX') {
    // One CLABE per deposit (as STP issues them) identifies the payment without a reference.
    const bank = MX_DEPOSIT_BANKS[method.code] ?? STAGING_BENEFICIARY.mxBank;
    const plaza = bank === STAGING_BENEFICIARY.mxBank ? STAGING_BENEFICIARY.mxPlaza : '180';
    return {
      beneficiary_name: STAGING_BENEFICIARY.name,
      account: buildClabe(bank, plaza, String(depositId).padStart(11, '0')),
      reference: speiReference(depositId),
    };
  }
  if (method.country === 'BR') {
    const acct = BR_ACCOUNTS[method.code] ?? { agency: '0001', account: `${String(depositId).padStart(8, '0')}-0` };
    const out: Record<string, string> = {
      beneficiary_name: STAGING_BENEFICIARY.brName,
      agency: acct.agency,
      account: acct.account,
      CNPJ: STAGING_BENEFICIARY.cnpj,
      reference,
    };
    if (input.payerDocument) out.payer_document = input.payerDocument;
    if (input.payerDocumentType) out.payer_document_type = input.payerDocumentType;
    return out;
  }
  return { beneficiary_name: STAGING_BENEFICIARY.name, account: `CAJA${String(depositId).padStart(10, '0')}`, reference };
}

/** The printable voucher of a deposit (metadata.receipt_url), served by src/web/pay/routes.ts. */
export function receiptUrl(base: string, token: string): string {
  return `${base}/vouchers/${token}`;
}

function voucherMetadata(input: PaymentInfoInput, reference: string): Record<string, string> {
  const { method, depositId } = input;
  const receipt_url = receiptUrl(input.publicBaseUrl, input.token);
  if (method.country === 'BR') {
    // Boleto: bank 341, the 25-digit free field carries the wallet and our number (deposit id).
    const boleto = buildBoleto({
      bankCode: '341',
      dueDate: input.expiresAt,
      amount: toFixed(input.amount, 2),
      freeField25: `109${String(depositId).padStart(10, '0')}${'0'.repeat(12)}`,
    });
    return { reference, bar_code: boleto.barCode, digitable_line: boleto.digitableLineFormatted, receipt_url };
  }
  // Cash networks (OXXO, Efecty, PagoEfectivo, ...): a 14-digit Luhn reference the cashier types
  // or scans, and a Code 128 barcode carrying reference, amount and due date.
  const voucherRef = buildNumericReference('93', depositId, 14);
  const bar_code = buildVoucherBarcode({
    reference: voucherRef,
    amount: toFixed(input.amount, 2),
    dueDate: input.expiresAt,
    timeZone: COUNTRY_TIME_ZONES[method.country] ?? 'UTC',
  });
  return { reference: voucherRef, bar_code, digitable_line: groups(voucherRef), receipt_url };
}
