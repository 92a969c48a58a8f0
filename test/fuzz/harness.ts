// The hostile-client fuzzer shared by the CI test (test/fuzz/fuzz.test.ts, a short pass) and
// `npm run fuzz` (scripts/fuzz.ts, long passes). Every request is correctly signed for its style
// (v3/v5 headers, cashout Payload-Signature, streamline controls, admin and read-only bearers),
// so it reaches the real validation and business logic, and then one or two of its parts are
// replaced with hostile values: NUL, lone surrogates, huge and non-finite numbers, deep nesting,
// wrong types, very long strings, malformed encodings, wrong content types, hostile path ids and
// paging values. The property: no 5xx, no streamline body hiding an internal error, and the
// service still healthy afterwards.
import { createHmac } from 'node:crypto';
import fc from 'fast-check';
import { admin, cashoutRequest, createMerchant, formPost, V3Client, type Credentials, xDateNow } from '../helpers/clients.ts';
import { cpf } from '../helpers/documents.ts';
import { ADMIN_TOKEN } from '../helpers/server.ts';

type Style = 'v3' | 'v5' | 'cashout' | 'streamline' | 'admin' | 'readonly' | 'public';

export interface Route {
  style: Style;
  method: string;
  /** `{id}` is replaced by a real id of the right kind (or by a hostile one). */
  path: string;
  query?: Record<string, string>;
  /** JSON body (v3, v5, cashout, admin) or form fields (streamline). */
  body?: Record<string, unknown> | unknown[];
  /** Streamline: which control the form carries, recomputed after mutation. */
  control?: 'invoice' | 'refund';
}

export interface Fixtures {
  m: Credentials;
  /** A second merchant, whose credentials the rotate route may change without locking the fuzzer out. */
  otherMerchantId: number;
  depositId: number;
  invoice: string;
  refundId: number;
  cashoutId: number;
  externalId: string;
  notificationId: number;
  streamlineInvoice: string;
  streamlineDocument: string;
  /** A named admin token the rotate and revoke routes may change (the fuzzer itself uses the bootstrap token). */
  tokenId: number;
}

const hmacHex = (key: string, msg: string | Buffer) => createHmac('sha256', key).update(msg).digest('hex');
const upperHmac = (key: string, msg: string) => hmacHex(key, Buffer.from(msg, 'utf8')).toUpperCase();
let seq = 0;
const unique = (p: string) => `${p}-${process.pid}-${Date.now()}-${++seq}`;

/** A merchant with a completed deposit, a refund, a cashout and a notification to point ids at. */
export async function makeFixtures(url: string): Promise<Fixtures> {
  const m = await createMerchant(url, 'Fuzz', { notification_url: 'https://shop.example/notify' });
  const v3 = V3Client.deposits(url, m);
  const payer = { document: cpf('111444777'), first_name: 'Maria', last_name: 'Souza', email: 'maria@example.com' };
  const d = await v3.post('/v3/deposits', { country: 'BR', amount: '100.00', currency: 'BRL', invoice_id: unique('fz'), payment_method: 'IX', payer });
  if (d.status !== 200) throw new Error(`fixture deposit: ${d.text}`);
  await v3.post(`/v3/sandbox/deposits/${d.body.deposit_id}/approve`, '');
  const account = { beneficiary: 'Maria Souza', bank_code: '341', branch: '0001', account_number: '12345-4', account_type: 'CHECKING' };
  const r = await v3.post('/v3/refunds', { deposit_id: d.body.deposit_id, amount: '1.00', bank_account: account });
  if (r.status !== 200) throw new Error(`fixture refund: ${r.text}`);
  await admin(url, 'POST', `/admin/merchants/${m.merchant_id}/balance_adjustments`, { direction: 'credit', amount: '1000000.00', currency: 'USD', reason: 'fuzz funding' });
  const externalId = unique('co');
  const c = await cashoutRequest(url, m, 'POST', '/v3/cashout', { ...cashoutBody(), external_id: externalId, amount: '1.00' });
  if (c.status !== 200) throw new Error(`fixture cashout: ${c.text}`);
  const n = await v3.get('/v3/notifications?limit=1');
  const fields = invoiceFields(m, unique('sl'));
  const sl = await formPost(url, '/api_curl/streamline/NewInvoice', { ...fields, x_version: '1.1', type: 'json', control: invoiceControl(m.deposits.secret_key, fields) });
  if (sl.body?.status !== '0') throw new Error(`fixture NewInvoice: ${sl.text}`);
  await v3.post(`/v3/sandbox/deposits/${sl.body.x_document}/approve`, '');
  const other = await createMerchant(url, 'Fuzz rotations');
  const token = await admin(url, 'POST', '/admin/tokens', { name: unique('fuzz').toLowerCase(), scopes: ['read'] });
  if (token.status !== 201) throw new Error(`fixture token: ${token.text}`);
  return {
    tokenId: token.body.id,
    m,
    otherMerchantId: other.merchant_id,
    depositId: d.body.deposit_id,
    invoice: d.body.merchant_invoice_id,
    refundId: r.body.refund_id,
    cashoutId: c.body.cashout_id,
    externalId,
    notificationId: n.body?.notifications?.[0]?.id ?? 1,
    streamlineInvoice: fields.x_invoice!,
    streamlineDocument: String(sl.body.x_document),
  };
}

