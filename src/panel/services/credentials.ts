// What Settings → API Access shows of each credential set: its login only. Secrets and keys are
// stored hashed or encrypted and are shown once, when rotated (merchants.ts rotateCredentials).
import type { Queryable } from '../../db/db.ts';
import { CREDENTIAL_SETS } from '../../merchants/merchants.ts';

export async function credentialLogins(q: Queryable, merchantId: number): Promise<{ set: string; login: string | null; previousValidUntil: Date | null }[]> {
  const { rows } = await q.query<{ set_name: string; login: string; previous_until: Date | null }>(
    `SELECT set_name, login, CASE WHEN previous_expires_at > now() THEN previous_expires_at END AS previous_until FROM credentials WHERE merchant_id = $1`,
    [merchantId],
  );
  const bySet = new Map(rows.map((r) => [r.set_name, r]));
  // The read-only key's "login" column holds its hash; it is not a login to show.
  return CREDENTIAL_SETS.map((set) => ({
    set, login: set === 'read_only' ? null : bySet.get(set)?.login ?? null, previousValidUntil: bySet.get(set)?.previous_until ?? null,
  }));
}
