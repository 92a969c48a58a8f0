// The payer rule (a merchant's payer_must_match; docs/connectors.md "The payer rule"): a payment
// whose payer document the provider reports must come from the deposit's payer. Documents are
// compared as the provider and the merchant may spell them: CPF/CNPJ punctuation ignored, RFC
// and CURP case-insensitive.

export type PayerCheck = 'match' | 'mismatch' | 'not_reported';

/** A document reduced to its letters and digits, upper case ("111.444.777-35" → "11144477735"). */
export function normalizeDocument(doc: string): string {
  return doc.replace(/[^0-9a-zA-Z]/g, '').toUpperCase();
}

/**
 * `reported` is the provider's payer document (undefined or null: the provider did not say);
 * `expected` the deposit's payer document (null: the deposit named none, which never matches).
 */
export function checkPayer(reported: string | null | undefined, expected: string | null): PayerCheck {
  if (reported === undefined || reported === null || normalizeDocument(reported) === '') return 'not_reported';
  if (expected === null) return 'mismatch';
  return normalizeDocument(reported) === normalizeDocument(expected) ? 'match' : 'mismatch';
}

/** Why a refused payment was sent back: its kept reason, the devolução's descricao; STP answers the abono devolver 13 (its rule, payer_mismatch). */
export const PAYER_MISMATCH_REASON = 'payer_mismatch: payer document differs from the deposit payer (payer_must_match)';