function cashoutBody(): Record<string, unknown> {
  return {
    country: 'BR', currency: 'USD', amount: '1.00', document_id: cpf('529982247'), beneficiary_name: 'Maria', beneficiary_lastname: 'Souza',
    bank_code: '260', bank_account: '12345-6', bank_branch: '0001', account_type: 'C', on_hold: true,
  };
}

function invoiceFields(m: Credentials, invoice: string): Record<string, string> {
  return {
    x_login: m.deposits.login, x_trans_key: m.deposits.trans_key, x_invoice: invoice, x_amount: '100.00', x_currency: 'BRL', x_country: 'BR',
    x_bank: 'IX', x_iduser: '4411', x_cpf: cpf('529982247'), x_name: 'João da Silva', x_email: 'joao@example.com', x_address: 'Rua Augusta 1500',
    x_zip: '01304-001', x_city: 'São Paulo', x_state: 'SP', x_return: 'https://shop.example/return',
  };
}

const invoiceControl = (secret: string, f: Record<string, string>) => {
  const v = (k: string) => f[k] ?? '';
  return upperHmac(secret, `${v('x_invoice')}V${v('x_amount')}I${v('x_iduser')}2${v('x_bank')}1${v('x_cpf')}H${v('x_bdate')}G${v('x_email')}Y${v('x_zip')}A${v('x_address')}P${v('x_city')}S${v('x_state')}P`);
};
const refundControl = (secret: string, f: Record<string, string>) => {
  const v = (k: string) => f[k] ?? '';
  return upperHmac(secret, `A${v('x_invoice')}${v('x_document')}${v('x_amount')}${v('x_bank_beneficiary')}${v('x_bank')}${v('x_bank_account')}${v('x_account_type')}${v('x_bank_branch')}`);
};

