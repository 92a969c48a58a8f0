// Exchange rates from their sources, against a local stand-in of the two public APIs (no
// network): the Banco Central do Brasil PTAX OData service and Banxico's SIE API (series
// SF43718, the FIX, behind its Bmx-Token). The worker's pass stores each rate with its source,
// publication time and the operator's markup; a manual override stands until the source publishes
// a newer rate; a source failing is recorded and changes nothing; and a deposit or cashout that
// needs a rate older than CAJA_RATES_MAX_AGE_HOURS is refused in each API's own error format.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { admin, cashoutRequest, createMerchant, formPost, V3Client, type Credentials } from '../helpers/clients.ts';
import { cpf } from '../helpers/documents.ts';
import { backends, startTestServer, type TestServer } from '../helpers/server.ts';
import { fetchRates } from '../../src/rates/service.ts';
import { configuredSources } from '../../src/rates/sources.ts';
import { parsePtax } from '../../src/rates/bcb-ptax.ts';
import { parseBanxico } from '../../src/rates/banxico.ts';
import { applyMarkup, parseMarkup } from '../../src/rates/markup.ts';
import { dec, toPlainString } from '../../src/domain/money.ts';
import { loadConfig, ConfigError } from '../../src/config/config.ts';
import { fundMerchant } from '../helpers/four-eyes.ts';

const TOKEN = 'banxico-test-token-7f3a';

/** What the stand-in publishes; tests change it between passes (and each backend starts again from these). */
const FIRST_PTAX = [
    { cotacaoCompra: 5.3159, cotacaoVenda: 5.3165, dataHoraCotacao: '2026-11-24 13:04:29.183' },
    { cotacaoCompra: 5.3301, cotacaoVenda: 5.3307, dataHoraCotacao: '2026-11-25 13:10:31.541' },
];
const published = {
  ptax: [...FIRST_PTAX] as unknown[],
  fix: { fecha: '25/11/2026', dato: '18.4512' } as { fecha: string; dato: string },
  fail: false,
};
const seen: { url: string; token?: string }[] = [];

function standIn(): Promise<{ url: string; close: () => Promise<void> }> {
  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    seen.push({ url: req.url ?? '', token: req.headers['bmx-token'] as string | undefined });
    const json = (status: number, body: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body));
    };
    if (published.fail) return json(500, { error: 'down' });
    // BCB's OData: the function call in the path, its parameters as @-aliases in the query.
    if (url.pathname.startsWith('/ptax/CotacaoDolarPeriodo(dataInicial=@dataInicial,dataFinalCotacao=@dataFinalCotacao)')) {
      if (!/^'\d{2}-\d{2}-\d{4}'$/.test(url.searchParams.get('@dataInicial') ?? '') || url.searchParams.get('$format') !== 'json') return json(400, { error: 'bad query' });
      return json(200, { '@odata.context': 'https://olinda.bcb.gov.br/olinda/servico/PTAX/versao/v1/odata$metadata#_CotacaoDolarPeriodo', value: published.ptax });
    }
    if (url.pathname === '/sie/series/SF43718/datos/oportuno') {
      if (req.headers['bmx-token'] !== TOKEN) return json(401, { error: { mensaje: 'Token inválido' } });
      return json(200, { bmx: { series: [{ idSerie: 'SF43718', titulo: 'Tipo de cambio Pesos por dólar E.U.A. Tipo de cambio para solventar obligaciones denominadas en moneda extranjera Fecha de determinación (FIX)', datos: [published.fix] }] } });
    }
    json(404, {});
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () =>
      resolve({ url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, close: () => new Promise<void>((r) => server.close(() => r())) }),
    ),
  );
}

