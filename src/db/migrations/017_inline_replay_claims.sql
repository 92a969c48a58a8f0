-- A deposit creation claims its signed request in the statement that writes the deposit: one
-- round trip and one commit instead of three. Its copies are answered from the deposit the claim
-- names (the creation answer is a function of the row), so no response body is stored for it.
ALTER TABLE signed_requests ADD COLUMN deposit_id integer;
