// Merchant provisioning and credential look-ups. Credentials are shown once, at creation or
// rotation; afterwards only hashes and encrypted secrets exist.
import { type Audit, recordAudit } from '../audit/audit.ts';
import type { Db, Queryable } from '../db/db.ts';
import { capabilitiesOf, type Config, type Environment } from '../config/config.ts';
import type { Caches } from '../cache/ttl-cache.ts';
import type { FeeOverrides } from '../domain/fees.ts';
import { frameOriginsInEffect } from '../domain/frame-origins.ts';
import { credentialContext, hashPassword, randomToken, type SecretBox } from '../domain/secrets.ts';

export type CredentialSet = 'deposits' | 'web_status' | 'cashouts' | 'read_only' | 'panel';
export const CREDENTIAL_SETS: CredentialSet[] = ['deposits', 'web_status', 'cashouts', 'read_only', 'panel'];

export interface Merchant {
  id: number;
  name: string;
  environment: Environment;
  notification_url: string | null;
  return_url: string | null;
  /** Default logo of its hosted checkout pages (a deposit's `logo` wins). */
  logo_url: string | null;
  account_validation_enabled: boolean;
  pix_key_validation_enabled: boolean;
  /** The currency its balance is kept in (USD unless configured). */
  settlement_currency: string;
  /** v3/v5 calls must be signed with SVC2 (method, path and query covered). */
  require_svc2: boolean;
  /**
   * The currencies a streamline NewInvoice may be priced in (x_currency, which its control does
   * not cover), or null for any currency caja has a rate for.
   */
  newinvoice_currencies: string[] | null;
  /** Staging: its notifications are duplicated, delayed and reordered (docs/notifications.md). */
  sandbox_chaos: boolean;
  /** Origins that may frame its iframe_view=1 pages; null: those of its notification and return URLs (domain/frame-origins.ts). */
  frame_origins: string[] | null;
  /** Cashouts above this USD amount wait ON_HOLD for two operators (src/operators/approvals.ts); null: none do. */
  cashout_approval_usd: string | null;
  /** Payments only from the customer's own account, payouts only to the beneficiary's (issue 41; docs/connectors.md "The payer rule"). */
  payer_must_match: boolean;
  /** Its own fee and surcharge percentages over the global schedule (src/merchants/fees.ts); null: the global schedule. */
  fee_schedule: FeeOverrides | null;
  /** IANA timezone whose days its settlement reports cover (src/settlements/). */
  timezone: string;
  created_at: Date;
  updated_at: Date;
}

export interface IssuedCredentials {
  deposits?: { login: string; trans_key: string; secret_key: string };
  web_status?: { login: string; trans_key: string };
  cashouts?: { login: string; pass: string; secret_key: string };
  read_only_key?: string;
  panel?: { email: string; password: string };
}

interface Row {
  login: string;
  secret_hash: string | null;
  secret_enc: string | null;
}

function slug(name: string): string {
  return name.normalize('NFKD').replace(/[^\w]+/g, '-').replace(/^-+|-+$/g, '').toLowerCase().slice(0, 30) || 'merchant';
}

/** Makes new values for one set and the row that stores them. */
function issue(set: CredentialSet, box: SecretBox, merchant: { id: number; name: string }): { row: Row; shown: IssuedCredentials } {
  switch (set) {
    case 'deposits': {
      const login = randomToken(16);
      const trans_key = randomToken(24);
      const secret_key = randomToken(40);
      return { row: { login, secret_hash: box.hash(trans_key), secret_enc: box.encrypt(secret_key, credentialContext(merchant.id, set)) }, shown: { deposits: { login, trans_key, secret_key } } };
    }
    case 'web_status': {
      const login = randomToken(16);
      const trans_key = randomToken(24);
      return { row: { login, secret_hash: box.hash(trans_key), secret_enc: null }, shown: { web_status: { login, trans_key } } };
    }
    case 'cashouts': {
      const login = randomToken(16);
      const pass = randomToken(24);
      const secret_key = randomToken(40);
      return { row: { login, secret_hash: box.hash(pass), secret_enc: box.encrypt(secret_key, credentialContext(merchant.id, set)) }, shown: { cashouts: { login, pass, secret_key } } };
    }
    case 'read_only': {
      const key = `ro_${randomToken(32)}`;
      return { row: { login: box.hash(key), secret_hash: null, secret_enc: null }, shown: { read_only_key: key } };
    }
    case 'panel': {
      const email = `${slug(merchant.name)}-${merchant.id}-${randomToken(4).toLowerCase()}@panel.caja.local`;
      const password = randomToken(20);
      return { row: { login: email, secret_hash: hashPassword(password), secret_enc: null }, shown: { panel: { email, password } } };
    }
  }
}