/** Every way in, each with a valid request to start from. */
export function routes(fx: Fixtures): Route[] {
  const { m } = fx;
  const payer = { document: cpf('111444777'), first_name: 'Maria', last_name: 'Souza', email: 'maria@example.com', phone: '+5511987654321', address: { street: 'Rua A 1', city: 'São Paulo', state: 'SP', zip_code: '01304-001' } };
  const bankAccount = { beneficiary: 'Maria Souza', bank_code: '341', branch: '0001', account_number: '12345-4', account_type: 'CHECKING' };
  const web = { x_login: m.web_status.login, x_trans_key: m.web_status.trans_key };
  const dep = { x_login: m.deposits.login, x_trans_key: m.deposits.trans_key };
  return [
    { style: 'public', method: 'GET', path: '/health' },
    { style: 'public', method: 'GET', path: '/health/ready' },
    { style: 'v3', method: 'GET', path: '/v3/me' },
    { style: 'v5', method: 'GET', path: '/v5/me' },
    { style: 'v3', method: 'POST', path: '/v3/deposits', body: { country: 'BR', amount: '10.00', currency: 'BRL', invoice_id: '', payment_method: 'IX', payer, description: 'Fuzz', notification_url: 'https://shop.example/n', test: false } },
    { style: 'v3', method: 'POST', path: '/v3/deposits', body: { country: 'CL', amount: '1000', currency: 'CLP', invoice_id: '', payer: { email: 'a@example.com' }, bonus_amount: '1', strikethrough_price: '2', client_ip: '1.2.3.4', language: 'es' } },
    { style: 'v3', method: 'POST', path: '/v3/deposits', body: { country: 'MX', amount: '10.00', currency: 'USD', invoice_id: '', payment_method: 'SE', payment_types: ['BANK_TRANSFER'], fee_on_payer: true, back_url: 'https://shop.example/b', crypto: { currency: 'BTC' } } },
    { style: 'v3', method: 'GET', path: '/v3/deposits/{deposit}' },
    { style: 'v3', method: 'GET', path: '/v3/deposits', query: { status: 'COMPLETED', country: 'BR', limit: '5', before: '1000' } },
    { style: 'v3', method: 'POST', path: '/v3/sandbox/deposits/{deposit}/approve', body: { payment_method: 'IX' } },
    { style: 'v3', method: 'POST', path: '/v3/sandbox/deposits/{deposit}/cancel' },
    { style: 'v3', method: 'POST', path: '/v3/sandbox/deposits/{deposit}/expire' },
    { style: 'v3', method: 'GET', path: '/v3/events', query: { after: '0', limit: '10' } },
    { style: 'v3', method: 'GET', path: '/v3/notifications', query: { status: 'PENDING', limit: '10', before: '1000' } },
    { style: 'v3', method: 'GET', path: '/v3/notifications/{notification}' },
    { style: 'v3', method: 'POST', path: '/v3/notifications/{notification}/resend' },
    { style: 'readonly', method: 'GET', path: '/v3/banks', query: { country: 'BR' } },
    { style: 'readonly', method: 'GET', path: '/v3/payment_methods', query: { country: 'BR' } },
    { style: 'readonly', method: 'GET', path: '/v3/states', query: { country: 'BR' } },
    { style: 'readonly', method: 'GET', path: '/v3/exchange_rates', query: { country: 'BR', amount: '10', payment_method: 'IX' } },
    { style: 'v3', method: 'POST', path: '/v3/refunds', body: { deposit_id: fx.depositId, amount: '0.01', bank_account: bankAccount, comments: 'fuzz', notification_url: 'https://shop.example/r' } },
    { style: 'v3', method: 'POST', path: '/v3/refunds', body: { invoice_id: fx.invoice, amount: 0.01, bank_account: { ...bankAccount, document: cpf('111444777'), document_type: 'CPF' } } },
    { style: 'v3', method: 'GET', path: '/v3/refunds/{refund}' },
    { style: 'v3', method: 'POST', path: '/v3/sandbox/refunds/{refund}/complete' },
    { style: 'v3', method: 'POST', path: '/v3/sandbox/refunds/{refund}/reject' },
    { style: 'v3', method: 'GET', path: '/v3/balance' },
    { style: 'v3', method: 'GET', path: '/v3/balance/transactions', query: { starting_after: '1', limit: '5', currency: 'USD' } },
    { style: 'v3', method: 'GET', path: '/v3/settlements', query: { currency: 'USD', from: '2026-11-01', to: '2026-11-30', limit: '10' } },
    { style: 'v3', method: 'GET', path: '/v3/settlements/{currency}/{date}', query: { format: 'csv' } },
    { style: 'v3', method: 'POST', path: '/v3/sandbox/cashouts/{cashout}/deliver' },
    { style: 'v3', method: 'POST', path: '/v3/sandbox/cashouts/{cashout}/complete' },
    { style: 'v3', method: 'POST', path: '/v3/sandbox/cashouts/{cashout}/reject', body: { rejection_code: '1' } },
    { style: 'v5', method: 'POST', path: '/v5/account/validate', body: { country: 'BR', document: cpf('529982247'), document_type: 'CPF', first_name: 'Maria', last_name: 'Souza', amount: '10.00', currency: 'USD', bank_account: { bank_code: '341', account: '12345-4', branch: '0001', account_type: 'S' } } },
    { style: 'v5', method: 'POST', path: '/v5/account/pix_key/validate', body: [{ pix: 'maria@example.com' }, { pix: '+5511987654321' }] },
    { style: 'cashout', method: 'POST', path: '/v3/cashout', body: { ...cashoutBody(), external_id: '' } },
    { style: 'cashout', method: 'POST', path: '/v3/cashout/status', body: { cashout_id: fx.cashoutId, external_id: fx.externalId } },
    { style: 'cashout', method: 'PUT', path: '/v3/cashout/status', body: { cashout_id: fx.cashoutId, status: 'PENDING' } },
    { style: 'cashout', method: 'DELETE', path: '/v3/cashout/cancel', body: { cashout_id: fx.cashoutId, external_id: fx.externalId } },
    { style: 'admin', method: 'POST', path: '/admin/merchants', body: { name: 'Fuzzed', notification_url: 'https://shop.example/n', return_url: 'https://shop.example/r', logo_url: 'https://shop.example/l.png' } },
    { style: 'admin', method: 'GET', path: '/admin/merchants/{merchant}' },
    { style: 'admin', method: 'PATCH', path: '/admin/merchants/{merchant}', body: { name: 'Fuzz', features: { account_validation: true }, settlement_currency: 'USD' } },
    { style: 'admin', method: 'GET', path: '/admin/merchants/{other}/fees' },
    { style: 'admin', method: 'PUT', path: '/admin/merchants/{other}/fees', body: { fee: { VOUCHER: '2.25', CREDIT_CARD: 3 }, surcharge: { VOUCHER: '0.5' } } },
    { style: 'admin', method: 'GET', path: '/admin/deposits/{deposit}' },
    { style: 'admin', method: 'POST', path: '/admin/deposits/{deposit}/complete', body: { note: 'fuzz' } },
    { style: 'admin', method: 'GET', path: '/admin/limits' },
    { style: 'admin', method: 'PUT', path: '/admin/limits', body: { merchant_id: m.merchant_id, country: 'BR', payment_method: 'IX', per_transaction: '100000.00', daily: '1000000.00', monthly: '10000000.00' } },
    { style: 'admin', method: 'GET', path: '/admin/merchants/{merchant}/notifications', query: { status: 'PENDING', limit: '10', before: '1000' } },
    { style: 'admin', method: 'GET', path: '/admin/notifications/{notification}' },
    { style: 'admin', method: 'POST', path: '/admin/notifications/{notification}/resend' },
    { style: 'admin', method: 'GET', path: '/admin/exchange_rates' },
    { style: 'admin', method: 'POST', path: '/admin/merchants/{merchant}/balance_adjustments', body: { direction: 'credit', amount: '0.01', currency: 'USD', reason: 'fuzz' } },
    { style: 'admin', method: 'GET', path: '/admin/merchants/{merchant}/balance' },
    { style: 'admin', method: 'GET', path: '/admin/ledger/check' },
    { style: 'admin', method: 'POST', path: '/admin/merchants/{other}/rotate', body: { set: 'deposits' } },
    { style: 'admin', method: 'PUT', path: '/admin/exchange_rates', body: { rates: { BRL: '5.4321' } } },
    { style: 'admin', method: 'GET', path: '/admin/exchange_rates/sources' },
    { style: 'admin', method: 'PUT', path: '/admin/exchange_rates/markups', body: { markups: { BRL: '0.5', MXN: '-0.25' } } },
    { style: 'admin', method: 'GET', path: '/admin/tokens' },
    { style: 'admin', method: 'POST', path: '/admin/tokens', body: { name: 'fuzz-made', scopes: ['read', 'rates'] } },
    { style: 'admin', method: 'POST', path: '/admin/tokens/{token}/rotate' },
    { style: 'admin', method: 'DELETE', path: '/admin/tokens/{token}' },
    { style: 'admin', method: 'GET', path: '/admin/connectors/pix' },
    { style: 'admin', method: 'PUT', path: '/admin/connectors/pix', body: { api_url: 'https://psp.example/v2', token_url: 'https://psp.example/oauth/token', client_id: 'caja', client_secret: 's3cret', certificate: '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----', private_key: '-----BEGIN PRIVATE KEY-----\nMIIE\n-----END PRIVATE KEY-----', ca: null, pix_key: 'pix@operator.example' } },
    { style: 'admin', method: 'GET', path: '/admin/connectors/pix/payments', query: { status: 'unmatched', limit: '10' } },
    { style: 'admin', method: 'GET', path: '/admin/connectors/own_accounts' },
    // A JSON body is not a statement (415); the files themselves are fuzzed by test/reconciliation.
    { style: 'admin', method: 'POST', path: '/admin/reconciliation/statements', query: { format: 'camt053' }, body: { statement: '<Document/>' } },
    { style: 'admin', method: 'GET', path: '/admin/reconciliation/statements', query: { limit: '10', before: '1000' } },
    { style: 'admin', method: 'GET', path: '/admin/reconciliation/matches', query: { limit: '10', statement_id: '1' } },
    { style: 'admin', method: 'GET', path: '/admin/reconciliation/exceptions', query: { status: 'open', limit: '10' } },
    { style: 'admin', method: 'POST', path: '/admin/reconciliation/provider-statements', body: { date: '2026-01-05', connector: 'stp' } },
    { style: 'admin', method: 'POST', path: '/admin/reconciliation/exceptions/{deposit}/resolve', body: { action: 'match', target: { type: 'deposit', id: fx.depositId }, reason: 'fuzz' } },
    { style: 'admin', method: 'PUT', path: '/admin/connectors/own_accounts', body: { accounts: [{ country: 'BR', method: 'B', beneficiary_name: 'Operadora Ltda', agency: '1234', account: '98765-4', document: '11444777000161' }] } },
    { style: 'public', method: 'POST', path: '/connectors/pix/webhook/pix', body: { pix: [{ endToEndId: 'E1234567820261126120012345678901', txid: 'caja000000000001abcdefabcdefabcd', valor: '10.00', chave: 'pix@operator.example', horario: '2026-11-26T12:00:00.000Z' }] } },
    { style: 'public', method: 'POST', path: '/connectors/pix/webhook', body: { pix: [] } },
    // The return leg of a charge (a customer's browser back from a provider's page): a forged one is a 404 page.
    { style: 'public', method: 'GET', path: '/connectors/pix/return/{deposit}', query: { redirectResult: 'x' } },
    { style: 'public', method: 'POST', path: '/connectors/pix/return/{deposit}', body: { MD: 'x', PaRes: 'y' } },
    { style: 'admin', method: 'GET', path: '/admin/connectors/stp' },
    { style: 'admin', method: 'GET', path: '/admin/connectors/stp/payments', query: { status: 'unmatched', limit: '10' } },
    { style: 'admin', method: 'PUT', path: '/admin/connectors/stp', body: { api_url: 'https://stp.example/speiws/rest', empresa: 'CAJA', private_key: '-----BEGIN ENCRYPTED PRIVATE KEY-----\nMIIE\n-----END ENCRYPTED PRIVATE KEY-----', private_key_passphrase: 'p', clabe_prefix: '6461801234', ordering_clabe: '646180123400000007', ordering_name: 'Operadora SA de CV', ordering_rfc: 'OCA200101AB1', webhook_secret: null, ca: null } },
    { style: 'public', method: 'POST', path: '/connectors/stp/abono', body: { id: 1, fechaOperacion: 20261126, institucionOrdenante: 40012, claveRastreo: 'MBAN01001', monto: 100.5, cuentaBeneficiario: '646180123400000007', nombreOrdenante: 'JUAN', conceptoPago: 'PAGO', referenciaNumerica: 1234567, tsLiquidacion: '1764158400000' } },
    { style: 'public', method: 'POST', path: '/connectors/stp/estado', body: { id: 4000001, empresa: 'CAJA', folioOrigen: 'CAJA0000000001ABCDEF0123', estado: 'LIQUIDACION' } },
    { style: 'admin', method: 'GET', path: '/admin/connectors/adyen' },
    { style: 'admin', method: 'GET', path: '/admin/connectors/adyen/disputes', query: { limit: '10' } },
    { style: 'admin', method: 'GET', path: '/admin/connectors/adyen/payments', query: { status: 'applied', limit: '10' } },
    { style: 'admin', method: 'PUT', path: '/admin/connectors/adyen', body: { api_key: 'AQEkey', merchant_account: 'CajaECOM', hmac_key: '44782DEF547AAA06C910C43932B1EB0C71FC68D9D0C057550C48EC2ACF6BA056', hmac_key_next: null, endpoint: 'test', methods: { BR: ['VI', 'BL'], MX: ['OX'] }, ca: null } },
    { style: 'public', method: 'POST', path: '/connectors/adyen/notifications', body: { live: 'false', notificationItems: [{ NotificationRequestItem: { pspReference: '8815658961765250', merchantAccountCode: 'CajaECOM', merchantReference: 'CJ0123', amount: { value: 12000, currency: 'BRL' }, eventCode: 'AUTHORISATION', success: 'true', additionalData: { hmacSignature: 'c2lnbmF0dXJl' } } }] } },
    { style: 'streamline', method: 'POST', path: '/api_curl/streamline/NewInvoice', body: { ...invoiceFields(m, ''), x_version: '1.1', type: 'json' }, control: 'invoice' },
    { style: 'streamline', method: 'POST', path: '/apd/webpaystatus', body: { ...web, x_invoice: fx.streamlineInvoice, type: 'JSON' } },
    { style: 'streamline', method: 'POST', path: '/api_curl/apd/refund', body: { ...dep, x_invoice: fx.streamlineInvoice, x_document: fx.streamlineDocument, x_amount: '0.01', x_currency: 'BRL', x_bank_beneficiary: 'João da Silva', x_bank: 'Itaú', x_bank_code: '341', x_bank_account: '12345-4', x_account_type: 'C', x_bank_branch: '0001', x_comments: 'fuzz', type: 'JSON' }, control: 'refund' },
    { style: 'streamline', method: 'POST', path: '/api_curl/query/refundstatus', body: { ...web, x_refund: String(fx.refundId), type: 'JSON' } },
    { style: 'streamline', method: 'POST', path: '/api_curl/apd/get_banks_by_country', body: { ...dep, country_code: 'BR', type: 'json' } },
    { style: 'streamline', method: 'POST', path: '/apd/webcurrencyexchange', body: { ...web, x_country: 'BR', x_amount: '10.00', type: 'JSON' } },
  ];
}

