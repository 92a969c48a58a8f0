-- A card payment disputed by the cardholder's bank (a chargeback), in its first form: one row per
-- disputed payment, moved by the acquirer's dispute notifications (Adyen:
-- NOTIFICATION_OF_CHARGEBACK, CHARGEBACK, CHARGEBACK_REVERSED, SECOND_CHARGEBACK). While
-- 'charged' the amount (the deposit's credit, its share for a partial dispute) and the acquirer's
-- fee are out of the merchant's available balance (balance_adjustments, debit); 'reversed' gave
-- them back (credit). Each notification applies once (dispute_events' primary key).
CREATE TABLE deposit_disputes (
  id bigserial PRIMARY KEY,
  deposit_id integer NOT NULL REFERENCES deposits (id),
  merchant_id integer NOT NULL,
  connector text NOT NULL,
  -- The disputed payment's reference at the acquirer (Adyen: the payment's pspReference).
  payment_reference text NOT NULL,
  kind text NOT NULL DEFAULT 'chargeback',
  -- notified (no money moved yet) | charged | reversed
  status text NOT NULL CHECK (status IN ('notified', 'charged', 'reversed')),
  reason text,
  reason_code text,
  -- What the acquirer disputes, in the payment's currency.
  disputed_amount numeric NOT NULL,
  disputed_currency text NOT NULL,
  -- What is taken from the merchant while charged, in the merchant's credit currency.
  amount numeric,
  fee numeric,
  currency text,
  -- The merchant's available balance did not cover the debit: the operator recovers it.
  unrecovered boolean NOT NULL DEFAULT false,
  deadline_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (connector, payment_reference)
);
CREATE INDEX deposit_disputes_deposit ON deposit_disputes (deposit_id);

CREATE TABLE dispute_events (
  connector text NOT NULL,
  psp_reference text NOT NULL,
  event_code text NOT NULL,
  dispute_id bigint NOT NULL REFERENCES deposit_disputes (id),
  adjustment_id integer,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (connector, psp_reference, event_code)
);
