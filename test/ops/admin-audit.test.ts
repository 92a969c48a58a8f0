// Every admin API call that changes something writes one operator_audit row naming the token
// that made it, in the change's own transaction: each write route is called once with a named
// token and its one row checked (actor, action, subject, merchant, no secret in the detail); a
// refused change writes none; and the table below is checked against the server's route table,
// so a new admin write route without an entry (and its audit) fails here.
import { execFileSync } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { admin, createMerchant, type Credentials, type Res, V3Client } from '../helpers/clients.ts';
import { registeredRoutes } from '../helpers/routes.ts';
import { backends, startTestServer, type TestServer } from '../helpers/server.ts';
import { TOKEN_SCOPES } from '../../src/operators/tokens.ts';
import type { OpsAuditRow } from '../../src/operators/audit.ts';


interface Expect {
  status: number;
  action: string;
  subject: string;
  merchantId?: number;
  /** Values that must not appear anywhere in the row (secrets sent or answered). */
  secrets?: (res: Res) => string[];
}

const PIX_SECRET = 'pix-client-secret-never-audited';
const STP_PASSPHRASE = 'stp-passphrase-never-audited';
const ADYEN_KEY = 'adyen-api-key-never-audited';
const ADYEN_HMAC = '44782DEF547AAA06C910C43932B1EB0C71FC68D9D0C057550C48EC2ACF6BA056';
const STP_KEY = generateKeyPairSync('rsa', {
  modulusLength: 2048, publicKeyEncoding: { type: 'spki', format: 'pem' }, privateKeyEncoding: { type: 'pkcs8', format: 'pem', cipher: 'aes-256-cbc', passphrase: STP_PASSPHRASE },
}).privateKey;