// Hostile JSON values, as raw JSON text so that numbers a double cannot hold (1e309, 30 digits)
// and escapes (\u0000, a lone \ud800) reach the server exactly as a hostile client sends them.
const deep = (n: number) => '['.repeat(n) + ']'.repeat(n);
const deepObject = (n: number) => '{"a":'.repeat(n) + '1' + '}'.repeat(n);
const hostileJson: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(
    '"a\\u0000b"', '"\\u0000"', '"\\ud800"', '"x\\udfffy"', '"\\udc00\\ud800"', '1e309', '-1e309', '1e308', '123456789012345678901234567890',
    '2147483648', '-2147483649', '9223372036854775808', '-1', '0', '-0', '0.001', '1e-400', '0.1e1', '"Infinity"', '"-Infinity"', '"NaN"',
    '"1e309"', '"2147483648"', '"99999999999999999999"', '" 1"', '"1,5"', '"0x10"', 'true', 'false', '[]', '{}', '[1,2]', '{"$gt":""}',
    '""', '" "', '"💩"', '"<script>alert(1)</script>"', '"\' OR 1=1--"', '"../../etc/passwd"', '"%00"', '"\\\\x00"',
    '{"__proto__":{"admin":true}}', deep(100), deep(5000), deepObject(70), deepObject(3000),
  ),
  fc.string({ unit: 'binary', maxLength: 40 }).map((s) => JSON.stringify(s)),
  fc.integer().map(String),
  fc.double().map((d) => (Number.isFinite(d) ? JSON.stringify(d) : d > 0 ? '1e999' : d < 0 ? '-1e999' : '"NaN"')),
  fc.integer({ min: 1000, max: 70000 }).map((n) => JSON.stringify('x'.repeat(n))),
);

