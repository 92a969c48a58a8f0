-- The STP (SPEI) connector (src/connectors/stp/, docs/connectors.md "The STP connector").
--
-- Each MX SPEI deposit collected through STP gets its own CLABE inside the operator's range
-- (clabe_prefix, 10 digits, + 7 digits of this sequence + the check digit). A number is taken
-- once and never given again, so a CLABE is never reused, while its deposit can be paid or after.
CREATE SEQUENCE stp_clabe_numbers START 1 MINVALUE 1 MAXVALUE 9999999 NO CYCLE;

-- Cashouts sent through a payout connector (STP: a SPEI order, ordenPago/registra), tracked until
-- the provider settles them and, once paid, for the days a return may still come. `reference`
-- (STP: the claveRastreo) is derived from the cashout id and written before anything is sent:
-- state 'sending' means a request may have reached the provider, so the order is looked up by
-- that reference before anything is sent again (never two orders for one cashout).
CREATE TABLE connector_payouts (
  cashout_id integer PRIMARY KEY REFERENCES cashouts (id),
  connector text NOT NULL,
  reference text NOT NULL,
  state text NOT NULL CHECK (state IN ('new', 'sending', 'sent', 'done')),
  -- The provider's id of the order (STP: resultado.id) and the last state it reported.
  provider_id text,
  provider_state text,
  attempts integer NOT NULL DEFAULT 0,
  next_check_at timestamptz NOT NULL DEFAULT now(),
  -- One process works on a row at a time: it holds it until then.
  leased_until timestamptz,
  -- The provider posted a state change while a process held the row: looked up again at once.
  hinted boolean NOT NULL DEFAULT false,
  -- When caja last heard of the order (the send's answer, a callback, a look-up).
  heard_at timestamptz,
  last_error text,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX connector_payouts_reference ON connector_payouts (connector, reference);
CREATE INDEX connector_payouts_open ON connector_payouts (next_check_at) WHERE state <> 'done';
