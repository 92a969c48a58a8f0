// FEBRABAN CNAB 240 "retorno" files (Brazil): fixed-width lines of 240 characters. Written here,
// as no maintained npm library reads the retorno's segments (FEBRABAN layout 10.x):
//
//   header de arquivo (type 0)   bank (1-3), company CNPJ (19-32), agency (53-57), account
//                                (59-70) + digit (71), "2" = retorno (143), date (144-151),
//                                file sequence NSA (158-163): the statement id
//   header de lote (type 1)      operation (9): T = cobrança (boleto) liquidations,
//                                E = extrato (account statement); extrato: opening balance date
//                                (143-150), amount (151-168), D/C (169), currency (171-173)
//   segment T (type 3, 14 = T)   movement (16-17; 06 and 17 are liquidations), nosso número
//                                (38-57), document number (59-73), payer document (134-148),
//                                payer name (149-188), fee (199-213)
//   segment U (type 3, 14 = U)   paid amount (78-92), occurrence date (138-145), credit date (146-153)
//   segment E (type 3, 14 = E)   booking date (139-146), amount (147-164), D/C (165), category
//                                (166-168: 1xx debits, 2xx credits; 102/202 are returns),
//                                description (173-197), document number (198-236)
//   trailer de lote (type 5)     extrato: closing balance date (143-150), amount (151-168), D/C (169)
//   trailer de arquivo (type 9)  number of lines (24-29)
// Every amount is digits with two implied decimals. Errors name the line (and column).
import { isoDate, type ParsedStatement, type StatementEntry, StatementFormatError } from './statement.ts';

const LIQUIDATIONS = new Set(['06', '17']);
const RETURN_CATEGORIES = new Set(['102', '202']);

function fail(line: number, problem: string): never {
  throw new StatementFormatError('cnab240', `line ${line}`, problem);
}

/** Columns from-to, 1-based and inclusive, as the FEBRABAN layout numbers them. */
const col = (l: string, from: number, to: number) => l.slice(from - 1, to);

function money(l: string, n: number, from: number, to: number, what: string): string {
  const digits = col(l, from, to);
  if (!/^\d+$/.test(digits)) fail(n, `${what} (columns ${from}-${to}) must be digits, found '${digits}'`);
  const cents = digits.replace(/^0+(?=\d{3})/, '').padStart(3, '0');
  return `${cents.slice(0, -2)}.${cents.slice(-2)}`;
}

function date(l: string, n: number, from: number, what: string, optional = false): string | null {
  const raw = col(l, from, from + 7);
  if (optional && /^0{8}$|^ {8}$/.test(raw)) return null;
  const d = isoDate(raw, true);
  if (!d) fail(n, `${what} (columns ${from}-${from + 7}) must be a DDMMYYYY date, found '${raw}'`);
  return d;
}

const trimmed = (s: string) => s.trim().replace(/\s+/g, ' ');
const stripZeros = (s: string) => s.trim().replace(/^0+(?=.)/, '');

