// What Settings → API Access shows of each credential set: its login only. Secrets and keys are
// stored hashed or encrypted and are shown once, when rotated (merchants.ts rotateCredentials).
import type { Queryable } from '../../db/db.ts';
import { CREDENTIAL_SETS } from '../../merchants/merchants.ts';

export async function credentialLogins(q: Queryable, merchantId: number): Promise<{ set: string; login: string | null }[]> {
  const { rows } = await q.query<{ set_name: string; login: string }>('SELECT set_name, login FROM credentials WHERE merchant_id = $1', [merchantId]);
  const bySet = new Map(rows.map((r) => [r.set_name, r.login]));
  // The read-only key's "login" column holds its hash; it is not a login to show.
  return CREDENTIAL_SETS.map((set) => ({ set, login: set === 'read_only' ? null : bySet.get(set) ?? null }));
}
