// Support's search across merchants: one box finds a merchant by id, name, panel e-mail or API
// login, and the merchant behind a deposit (id, invoice id, payer e-mail or document) or a
// cashout (id, external id, beneficiary document). Read-only; every merchant is in scope, which
// is why only operators reach it.
import { depositSearchHits } from '../deposits/lookups.ts';
import { cashoutSearchHits } from '../cashouts/lookups.ts';
import type { Queryable } from '../db/db.ts';

export interface MerchantHit {
  id: number;
  name: string;
  environment: string;
  panel_email: string | null;
  created_at: Date;
  /** Why it matched: 'merchant', or the deposit / cashout that led to it. */
  via: string;
}

export const SEARCH_LIMIT = 50;

export async function searchMerchants(q: Queryable, text: string): Promise<MerchantHit[]> {
  const t = text.trim().slice(0, 200);
  const id = /^\d{1,9}$/.test(t) ? Number(t) : null;
  const like = `%${t.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
  // Deposits and cashouts are searched by their owners (src/deposits/, src/cashouts/).
  const hits = [...await depositSearchHits(q, t, id), ...await cashoutSearchHits(q, t, id)];
  const { rows } = await q.query<MerchantHit>(
    `WITH hits AS (
       SELECT m.id AS merchant_id, 'merchant' AS via FROM merchants m
       WHERE $1 = '' OR m.id = $2 OR m.name ILIKE $3
          OR EXISTS (SELECT 1 FROM credentials c WHERE c.merchant_id = m.id AND lower(c.login) = lower($1))
       UNION ALL
       SELECT h.merchant_id, h.via FROM unnest($5::integer[], $6::text[]) AS h(merchant_id, via)
     ), firsts AS (SELECT merchant_id, min(via) AS via FROM hits GROUP BY merchant_id)
     SELECT m.id, m.name, m.environment, p.login AS panel_email, m.created_at, f.via
     FROM firsts f JOIN merchants m ON m.id = f.merchant_id
     LEFT JOIN credentials p ON p.merchant_id = m.id AND p.set_name = 'panel'
     ORDER BY m.id DESC LIMIT $4`,
    [t, id, like, SEARCH_LIMIT, hits.map((h) => h.merchant_id), hits.map((h) => h.via)],
  );
  return rows;
}
