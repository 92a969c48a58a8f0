-- A card deposit's last refused attempt (issue 42): the acquirer refused a card (Adyen's
-- AUTHORISATION with success false, its refusalReason and refusalReasonCode), or the return leg
-- read a refused session. The deposit stays PENDING and payable (the customer may try another card
-- until it expires, then CANCELLED: the contract has no refused state for a stored deposit), and
-- GET /v3/deposits/{id} shows this as `card_refusal`, streamline as `x_approval_detail`.
-- {reason, reason_code, refused_at, attempts}; null when no card was refused.
ALTER TABLE deposits ADD COLUMN card_refusal jsonb;
