// The providers' days as movements (pure): which of STP's orders and the PSP's Pix and devoluções
// move money on the day, the file a day becomes (the same day, the same bytes), and the days the
// worker fetches.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { stpDayMovements } from '../../src/connectors/stp/day.ts';
import { pixAccountId, pixDayMovements, pixSendMovements } from '../../src/connectors/pix/day.ts';
import { devolucaoOutcome } from '../../src/connectors/pix/mapping.ts';
import { daysToFetch, isDay, providerDayFile } from '../../src/reconciliation/provider-statements.ts';
import { parseStatement } from '../../src/reconciliation/formats.ts';

const DATE = '2026-11-27';
const ORDERING = '646180157000000004';
const PAYER = '012180004567891239';

test('STP: liquidated received and sent orders move money; returned, cancelled and pending ones do not; an unreadable one is named', () => {
  const received = [
    { idEF: 4000001, claveRastreo: 'MBAN000004000001', monto: 250.5, estado: 'LQ', cuentaOrdenante: PAYER, nombreOrdenante: 'JUAN PEREZ', fechaOperacion: 20261127 },
    { idEF: 4000002, claveRastreo: 'bad clave!', monto: 10, estado: 'LQ' },
  ];
  const sent = [
    { idEF: 4000003, claveRastreo: 'CAJAPAYOUT1', monto: 180, estado: 'LQ', cuentaBeneficiario: '012180001234567891', nombreBeneficiario: 'Eva Gomez' },
    { idEF: 4000004, claveRastreo: 'CAJAPAYOUT2', monto: 90, estado: 'D' },
    { idEF: 4000005, claveRastreo: 'CAJAPAYOUT3', monto: 91, estado: 'CN' },
    { idEF: 4000006, claveRastreo: 'CAJAPAYOUT4', monto: 92, estado: 'A' },
    { idEF: 4000007, claveRastreo: 'CAJAREFUND1', monto: '400.25', estado: 'TLQ' },
  ];
  const { movements, unreadable } = stpDayMovements(received, sent, DATE);
  assert.deepEqual(movements, [
    { amount: '250.50', direction: 'credit', date: DATE, bankId: 'R4000001', claveRastreo: 'MBAN000004000001', counterparty: { name: 'JUAN PEREZ', account: PAYER } },
    { amount: '180.00', direction: 'debit', date: DATE, bankId: 'E4000003', claveRastreo: 'CAJAPAYOUT1', counterparty: { name: 'Eva Gomez', account: '012180001234567891' } },
    { amount: '400.25', direction: 'debit', date: DATE, bankId: 'E4000007', claveRastreo: 'CAJAREFUND1' },
  ]);
  assert.deepEqual(unreadable, ['received order bad clave!']);
});

test('Pix: a Pix received on the day is a credit; a devolução settled on the day a debit under its rtrId, whenever its Pix was received', () => {
  const e2eToday = 'E12345678202611271200abcdefghijk';
  const e2eBefore = 'E12345678202611201200abcdefghijk';
  const rtr = 'D12345678202611271300abcdefghijk';
  const list = [
    { endToEndId: e2eToday, valor: '10.00', horario: `${DATE}T12:00:00Z` },
    { endToEndId: e2eBefore, valor: '50.00', horario: '2026-11-20T12:00:00Z', devolucoes: [
      { id: 'cajadev1', rtrId: rtr, valor: '20.00', status: 'DEVOLVIDO', horario: { solicitacao: '2026-11-26T23:00:00Z', liquidacao: `${DATE}T13:00:00Z` } },
      { id: 'cajadev2', rtrId: 'D12345678202611271301abcdefghijk', valor: '5.00', status: 'EM_PROCESSAMENTO', horario: { solicitacao: `${DATE}T13:00:00Z` } },
    ] },
    { endToEndId: 'nope', valor: '1.00', horario: `${DATE}T12:00:00Z` },
  ];
  const { movements, unreadable } = pixDayMovements(list, DATE);
  assert.deepEqual(movements, [
    { amount: '10.00', direction: 'credit', date: DATE, bankId: e2eToday, endToEndId: e2eToday },
    { amount: '20.00', direction: 'debit', date: DATE, bankId: rtr, endToEndId: rtr, info: `devolucao cajadev1 of ${e2eBefore}` },
  ]);
  assert.deepEqual(unreadable, ['pix nope']);
  assert.match(pixAccountId('chave@example.com'), /^PIX[0-9A-F]{16}$/);
  // The connector keeps the return id the statement shows (BACEN's rtrId) with the refund.
  assert.deepEqual(devolucaoOutcome({ id: 'cajadev1', rtrId: rtr, valor: '20.00', status: 'DEVOLVIDO' }), { status: 'COMPLETED', reference: 'cajadev1', providerId: rtr, providerState: 'DEVOLVIDO' });
});

