// The connector registry: which connector serves a country and method, by environment and by the
// operator's configuration (the one place that reads CAJA_ENV for providers).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { methodsForCountry } from '../../src/domain/catalog.ts';
import { cardRefundConnector, payinConnectorFor, payinConnectorNamed, payoutConnector, servedMethods } from '../../src/connectors/registry.ts';
import { saveConnector } from '../../src/connectors/store.ts';

describe('connector registry', () => {
  let staging: TestServer;
  let production: TestServer;
  before(async () => {
    staging = await startTestServer('pglite');
    production = await startTestServer('pglite', { CAJA_ENV: 'production' });
  });
  after(async () => {
    await staging.close();
    await production.close();
  });

  test('staging: the simulator serves every catalog method; unknown methods nothing', async () => {
    const ctx = staging.ctx;
    assert.equal((await payinConnectorFor(ctx, 'BR', 'IX'))?.name, 'staging');
    assert.equal((await payinConnectorFor(ctx, 'mx', 'se'))?.name, 'staging');
    assert.equal(await payinConnectorFor(ctx, 'BR', 'ZZ'), null);
    assert.deepEqual([...await servedMethods(ctx, 'BR')].sort(), methodsForCountry('BR').map((m) => m.code).sort());
    assert.equal((await payinConnectorNamed(ctx, 'staging'))?.simulated, true);
    assert.ok(payoutConnector(ctx.config) && cardRefundConnector(ctx.config));
  });

  test('production: nothing is served until a connector is configured; a configured Pix serves BR/IX only', async () => {
    const ctx = production.ctx;
    assert.equal(await payinConnectorFor(ctx, 'BR', 'IX'), null);
    assert.equal(await payinConnectorFor(ctx, 'MX', 'SE'), null);
    assert.deepEqual([...await servedMethods(ctx, 'BR')], []);
    assert.equal(await payinConnectorNamed(ctx, 'staging'), null);
    assert.equal(payoutConnector(ctx.config), null);
    assert.equal(cardRefundConnector(ctx.config), null);
    // Stored settings are only read at build time; the client connects lazily, so none is needed here.
    await saveConnector(ctx, 'pix', {
      api_url: 'https://psp.example/v2', token_url: 'https://psp.example/oauth/token', client_id: 'c', pix_key: 'pix@caja.example', certificate: '',
    }, { client_secret: 's', private_key: '' });
    assert.equal((await payinConnectorFor(ctx, 'BR', 'IX'))?.name, 'pix');
    assert.equal((await payinConnectorFor(ctx, 'BR', 'IX'))?.simulated, false);
    assert.equal(await payinConnectorFor(ctx, 'BR', 'BL'), null);
    assert.deepEqual([...await servedMethods(ctx, 'BR')], ['IX']);
    assert.deepEqual([...await servedMethods(ctx, 'MX')], []);
    // The same configuration version gives the same connector (its client keeps its token).
    assert.equal(await payinConnectorNamed(ctx, 'pix'), await payinConnectorFor(ctx, 'BR', 'IX'));
  });
});
