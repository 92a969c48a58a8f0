// A connector's stored secrets never follow a changed endpoint: when the console's form changes
// where caja connects (any URL) or whom it trusts there (the CA, the client certificate), every
// secret must be typed again; an empty secret box then is a form error naming the secrets, and
// nothing is saved (else an admin could point token_url and ca at their own server, leave the
// boxes empty, and receive client_id:client_secret). Other changes still keep the stored secrets.
// The admin API's PUT takes whole configurations (its secrets are always required).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { admin } from '../helpers/clients.ts';
import { backends, startTestServer, type TestServer } from '../helpers/server.ts';
import { startPixSimulator, type PixSimulator } from '../helpers/pix-simulator.ts';
import { startStpSimulator, type StpSimulator } from '../helpers/stp-simulator.ts';
import { storedSecrets } from '../../src/connectors/store.ts';
import { makeOperator, signedIn, type OpsClient } from './helpers.ts';

const settingsOf = async (s: TestServer, name: string) =>
  (await s.ctx.db.query<{ settings: Record<string, string> }>('SELECT settings FROM connectors WHERE name = $1', [name])).rows[0]?.settings;

for (const backend of backends()) {
  describe(`console: secrets again when a connector's endpoint changes (${backend})`, () => {
    let s: TestServer;
    let pix: PixSimulator;
    let stp: StpSimulator;
    let a: OpsClient;

    before(async () => {
      [pix, stp] = await Promise.all([startPixSimulator(), startStpSimulator()]);
      s = await startTestServer(backend);
      a = await signedIn(s, await makeOperator(s, 'admin'));
    });
    after(async () => {
      await s.close();
      await Promise.all([pix.stop(), stp.stop()]);
    });

    test('Pix: token_url and ca pointed elsewhere with the secret boxes empty: a form error naming the secrets, nothing saved', async () => {
      const fields = { ...pix.config } as unknown as Record<string, string>;
      const saved = await a.submit('/ops/connectors/pix', '/ops/connectors/pix', fields);
      assert.equal(saved.url, '/ops/connectors/pix?done=saved', saved.html.slice(0, 500));
      const settings = await settingsOf(s, 'pix');
      const secrets = await storedSecrets(s.ctx, 'pix');

      // Elsewhere: a server of the admin's own (any certificate as its CA).
      const elsewhere = { token_url: 'https://127.0.0.1:9/oauth/token', ca: pix.config.certificate };
      const changes: Record<string, string>[] = [elsewhere, { token_url: elsewhere.token_url }, { api_url: 'https://127.0.0.1:9/v2' }, { ca: elsewhere.ca }];
      for (const change of changes) {
        const r = await a.submit('/ops/connectors/pix', '/ops/connectors/pix', { ...fields, ...change, client_secret: '', private_key: '' });
        assert.equal(r.status, 400, `${Object.keys(change).join(', ')}: ${r.status} ${r.url}`);
        assert.match(r.html, /id="f-client_secret-err">[^<]*again/);
        assert.match(r.html, /id="f-private_key-err">[^<]*again/);
        assert.ok(!r.html.includes(pix.config.client_secret) && !r.html.includes('PRIVATE KEY'), 'no secret on the page');
        assert.deepEqual(await settingsOf(s, 'pix'), settings, 'nothing saved');
        assert.deepEqual(await storedSecrets(s.ctx, 'pix'), secrets);
      }
      // Only one secret given again: the other is still named.
      const half = await a.submit('/ops/connectors/pix', '/ops/connectors/pix', { ...fields, ...elsewhere, private_key: '' });
      assert.equal(half.status, 400);
      assert.match(half.html, /id="f-private_key-err">/);
      assert.doesNotMatch(half.html, /id="f-client_secret-err">/);
      assert.deepEqual(await settingsOf(s, 'pix'), settings);

      // A change that is not an endpoint keeps the stored secrets, as before.
      const renamed = await a.submit('/ops/connectors/pix', '/ops/connectors/pix', { ...fields, client_id: `${fields.client_id}`, client_secret: '', private_key: '' });
      assert.equal(renamed.url, '/ops/connectors/pix?done=saved', renamed.html.slice(0, 500));
      assert.deepEqual(await storedSecrets(s.ctx, 'pix'), secrets);
      // The secrets typed again with the new endpoint: saved.
      const moved = await a.submit('/ops/connectors/pix', '/ops/connectors/pix', { ...fields, api_url: `${fields.api_url}/` });
      assert.equal(moved.url, '/ops/connectors/pix?done=saved', moved.html.slice(0, 500));
    });

    test('STP: api_url or ca changed with the secret boxes empty: a form error naming the secrets, nothing saved', async () => {
      const fields = { ...stp.config } as unknown as Record<string, string>;
      const saved = await a.submit('/ops/connectors/stp', '/ops/connectors/stp', fields);
      assert.equal(saved.url, '/ops/connectors/stp?done=saved', saved.html.slice(0, 500));
      const settings = await settingsOf(s, 'stp');
      const secrets = await storedSecrets(s.ctx, 'stp');
      const changes: Record<string, string>[] = [{ api_url: 'https://127.0.0.1:9' }, { ca: pix.config.ca }];
      for (const change of changes) {
        const r = await a.submit('/ops/connectors/stp', '/ops/connectors/stp', { ...fields, ...change, private_key: '', private_key_passphrase: '', webhook_secret: '' });
        assert.equal(r.status, 400, `${Object.keys(change).join(', ')}: ${r.status} ${r.url}`);
        assert.match(r.html, /id="f-private_key-err">[^<]*again/);
        assert.match(r.html, /id="f-private_key_passphrase-err">[^<]*again/);
        assert.deepEqual(await settingsOf(s, 'stp'), settings, 'nothing saved');
        assert.deepEqual(await storedSecrets(s.ctx, 'stp'), secrets);
      }
      const kept = await a.submit('/ops/connectors/stp', '/ops/connectors/stp', { ...fields, ordering_name: 'Caja Otra', private_key: '', private_key_passphrase: '', webhook_secret: '' });
      assert.equal(kept.url, '/ops/connectors/stp?done=saved', kept.html.slice(0, 500));
      assert.deepEqual(await storedSecrets(s.ctx, 'stp'), secrets);
    });

    test('admin API: a PUT that changes token_url without the secrets is a 400 naming them', async () => {
      const { client_secret: _cs, private_key: _pk, ...rest } = pix.config;
      const r = await admin(s.url, 'PUT', '/admin/connectors/pix', { ...rest, token_url: 'https://127.0.0.1:9/oauth/token' });
      assert.equal(r.status, 400, r.text);
      assert.equal(r.body.code, 201);
      assert.ok(r.body.details.some((d: string) => d.startsWith('client_secret:')) && r.body.details.some((d: string) => d.startsWith('private_key:')), r.text);
    });
  });
}