async function storeSet(q: Queryable, merchantId: number, set: CredentialSet, row: Row): Promise<void> {
  await q.query(
    `INSERT INTO credentials (merchant_id, set_name, login, secret_hash, secret_enc) VALUES ($1, $2, $3, $4, $5)
     ON CONFLICT (merchant_id, set_name) DO UPDATE
       SET login = EXCLUDED.login, secret_hash = EXCLUDED.secret_hash, secret_enc = EXCLUDED.secret_enc, created_at = now()`,
    [merchantId, set, row.login, row.secret_hash, row.secret_enc],
  );
}

export interface NewMerchant {
  name: string;
  notification_url?: string | null;
  return_url?: string | null;
  logo_url?: string | null;
}

/**
 * Makes a merchant and issues every credential set; `audit` (who made it) is written in the same
 * transaction. The merchant records the environment it was made in (shown); where the account
 * registry is simulated, its account and Pix-key validation start enabled.
 */
export async function createMerchant(db: Db, box: SecretBox, config: Pick<Config, 'env' | 'simulated'>, input: NewMerchant, audit?: Audit<Merchant>) {
  return db.tx(async (q) => {
    const { rows } = await q.query<Merchant>(
      `INSERT INTO merchants (name, environment, notification_url, return_url, account_validation_enabled, pix_key_validation_enabled, logo_url)
       VALUES ($1, $2, $3, $4, $5, $5, $6) RETURNING *`,
      [input.name, config.env, input.notification_url ?? null, input.return_url ?? null, config.simulated, input.logo_url ?? null],
    );
    const merchant = rows[0];
    let shown: IssuedCredentials = {};
    for (const set of CREDENTIAL_SETS) {
      const issued = issue(set, box, merchant);
      await storeSet(q, merchant.id, set, issued.row);
      shown = { ...shown, ...issued.shown };
    }
    if (audit) await recordAudit(q, audit, merchant);
    return { merchant, credentials: shown };
  });
}

/** How long the values a rotation replaces keep working unless the rotation says otherwise. */
export const DEFAULT_ROTATION_GRACE_HOURS = 24;
/** The longest overlap a rotation may ask for. */
export const MAX_ROTATION_GRACE_HOURS = 168;

/** The grace a rotation of `set` gets: the panel's password is replaced at once (it is a password, not an integration's key). */
export function rotationGraceHours(set: CredentialSet, asked: number | undefined): number {
  return set === 'panel' ? 0 : asked ?? DEFAULT_ROTATION_GRACE_HOURS;
}

/**
 * New credentials for one set. The values replaced keep working for `graceHours` (default 24;
 * 0: they stop at once, as for a leak), then stop; a set rotated again during an overlap drops
 * the older values at once. `audit` (who asked: a panel user, an operator, an admin token) is
 * written in the same transaction. The answer says until when the previous values work.
 */
export async function rotateCredentials(
  db: Db, box: SecretBox, merchantId: number, set: CredentialSet, cache?: Caches, audit?: Audit, graceHours?: number,
) {
  const grace = rotationGraceHours(set, graceHours);
  return db.tx(async (q) => {
    const merchant = await getMerchant(q, merchantId, true);
    if (!merchant) return null;
    const issued = issue(set, box, merchant);
    const { rows } = await q.query<{ previous_expires_at: Date | null }>(
      `UPDATE credentials SET
         previous_login = CASE WHEN $6::float8 > 0 THEN login END,
         previous_secret_hash = CASE WHEN $6::float8 > 0 THEN secret_hash END,
         previous_secret_enc = CASE WHEN $6::float8 > 0 THEN secret_enc END,
         previous_expires_at = CASE WHEN $6::float8 > 0 THEN now() + make_interval(secs => $6::float8 * 3600) END,
         login = $3, secret_hash = $4, secret_enc = $5, created_at = now()
       WHERE merchant_id = $1 AND set_name = $2 RETURNING previous_expires_at`,
      [merchantId, set, issued.row.login, issued.row.secret_hash, issued.row.secret_enc, grace],
    );
    if (rows.length === 0) await storeSet(q, merchantId, set, issued.row);
    if (audit) await recordAudit(q, audit);
    return { merchant, credentials: issued.shown, previousValidUntil: rows[0]?.previous_expires_at ?? null };
  }).finally(() => cache?.changed());
}

/** Per credential set, until when the values replaced by its last rotation still work (sets in an overlap only). */
export async function credentialOverlaps(q: Queryable, merchantId: number): Promise<{ set: CredentialSet; previousValidUntil: Date }[]> {
  const { rows } = await q.query<{ set_name: CredentialSet; previous_expires_at: Date }>(
    `SELECT set_name, previous_expires_at FROM credentials WHERE merchant_id = $1 AND previous_expires_at > now() ORDER BY set_name`,
    [merchantId],
  );
  return rows.map((r) => ({ set: r.set_name, previousValidUntil: r.previous_expires_at }));
}