// Hostile form values, already percent-encoded (malformed encodings included).
const hostileForm: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(
    '%00', 'a%00b', '%FF%FE', '%ED%A0%80', '%', '%Z', '%%', '%E2%82', '1e309', 'Infinity', '-Infinity', 'NaN', '2147483648', '99999999999999999999',
    '-1', '0', '-0', '0.001', '1%2C5', '%20', '', 'x%3Dy%26z', '%F0%9F%92%A9', '%3Cscript%3E', 'JSON', 'XML', 'STRING', 'pipe',
  ),
  fc.string({ unit: 'binary', maxLength: 40 }).map((s) => encodeURIComponent(s.replace(/[\ud800-\udfff]/g, '\ufffd'))),
  fc.integer().map(String),
  fc.integer({ min: 1000, max: 70000 }).map((n) => 'y'.repeat(n)),
);

const hostileParam: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom('abc', '-1', '0', '1.5', '1e309', 'Infinity', 'NaN', '2147483648', '2147483647', '99999999999999999999', '9223372036854775808', '%00', '%FF', '%ED%A0%80', '1%00', ' 1', '0x10', '1e3', '', '%20', '..', '%2F'),
  fc.integer().map(String),
  fc.string({ maxLength: 12 }).map(encodeURIComponent),
);

