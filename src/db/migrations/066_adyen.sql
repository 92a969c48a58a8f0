-- The Adyen connector (src/connectors/adyen/): the charges caja created there and the
-- notifications Adyen sent, verified (HMAC) before they are stored.
--
-- adyen_charges: one row per charge, written before the request is sent (its merchantReference
-- is random, src/domain/references.ts); the session id (a card's hosted checkout) or the voucher's
-- pspReference is added from Adyen's answer.
CREATE TABLE adyen_charges (
  merchant_reference text PRIMARY KEY,
  method text NOT NULL,
  amount numeric NOT NULL,
  currency text NOT NULL,
  session_id text,
  psp_reference text,
  created_at timestamptz NOT NULL DEFAULT now()
);

-- adyen_events: each verified notification item once, by pspReference and eventCode (a replayed
-- or duplicated notification is a no-op). Refund outcomes are read from here (REFUND,
-- REFUND_FAILED by the refund's merchantReference), and the connector's health.
CREATE TABLE adyen_events (
  psp_reference text NOT NULL,
  event_code text NOT NULL,
  success boolean NOT NULL,
  merchant_reference text NOT NULL,
  original_reference text,
  amount numeric NOT NULL,
  currency text NOT NULL,
  reason text,
  payment_method text,
  additional_data jsonb NOT NULL DEFAULT '{}',
  event_date timestamptz,
  received_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (psp_reference, event_code)
);
CREATE INDEX adyen_events_merchant_reference ON adyen_events (merchant_reference);
CREATE INDEX adyen_events_received ON adyen_events (received_at);
