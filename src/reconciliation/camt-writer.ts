// Writes a day of bank movements as an ISO 20022 statement (camt.053, or camt.054
// notifications): the provider simulators answer the day's statement with it (an operator trying
// caja out reconciles a day without a bank), and the reconciliation tests and bench write their
// files with it. The reader is camt.ts; files written here validate against the ISO schema
// (test/reconciliation/parsers.test.ts, xmllint).
import { add, dec, sub, toFixed } from '../domain/money.ts';

export interface Movement {
  amount: string;
  direction: 'credit' | 'debit';
  date: string;
  /** The bank's id of the entry (camt AcctSvcrRef, OFX FITID). */
  bankId: string;
  endToEndId?: string;
  claveRastreo?: string;
  reference?: string;
  reversal?: boolean;
  counterparty?: { name?: string; document?: string; account?: string };
  /** A batched credit's parts (camt TxDtls). */
  batch?: { amount: string; reference?: string; endToEndId?: string }[];
  info?: string;
}

export interface Day {
  statementId: string;
  account: { iban?: string; other?: string };
  currency: string;
  date: string;
  opening: string;
  movements: Movement[];
}

const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/** The closing balance: the opening plus credits less debits, exact, with two decimals. */
export function closing(day: Day): string {
  const total = day.movements.reduce((sum, m) => (m.direction === 'credit' ? add : sub)(sum, dec(m.amount)), dec(day.opening));
  return toFixed(total, 2);
}

function party(tag: 'Dbtr' | 'Cdtr', p: Movement['counterparty']): string {
  if (!p) return '';
  const id = p.document ? `<Id>${p.document.length > 11 ? `<OrgId><Othr><Id>${p.document}</Id></Othr></OrgId>` : `<PrvtId><Othr><Id>${p.document}</Id></Othr></PrvtId>`}</Id>` : '';
  const who = p.name || id ? `<${tag}>${p.name ? `<Nm>${esc(p.name)}</Nm>` : ''}${id}</${tag}>` : '';
  const acct = p.account ? `<${tag}Acct><Id><Othr><Id>${p.account}</Id></Othr></Id></${tag}Acct>` : '';
  return who || acct ? `<RltdPties>${who}${acct}</RltdPties>` : '';
}

function txDtls(m: { endToEndId?: string; claveRastreo?: string; reference?: string; amount?: string; currency?: string }, p: string): string {
  const refs = m.endToEndId || m.claveRastreo ? `<Refs>${m.endToEndId ? `<EndToEndId>${m.endToEndId}</EndToEndId>` : ''}${m.claveRastreo ? `<ClrSysRef>${m.claveRastreo}</ClrSysRef>` : ''}</Refs>` : '';
  const amt = m.amount ? `<AmtDtls><TxAmt><Amt Ccy="${m.currency}">${m.amount}</Amt></TxAmt></AmtDtls>` : '';
  const rmt = m.reference ? `<RmtInf><Strd><CdtrRefInf><Ref>${m.reference}</Ref></CdtrRefInf></Strd></RmtInf>` : '';
  return `<TxDtls>${refs}${amt}${p}${rmt}</TxDtls>`;
}

function camtEntry(m: Movement, ccy: string): string {
  const details = m.batch
    ? m.batch.map((b) => txDtls({ ...b, currency: ccy }, '')).join('')
    : m.endToEndId || m.claveRastreo || m.reference || m.counterparty ? txDtls({ ...m, amount: undefined }, party(m.direction === 'credit' ? 'Dbtr' : 'Cdtr', m.counterparty)) : '';
  return `<Ntry><Amt Ccy="${ccy}">${m.amount}</Amt><CdtDbtInd>${m.direction === 'credit' ? 'CRDT' : 'DBIT'}</CdtDbtInd>${m.reversal ? '<RvslInd>true</RvslInd>' : ''}` +
    `<Sts>BOOK</Sts><BookgDt><Dt>${m.date}</Dt></BookgDt><ValDt><Dt>${m.date}</Dt></ValDt><AcctSvcrRef>${m.bankId}</AcctSvcrRef>` +
    `<BkTxCd><Prtry><Cd>${m.batch ? 'BATCH' : m.direction === 'credit' ? 'RCDT' : 'PMNT'}</Cd></Prtry></BkTxCd>` +
    `${details ? `<NtryDtls>${details}</NtryDtls>` : ''}${m.info ? `<AddtlNtryInf>${esc(m.info)}</AddtlNtryInf>` : ''}</Ntry>\n`;
}

const acctXml = (day: Day) => `<Acct><Id>${day.account.iban ? `<IBAN>${day.account.iban}</IBAN>` : `<Othr><Id>${day.account.other}</Id></Othr>`}</Id><Ccy>${day.currency}</Ccy></Acct>`;
const bal = (code: string, amount: string, ccy: string, date: string) => {
  const neg = amount.startsWith('-');
  return `<Bal><Tp><CdOrPrtry><Cd>${code}</Cd></CdOrPrtry></Tp><Amt Ccy="${ccy}">${neg ? amount.slice(1) : amount}</Amt><CdtDbtInd>${neg ? 'DBIT' : 'CRDT'}</CdtDbtInd><Dt><Dt>${date}</Dt></Dt></Bal>`;
};

export function camt053(day: Day): string {
  return `<?xml version="1.0" encoding="UTF-8"?>
<Document xmlns="urn:iso:std:iso:20022:tech:xsd:camt.053.001.02">
<BkToCstmrStmt><GrpHdr><MsgId>MSG-${day.statementId}</MsgId><CreDtTm>${day.date}T23:00:00</CreDtTm></GrpHdr>
<Stmt><Id>${day.statementId}</Id><CreDtTm>${day.date}T23:00:00</CreDtTm>${acctXml(day)}
${bal('OPBD', day.opening, day.currency, day.date)}${bal('CLBD', closing(day), day.currency, day.date)}
${day.movements.map((m) => camtEntry(m, day.currency)).join('')}</Stmt></BkToCstmrStmt></Document>
`;
}

export function camt054(day: Day): string {
  return `<?xml version="1.0" encoding="UTF-8"?>
<Document xmlns="urn:iso:std:iso:20022:tech:xsd:camt.054.001.02">
<BkToCstmrDbtCdtNtfctn><GrpHdr><MsgId>MSG-${day.statementId}</MsgId><CreDtTm>${day.date}T12:00:00</CreDtTm></GrpHdr>
<Ntfctn><Id>${day.statementId}</Id><CreDtTm>${day.date}T12:00:00</CreDtTm>${acctXml(day)}
${day.movements.map((m) => camtEntry(m, day.currency)).join('')}</Ntfctn></BkToCstmrDbtCdtNtfctn></Document>
`;
}
