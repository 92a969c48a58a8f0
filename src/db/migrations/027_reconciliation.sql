-- Reconciliation against bank statements (src/reconciliation/, docs/reconciliation.md).
--
-- bank_accounts          the operator's accounts as statements name them (IBAN, account number,
--                        or BR bank/agency/account), created on first import; each has a `bank`
--                        ledger account per currency.
-- bank_statements        one row per imported statement; (account, statement_ref) is unique, so a
--                        second import of the same file finds the first and changes nothing.
-- bank_entries           the statement's entries in one normalised shape; (account, entry_key)
--                        is unique, so an entry repeated in a later statement (camt.054 then
--                        camt.053 of the same day) is stored once.
-- reconciliation_matches what an entry was matched to, and by which rule.
-- reconciliation_exceptions  entries nothing was matched to (or that disagree with what they
--                        name), open until an operator resolves them.
-- Who imported or resolved what is an operator_audit row (migration 028), written in the
-- action's transaction.

CREATE TABLE bank_accounts (
  id serial PRIMARY KEY,
  -- 'iban:DE…', 'acct:1234', 'br:341:1234:56789-0': what statements of this account carry.
  identifier text NOT NULL UNIQUE,
  currency text NOT NULL CHECK (currency ~ '^[A-Z]{3}$'),
  -- The balance the bank showed before caja's first import of it (booked once as bank.opening).
  opening_balance numeric,
  created_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE bank_statements (
  id serial PRIMARY KEY,
  bank_account_id integer NOT NULL REFERENCES bank_accounts(id),
  statement_ref text NOT NULL,
  format text NOT NULL CHECK (format IN ('camt053', 'camt054', 'ofx', 'cnab240')),
  file_sha256 text NOT NULL,
  statement_date date,
  opening_balance numeric,
  closing_balance numeric,
  entries integer NOT NULL,
  matched integer NOT NULL,
  exceptions integer NOT NULL,
  -- Entries already known from an earlier statement (stored once, counted here only).
  repeated integer NOT NULL DEFAULT 0,
  imported_by text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (bank_account_id, statement_ref)
);
-- The same file posted again is recognised before it is parsed.
CREATE INDEX bank_statements_sha_idx ON bank_statements (file_sha256);

CREATE TABLE bank_entries (
  id serial PRIMARY KEY,
  statement_id integer NOT NULL REFERENCES bank_statements(id),
  bank_account_id integer NOT NULL REFERENCES bank_accounts(id),
  -- The bank's own id of the entry when it gives one, else a digest of what identifies it.
  entry_key text NOT NULL,
  booking_date date NOT NULL,
  value_date date,
  amount numeric NOT NULL CHECK (amount > 0),
  currency text NOT NULL,
  direction text NOT NULL CHECK (direction IN ('credit', 'debit')),
  reversal boolean NOT NULL DEFAULT false,
  refs jsonb NOT NULL DEFAULT '{}',
  counterparty_document text,
  counterparty_name text,
  description text,
  status text NOT NULL CHECK (status IN ('matched', 'exception', 'resolved')),
  UNIQUE (bank_account_id, entry_key)
);
CREATE INDEX bank_entries_statement_idx ON bank_entries (statement_id, id);

CREATE TABLE reconciliation_matches (
  id serial PRIMARY KEY,
  entry_id integer NOT NULL REFERENCES bank_entries(id),
  rule text NOT NULL CHECK (rule IN ('reference', 'amount_date_document', 'settlement_batch', 'operator')),
  target_type text NOT NULL CHECK (target_type IN ('deposit', 'cashout')),
  target_id integer NOT NULL,
  -- What the match did: completed, confirmed (already settled elsewhere), returned (cashout rejected).
  effect text NOT NULL,
  amount numeric NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX reconciliation_matches_entry_idx ON reconciliation_matches (entry_id);
-- A deposit or cashout is matched by one bank movement, and a cashout's return by one more.
CREATE UNIQUE INDEX reconciliation_matches_target_once ON reconciliation_matches (target_type, target_id, (effect = 'returned'));

CREATE TABLE reconciliation_exceptions (
  id serial PRIMARY KEY,
  entry_id integer NOT NULL UNIQUE REFERENCES bank_entries(id),
  reason text NOT NULL CHECK (reason IN ('unknown_reference', 'no_match', 'ambiguous', 'amount_differs', 'already_completed', 'already_matched', 'not_completable')),
  detail text NOT NULL,
  candidates jsonb NOT NULL DEFAULT '[]',
  status text NOT NULL DEFAULT 'open' CHECK (status IN ('open', 'resolved')),
  resolution jsonb,
  resolved_by text,
  resolved_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX reconciliation_exceptions_open_idx ON reconciliation_exceptions (id) WHERE status = 'open';

-- The ledger's bank side: caja's accounts per bank account (`bank`: the money at that bank) and
-- per currency (`bank_fees`: what banks and acquirers kept; `bank_adjustments`: corrections an
-- operator booked with a reason, and the opening balances; `bank_unapplied`: money received that
-- is owed back to its sender). bank_key tells the bank accounts apart (0 for every other account).
ALTER TABLE ledger_accounts ADD COLUMN bank_key integer NOT NULL DEFAULT 0;
ALTER TABLE ledger_accounts DROP CONSTRAINT ledger_accounts_kind_check;
ALTER TABLE ledger_accounts ADD CONSTRAINT ledger_accounts_kind_check
  CHECK (kind IN ('available', 'reserved', 'fees', 'settlement', 'fee_revenue', 'bank', 'bank_fees', 'bank_adjustments', 'bank_unapplied'));
ALTER TABLE ledger_accounts DROP CONSTRAINT ledger_accounts_check;
ALTER TABLE ledger_accounts ADD CONSTRAINT ledger_accounts_owner_check
  CHECK ((merchant_key = 0) = (kind IN ('settlement', 'fee_revenue', 'bank', 'bank_fees', 'bank_adjustments', 'bank_unapplied'))
     AND ((bank_key <> 0) = (kind = 'bank')));
ALTER TABLE ledger_accounts DROP CONSTRAINT ledger_accounts_merchant_key_currency_kind_key;
ALTER TABLE ledger_accounts ADD CONSTRAINT ledger_accounts_key UNIQUE (merchant_key, currency, kind, bank_key);
ALTER TABLE ledger_transfers DROP CONSTRAINT ledger_transfers_subject_type_check;
ALTER TABLE ledger_transfers ADD CONSTRAINT ledger_transfers_subject_type_check
  CHECK (subject_type IN ('deposit', 'refund', 'cashout', 'adjustment', 'bank_entry', 'bank_account'));
