-- A charge's next action (src/domain/next-action.ts) when payment_info does not hold it: a
-- redirect to the provider's page or a challenge, as the connector answered it, so a reload of
-- the checkout sends the customer to the same place (docs/checkout.md, Cards).
ALTER TABLE deposits ADD COLUMN next_action jsonb;

-- The staging card network's own record of what was typed on its simulated card page
-- (src/connectors/staging/card.ts): one row per attempt on a charge, read back by the return leg
-- as an acquirer's payment result is. Only the masked card (deposits.card_detail's shape) is kept.
CREATE TABLE staging_card_attempts (
  id bigserial PRIMARY KEY,
  charge_reference text NOT NULL,
  -- authorised | refused | challenge (waiting for the customer's 3-D Secure answer)
  status text NOT NULL,
  card_detail jsonb NOT NULL,
  created_at timestamptz NOT NULL,
  decided_at timestamptz
);
CREATE INDEX staging_card_attempts_charge ON staging_card_attempts (charge_reference, id);