const WRONG_CONTENT_TYPES = ['text/plain', 'application/xml', 'multipart/form-data; boundary=x', 'application/json; charset=latin1', 'application/x-www-form-urlencoded', 'application/json', 'application/jsonx', ''];

type Mutation =
  | { kind: 'field'; pick: number; value: string; nested: boolean }
  | { kind: 'extra'; name: string; value: string }
  | { kind: 'param'; value: string }
  | { kind: 'query'; pick: number; value: string }
  | { kind: 'contentType'; value: string }
  | { kind: 'rawBody'; value: string };

export interface FuzzCase {
  route: number;
  mutations: Mutation[];
}

export function caseArbitrary(routeCount: number): fc.Arbitrary<FuzzCase> {
  const mutation: fc.Arbitrary<Mutation> = fc.oneof(
    { weight: 6, arbitrary: fc.record({ kind: fc.constant('field' as const), pick: fc.nat(), value: fc.oneof(hostileJson, hostileForm), nested: fc.boolean() }) },
    { weight: 1, arbitrary: fc.record({ kind: fc.constant('extra' as const), name: fc.constantFrom('x_version', 'type', 'payer', '__proto__', 'x', 'a\u0000', '\ud800'), value: fc.oneof(hostileJson, hostileForm) }) },
    { weight: 2, arbitrary: fc.record({ kind: fc.constant('param' as const), value: hostileParam }) },
    { weight: 2, arbitrary: fc.record({ kind: fc.constant('query' as const), pick: fc.nat(), value: hostileParam }) },
    { weight: 1, arbitrary: fc.record({ kind: fc.constant('contentType' as const), value: fc.constantFrom(...WRONG_CONTENT_TYPES) }) },
    {
      weight: 1,
      arbitrary: fc.record({
        kind: fc.constant('rawBody' as const),
        value: fc.oneof(fc.constantFrom('', 'null', '[]', '"text"', '{"a":', '{', '%', 'a=%FF&b=%', deep(10000), deepObject(100), '{"a":1,"a":2}', '\u0000', '\ufeff{}'), fc.string({ unit: 'binary', maxLength: 60 })),
      }),
    },
  );
  return fc.record({ route: fc.nat({ max: routeCount - 1 }), mutations: fc.array(mutation, { minLength: 1, maxLength: 2 }) });
}

