// A walk through every JSON operation of caja as a client calls them, recording each request and
// answer. The OpenAPI test checks every answer against /openapi.json; the examples script
// (scripts/openapi-examples.ts) keeps the first answer per operation and status as the examples.
import { admin, bearer, cashoutRequest, createMerchant, type Res, V3Client } from './clients.ts';
import { cpf } from './documents.ts';
import { ADMIN_TOKEN } from './server.ts';

export interface Recorded {
  /** `<method> <path template>`, as in the OpenAPI document. */
  key: string;
  status: number;
  request?: unknown;
  response: unknown;
}

/**
 * `settle` makes the settlement reports that are due (the worker's pass, at a time past today's
 * end): the caller has the server's context, the tour only its URL.
 */
export async function apiTour(base: string, o: { settle: () => Promise<unknown> }): Promise<Recorded[]> {
  const out: Recorded[] = [];
  const rec = async (method: string, template: string, request: unknown, call: Promise<Res>) => {
    const r = await call;
    out.push({ key: `${method} ${template}`, status: r.status, request, response: r.body });
    return r;
  };
  const merchantBody = { name: 'Acme', notification_url: 'https://shop.example/caja' };
  const created = await createMerchant(base, 'Acme', { notification_url: 'https://shop.example/caja' });
  out.push({ key: 'post /admin/merchants', status: 201, request: merchantBody, response: created });
  const id = created.merchant_id;
  await rec('get', '/admin/merchants/{id}', undefined, admin(base, 'GET', `/admin/merchants/${id}`));
  const patch = { return_url: 'https://shop.example/back' };
  await rec('patch', '/admin/merchants/{id}', patch, admin(base, 'PATCH', `/admin/merchants/${id}`, patch));
  const fees = { fee: { BANK_TRANSFER: '1.25' }, surcharge: { VOUCHER: '0.75' } };
  await rec('put', '/admin/merchants/{id}/fees', fees, admin(base, 'PUT', `/admin/merchants/${id}/fees`, fees));
  await rec('get', '/admin/merchants/{id}/fees', undefined, admin(base, 'GET', `/admin/merchants/${id}/fees`));
  const v3 = V3Client.deposits(base, created);
  const v5 = V3Client.cashouts(base, created);
  await rec('get', '/health', undefined, fetch(`${base}/health`).then(async (r) => ({ status: r.status, headers: r.headers, body: await r.json(), text: '' })));
  await rec('get', '/health/ready', undefined, fetch(`${base}/health/ready`).then(async (r) => ({ status: r.status, headers: r.headers, body: await r.json(), text: '' })));
  await rec('get', '/v3/me', undefined, v3.get('/v3/me'));
  await rec('get', '/v3/me', undefined, new V3Client(base, created.deposits.login, 'wrong-secret').get('/v3/me'));
  await rec('get', '/v5/me', undefined, v5.get('/v5/me'));
  const payer = { document: cpf('529982247'), first_name: 'Maria', last_name: 'Souza', email: 'maria@example.com' };
  const depositBody = { country: 'BR', amount: '100.00', currency: 'BRL', payment_method: 'IX', payer, notification_url: 'https://shop.example/caja' };
  const d = (await rec('post', '/v3/deposits', depositBody, v3.post('/v3/deposits', depositBody))).body.deposit_id;
  await rec('post', '/v3/deposits', { country: 'BR', amount: '100.001' }, v3.post('/v3/deposits', { country: 'BR', amount: '100.001' }));
  const hosted = { country: 'MX', amount: '250.00', currency: 'MXN' };
  const h = (await rec('post', '/v3/deposits', hosted, v3.post('/v3/deposits', hosted))).body.deposit_id;
  await rec('get', '/v3/deposits/{id}', undefined, v3.get(`/v3/deposits/${d}`));
  await rec('get', '/v3/deposits/{id}', undefined, v3.get('/v3/deposits/2000000000'));
  await rec('post', '/v3/sandbox/deposits/{id}/approve', undefined, v3.post(`/v3/sandbox/deposits/${d}/approve`, ''));
  await rec('post', '/v3/sandbox/deposits/{id}/cancel', undefined, v3.post(`/v3/sandbox/deposits/${h}/cancel`, ''));
  const e = (await v3.post('/v3/deposits', depositBody)).body.deposit_id;
  await rec('post', '/v3/sandbox/deposits/{id}/expire', undefined, v3.post(`/v3/sandbox/deposits/${e}/expire`, ''));
  await rec('get', '/v3/deposits', undefined, v3.get('/v3/deposits?limit=2'));
  const late = { note: 'Paid after expiry, bank statement 2026-11-23' };
  await rec('post', '/admin/deposits/{id}/complete', late, admin(base, 'POST', `/admin/deposits/${e}/complete`, late));
  await rec('get', '/admin/deposits/{id}', undefined, admin(base, 'GET', `/admin/deposits/${d}`));
  await rec('get', '/admin/returns', undefined, admin(base, 'GET', '/admin/returns'));
  const refundBody = { deposit_id: d, amount: '10.00', bank_account: { beneficiary: 'Maria Souza', bank_code: '260', branch: '0001', account_number: '12345-6', account_type: 'CHECKING' } };
  const r1 = (await rec('post', '/v3/refunds', refundBody, v3.post('/v3/refunds', refundBody))).body.refund_id;
  await rec('post', '/v3/refunds', { deposit_id: d, amount: '1000.00' }, v3.post('/v3/refunds', { ...refundBody, amount: '1000.00' }));
  await rec('get', '/v3/refunds/{id}', undefined, v3.get(`/v3/refunds/${r1}`));
  await rec('post', '/v3/sandbox/refunds/{id}/complete', undefined, v3.post(`/v3/sandbox/refunds/${r1}/complete`, ''));
  const r2 = (await v3.post('/v3/refunds', refundBody)).body.refund_id;
  await rec('post', '/v3/sandbox/refunds/{id}/reject', undefined, v3.post(`/v3/sandbox/refunds/${r2}/reject`, ''));
  await rec('get', '/v3/events', undefined, v3.get('/v3/events?limit=3'));
  const list = await rec('get', '/v3/notifications', undefined, v3.get('/v3/notifications?limit=2'));
  const n = list.body.notifications[0].id;
  await rec('get', '/v3/notifications/{id}', undefined, v3.get(`/v3/notifications/${n}`));
  await rec('post', '/v3/notifications/{id}/resend', undefined, v3.post(`/v3/notifications/${n}/resend`, ''));
  await rec('get', '/admin/merchants/{id}/notifications', undefined, admin(base, 'GET', `/admin/merchants/${id}/notifications?limit=1`));
  await rec('get', '/admin/notifications/{id}', undefined, admin(base, 'GET', `/admin/notifications/${n}`));
  await rec('post', '/admin/notifications/{id}/resend', undefined, admin(base, 'POST', `/admin/notifications/${n}/resend`));
  for (const path of ['/v3/banks', '/v3/payment_methods', '/v3/states']) await rec('get', path, undefined, bearer(base, created.read_only_key, `${path}?country=BR`));
  await rec('get', '/v3/exchange_rates', undefined, bearer(base, created.read_only_key, '/v3/exchange_rates?country=BR&amount=10'));
  await rec('get', '/admin/exchange_rates', undefined, admin(base, 'GET', '/admin/exchange_rates'));
  const rates = { rates: { BRL: '5.4321' } };
  await rec('put', '/admin/exchange_rates', rates, admin(base, 'PUT', '/admin/exchange_rates', rates));
  const markups = { markups: { BRL: '0.5' } };
  await rec('put', '/admin/exchange_rates/markups', markups, admin(base, 'PUT', '/admin/exchange_rates/markups', markups));
  await rec('get', '/admin/exchange_rates/sources', undefined, admin(base, 'GET', '/admin/exchange_rates/sources'));
  // Named admin tokens (docs/operators.md): made, listed, rotated, revoked.
  const tokenBody = { name: 'rates-bot', scopes: ['read', 'rates'] };
  const token = await admin(base, 'POST', '/admin/tokens', tokenBody);
  await rec('post', '/admin/tokens', tokenBody, Promise.resolve(token));
  await rec('get', '/admin/tokens', undefined, admin(base, 'GET', '/admin/tokens'));
  await rec('post', '/admin/tokens/{id}/rotate', undefined, admin(base, 'POST', `/admin/tokens/${token.body.id}/rotate`));
  await rec('delete', '/admin/tokens/{id}', undefined, admin(base, 'DELETE', `/admin/tokens/${token.body.id}`));
  const limit = { merchant_id: id, country: 'BR', payment_method: '*', per_transaction: '5000.00', daily: '20000.00' };
  await rec('put', '/admin/limits', limit, admin(base, 'PUT', '/admin/limits', limit));
  await rec('get', '/admin/limits', undefined, admin(base, 'GET', '/admin/limits'));
  const adjustment = { direction: 'credit', amount: '500.00', currency: 'USD', reason: 'opening balance' };
  await rec('post', '/admin/merchants/{id}/balance_adjustments', adjustment, admin(base, 'POST', `/admin/merchants/${id}/balance_adjustments`, adjustment));
  await rec('get', '/admin/merchants/{id}/balance', undefined, admin(base, 'GET', `/admin/merchants/${id}/balance`));
  await rec('get', '/admin/ledger/check', undefined, admin(base, 'GET', '/admin/ledger/check'));
  // Settlement reports (docs/balance.md): the day's report once the worker made it.
  await o.settle();
  const reports = await rec('get', '/v3/settlements', undefined, v3.get('/v3/settlements?currency=USD&limit=1'));
  const day = reports.body.data[0].date as string;
  await rec('get', '/v3/settlements/{currency}/{date}', undefined, v3.get(`/v3/settlements/USD/${day}`));
  // The Pix connector (docs/connectors.md; configured for real in test/connectors/pix.test.ts).
  await rec('get', '/admin/connectors/pix', undefined, admin(base, 'GET', '/admin/connectors/pix'));
  const pixConfig = { api_url: 'http://psp.example/v2', token_url: 'https://psp.example/oauth/token', client_id: 'caja', client_secret: 's', certificate: 'x', private_key: 'y', pix_key: 'pix@caja.example' };
  await rec('put', '/admin/connectors/pix', pixConfig, admin(base, 'PUT', '/admin/connectors/pix', pixConfig));
  await rec('get', '/admin/connectors/pix/payments', undefined, admin(base, 'GET', '/admin/connectors/pix/payments?status=unmatched'));
  // The operator's own accounts (a method nothing else in the tour uses, so its deposits are unchanged).
  const ownAccounts = { accounts: [{ country: 'BR', method: 'SB', beneficiary_name: 'Operadora Pagamentos Ltda', agency: '4417', account: '13009218-7', document: '11444777000161' }] };
  await rec('put', '/admin/connectors/own_accounts', ownAccounts, admin(base, 'PUT', '/admin/connectors/own_accounts', ownAccounts));
  await rec('get', '/admin/connectors/own_accounts', undefined, admin(base, 'GET', '/admin/connectors/own_accounts'));
  // The STP connector (docs/connectors.md; configured for real in test/connectors/stp.test.ts).
  await rec('get', '/admin/connectors/stp', undefined, admin(base, 'GET', '/admin/connectors/stp'));
  const stpConfig = { api_url: 'http://stp.example', empresa: 'CAJA', private_key: 'x', private_key_passphrase: 'y', clabe_prefix: '6461801234', ordering_clabe: '646180123400000007', ordering_name: 'Operadora', ordering_rfc: 'OCA200101AB1' };
  await rec('put', '/admin/connectors/stp', stpConfig, admin(base, 'PUT', '/admin/connectors/stp', stpConfig));
  await rec('get', '/admin/connectors/stp/payments', undefined, admin(base, 'GET', '/admin/connectors/stp/payments?status=unmatched'));
  // The Adyen connector (docs/connectors.md; configured for real in test/connectors/adyen.test.ts;
  // here refused, so the tour's card deposits stay staging's).
  await rec('get', '/admin/connectors/adyen', undefined, admin(base, 'GET', '/admin/connectors/adyen'));
  const adyenConfig = { api_key: 'AQE…', merchant_account: 'CajaECOM', hmac_key: 'not-hex', endpoint: 'live', methods: { BR: ['VI', 'MC', 'BL'], MX: ['VI', 'MC', 'OX'] } };
  await rec('put', '/admin/connectors/adyen', adyenConfig, admin(base, 'PUT', '/admin/connectors/adyen', adyenConfig));
  await rec('get', '/admin/connectors/adyen/payments', undefined, admin(base, 'GET', '/admin/connectors/adyen/payments?status=applied'));
  await rec('get', '/admin/connectors/adyen/disputes', undefined, admin(base, 'GET', '/admin/connectors/adyen/disputes'));
  // Reconciliation: a camt.053 with one credit nothing names, then the exceptions queue.
  const statement = `<?xml version="1.0" encoding="UTF-8"?>
<Document xmlns="urn:iso:std:iso:20022:tech:xsd:camt.053.001.02"><BkToCstmrStmt><GrpHdr><MsgId>TOUR-1</MsgId><CreDtTm>2026-11-25T23:00:00</CreDtTm></GrpHdr>
<Stmt><Id>TOUR-2026-11-25</Id><CreDtTm>2026-11-25T23:00:00</CreDtTm><Acct><Id><Othr><Id>13009218-7</Id></Othr></Id><Ccy>BRL</Ccy></Acct>
<Bal><Tp><CdOrPrtry><Cd>OPBD</Cd></CdOrPrtry></Tp><Amt Ccy="BRL">1000.00</Amt><CdtDbtInd>CRDT</CdtDbtInd><Dt><Dt>2026-11-25</Dt></Dt></Bal>
<Bal><Tp><CdOrPrtry><Cd>CLBD</Cd></CdOrPrtry></Tp><Amt Ccy="BRL">1012.34</Amt><CdtDbtInd>CRDT</CdtDbtInd><Dt><Dt>2026-11-25</Dt></Dt></Bal>
<Ntry><Amt Ccy="BRL">12.34</Amt><CdtDbtInd>CRDT</CdtDbtInd><Sts>BOOK</Sts><BookgDt><Dt>2026-11-25</Dt></BookgDt><AcctSvcrRef>TOUR-E1</AcctSvcrRef><BkTxCd><Prtry><Cd>RCDT</Cd></Prtry></BkTxCd></Ntry>
</Stmt></BkToCstmrStmt></Document>`;
  const upload = () => fetch(`${base}/admin/reconciliation/statements`, { method: 'POST', headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/xml' }, body: statement })
    .then(async (r) => ({ status: r.status, headers: r.headers, body: await r.json(), text: '' }));
  await rec('post', '/admin/reconciliation/statements', undefined, upload());
  await rec('post', '/admin/reconciliation/statements', undefined, upload());
  await rec('post', '/admin/reconciliation/statements', undefined, fetch(`${base}/admin/reconciliation/statements?format=cnab240`, { method: 'POST', headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'text/plain' }, body: 'short line\n' })
    .then(async (r) => ({ status: r.status, headers: r.headers, body: await r.json(), text: '' })));
  await rec('get', '/admin/reconciliation/statements', undefined, admin(base, 'GET', '/admin/reconciliation/statements?limit=5'));
  await rec('get', '/admin/reconciliation/matches', undefined, admin(base, 'GET', '/admin/reconciliation/matches?limit=5'));
  const open = await rec('get', '/admin/reconciliation/exceptions', undefined, admin(base, 'GET', '/admin/reconciliation/exceptions?limit=5'));
  const resolution = { action: 'book_adjustment', reason: 'unidentified transfer, kept pending the payer' };
  await rec('post', '/admin/reconciliation/exceptions/{id}/resolve', resolution, admin(base, 'POST', `/admin/reconciliation/exceptions/${open.body.data[0].id}/resolve`, resolution));
  await rec('post', '/admin/reconciliation/exceptions/{id}/resolve', resolution, admin(base, 'POST', `/admin/reconciliation/exceptions/${open.body.data[0].id}/resolve`, resolution));
  const fetchDay = { date: '2026-11-25' };
  await rec('post', '/admin/reconciliation/provider-statements', fetchDay, admin(base, 'POST', '/admin/reconciliation/provider-statements', fetchDay));
  const notConfigured = { date: '2026-11-25', connector: 'stp' };
  await rec('post', '/admin/reconciliation/provider-statements', notConfigured, admin(base, 'POST', '/admin/reconciliation/provider-statements', notConfigured));
  await rec('get', '/v3/balance', undefined, v3.get('/v3/balance'));
  await rec('get', '/v3/balance/transactions', undefined, v3.get('/v3/balance/transactions?limit=2'));
  const cashoutBody = {
    external_id: 'payout-2026-0001', country: 'BR', currency: 'USD', amount: '20.00', document_id: cpf('529982247'), beneficiary_name: 'Maria', beneficiary_lastname: 'Souza',
    bank_code: '260', bank_account: '12345-6', bank_branch: '0001', account_type: 'C', notification_url: 'https://shop.example/payouts',
  };
  const cashout = (body: Record<string, unknown>, method: string, path: string) =>
    rec(method.toLowerCase(), path, { login: created.cashouts.login, pass: created.cashouts.pass, ...body }, cashoutRequest(base, created, method, path, body));
  const c = (await cashout(cashoutBody, 'POST', '/v3/cashout')).body.cashout_id;
  await cashout(cashoutBody, 'POST', '/v3/cashout');
  await cashout({ cashout_id: c }, 'POST', '/v3/cashout/status');
  await cashout({ cashout_id: 2000000000 }, 'POST', '/v3/cashout/status');
  await cashout({ cashout_id: c, status: 'ON_HOLD' }, 'PUT', '/v3/cashout/status');
  await cashout({ cashout_id: c, external_id: cashoutBody.external_id }, 'DELETE', '/v3/cashout/cancel');
  const c2 = (await cashoutRequest(base, created, 'POST', '/v3/cashout', { ...cashoutBody, external_id: 'payout-2026-0002' })).body.cashout_id;
  await rec('post', '/v3/sandbox/cashouts/{id}/deliver', undefined, v3.post(`/v3/sandbox/cashouts/${c2}/deliver`, ''));
  await rec('post', '/v3/sandbox/cashouts/{id}/complete', undefined, v3.post(`/v3/sandbox/cashouts/${c2}/complete`, ''));
  await rec('post', '/v3/sandbox/cashouts/{id}/reject', undefined, v3.post(`/v3/sandbox/cashouts/${c2}/reject`, { rejection_code: '801' }));
  const validate = { country: 'BR', document: cpf('529982247'), first_name: 'Maria', last_name: 'Souza', bank_account: { bank_code: '260', account: '12345-6', branch: '0001', account_type: 'C' } };
  await rec('post', '/v5/account/validate', validate, v5.post('/v5/account/validate', validate));
  const pix = [{ pix: 'maria@example.com' }, { pix: '+5511987654321' }];
  await rec('post', '/v5/account/pix_key/validate', pix, v5.post('/v5/account/pix_key/validate', pix));
  const rotate = { set: 'read_only' };
  await rec('post', '/admin/merchants/{id}/rotate', rotate, admin(base, 'POST', `/admin/merchants/${id}/rotate`, rotate));
  return out;
}
