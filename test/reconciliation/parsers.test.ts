// The statement parsers: one normalised entry shape from camt.053/054, OFX 1.x/2.x and CNAB 240,
// exact amounts as text, and a malformed file refused with where it is wrong. The camt files the
// tests write are checked against the ISO 20022 schema with xmllint.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseStatement } from '../../src/reconciliation/formats.ts';
import { StatementFormatError } from '../../src/reconciliation/statement.ts';
import { camt053, camt054, cnab240, type Day, ofx } from '../helpers/statements.ts';

const XSD = join(dirname(fileURLToPath(import.meta.url)), '..', 'fixtures', 'iso20022', 'camt.053.001.02.subset.xsd');

const day: Day = {
  statementId: 'STMT-2026-11-25', account: { iban: 'BR1800360305000010009795493C1' }, currency: 'BRL', date: '2026-11-25', opening: '1000.00',
  movements: [
    { amount: '10.00', direction: 'credit', date: '2026-11-25', bankId: 'B1', endToEndId: 'E18236120202611251200s0123456789', counterparty: { name: 'Maria Souza & Filhos', document: '52998224725' } },
    { amount: '0.10', direction: 'debit', date: '2026-11-25', bankId: 'B2', reference: '700000000421' },
    { amount: '95.00', direction: 'credit', date: '2026-11-25', bankId: 'B3', batch: [{ amount: '50.00', reference: '700000000421' }, { amount: '50.00', endToEndId: 'E2' }] },
    { amount: '20.00', direction: 'credit', date: '2026-11-25', bankId: 'B4', reversal: true, claveRastreo: 'SB0000AABBCC' },
  ],
};

function xmllint(xml: string): { ok: boolean; out: string } {
  const dir = mkdtempSync(join(tmpdir(), 'camt-'));
  const file = join(dir, 'statement.xml');
  writeFileSync(file, xml);
  try {
    return { ok: true, out: execFileSync('xmllint', ['--noout', '--schema', XSD, file], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }) };
  } catch (err) {
    return { ok: false, out: String((err as { stderr?: string }).stderr ?? err) };
  }
}

test('camt.053: the written file is valid against the ISO 20022 schema (xmllint), and a broken one is not', () => {
  const good = xmllint(camt053(day));
  assert.ok(good.ok, good.out);
  const bad = xmllint(camt053(day).replace('<CdtDbtInd>DBIT</CdtDbtInd>', '<CdtDbtInd>DEBIT</CdtDbtInd>'));
  assert.ok(!bad.ok);
  assert.match(bad.out, /CdtDbtInd/);
});

test('camt.053: entries in one shape, amounts as text, batch parts, reversal, balances', () => {
  const s = parseStatement('camt', Buffer.from(camt053(day)));
  assert.equal(s.format, 'camt053');
  assert.equal(s.statementRef, 'STMT-2026-11-25');
  assert.equal(s.account, 'iban:BR1800360305000010009795493C1');
  assert.equal(s.openingBalance, '1000.00');
  assert.equal(s.closingBalance, '1124.90');
  assert.equal(s.entries.length, 4);
  const [a, b, c, d] = s.entries;
  assert.deepEqual(a, {
    key: 'B1', bookingDate: '2026-11-25', valueDate: '2026-11-25', amount: '10.00', currency: 'BRL', direction: 'credit', reversal: false,
    refs: { endToEndId: 'E18236120202611251200s0123456789', bankReference: 'B1' }, counterparty: { document: '52998224725', name: 'Maria Souza & Filhos' },
  });
  assert.equal(b!.amount, '0.10');
  assert.equal(b!.direction, 'debit');
  assert.equal(b!.refs.depositReference, '700000000421');
  assert.deepEqual(c!.batch, [{ amount: '50.00', refs: { depositReference: '700000000421' } }, { amount: '50.00', refs: { endToEndId: 'E2' } }]);
  assert.equal(d!.reversal, true);
  assert.equal(d!.refs.claveRastreo, 'SB0000AABBCC');
});