/** A client certificate and its key, as a PSP would issue them (self-signed here). */
function selfSigned(): { cert: string; key: string } {
  const out = execFileSync('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-keyout', '-', '-out', '-', '-subj', '/CN=caja-audit-test', '-days', '2'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
  return { cert: /-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/.exec(out)![0], key: /-----BEGIN PRIVATE KEY-----[\s\S]+?-----END PRIVATE KEY-----/.exec(out)![0] };
}
const tls = selfSigned();

for (const backend of backends()) {
  describe(`admin API audit (${backend})`, () => {
    let s: TestServer;
    let m: Credentials;
    let token: { id: number; name: string; token: string };
    const call = (method: string, path: string, body?: unknown) => admin(s.url, method, path, body, token.token);

    const rowsAfter = async (id: number) => (await s.ctx.db.query<OpsAuditRow>('SELECT * FROM operator_audit WHERE id > $1 ORDER BY id', [id])).rows;
    const lastId = async () => Number((await s.ctx.db.query<{ id: number | null }>('SELECT max(id) AS id FROM operator_audit')).rows[0]!.id ?? 0);

    async function deposit(): Promise<number> {
      // A hosted deposit (the customer picks the method later): no connector is asked, whatever is configured.
      const r = await V3Client.deposits(s.url, m).post('/v3/deposits', { country: 'MX', amount: '250.00', currency: 'MXN', notification_url: 'https://shop.example/caja' });
      assert.equal(r.status, 200, r.text);
      return r.body.deposit_id;
    }

    /** Each admin route that changes something, the call that changes it, and the row it must write. */
    const WRITES: Record<string, () => Promise<[Res, Expect]>> = {
      'POST /admin/merchants': async () => {
        const r = await call('POST', '/admin/merchants', { name: 'Audited' });
        return [r, { status: 201, action: 'merchant.created', subject: `merchant:${r.body.merchant_id}`, merchantId: r.body.merchant_id,
          secrets: (x) => [x.body.deposits.secret_key, x.body.deposits.trans_key, x.body.cashouts.pass, x.body.cashouts.secret_key, x.body.panel.password] }];
      },
      'PATCH /admin/merchants/:id': async () =>
        [await call('PATCH', `/admin/merchants/${m.merchant_id}`, { return_url: 'https://shop.example/back' }), { status: 200, action: 'merchant.settings', subject: `merchant:${m.merchant_id}`, merchantId: m.merchant_id }],
      'PUT /admin/merchants/:id/fees': async () =>
        [await call('PUT', `/admin/merchants/${m.merchant_id}/fees`, { fee: { BANK_TRANSFER: '1.25' } }), { status: 200, action: 'merchant.fees', subject: `merchant:${m.merchant_id}`, merchantId: m.merchant_id }],
      'POST /admin/merchants/:id/rotate': async () => {
        const r = await call('POST', `/admin/merchants/${m.merchant_id}/rotate`, { set: 'deposits' });
        // The merchant signs with the new set from now on.
        if (r.status === 200) m = { ...m, deposits: { ...m.deposits, ...r.body.deposits } };
        return [r, { status: 200, action: 'merchant.rotated', subject: `merchant:${m.merchant_id}`, merchantId: m.merchant_id, secrets: (x) => [x.body.deposits.secret_key, x.body.deposits.trans_key] }];
      },
      'POST /admin/merchants/:id/balance_adjustments': async () => {
        const r = await call('POST', `/admin/merchants/${m.merchant_id}/balance_adjustments`, { direction: 'credit', amount: '12.50', currency: 'USD', reason: 'audit test' });
        return [r, { status: 201, action: 'balance.adjusted', subject: `adjustment:${r.body.adjustment_id}`, merchantId: m.merchant_id }];
      },
      'PUT /admin/connectors/pix': async () => {
        // Nothing listens on port 1: the webhook registration after the save fails at once (best effort).
        const config = { api_url: 'https://127.0.0.1:1/v2', token_url: 'https://127.0.0.1:1/oauth/token', client_id: 'caja', client_secret: PIX_SECRET, certificate: tls.cert, private_key: tls.key, pix_key: 'pix@caja.example' };
        return [await call('PUT', '/admin/connectors/pix', config), { status: 200, action: 'connector.configured', subject: 'connector:pix', secrets: () => [PIX_SECRET, tls.key.split('\n')[1]!] }];
      },
      'PUT /admin/connectors/stp': async () => {
        const config = { api_url: 'https://127.0.0.1:1', empresa: 'CAJA', private_key: STP_KEY, private_key_passphrase: STP_PASSPHRASE, clabe_prefix: '6461801234', ordering_clabe: '646180123400000007', ordering_name: 'Operadora', ordering_rfc: 'OCA200101AB1' };
        return [await call('PUT', '/admin/connectors/stp', config), { status: 200, action: 'connector.configured', subject: 'connector:stp', secrets: () => [STP_KEY.split('\n')[1]!, STP_PASSPHRASE] }];
      },
      'PUT /admin/connectors/adyen': async () => {
        const body = { api_key: ADYEN_KEY, merchant_account: 'CajaECOM', hmac_key: ADYEN_HMAC, endpoint: 'test', methods: { BR: ['VI'] } };
        return [await call('PUT', '/admin/connectors/adyen', body), { status: 200, action: 'connector.configured', subject: 'connector:adyen', secrets: () => [ADYEN_KEY, ADYEN_HMAC] }];
      },
      'PUT /admin/connectors/own_accounts': async () => {
        const body = { accounts: [{ country: 'BR', method: 'SB', beneficiary_name: 'Operadora Pagamentos Ltda', agency: '4417', account: '13009218-7', document: '11444777000161' }] };
        return [await call('PUT', '/admin/connectors/own_accounts', body), { status: 200, action: 'connector.configured', subject: 'connector:own_accounts' }];
      },
      'POST /admin/deposits/:id/complete': async () => {
        const id = await deposit();
        return [await call('POST', `/admin/deposits/${id}/complete`, { note: 'paid late' }), { status: 200, action: 'deposit.completed', subject: `deposit:${id}`, merchantId: m.merchant_id }];
      },
      'PUT /admin/limits': async () =>
        [await call('PUT', '/admin/limits', { merchant_id: m.merchant_id, country: 'BR', daily: '5000' }), { status: 200, action: 'merchant.limit', subject: `limit:${m.merchant_id}:BR:*`, merchantId: m.merchant_id }],
      'PUT /admin/exchange_rates': async () => [await call('PUT', '/admin/exchange_rates', { rates: { BRL: '5.4321' } }), { status: 200, action: 'rates.set_manual', subject: '' }],
      'PUT /admin/exchange_rates/markups': async () => [await call('PUT', '/admin/exchange_rates/markups', { markups: { BRL: '0.5' } }), { status: 200, action: 'rates.markup', subject: 'BRL' }],
      'POST /admin/notifications/:id/resend': async () => {
        const list = await V3Client.deposits(s.url, m).get('/v3/notifications?limit=1');
        const n = list.body.notifications[0].id;
        return [await call('POST', `/admin/notifications/${n}/resend`), { status: 202, action: 'notification.resent', subject: `notification:${n}`, merchantId: m.merchant_id }];
      },
      'POST /admin/reconciliation/statements': async () => {
        const r = await fetch(`${s.url}/admin/reconciliation/statements`, { method: 'POST', headers: { authorization: `Bearer ${token.token}`, 'content-type': 'application/xml' }, body: statement(backend) });
        const body = await r.json();
        return [{ status: r.status, body, text: JSON.stringify(body), headers: r.headers } as Res, { status: 201, action: 'reconciliation.import', subject: `statement:${body.statement_id}` }];
      },
      'POST /admin/reconciliation/exceptions/:id/resolve': async () => {
        const open = await call('GET', '/admin/reconciliation/exceptions?limit=1');
        const id = open.body.data[0].id;
        return [await call('POST', `/admin/reconciliation/exceptions/${id}/resolve`, { action: 'book_adjustment', reason: 'unidentified transfer' }), { status: 200, action: 'reconciliation.resolve', subject: `exception:${id}` }];
      },
      'POST /admin/reconciliation/provider-statements': async () => {
        // Asked for by a token: audited as asked (the connectors saved above lists no day here, as
        // nothing answers on their port 1).
        return [await call('POST', '/admin/reconciliation/provider-statements', { date: '2026-01-05' }), { status: 200, action: 'reconciliation.fetch', subject: 'day:2026-01-05' }];
      },
      'POST /admin/tokens': async () => {
        const r = await call('POST', '/admin/tokens', { name: `bot-${backend}`, scopes: ['read'] });
        return [r, { status: 201, action: 'token.created', subject: `token:${r.body.id}`, secrets: (x) => [x.body.token] }];
      },
      'POST /admin/tokens/:id/rotate': async () => {
        const t = (await call('GET', '/admin/tokens')).body.tokens.find((x: { name: string }) => x.name === `bot-${backend}`);
        return [await call('POST', `/admin/tokens/${t.id}/rotate`), { status: 200, action: 'token.rotated', subject: `token:${t.id}`, secrets: (x) => [x.body.token] }];
      },
      'DELETE /admin/tokens/:id': async () => {
        const t = (await call('GET', '/admin/tokens')).body.tokens.find((x: { name: string }) => x.name === `bot-${backend}`);
        return [await call('DELETE', `/admin/tokens/${t.id}`), { status: 200, action: 'token.revoked', subject: `token:${t.id}` }];
      },
    };

    before(async () => {
      s = await startTestServer(backend);
      m = await createMerchant(s.url, 'Audit shop', { notification_url: 'https://shop.example/caja' });
      const made = await admin(s.url, 'POST', '/admin/tokens', { name: 'audit-all', scopes: [...TOKEN_SCOPES] });
      assert.equal(made.status, 201, made.text);
      token = made.body;
    });
    after(() => s.close());

    test('the table names every admin route that changes something: a new one without an audited entry fails here', () => {
      const writes = registeredRoutes(s.app.printRoutes({ commonPrefix: false }))
        .filter((r) => /^(POST|PUT|PATCH|DELETE) \/admin\//.test(r))
        .sort();
      assert.deepEqual(writes, Object.keys(WRITES).sort());
    });

    test('each admin write: one call, one row naming the token, the action and its subject, no secret', async () => {
      for (const [route, run] of Object.entries(WRITES)) {
        const before = await lastId();
        const [res, want] = await run();
        assert.equal(res.status, want.status, `${route}: ${res.text}`);
        const rows = await rowsAfter(before);
        assert.equal(rows.length, 1, `${route}: ${JSON.stringify(rows)}`);
        const row = rows[0]!;
        assert.deepEqual(
          { token_id: row.token_id, operator_id: row.operator_id, actor: row.actor, action: row.action, subject: row.subject ?? '' },
          { token_id: token.id, operator_id: null, actor: 'token:audit-all', action: want.action, subject: want.subject },
          route,
        );
        if (want.merchantId !== undefined) assert.equal(row.merchant_id, want.merchantId, route);
        assert.ok(row.request_id, `${route}: the request id is recorded`);
        const text = JSON.stringify(row);
        for (const secret of [token.token, ...(want.secrets?.(res) ?? [])]) {
          assert.ok(typeof secret === 'string' && secret.length > 0, `${route}: a secret to look for`);
          assert.ok(!text.includes(secret), `${route}: a secret in the audit row`);
        }
      }
    });

    test('a change refused writes no row', async () => {
      const before = await lastId();
      const refused: [string, string, unknown, number][] = [
        ['PATCH', '/admin/merchants/999999', { name: 'Nobody' }, 404],
        ['POST', '/admin/merchants/999999/rotate', { set: 'deposits' }, 404],
        ['POST', `/admin/merchants/${m.merchant_id}/balance_adjustments`, { direction: 'debit', amount: '99999999.00', currency: 'USD', reason: 'too much' }, 400],
        ['POST', '/admin/notifications/999999/resend', undefined, 404],
        ['PUT', '/admin/connectors/pix', { api_url: 'not a url' }, 400],
        ['DELETE', '/admin/tokens/999999', undefined, 404],
      ];
      for (const [method, path, body, status] of refused) {
        const r = await call(method, path, body);
        assert.equal(r.status, status, `${method} ${path}: ${r.text}`);
      }
      // A deposit completed twice: the second is an invalid transition and records nothing.
      const id = await deposit();
      assert.equal((await call('POST', `/admin/deposits/${id}/complete`, {})).status, 200);
      const afterFirst = await lastId();
      assert.equal((await call('POST', `/admin/deposits/${id}/complete`, {})).status, 409);
      assert.deepEqual((await rowsAfter(afterFirst)).map((r) => r.action), []);
      assert.deepEqual((await rowsAfter(before)).map((r) => r.action), ['deposit.completed']);
    });
  });
}

/** A camt.053 with one credit nothing names: imported with one exception. */
function statement(tag: string): string {
  return `<?xml version="1.0" encoding="UTF-8"?>
<Document xmlns="urn:iso:std:iso:20022:tech:xsd:camt.053.001.02"><BkToCstmrStmt><GrpHdr><MsgId>AUDIT-${tag}</MsgId><CreDtTm>2026-11-25T23:00:00</CreDtTm></GrpHdr>
<Stmt><Id>AUDIT-${tag}-2026-11-25</Id><CreDtTm>2026-11-25T23:00:00</CreDtTm><Acct><Id><Othr><Id>13009218-7</Id></Othr></Id><Ccy>BRL</Ccy></Acct>
<Bal><Tp><CdOrPrtry><Cd>OPBD</Cd></CdOrPrtry></Tp><Amt Ccy="BRL">1000.00</Amt><CdtDbtInd>CRDT</CdtDbtInd><Dt><Dt>2026-11-25</Dt></Dt></Bal>
<Bal><Tp><CdOrPrtry><Cd>CLBD</Cd></CdOrPrtry></Tp><Amt Ccy="BRL">1012.34</Amt><CdtDbtInd>CRDT</CdtDbtInd><Dt><Dt>2026-11-25</Dt></Dt></Bal>
<Ntry><Amt Ccy="BRL">12.34</Amt><CdtDbtInd>CRDT</CdtDbtInd><Sts>BOOK</Sts><BookgDt><Dt>2026-11-25</Dt></BookgDt><AcctSvcrRef>AUDIT-E1</AcctSvcrRef><BkTxCd><Prtry><Cd>RCDT</Cd></Prtry></BkTxCd></Ntry>
</Stmt></BkToCstmrStmt></Document>`;
}