describe('rate sources: the wire formats and the markup, on their own', () => {
  test('PTAX: the latest bulletin, its selling rate, Brasília time to UTC; nonsense refused', () => {
    const r = parsePtax({ value: published.ptax });
    assert.equal(toPlainString(r.rate), '5.3307');
    assert.equal(r.at.toISOString(), '2026-11-25T16:10:31.541Z');
    assert.throws(() => parsePtax({ value: [] }), /no bulletin/);
    assert.throws(() => parsePtax({ value: [{ cotacaoVenda: '5.3', dataHoraCotacao: '2026-11-25 13:00:00' }] }), /not a rate/);
    assert.throws(() => parsePtax({}), /no "value"/);
  });
  test('Banxico: the FIX of its date at 12:00 Mexico City; N/E refused', () => {
    const body = (dato: string) => ({ bmx: { series: [{ idSerie: 'SF43718', datos: [{ fecha: '25/11/2026', dato }] }] } });
    const r = parseBanxico('banxico-fix', 'SF43718', body('18.4512'));
    assert.equal(toPlainString(r.rate), '18.4512');
    assert.equal(r.at.toISOString(), '2026-11-25T18:00:00.000Z');
    assert.throws(() => parseBanxico('banxico-fix', 'SF43718', body('N/E')), /not a rate/);
    assert.throws(() => parseBanxico('banxico-fix', 'SF60653', body('1')), /no series SF60653/);
  });
  test('markup: rate × (1 + m/100), rounded once to 8 decimals; bounds', () => {
    assert.equal(toPlainString(applyMarkup(dec('5.3307'), dec('0.5'))), '5.3573535');
    assert.equal(toPlainString(applyMarkup(dec('18.4512'), dec('-0.25'))), '18.405072');
    assert.equal(toPlainString(applyMarkup(dec('3'), dec('0.3333'))), '3.009999');
    assert.equal(parseMarkup('50').ok, false);
    assert.equal(parseMarkup('-49.9999').ok, true);
    assert.equal(parseMarkup('1e2').ok, false);
  });
  test('configuration: sources by CUR=kind, Banxico needs its token, an unknown kind is refused', () => {
    const base = { CAJA_ENV: 'staging', DATA_DIR: '/tmp/caja-rates-config' };
    assert.deepEqual(loadConfig({ ...base, CAJA_RATES_SOURCES: 'BRL=bcb-ptax' }).rates.sources, [{ currency: 'BRL', kind: 'bcb-ptax', series: null }]);
    assert.throws(() => loadConfig({ ...base, CAJA_RATES_SOURCES: 'MXN=banxico-fix' }), ConfigError);
    assert.throws(() => loadConfig({ ...base, CAJA_RATES_SOURCES: 'BRL=ptax;MXN' }), ConfigError);
    assert.throws(() => configuredSources(loadConfig({ ...base, CAJA_RATES_SOURCES: 'COP=nowhere' })), /unknown source 'nowhere'/);
    assert.equal(loadConfig({ ...base, CAJA_ENV: 'production', CAJA_MASTER_KEY: Buffer.alloc(32, 1).toString('base64'), CAJA_ADMIN_TOKEN: 'x'.repeat(20) }).rates.sources[0]?.kind, 'bcb-ptax');
  });
});

