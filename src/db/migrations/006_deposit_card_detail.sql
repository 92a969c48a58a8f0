-- What a card deposit shows of the card it was paid with, in the shape the official client
-- libraries read (`card_detail` of the deposit status): card_holder, masked_card
-- ("411111******1111"), brand, expiration ("MM/YY"). Never the full number or the CVC.
ALTER TABLE deposits ADD COLUMN card_detail jsonb;