test('Pix sends: a send made (REALIZADO) and settled on the day is a debit under its end-to-end id; processing, not made or another day is not', () => {
  const e2e = 'E12345678202611271400abcdefghijk';
  const list = [
    { idEnvio: 'caja1', endToEndId: e2e, valor: '20.00', status: 'REALIZADO', horario: { solicitacao: '2026-11-26T23:59:00Z', liquidacao: `${DATE}T00:00:05Z` } },
    { idEnvio: 'caja2', endToEndId: 'E12345678202611271401abcdefghijk', valor: '5.00', status: 'EM_PROCESSAMENTO', horario: { solicitacao: `${DATE}T14:00:00Z` } },
    { idEnvio: 'caja3', endToEndId: 'E12345678202611271402abcdefghijk', valor: '6.00', status: 'NAO_REALIZADO', horario: { solicitacao: `${DATE}T14:00:00Z` } },
    { idEnvio: 'caja4', endToEndId: 'E12345678202611281403abcdefghijk', valor: '7.00', status: 'REALIZADO', horario: { solicitacao: '2026-11-28T00:00:00Z', liquidacao: '2026-11-28T00:00:01Z' } },
    { idEnvio: 'caja5', endToEndId: 'E12345678202611271404abcdefghijk', valor: 'x', status: 'REALIZADO', horario: { solicitacao: `${DATE}T14:00:00Z`, liquidacao: `${DATE}T14:00:01Z` } },
  ];
  const { movements, unreadable } = pixSendMovements(list, DATE);
  assert.deepEqual(movements, [{ amount: '20.00', direction: 'debit', date: DATE, bankId: e2e, endToEndId: e2e, info: 'pix sent caja1' }]);
  assert.deepEqual(unreadable, ['send caja5']);
});

test('a day\'s file: the same movements are the same bytes; a late movement another statement; it reads back with its references', () => {
  const day = {
    account: ORDERING, currency: 'MXN', date: DATE, movements: [
      { amount: '250.50', direction: 'credit' as const, date: DATE, bankId: 'R4000001', claveRastreo: 'MBAN000004000001', counterparty: { account: PAYER } },
      { amount: '180.00', direction: 'debit' as const, date: DATE, bankId: 'E4000003', claveRastreo: 'CAJAPAYOUT1' },
    ],
  };
  const file = providerDayFile(day);
  assert.equal(providerDayFile(structuredClone(day)), file);
  const later = providerDayFile({ ...day, movements: [...day.movements, { amount: '1.00', direction: 'credit' as const, date: DATE, bankId: 'R4000009', claveRastreo: 'LATE1' }] });
  const [a, b] = [parseStatement('camt', Buffer.from(file)), parseStatement('camt', Buffer.from(later))];
  assert.notEqual(a.statementRef, b.statementRef);
  assert.ok(a.statementRef.length <= 35);
  assert.equal(a.format, 'camt054');
  assert.equal(a.account, `acct:${ORDERING}`);
  assert.deepEqual(a.entries.map((e) => [e.key, e.direction, e.amount, e.refs.claveRastreo, e.refs.clabe]), [
    ['R4000001', 'credit', '250.50', 'MBAN000004000001', PAYER],
    ['E4000003', 'debit', '180.00', 'CAJAPAYOUT1', undefined],
  ]);
});

test('the worker fetches the closed days before today, oldest first; a day is a calendar day', () => {
  assert.deepEqual(daysToFetch(new Date('2026-03-01T01:00:00Z'), 3), ['2026-02-26', '2026-02-27', '2026-02-28']);
  assert.equal(isDay('2026-02-28'), true);
  assert.equal(isDay('2026-02-29'), false);
  assert.equal(isDay('26-02-28'), false);
});