test('camt.053: the payer\'s reference is read from RmtInf/Ustrd as well as from Strd/CdtrRefInf/Ref', () => {
  const structured = '<RmtInf><Strd><CdtrRefInf><Ref>700000000421</Ref></CdtrRefInf></Strd></RmtInf>';
  const xml = camt053(day);
  assert.ok(xml.includes(structured));
  // Free text, as most banks send it: one line, or several where the first is not the reference.
  const oneLine = xml.split(structured).join('<RmtInf><Ustrd>7000 0000 0421</Ustrd></RmtInf>');
  const lint = xmllint(oneLine);
  assert.ok(lint.ok, lint.out);
  const s = parseStatement('camt', Buffer.from(oneLine));
  assert.equal(s.entries[1]!.refs.depositReference, '700000000421');
  assert.deepEqual(s.entries[2]!.batch![0]!.refs, { depositReference: '700000000421' });
  const lines = xml.split(structured).join('<RmtInf><Ustrd> </Ustrd><Ustrd>700000000421</Ustrd></RmtInf>');
  assert.equal(parseStatement('camt', Buffer.from(lines)).entries[1]!.refs.depositReference, '700000000421');
  // Both present: the structured reference wins.
  const both = xml.split(structured).join('<RmtInf><Ustrd>PEDIDO 55</Ustrd><Strd><CdtrRefInf><Ref>700000000421</Ref></CdtrRefInf></Strd></RmtInf>');
  assert.equal(parseStatement('camt', Buffer.from(both)).entries[1]!.refs.depositReference, '700000000421');
});

test('camt.054: notifications read the same way; the format named must be the file\'s', () => {
  const s = parseStatement('camt054', camt054(day));
  assert.equal(s.format, 'camt054');
  assert.equal(s.closingBalance, null);
  assert.deepEqual(s.entries.map((e) => e.key), ['B1', 'B2', 'B3', 'B4']);
  assert.throws(() => parseStatement('camt053', camt054(day)), /camt053: Document: the file is camt.054/);
});

test('OFX 1.x SGML and 2.x XML give the same entries', () => {
  const ofxDay = { ...day, bankId: '341', branch: '4417', accountId: '13009218-7' };
  const sgml = parseStatement('ofx', Buffer.from(ofx(ofxDay)));
  const xml = parseStatement('ofx', Buffer.from(ofx(ofxDay, true)));
  assert.deepEqual(sgml, xml);
  assert.equal(sgml.account, 'br:341:4417:13009218-7');
  assert.equal(sgml.closingBalance, '1124.90');
  assert.deepEqual(sgml.entries.map((e) => [e.key, e.amount, e.direction]), [['B1', '10.00', 'credit'], ['B2', '0.10', 'debit'], ['B3', '95.00', 'credit'], ['B4', '20.00', 'credit']]);
  assert.equal(sgml.entries[0]!.refs.endToEndId, 'E18236120202611251200s0123456789');
  assert.equal(sgml.entries[0]!.counterparty.name, 'Maria Souza & Filhos');
  assert.equal(sgml.entries[1]!.refs.depositReference, '700000000421');
});