export interface Built {
  method: string;
  url: string;
  headers: Record<string, string>;
  body?: string;
  style: Style;
}

function fieldPaths(body: unknown, prefix: string[] = []): string[][] {
  if (!body || typeof body !== 'object') return [];
  const out: string[][] = [];
  for (const [k, v] of Object.entries(body)) {
    out.push([...prefix, k]);
    if (v && typeof v === 'object') out.push(...fieldPaths(v, [...prefix, k]));
  }
  return out;
}

/** Builds the signed HTTP request of a case. */
export function build(base: string, fx: Fixtures, all: Route[], c: FuzzCase): Built {
  const route = all[c.route]!;
  const ids: Record<string, string> = { deposit: String(fx.depositId), refund: String(fx.refundId), cashout: String(fx.cashoutId), notification: String(fx.notificationId), merchant: String(fx.m.merchant_id), other: String(fx.otherMerchantId), token: String(fx.tokenId), currency: 'USD', date: '2026-11-27' };
  let path = route.path.replace(/\{(\w+)\}/g, (_, k: string) => ids[k]!);
  const query = { ...(route.query ?? {}) } as Record<string, string>;
  let contentType: string | undefined = route.style === 'streamline' ? 'application/x-www-form-urlencoded' : route.body !== undefined ? 'application/json' : undefined;
  let rawBody: string | undefined;
  const body: any = route.body === undefined ? undefined : structuredClone(route.body);
  const fresh = unique('fz');
  if (body && !Array.isArray(body)) {
    // Fresh merchant-side ids, so that creations are not all refused as duplicates.
    for (const k of ['invoice_id', 'external_id', 'x_invoice']) if (body[k] === '') body[k] = fresh;
  }
  const jsonSlots: Record<string, string> = {};
  const formSlots: Record<string, string> = {};
  for (const [i, mut] of c.mutations.entries()) {
    const slot = `__FUZZ_${i}__`;
    switch (mut.kind) {
      case 'field': {
        const paths = fieldPaths(body).filter((p) => mut.nested || p.length === 1);
        if (!paths.length) break;
        const p = paths[mut.pick % paths.length]!;
        let target = body;
        for (const k of p.slice(0, -1)) target = target[k];
        target[p.at(-1)!] = slot;
        jsonSlots[slot] = mut.value;
        formSlots[slot] = mut.value;
        break;
      }
      case 'extra':
        if (body && !Array.isArray(body)) {
          body[mut.name] = slot;
          jsonSlots[slot] = mut.value;
          formSlots[slot] = mut.value;
        }
        break;
      case 'param':
        if (/\/\d+(\/|$)/.test(path)) path = path.replace(/\/\d+(?=\/|$)/, `/${mut.value}`);
        else query.limit = mut.value;
        break;
      case 'query': {
        const keys = Object.keys(query);
        const k = keys.length ? keys[mut.pick % keys.length]! : 'limit';
        query[k] = mut.value;
        break;
      }
      case 'contentType':
        contentType = mut.value || undefined;
        break;
      case 'rawBody':
        rawBody = mut.value;
        break;
    }
  }
  const headers: Record<string, string> = {};
  let raw: string | undefined;
  if (rawBody !== undefined) raw = rawBody;
  else if (body !== undefined && route.style === 'streamline') {
    // Fields in order, the control computed over the decoded values as the server reads them.
    const parts = Object.entries(body as Record<string, string>).map(([k, v]) => `${encodeURIComponent(k.replace(/[\ud800-\udfff]/g, ''))}=${formSlots[v] ?? encodeURIComponent(v)}`);
    raw = parts.join('&');
    if (route.control) {
      const decoded: Record<string, string> = {};
      for (const [k, v] of new URLSearchParams(raw)) if (!(k in decoded)) decoded[k] = v;
      const control = route.control === 'invoice' ? invoiceControl(fx.m.deposits.secret_key, decoded) : refundControl(fx.m.deposits.secret_key, decoded);
      raw += `&${route.control === 'invoice' ? 'control' : 'x_control'}=${control}`;
    }
  } else if (body !== undefined) {
    raw = JSON.stringify(body);
    for (const [slot, v] of Object.entries(jsonSlots)) raw = raw.replace(`"${slot}"`, () => v);
  }
  if (route.style === 'cashout') {
    // The cashout credentials travel in the body; keep them first so a mutation cannot drop them.
    if (rawBody === undefined && raw?.startsWith('{')) raw = `{"login":${JSON.stringify(fx.m.cashouts.login)},"pass":${JSON.stringify(fx.m.cashouts.pass)},${raw.slice(1)}`.replace(/,}$/, '}');
    headers['Payload-Signature'] = hmacHex(fx.m.cashouts.secret_key, Buffer.from(raw ?? '', 'utf8'));
  } else if (route.style === 'v3' || route.style === 'v5') {
    const login = route.style === 'v3' ? fx.m.deposits.login : fx.m.cashouts.login;
    const secret = route.style === 'v3' ? fx.m.deposits.secret_key : fx.m.cashouts.secret_key;
    const xDate = xDateNow();
    headers['X-Date'] = xDate;
    headers['X-Login'] = login;
    headers.Authorization = `SVC ${hmacHex(secret, Buffer.concat([Buffer.from(xDate + login), Buffer.from(raw ?? '', 'utf8')]))}`;
  } else if (route.style === 'admin') headers.Authorization = `Bearer ${ADMIN_TOKEN}`;
  else if (route.style === 'readonly') headers.Authorization = `Bearer ${fx.m.read_only_key}`;
  if (contentType && raw !== undefined) headers['Content-Type'] = contentType;
  const qs = Object.entries(query).map(([k, v]) => `${k}=${v}`).join('&');
  return { method: route.method, url: `${base}${path}${qs ? `?${qs}` : ''}`, headers, body: raw, style: route.style };
}

