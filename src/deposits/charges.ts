// A deposit's fees and the order its charge is created with, computed in one place: creation
// (deposits/service.ts, a method sent at once) and the checkout (deposits/checkout.ts, a method
// chosen on the page) both ask here, so the same deposit is charged alike either way.
import type { ChargeOrder } from '../connectors/payin.ts';
import type { PaymentMethod, PaymentType } from '../domain/catalog.ts';
import { minorUnits } from '../domain/currencies.ts';
import type { Payer } from '../domain/deposit-request.ts';
import { type ChargeOptions, type Charges, type FeeOverrides, computeCharges } from '../domain/fees.ts';
import type { Decimal } from '../domain/money.ts';

/** Fee and surcharge of a payment type in the deposit's currency and in USD, each in its minor unit (whole pesos on CLP). */
export function depositCharges(
  amounts: { local: Decimal; localCurrency: string; usd: Decimal },
  type: PaymentType | null,
  opts: ChargeOptions,
  schedule: FeeOverrides | null,
): { local: Charges; usd: Charges } {
  return {
    local: computeCharges(amounts.local, type, opts, minorUnits(amounts.localCurrency), schedule),
    usd: computeCharges(amounts.usd, type, opts, minorUnits('USD'), schedule),
  };
}

/** The order a charge is created with at the provider: what the payer pays, until when, and who pays. */
export function chargeOrder(
  publicBaseUrl: string,
  p: { depositId: number; token: string; method: PaymentMethod; payerAmount: Decimal; createdAt: Date; expiresAt: Date; description?: string | null; payer: Payer },
): ChargeOrder {
  return {
    depositId: p.depositId, token: p.token, method: p.method, amount: p.payerAmount, createdAt: p.createdAt, expiresAt: p.expiresAt,
    description: p.description,
    payer: { document: p.payer.document, documentType: p.payer.document_type, name: [p.payer.first_name, p.payer.last_name].filter(Boolean).join(' ') || null },
    publicBaseUrl,
  };
}
