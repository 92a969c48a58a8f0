-- Brazilian cashouts paid as Pix sends through the operator's PSP (Efí's "Enviar Pix",
-- src/connectors/pix/payouts.ts; docs/connectors.md "Pix payouts").
--   cashouts.pix_key      caja's extension: a BR cashout may name the beneficiary's Pix key; it is
--                         then sent to the key instead of the bank account
--   cashouts.owner_check  the merchant required, when the cashout was created, that it be paid only
--                         to a key or account held by the beneficiary's document (Efí's "mesma
--                         titularidade"); kept with the cashout so a later change of the setting
--                         does not change a payout already promised
--   merchants.payer_must_match  the merchant's setting (its admin API and panel come with issue 41)
ALTER TABLE merchants ADD COLUMN IF NOT EXISTS payer_must_match boolean NOT NULL DEFAULT false;
ALTER TABLE cashouts ADD COLUMN pix_key text;
ALTER TABLE cashouts ADD COLUMN owner_check boolean NOT NULL DEFAULT false;
