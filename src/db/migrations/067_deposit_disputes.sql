-- A card payment disputed by the cardholder's bank (a chargeback): one row per disputed payment,
-- moved by the acquirer's dispute notifications (Adyen: NOTIFICATION_OF_CHARGEBACK, CHARGEBACK,
-- CHARGEBACK_REVERSED, SECOND_CHARGEBACK; src/deposits/disputes.ts). The money is a bank-initiated
-- return (deposit_returns, migration 063, kind 'chargeback'): `return_id` is the return applied
-- while the dispute is 'charged' (reversed by CHARGEBACK_REVERSED). The notice alone ('notified')
-- moves no money but shows the defence deadline. Each notification applies once (dispute_events).
CREATE TABLE deposit_disputes (
  id serial PRIMARY KEY,
  deposit_id integer NOT NULL REFERENCES deposits (id),
  merchant_id integer NOT NULL REFERENCES merchants (id),
  connector text NOT NULL,
  -- The disputed payment's reference at the acquirer (Adyen: the payment's pspReference).
  payment_reference text NOT NULL,
  -- notified (no money moved) | charged (its return applied) | reversed (its return reversed)
  status text NOT NULL CHECK (status IN ('notified', 'charged', 'reversed')),
  reason text,
  reason_code text,
  -- What the acquirer disputes, in the payment's currency.
  disputed_amount numeric NOT NULL,
  disputed_currency text NOT NULL,
  return_id integer REFERENCES deposit_returns (id),
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
  dispute_id integer NOT NULL REFERENCES deposit_disputes (id),
  return_id integer,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (connector, psp_reference, event_code)
);