export async function getMerchant(q: Queryable, id: number, forUpdate = false): Promise<Merchant | null> {
  const { rows } = await q.query<Merchant>(`SELECT * FROM merchants WHERE id = $1${forUpdate ? ' FOR UPDATE' : ''}`, [id]);
  return rows[0] ?? null;
}

export interface MerchantPatch {
  name?: string;
  notification_url?: string | null;
  return_url?: string | null;
  logo_url?: string | null;
  account_validation_enabled?: boolean;
  pix_key_validation_enabled?: boolean;
  settlement_currency?: string;
  require_svc2?: boolean;
  newinvoice_currencies?: string[] | null;
  sandbox_chaos?: boolean;
  /** Checked by domain/frame-origins.ts; null goes back to the default. */
  frame_origins?: string[] | null;
  /** USD, as stored (toDb); null: no cashout waits for approval. */
  cashout_approval_usd?: string | null;
  /** IANA, checked by settlements/days.ts isTimeZone. */
  timezone?: string;
  payer_must_match?: boolean;
}

/** Changes a merchant's settings; `audit` (who changed them) is written in the same transaction. */
export async function updateMerchant(db: Db, id: number, patch: MerchantPatch, cache?: Caches, audit?: Audit): Promise<Merchant | null> {
  const fields = Object.entries(patch).filter(([, v]) => v !== undefined);
  if (fields.length === 0 && !audit) return getMerchant(db, id);
  const sets = fields.map(([k], i) => `${k} = $${i + 2}, `).join('');
  const update = async (q: Queryable) => {
    const { rows } = await q.query<Merchant>(
      `UPDATE merchants SET ${sets}updated_at = now() WHERE id = $1 RETURNING *`,
      [id, ...fields.map(([, v]) => v)],
    );
    if (rows[0] && audit) await recordAudit(q, audit);
    return rows;
  };
  const rows = await (audit ? db.tx(update) : update(db));
  // Signed requests carry their merchant from the credential cache: its settings change now.
  cache?.changed();
  return rows[0] ?? null;
}

type Found = {
  login: string;
  secret_hash: string | null;
  secret_enc: string | null;
  merchant: Merchant;
  /** The secret once opened (openSecret): a cached entry is decrypted once, not per request. */
  opened?: string | null;
  /** Values a rotation replaced: when they stop working (a cached entry too). Null: the current values. */
  expiresAt: Date | null;
};

async function loadByLogin(q: Queryable, set: CredentialSet, login: string): Promise<Found | null> {
  // The current values, else the ones a rotation replaced while their overlap lasts (each
  // branch one probe of its unique index).
  const { rows } = await q.query<Row & { expires_at: Date | null } & Merchant>(
    `SELECT c.login, c.secret_hash, c.secret_enc, NULL::timestamptz AS expires_at, m.* FROM credentials c JOIN merchants m ON m.id = c.merchant_id
     WHERE c.set_name = $1 AND c.login = $2
     UNION ALL
     SELECT c.previous_login, c.previous_secret_hash, c.previous_secret_enc, c.previous_expires_at, m.* FROM credentials c JOIN merchants m ON m.id = c.merchant_id
     WHERE c.set_name = $1 AND c.previous_login = $2 AND c.previous_expires_at > now()`,
    [set, login],
    // Runs on every signed request the cache misses: a named statement keeps its plan per connection.
    { name: 'caja_credentials_by_login' },
  );
  if (!rows[0]) return null;
  const { login: l, secret_hash, secret_enc, expires_at, ...merchant } = rows[0];
  return { login: l, secret_hash, secret_enc, expiresAt: expires_at, merchant: merchant as Merchant };
}

/**
 * A set's credential and its merchant, through the process's cache when given (every signed
 * request reads it). Unknown logins are not kept: guessing cannot fill the cache.
 */
async function findByLogin(q: Queryable, set: CredentialSet, login: string, cache?: Caches): Promise<Found | null> {
  const found = cache
    ? await cache.of<Found | null>('credentials').get(`${set}:${login}`, () => loadByLogin(q, set, login), (v) => v !== null)
    : await loadByLogin(q, set, login);
  // Replaced values stop at their time, whatever the cache holds.
  return found && (found.expiresAt === null || found.expiresAt.getTime() > Date.now()) ? found : null;
}

/**
 * Binds every credential secret sealed before secrets carried their owner (v1) to its merchant
 * and set (v2), so that a row copied to another merchant or set no longer decrypts. Runs at
 * start, after the schema migrations; a no-op once done.
 */
