// Writes bank statements of a day in the formats banks send (camt.053/054, OFX 1.x SGML and
// 2.x XML, CNAB 240 retorno) from a list of movements, for the reconciliation tests and bench.
import { closing, type Day, type Movement } from '../../src/reconciliation/camt-writer.ts';

export { camt053, camt054, closing, type Day, type Movement } from '../../src/reconciliation/camt-writer.ts';

const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
const ofxDate = (d: string) => `${d.replace(/-/g, '')}120000`;

/** OFX 1.02 SGML (no closing tags on leaves), as Brazilian banks send it; xml=true writes OFX 2.1.1. */
export function ofx(day: Day & { bankId: string; branch: string; accountId: string }, xml = false): string {
  const leaf = (tag: string, v: string) => (xml ? `<${tag}>${esc(v)}</${tag}>` : `<${tag}>${esc(v)}`);
  const trn = (m: Movement) => ['<STMTTRN>', leaf('TRNTYPE', m.direction === 'credit' ? 'CREDIT' : 'DEBIT'), leaf('DTPOSTED', ofxDate(m.date)),
    leaf('TRNAMT', `${m.direction === 'debit' ? '-' : ''}${m.amount}`), leaf('FITID', m.bankId),
    ...(m.reference ? [leaf('REFNUM', m.reference)] : []), ...(m.counterparty?.name ? [leaf('NAME', m.counterparty.name)] : []),
    ...(m.counterparty?.document ? [leaf('PAYEEID', m.counterparty.document)] : []),
    ...(m.info || m.endToEndId ? [leaf('MEMO', [m.info, m.endToEndId].filter(Boolean).join(' '))] : []), '</STMTTRN>'].join('\n');
  const header = xml
    ? '<?xml version="1.0" encoding="UTF-8" standalone="no"?>\n<?OFX OFXHEADER="200" VERSION="211" SECURITY="NONE" OLDFILEUID="NONE" NEWFILEUID="NONE"?>\n'
    : 'OFXHEADER:100\nDATA:OFXSGML\nVERSION:102\nSECURITY:NONE\nENCODING:USASCII\nCHARSET:1252\nCOMPRESSION:NONE\nOLDFILEUID:NONE\nNEWFILEUID:NONE\n\n';
  return `${header}<OFX>
<SIGNONMSGSRSV1><SONRS><STATUS>${leaf('CODE', '0')}${leaf('SEVERITY', 'INFO')}</STATUS>${leaf('DTSERVER', ofxDate(day.date))}${leaf('LANGUAGE', 'POR')}</SONRS></SIGNONMSGSRSV1>
<BANKMSGSRSV1><STMTTRNRS>${leaf('TRNUID', '1')}<STATUS>${leaf('CODE', '0')}${leaf('SEVERITY', 'INFO')}</STATUS>
<STMTRS>${leaf('CURDEF', day.currency)}
<BANKACCTFROM>${leaf('BANKID', day.bankId)}${leaf('BRANCHID', day.branch)}${leaf('ACCTID', day.accountId)}${leaf('ACCTTYPE', 'CHECKING')}</BANKACCTFROM>
<BANKTRANLIST>${leaf('DTSTART', ofxDate(day.date))}${leaf('DTEND', ofxDate(day.date))}
${day.movements.map(trn).join('\n')}
</BANKTRANLIST>
<LEDGERBAL>${leaf('BALAMT', closing(day))}${leaf('DTASOF', ofxDate(day.date))}</LEDGERBAL>
</STMTRS></STMTTRNRS></BANKMSGSRSV1>
</OFX>
`;
}

// ——— CNAB 240 ———

/** A fixed-width line from [column, text] pairs (1-based columns), blanks elsewhere. */
function line(fields: [number, string][]): string {
  const chars = Array<string>(240).fill(' ');
  for (const [from, value] of fields) for (let i = 0; i < value.length; i++) chars[from - 1 + i] = value[i]!;
  return chars.join('');
}
const num = (v: string | number, width: number) => String(v).padStart(width, '0');
const cents = (amount: string, width: number) => num(Math.round(Number(amount) * 100), width);
const dmy = (d: string) => `${d.slice(8, 10)}${d.slice(5, 7)}${d.slice(0, 4)}`;

export interface BoletoLiquidation {
  nossoNumero: string;
  amount: string;
  fee: string;
  payerDocument?: string;
  payerName?: string;
  date: string;
}

