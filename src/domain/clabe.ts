// Mexican CLABE (Clave Bancaria Estandarizada): 18 digits = bank (3) + plaza (3) +
// account (11) + check digit (1). The check digit uses weights 3,7,1 repeated, each
// product taken mod 10, and is (10 − sum mod 10) mod 10.

const WEIGHTS = [3, 7, 1];

export function clabeCheckDigit(first17: string): number {
  if (!/^\d{17}$/.test(first17)) throw new Error('CLABE check digit needs exactly 17 digits');
  let sum = 0;
  for (let i = 0; i < 17; i++) sum += (Number(first17[i]) * WEIGHTS[i % 3]!) % 10;
  return (10 - (sum % 10)) % 10;
}

export function isValidClabe(clabe: string): boolean {
  return /^\d{18}$/.test(clabe) && clabeCheckDigit(clabe.slice(0, 17)) === Number(clabe[17]);
}

export function buildClabe(bankCode: string, plaza: string, account11: string): string {
  if (!/^\d{3}$/.test(bankCode)) throw new Error('bank code must be 3 digits');
  if (!/^\d{3}$/.test(plaza)) throw new Error('plaza must be 3 digits');
  if (!/^\d{11}$/.test(account11)) throw new Error('account must be 11 digits');
  const first17 = bankCode + plaza + account11;
  return first17 + clabeCheckDigit(first17);
}

/** The 3-digit bank (ABM) code a CLABE starts with; the refund path matches it to bank_code. */
export function clabeBankCode(clabe: string): string {
  return clabe.slice(0, 3);
}