/** Sends one request; answers a failure description, or null when the answer is acceptable. */
export async function check(req: Built): Promise<{ status: number; failure: string | null }> {
  let r: Response;
  try {
    r = await fetch(req.url, { method: req.method, headers: req.headers, body: req.method === 'GET' ? undefined : req.body });
  } catch (err) {
    return { status: 0, failure: `${req.method} ${req.url}: connection failed (${(err as Error).message})` };
  }
  const text = await r.text();
  const what = () => `${req.method} ${req.url.replace(/^https?:\/\/[^/]+/, '').slice(0, 120)} ${JSON.stringify(req.body ?? '').slice(0, 160)} → ${r.status} ${text.slice(0, 200)}`;
  if (r.status >= 500) return { status: r.status, failure: what() };
  // Streamline answers business errors as HTTP 200: an internal error would hide there.
  if (req.style === 'streamline' && /error_code["'>|:=\s]*500\b|Internal error/.test(text)) return { status: 500, failure: `hidden 500: ${what()}` };
  if (/at .*\.ts:\d+/.test(text)) return { status: r.status, failure: `stack trace: ${what()}` };
  return { status: r.status, failure: null };
}

export async function healthy(base: string): Promise<boolean> {
  const r = await fetch(`${base}/health`).catch(() => null);
  return r?.status === 200;
}

export interface FuzzReport {
  sent: number;
  byStatus: Record<number, number>;
  serverErrors: number;
  failures: string[];
  seconds: number;
}

/** Runs `count` generated cases with `concurrency` in flight; stops collecting detail after 50 failures. */
export async function runFuzz(base: string, fx: Fixtures, opts: { count: number; seed: number; concurrency?: number; onProgress?: (r: FuzzReport) => void }): Promise<FuzzReport> {
  const all = routes(fx);
  const started = Date.now();
  const report: FuzzReport = { sent: 0, byStatus: {}, serverErrors: 0, failures: [], seconds: 0 };
  const arb = caseArbitrary(all.length);
  const cases = fc.sample(arb, { numRuns: opts.count, seed: opts.seed });
  let next = 0;
  const worker = async () => {
    while (next < cases.length) {
      const c = cases[next++]!;
      const { status, failure } = await check(build(base, fx, all, c));
      report.sent++;
      report.byStatus[status] = (report.byStatus[status] ?? 0) + 1;
      if (failure) {
        report.serverErrors++;
        if (report.failures.length < 50) report.failures.push(failure);
      }
      if (report.sent % 1000 === 0) {
        if (!(await healthy(base))) report.failures.push(`unhealthy after ${report.sent} requests`);
        opts.onProgress?.(report);
      }
    }
  };
  await Promise.all(Array.from({ length: opts.concurrency ?? 4 }, worker));
  if (!(await healthy(base))) report.failures.push('unhealthy at the end');
  report.seconds = (Date.now() - started) / 1000;
  return report;
}
