// Valid sample documents, computed here from the public check-digit rules.
export function cpf(base9: string): string {
  const digits = base9.split('').map(Number);
  for (const len of [9, 10]) {
    const sum = digits.slice(0, len).reduce((acc, d, i) => acc + d * (len + 1 - i), 0);
    const r = (sum * 10) % 11;
    digits.push(r === 10 ? 0 : r);
  }
  return digits.join('');
}