export function parseCnab240(source: string): ParsedStatement {
  const lines = source.replace(/\r\n/g, '\n').replace(/\n+$/, '').split('\n');
  lines.forEach((l, i) => {
    if (l.length !== 240) fail(i + 1, `every line has 240 characters, this one has ${l.length}`);
  });
  const header = lines[0]!;
  if (col(header, 8, 8) !== '0') fail(1, "the file must begin with a file header (record type '0' in column 8)");
  if (col(header, 143, 143) !== '2') fail(1, "column 143 must be '2' (retorno); a remessa is not a statement");
  const last = lines[lines.length - 1]!;
  if (lines.length < 2 || col(last, 8, 8) !== '9') fail(lines.length, "the file must end with a file trailer (record type '9')");
  const declared = col(last, 24, 29);
  if (!/^\d{6}$/.test(declared) || Number(declared) !== lines.length) {
    fail(lines.length, `the trailer counts ${declared} lines (columns 24-29) but the file has ${lines.length}`);
  }
  const bank = col(header, 1, 3);
  if (!/^\d{3}$/.test(bank)) fail(1, 'the bank code (columns 1-3) must be 3 digits');
  const agency = stripZeros(col(header, 53, 57));
  const account = `${stripZeros(col(header, 59, 70))}-${col(header, 71, 71).trim()}`;
  const fileDate = date(header, 1, 144, 'the file date');
  const nsa = col(header, 158, 163);
  if (!/^\d{6}$/.test(nsa)) fail(1, 'the file sequence number NSA (columns 158-163) must be 6 digits');

  let currency = 'BRL';
  let openingBalance: string | null = null;
  let closingBalance: string | null = null;
  let operation = '';
  const entries: StatementEntry[] = [];
  for (let i = 1; i < lines.length - 1; i++) {
    const l = lines[i]!;
    const n = i + 1;
    const type = col(l, 8, 8);
    if (type === '1') {
      operation = col(l, 9, 9);
      if (operation !== 'T' && operation !== 'E') fail(n, `batch operation (column 9) '${operation}' is not T (cobrança) or E (extrato)`);
      if (operation === 'E') {
        const amount = money(l, n, 151, 168, 'the opening balance');
        openingBalance = col(l, 169, 169) === 'D' && amount !== '0.00' ? `-${amount}` : amount;
        const ccy = col(l, 171, 173);
        if (/^[A-Z]{3}$/.test(ccy)) currency = ccy;
      }
    } else if (type === '5') {
      if (operation === 'E') {
        const amount = money(l, n, 151, 168, 'the closing balance');
        closingBalance = col(l, 169, 169) === 'D' && amount !== '0.00' ? `-${amount}` : amount;
      }
      operation = '';
    } else if (type === '3') {
      const segment = col(l, 14, 14);
      if (!operation) fail(n, 'a detail line outside a batch (no batch header before it)');
      if (segment === 'T') {
        if (operation !== 'T') fail(n, 'segment T belongs in a cobrança batch (operation T)');
        const u = lines[i + 1];
        if (!u || col(u, 8, 8) !== '3' || col(u, 14, 14) !== 'U') fail(n + 1, 'segment T must be followed by its segment U');
        i++;
        const movement = col(l, 16, 17);
        if (!/^\d{2}$/.test(movement)) fail(n, `the movement code (columns 16-17) must be 2 digits, found '${movement}'`);
        const fee = money(l, n, 199, 213, 'the fee');
        const paid = money(u, n + 1, 78, 92, 'the paid amount');
        const occurred = date(u, n + 1, 138, 'the occurrence date');
        const credited = date(u, n + 1, 146, 'the credit date', true);
        // Only a liquidation moves money; entries, confirmations and write-offs are not statement lines.
        if (!LIQUIDATIONS.has(movement)) continue;
        const nosso = stripZeros(col(l, 38, 57));
        const documentNumber = col(l, 59, 73).trim();
        // The payer's inscription (133: 1 CPF, 2 CNPJ; 134-148 zero-padded): a CPF keeps its 11 digits, a CNPJ its 14.
        const inscription = col(l, 133, 133);
        const stripped = stripZeros(col(l, 134, 148));
        const payerDoc = stripped && stripped !== '0' && /^\d+$/.test(stripped)
          ? (inscription === '1' ? stripped.padStart(11, '0') : inscription === '2' ? stripped.padStart(14, '0') : stripped) : stripped;
        const payerName = trimmed(col(l, 149, 188));
        entries.push({
          key: `T:${nosso}:${occurred}`,
          bookingDate: credited ?? occurred!, valueDate: occurred, amount: paid, currency, direction: 'credit', reversal: false,
          refs: { nossoNumero: nosso, ...(documentNumber ? { bankReference: documentNumber } : {}) },
          counterparty: { ...(payerDoc && payerDoc !== '0' ? { document: payerDoc } : {}), ...(payerName ? { name: payerName } : {}) },
          description: `boleto liquidation (movement ${movement}, fee ${fee})`,
        });
      } else if (segment === 'E') {
        if (operation !== 'E') fail(n, 'segment E belongs in an extrato batch (operation E)');
        const bookingDate = date(l, n, 139, 'the booking date')!;
        const valueDate = date(l, n, 131, 'the accounting date', true);
        const amount = money(l, n, 147, 164, 'the amount');
        if (amount === '0.00') fail(n, 'the amount (columns 147-164) is zero');
        const dc = col(l, 165, 165);
        if (dc !== 'D' && dc !== 'C') fail(n, `the entry type (column 165) must be D or C, found '${dc}'`);
        const category = col(l, 166, 168);
        const documentNumber = col(l, 198, 236).trim();
        const description = trimmed(col(l, 173, 197));
        const seq = col(l, 9, 13);
        entries.push({
          key: `E:${bookingDate}:${seq}:${documentNumber}`,
          bookingDate, valueDate, amount, currency, direction: dc === 'C' ? 'credit' : 'debit', reversal: RETURN_CATEGORIES.has(category),
          refs: documentNumber ? { depositReference: documentNumber, bankReference: documentNumber } : {},
          counterparty: {},
          ...(description ? { description } : {}),
        });
      } else if (segment !== 'U') {
        fail(n, `segment '${segment}' (column 14) is not read in a retorno (T, U or E)`);
      } else fail(n, 'segment U without the segment T before it');
    } else fail(n, `record type (column 8) '${type}' is not 1, 3 or 5 inside the file`);
  }
  if (operation) fail(lines.length, 'the last batch has no batch trailer (record type 5)');
  return {
    format: 'cnab240', statementRef: `${bank}:${nsa}:${fileDate}`, account: `br:${bank}:${agency}:${account}`, currency,
    date: fileDate, openingBalance, closingBalance, entries,
  };
}