test('CNAB 240 retorno: boleto liquidations (T/U) and extrato lines (E) with balances', () => {
  const file = cnab240({
    ...day, bank: '341', agency: '4417', account: '13009218', digit: '7', nsa: 42,
    boletos: [{ nossoNumero: '421', amount: '50.00', fee: '1.50', payerDocument: '52998224725', payerName: 'MARIA SOUZA', date: '2026-11-25' }],
  });
  assert.ok(file.split('\r\n').filter(Boolean).every((l) => l.length === 240));
  const s = parseStatement('cnab240', file);
  assert.equal(s.account, 'br:341:4417:13009218-7');
  assert.equal(s.statementRef, '341:000042:2026-11-25');
  assert.equal(s.openingBalance, '1000.00');
  assert.equal(s.closingBalance, '1174.90');
  assert.equal(s.entries.length, 5);
  assert.deepEqual(s.entries[0], {
    key: 'T:421:2026-11-25', bookingDate: '2026-11-25', valueDate: '2026-11-25', amount: '50.00', currency: 'BRL', direction: 'credit', reversal: false,
    refs: { nossoNumero: '421', bankReference: 'DOC421' }, counterparty: { document: '52998224725', name: 'MARIA SOUZA' },
    description: 'boleto liquidation (movement 06, fee 1.50)',
  });
  assert.equal(s.entries[2]!.refs.depositReference, '700000000421');
  assert.equal(s.entries[4]!.reversal, true);
});

const refuses = (format: Parameters<typeof parseStatement>[0], text: string, at: RegExp, problem: RegExp) => {
  assert.throws(() => parseStatement(format, text), (err: unknown) => {
    assert.ok(err instanceof StatementFormatError, String(err));
    assert.match(err.at, at);
    assert.match(err.problem, problem);
    return true;
  });
};

test('malformed files are refused with the line or element that is wrong', () => {
  const xml = camt053(day);
  refuses('camt', xml.replace('</Stmt>', ''), /^line \d+, column \d+$/, /not well-formed XML/);
  refuses('camt', xml.replace('>10.00<', '>10,00<'), /Stmt\/Ntry\[0\]\/Amt$/, /not an ISO 20022 amount/);
  refuses('camt', xml.replace('<CdtDbtInd>DBIT</CdtDbtInd><Sts>', '<CdtDbtInd>X</CdtDbtInd><Sts>'), /Ntry\[1\]\/CdtDbtInd/, /not CRDT or DBIT/);
  refuses('camt', xml.replace('<BookgDt><Dt>2026-11-25</Dt></BookgDt><ValDt><Dt>2026-11-25</Dt></ValDt><AcctSvcrRef>B3', '<BookgDt><Dt>2026-02-30</Dt></BookgDt><ValDt><Dt>2026-11-25</Dt></ValDt><AcctSvcrRef>B3'), /Ntry\[2\]\/BookgDt/, /not a date/);
  refuses('camt', xml.replace('camt.053.001.02', 'pain.001.001.03'), /^Document$/, /namespace/);
  refuses('camt', '<!DOCTYPE x [<!ENTITY a "b">]><Document/>', /line 1/, /DOCTYPE/);
  const ofxDay = { ...day, bankId: '341', branch: '4417', accountId: '1' };
  refuses('ofx', ofx(ofxDay).replace('<TRNAMT>-0.10', '<TRNAMT>-0.1x'), /STMTTRN\[1\] \(line \d+\)\/TRNAMT/, /not an amount/);
  refuses('ofx', ofx(ofxDay).replace('<DTPOSTED>20261125120000\n<TRNAMT>95.00', '<DTPOSTED>2026\n<TRNAMT>95.00'), /STMTTRN\[2\] \(line \d+\)\/DTPOSTED/, /not an OFX date/);
  refuses('ofx', 'hello', /line 1/, /not an OFX file/);
  const cnab = cnab240({ ...day, bank: '341', agency: '1', account: '2', digit: '3', nsa: 1, boletos: [] });
  const lines = cnab.split('\r\n');
  refuses('cnab240', lines.map((l, i) => (i === 3 ? l.slice(0, 239) : l)).join('\r\n'), /^line 4$/, /240 characters, this one has 239/);
  refuses('cnab240', lines.map((l, i) => (i === 2 ? `${l.slice(0, 146)}00000000000000X000${l.slice(164)}` : l)).join('\r\n'), /^line 3$/, /amount \(columns 147-164\) must be digits/);
  refuses('cnab240', lines.filter((_, i) => i !== 1).join('\r\n'), /^line \d+$/, /trailer counts/);
});
