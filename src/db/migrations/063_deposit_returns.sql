-- Bank-initiated returns (issue 41): money the payer's bank takes back from a deposit after caja
-- credited it, without the merchant asking: a Pix MED devolução (natureza MED_OPERACIONAL,
-- MED_FRAUDE, MED_PIX_AUTOMATICO), a SPEI abono the ordering bank takes back, and (issue 42) a card
-- chargeback. Recorded once per (provider, provider_return_id) by src/deposits/returns.ts, which
-- takes the deposit's share back from the merchant's balance in one ledger transfer.
--
-- A return the available balance does not cover leaves a debt: the merchant's `debt` account
-- (never above zero: src/ledger/check.ts) holds what is still owed, and is paid from later credits (a `debt.recover`
-- transfer, subject a debt_recoveries row). The merchant's balance as shown is available + debt.
ALTER TABLE ledger_accounts DROP CONSTRAINT IF EXISTS ledger_accounts_kind_check;
ALTER TABLE ledger_accounts ADD CONSTRAINT ledger_accounts_kind_check
  CHECK (kind IN ('available', 'reserved', 'fees', 'debt', 'settlement', 'fee_revenue', 'bank', 'bank_fees', 'bank_adjustments', 'bank_unapplied'));
ALTER TABLE ledger_transfers DROP CONSTRAINT IF EXISTS ledger_transfers_subject_type_check;
ALTER TABLE ledger_transfers ADD CONSTRAINT ledger_transfers_subject_type_check
  CHECK (subject_type IN ('deposit', 'refund', 'cashout', 'adjustment', 'bank_entry', 'bank_account', 'deposit_return', 'debt_recovery'));

CREATE TABLE deposit_returns (
  id serial PRIMARY KEY,
  -- Null while caja cannot match the return to a deposit (an operator exception: status 'unmatched').
  merchant_id integer REFERENCES merchants(id),
  deposit_id integer REFERENCES deposits(id),
  provider text NOT NULL,
  provider_return_id text NOT NULL,
  -- The provider's id of the payment returned (Pix e2eid, STP clave de rastreo, PSP reference).
  payment_id text,
  kind text NOT NULL CHECK (kind IN ('med', 'spei_return', 'chargeback')),
  -- The provider's code (Pix natureza, STP causa de devolución, chargeback reason code).
  reason text NOT NULL,
  description text,
  -- What the provider took back, in the payment's currency.
  amount numeric NOT NULL CHECK (amount > 0),
  currency text NOT NULL CHECK (currency ~ '^[A-Z]{3}$'),
  -- A fee charged to the merchant on top (a chargeback fee); null when none.
  fee numeric CHECK (fee IS NULL OR fee >= 0),
  -- What left the merchant's balance, in its settlement currency (null: nothing was credited).
  debit numeric,
  debit_currency text,
  status text NOT NULL CHECK (status IN ('applied', 'reversed', 'unmatched')),
  -- Until when the merchant may dispute it (chargebacks); null when not disputable.
  deadline_at timestamptz,
  returned_at timestamptz,
  seen_via text NOT NULL,
  raw jsonb,
  created_at timestamptz NOT NULL DEFAULT now(),
  reversed_at timestamptz,
  reversed_reason text,
  UNIQUE (provider, provider_return_id),
  CHECK ((status = 'unmatched') = (deposit_id IS NULL))
);
CREATE INDEX deposit_returns_deposit_idx ON deposit_returns (deposit_id);
CREATE INDEX deposit_returns_merchant_idx ON deposit_returns (merchant_id, id);
CREATE INDEX deposit_returns_unmatched_idx ON deposit_returns (id) WHERE status = 'unmatched';

-- What bank-initiated returns took back from the deposit (applied ones), in the deposit's local currency.
ALTER TABLE deposits ADD COLUMN returned_amount numeric NOT NULL DEFAULT 0;

CREATE TABLE debt_recoveries (
  id serial PRIMARY KEY,
  merchant_id integer NOT NULL REFERENCES merchants(id),
  currency text NOT NULL,
  amount numeric NOT NULL CHECK (amount > 0),
  created_at timestamptz NOT NULL DEFAULT now()
);