/**
 * A retorno with a cobrança batch (segments T and U, liquidations) and an extrato batch
 * (segment E, the account's other movements, with opening and closing balances that include
 * the liquidations).
 */
export function cnab240(day: Omit<Day, 'account'> & { bank: string; agency: string; account: string; digit: string; nsa: number; boletos: BoletoLiquidation[] }): string {
  const company: [number, string][] = [[18, '2'], [19, '11444777000161'], [53, num(day.agency, 5)], [59, num(day.account, 12)], [71, day.digit], [73, 'OPERADORA PAGAMENTOS LTDA']];
  const lines: string[] = [];
  lines.push(line([[1, day.bank], [4, '0000'], [8, '0'], ...company, [103, 'BANCO'], [143, '2'], [144, dmy(day.date)], [152, '235900'], [158, num(day.nsa, 6)], [164, '103']]));
  let lot = 0;
  if (day.boletos.length > 0) {
    lot++;
    lines.push(line([[1, day.bank], [4, num(lot, 4)], [8, '1'], [9, 'T'], [10, '01'], [14, '060'], [18, '2'], [19, '011444777000161']]));
    let seq = 0;
    for (const b of day.boletos) {
      lines.push(line([[1, day.bank], [4, num(lot, 4)], [8, '3'], [9, num(++seq, 5)], [14, 'T'], [16, '06'], [18, num(day.agency, 5)], [24, num(day.account, 12)], [36, day.digit],
        [38, num(b.nossoNumero, 20)], [58, '1'], [59, `DOC${b.nossoNumero}`.padEnd(15)], [74, dmy(b.date)], [82, cents(b.amount, 15)], [97, day.bank], [131, '09'],
        [133, b.payerDocument && b.payerDocument.length > 11 ? '2' : '1'], [134, num(b.payerDocument ?? '0', 15)], [149, (b.payerName ?? '').padEnd(40)], [199, cents(b.fee, 15)]]));
      lines.push(line([[1, day.bank], [4, num(lot, 4)], [8, '3'], [9, num(++seq, 5)], [14, 'U'], [16, '06'], [18, num(0, 15)], [33, num(0, 15)], [48, num(0, 15)], [63, num(0, 15)],
        [78, cents(b.amount, 15)], [93, cents((Number(b.amount) - Number(b.fee)).toFixed(2), 15)], [108, num(0, 15)], [123, num(0, 15)], [138, dmy(b.date)], [146, dmy(b.date)]]));
    }
    lines.push(line([[1, day.bank], [4, num(lot, 4)], [8, '5'], [18, num(seq + 2, 6)]]));
  }
  lot++;
  const opening = day.opening;
  const close = closing({ ...day, account: {}, movements: [...day.movements, ...day.boletos.map((b) => ({ amount: b.amount, direction: 'credit' as const, date: b.date, bankId: '' }))] });
  const balance = (v: string) => [cents(v.replace('-', ''), 18), v.startsWith('-') ? 'D' : 'C'] as const;
  const [ob, obDc] = balance(opening);
  const [cb, cbDc] = balance(close);
  lines.push(line([[1, day.bank], [4, num(lot, 4)], [8, '1'], [9, 'E'], [10, '04'], [12, '40'], [14, '033'], ...company, [143, dmy(day.date)], [151, ob], [169, obDc], [170, 'F'], [171, day.currency], [174, num(day.nsa, 5)]]));
  let seq = 0;
  for (const m of day.movements) {
    const category = m.reversal ? (m.direction === 'credit' ? '202' : '102') : m.direction === 'credit' ? '201' : '101';
    lines.push(line([[1, day.bank], [4, num(lot, 4)], [8, '3'], [9, num(++seq, 5)], [14, 'E'], ...company, [103, 'DPV'], [131, dmy(m.date)], [139, dmy(m.date)],
      [147, cents(m.amount, 18)], [165, m.direction === 'credit' ? 'C' : 'D'], [166, category], [169, '0001'], [173, (m.info ?? 'LANCAMENTO').slice(0, 25).padEnd(25)],
      [198, (m.reference ?? '').padEnd(39)]]));
  }
  lines.push(line([[1, day.bank], [4, num(lot, 4)], [8, '5'], ...company, [143, dmy(day.date)], [151, cb], [169, cbDc], [170, 'F'], [171, num(seq + 2, 6)]]));
  lines.push(line([[1, day.bank], [4, '9999'], [8, '9'], [18, num(lot, 6)], [24, num(lines.length + 1, 6)]]));
  return `${lines.join('\r\n')}\r\n`;
}