for (const backend of backends()) {
  describe(`rates from their sources (${backend})`, () => {
    let s: TestServer;
    let stand: Awaited<ReturnType<typeof standIn>>;
    let m: Credentials;
    const realNow = () => new Date('2026-11-25T20:00:00Z');

    before(async () => {
      published.ptax = [...FIRST_PTAX];
      stand = await standIn();
      s = await startTestServer(backend, {
        CAJA_RATES_SOURCES: 'BRL=bcb-ptax,MXN=banxico-fix',
        CAJA_RATES_BCB_URL: `${stand.url}/ptax`,
        CAJA_RATES_BANXICO_URL: `${stand.url}/sie`,
        CAJA_BANXICO_TOKEN: TOKEN,
        CAJA_RATES_MAX_AGE_HOURS: '30',
        CAJA_CACHE_SECONDS: '0',
      });
      s.ctx.now = realNow;
      m = await createMerchant(s.url, 'Rates shop');
      await fundMerchant(s, m.merchant_id, '1000.00', 'USD', 'funding');
    });
    after(async () => {
      await s.close();
      await stand.close();
    });

    const sources = () => configuredSources(s.ctx.config);
    const board = async () => (await admin(s.url, 'GET', '/admin/exchange_rates/sources')).body;

    test('a pass stores each rate with its source, publication time and markup; the token is sent', async () => {
      const markup = await admin(s.url, 'PUT', '/admin/exchange_rates/markups', { markups: { BRL: '0.5' } });
      assert.equal(markup.status, 200, markup.text);
      const out = await fetchRates(s.ctx, sources());
      assert.deepEqual(out.map((o) => [o.currency, o.result]), [['BRL', 'stored'], ['MXN', 'stored']]);
      assert.ok(seen.some((x) => x.url.includes('SF43718') && x.token === TOKEN));
      const b = await board();
      const brl = b.rates.find((r: { currency: string }) => r.currency === 'BRL');
      assert.deepEqual({ ...brl, updated_at: undefined }, {
        currency: 'BRL', usd_rate: '5.3573535', source_rate: '5.3307', markup_percent: '0.5', source: 'bcb-ptax', rate_at: '2026-11-25T16:10:31.541Z', updated_at: undefined, stale: false,
      });
      const mxn = b.rates.find((r: { currency: string }) => r.currency === 'MXN');
      assert.equal(mxn.source, 'banxico-fix');
      assert.equal(mxn.usd_rate, '18.4512');
      assert.equal((await admin(s.url, 'GET', '/admin/exchange_rates')).body.rates.BRL, '5.3573535');
      // The same publication again changes nothing.
      assert.deepEqual((await fetchRates(s.ctx, sources())).map((o) => o.result), ['unchanged', 'unchanged']);
    });

    test('a manual override stands until the source publishes a newer rate', async () => {
      const put = await admin(s.url, 'PUT', '/admin/exchange_rates', { rates: { BRL: '5.5' } });
      assert.equal(put.status, 200);
      await fetchRates(s.ctx, sources());
      let brl = (await board()).rates.find((r: { currency: string }) => r.currency === 'BRL');
      assert.equal(brl.source, 'manual');
      assert.equal(brl.usd_rate, '5.5');
      published.ptax = [...published.ptax, { cotacaoCompra: 5.29, cotacaoVenda: 5.2906, dataHoraCotacao: '2026-11-25 17:30:00.000' }];
      await fetchRates(s.ctx, sources());
      brl = (await board()).rates.find((r: { currency: string }) => r.currency === 'BRL');
      assert.equal(brl.source, 'bcb-ptax');
      assert.equal(brl.source_rate, '5.2906');
      const audit = await s.ctx.db.query(`SELECT actor, token_id FROM operator_audit WHERE action = 'rates.set_manual' ORDER BY id DESC LIMIT 1`);
      assert.deepEqual(audit.rows[0], { actor: 'token:bootstrap', token_id: 0 });
    });

    test('a failing source is recorded and changes nothing', async () => {
      published.fail = true;
      try {
        const out = await fetchRates(s.ctx, sources());
        assert.deepEqual(out.map((o) => o.result), ['failed', 'failed']);
        const b = await board();
        assert.match(b.sources.find((x: { source: string }) => x.source === 'bcb-ptax').last_error, /HTTP 500/);
        assert.equal(b.rates.find((r: { currency: string }) => r.currency === 'BRL').source_rate, '5.2906');
      } finally {
        published.fail = false;
      }
    });

    test('a rate older than the maximum age: deposits and cashouts are refused in each API format', async () => {
      // MXN was published 2026-11-25 18:00 UTC; 30 hours later it is too old.
      s.ctx.now = () => new Date('2026-11-27T01:00:00Z');
      try {
        const v3 = V3Client.deposits(s.url, m);
        const dep = await v3.post('/v3/deposits', { country: 'MX', amount: '10.00' }, { 'X-Date': s.ctx.now().toISOString() });
        assert.equal(dep.status, 503, dep.text);
        assert.equal(dep.body.code, 522);
        assert.equal(dep.body.type, 'EXCHANGE_RATE_STALE');
        assert.match(dep.body.description, /MXN was published at 2026-11-25T18:00:00.000Z, more than 30 hours ago/);

        const f: Record<string, string> = {
          x_login: m.deposits.login, x_trans_key: m.deposits.trans_key, x_invoice: `stale-${backend}-${Date.now()}`, x_amount: '100.00', x_currency: 'MXN', x_country: 'BR',
          x_bank: 'IX', x_iduser: '1', x_cpf: cpf('529982247'), x_name: 'Ana', x_email: 'ana@example.com', x_address: 'Rua Augusta 1500', x_zip: '01304-001', x_city: 'São Paulo', x_state: 'SP', x_return: 'https://shop.example/return', x_version: '1.1', type: 'json',
        };
        const v = (k: string) => f[k] ?? '';
        f.control = createHmac('sha256', m.deposits.secret_key)
          .update(`${v('x_invoice')}V${v('x_amount')}I${v('x_iduser')}2${v('x_bank')}1${v('x_cpf')}H${v('x_bdate')}G${v('x_email')}Y${v('x_zip')}A${v('x_address')}P${v('x_city')}S${v('x_state')}P`, 'utf8')
          .digest('hex').toUpperCase();
        const sl = await formPost(s.url, '/api_curl/streamline/NewInvoice', f);
        assert.deepEqual(JSON.parse(sl.text).error_code, 322, sl.text);
        assert.match(JSON.parse(sl.text).desc, /exchange rate for MXN/);

        // BRL is fresh enough (published 2026-11-25 20:30 UTC): its deposits go through.
        const ok = await v3.post('/v3/deposits', { country: 'BR', amount: '10.00' }, { 'X-Date': s.ctx.now().toISOString() });
        assert.equal(ok.status, 200, ok.text);
        const b = await board();
        assert.equal(b.rates.find((r: { currency: string }) => r.currency === 'MXN').stale, true);

        // A day later BRL (published 2026-11-25 20:30 UTC) is too old as well: a BR cashout is refused.
        s.ctx.now = () => new Date('2026-11-28T00:00:00Z');
        const co = await cashoutRequest(s.url, m, 'POST', '/v3/cashout', {
          external_id: `stale-${backend}-${Date.now()}`, country: 'BR', currency: 'USD', amount: '10.00', document_id: cpf('529982247'),
          beneficiary_name: 'Maria', beneficiary_lastname: 'Souza', bank_code: '260', bank_account: '12345-6', bank_branch: '0001', account_type: 'C',
        });
        assert.equal(co.status, 503, co.text);
        assert.equal(co.body.code, 522);
        assert.match(co.body.message, /exchange rate for BRL/);
      } finally {
        s.ctx.now = realNow;
      }
    });
  });
}