export async function bindCredentialSecrets(db: Db, box: SecretBox): Promise<number> {
  const { rows } = await db.query<{ merchant_id: number; set_name: string; secret_enc: string }>(
    `SELECT merchant_id, set_name, secret_enc FROM credentials WHERE secret_enc LIKE 'v1.%'`,
  );
  for (const r of rows) {
    const bound = box.encrypt(box.decrypt(r.secret_enc), credentialContext(r.merchant_id, r.set_name));
    await db.query(`UPDATE credentials SET secret_enc = $3 WHERE merchant_id = $1 AND set_name = $2 AND secret_enc = $4`, [r.merchant_id, r.set_name, bound, r.secret_enc]);
  }
  return rows.length;
}

/** The plain secret of a found credential (null when it has none); throws when it does not open. */
function openSecret(box: SecretBox, set: CredentialSet, found: Found): string | null {
  // Kept on the (cached) entry: decrypting on every request would cost as much as the look-up.
  if (found.opened === undefined) found.opened = found.secret_enc ? box.decrypt(found.secret_enc, credentialContext(found.merchant.id, set)) : null;
  return found.opened;
}

/** For HMAC-signed requests: the merchant and the plain signature secret of the set. */
export async function findSigningSecret(q: Queryable, box: SecretBox, set: 'deposits' | 'cashouts', login: string, cache?: Caches) {
  const found = await findByLogin(q, set, login, cache);
  if (!found || !found.secret_enc) return null;
  // A sealed secret that is not this merchant's (a row copied from another) does not open: the
  // caller is simply not authenticated.
  try {
    return { merchant: found.merchant, secret: openSecret(box, set, found)! };
  } catch {
    return null;
  }
}

/** For login + trans key (or pass) in the body. Null when either is wrong. */
export async function checkLoginAndKey(q: Queryable, box: SecretBox, set: 'deposits' | 'web_status' | 'cashouts', login: string, key: string, cache?: Caches) {
  const found = await findByLogin(q, set, login, cache);
  if (!found || !found.secret_hash || !box.verifyHash(key, found.secret_hash)) return null;
  return { merchant: found.merchant, secret: openSecret(box, set, found) };
}

export async function findByReadOnlyKey(q: Queryable, box: SecretBox, key: string, cache?: Caches): Promise<Merchant | null> {
  return (await findByLogin(q, 'read_only', box.hash(key), cache))?.merchant ?? null;
}

/**
 * What signs a merchant's streamline messages (Sign, x_control): the deposits login, which is
 * part of the message, and the deposits secret, which keys it. One query for both.
 */
export async function depositsSignerOf(q: Queryable, box: SecretBox, merchantId: number, cache?: Caches): Promise<{ login: string; secret: string } | null> {
  const load = async () => {
    const { rows } = await q.query<{ login: string; secret_enc: string | null }>(
      `SELECT login, secret_enc FROM credentials WHERE merchant_id = $1 AND set_name = 'deposits'`,
      [merchantId],
    );
    return rows[0]?.secret_enc ? { login: rows[0].login, secret: box.decrypt(rows[0].secret_enc, credentialContext(merchantId, 'deposits')) } : null;
  };
  return cache ? cache.of<{ login: string; secret: string } | null>('deposits-signers').get(String(merchantId), load, (v) => v !== null) : load();
}

/** The secret that signs a merchant's cashout notifications (control, Caja-Signature). */
export async function cashoutsSecretOf(q: Queryable, box: SecretBox, merchantId: number): Promise<string | null> {
  const { rows } = await q.query<{ secret_enc: string | null }>(
    `SELECT secret_enc FROM credentials WHERE merchant_id = $1 AND set_name = 'cashouts'`,
    [merchantId],
  );
  return rows[0]?.secret_enc ? box.decrypt(rows[0].secret_enc, credentialContext(merchantId, 'cashouts')) : null;
}

export function credentialsView(merchant: Merchant, credentials: IssuedCredentials) {
  return { merchant_id: merchant.id, name: merchant.name, environment: merchant.environment, ...credentials };
}

export function merchantView(m: Merchant) {
  return {
    merchant_id: m.id,
    name: m.name,
    environment: m.environment,
    notification_url: m.notification_url,
    return_url: m.return_url,
    logo_url: m.logo_url,
    features: { account_validation: m.account_validation_enabled, pix_key_validation: m.pix_key_validation_enabled },
    settlement_currency: m.settlement_currency,
    require_svc2: m.require_svc2,
    newinvoice_currencies: m.newinvoice_currencies,
    sandbox_chaos: m.sandbox_chaos,
    frame_origins: m.frame_origins,
    // The merchant's stored environment is data; the rule asks the capabilities it stands for.
    frame_origins_in_effect: frameOriginsInEffect(m, capabilitiesOf(m.environment)),
    timezone: m.timezone,
    payer_must_match: m.payer_must_match,
    created_at: m.created_at,
    updated_at: m.updated_at,
  };
}
