// Secrets at rest are bound to their merchant and credential set (AES-GCM associated data): a
// sealed secret copied to another merchant's row does not decrypt; secrets sealed before the
// binding (v1) are re-encrypted at start.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { credentialContext, secretBox } from '../../src/domain/secrets.ts';
import { bindCredentialSecrets } from '../../src/merchants/merchants.ts';
import { startTestServer } from '../helpers/server.ts';
import { createMerchant, V3Client } from '../helpers/clients.ts';

test('a sealed secret opens only for its owner', () => {
  const box = secretBox(randomBytes(32));
  const sealed = box.encrypt('s3cret', credentialContext(1, 'deposits'));
  assert.match(sealed, /^v2\./);
  assert.equal(box.decrypt(sealed, credentialContext(1, 'deposits')), 's3cret');
  assert.throws(() => box.decrypt(sealed, credentialContext(2, 'deposits')));
  assert.throws(() => box.decrypt(sealed, credentialContext(1, 'cashouts')));
  assert.throws(() => box.decrypt(sealed), /needs its owner/);
  assert.throws(() => box.decrypt(box.encrypt('old'), credentialContext(1, 'deposits')), /not bound/);
});

test('a row copied to another merchant does not authenticate; legacy rows are bound at start', async () => {
  const s = await startTestServer('pglite');
  try {
    const a = await createMerchant(s.url, 'A');
    const b = await createMerchant(s.url, 'B');
    // Copy A's sealed deposits secret into B's row: signing as B with A's secret must fail (401, not 500).
    await s.ctx.db.query(
      `UPDATE credentials SET secret_enc = (SELECT secret_enc FROM credentials WHERE merchant_id = $1 AND set_name = 'deposits') WHERE merchant_id = $2 AND set_name = 'deposits'`,
      [a.merchant_id, b.merchant_id],
    );
    const forged = await new V3Client(s.url, b.deposits.login, a.deposits.secret_key).get('/v3/me');
    assert.deepEqual([forged.status, forged.body.code], [401, 100]);
    assert.equal((await V3Client.deposits(s.url, a).get('/v3/me')).status, 200, 'A is unaffected');
    // A secret sealed the old way (v1, unbound) is re-encrypted bound, and still verifies.
    const { rows } = await s.ctx.db.query<{ secret_enc: string }>(`SELECT secret_enc FROM credentials WHERE merchant_id = $1 AND set_name = 'deposits'`, [a.merchant_id]);
    const plain = s.ctx.box.decrypt(rows[0]!.secret_enc, credentialContext(a.merchant_id, 'deposits'));
    await s.ctx.db.query(`UPDATE credentials SET secret_enc = $2 WHERE merchant_id = $1 AND set_name = 'deposits'`, [a.merchant_id, s.ctx.box.encrypt(plain)]);
    assert.ok((await bindCredentialSecrets(s.ctx.db, s.ctx.box)) >= 1);
    const after = await s.ctx.db.query<{ secret_enc: string }>(`SELECT secret_enc FROM credentials WHERE merchant_id = $1 AND set_name = 'deposits'`, [a.merchant_id]);
    assert.match(after.rows[0]!.secret_enc, /^v2\./);
    assert.equal((await V3Client.deposits(s.url, a).get('/v3/me')).status, 200);
    assert.equal(await bindCredentialSecrets(s.ctx.db, s.ctx.box), 0, 'a no-op once done');
  } finally {
    await s.close();
  }
});
