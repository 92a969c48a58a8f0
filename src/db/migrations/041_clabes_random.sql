-- CLABEs handed out to STP (SPEI) deposits: drawn at random inside the operator's range
-- (clabe_prefix + 7 random digits + the check digit) and reserved here, under a unique key,
-- before the deposit shows it (src/connectors/stp/clabes.ts). A sequence would give the same
-- numbers again after the database is restored to an earlier point or in a second installation
-- of the same range; a random draw lands on a CLABE handed out before only by chance (one in
-- ten million per number given out before and lost). The sequence of 023 is no longer used.
CREATE TABLE stp_clabes (
  clabe text PRIMARY KEY,
  prefix text NOT NULL,
  number integer NOT NULL CHECK (number BETWEEN 1 AND 9999999),
  -- The deposit it was drawn for (reserved before the deposit row is written: no foreign key).
  deposit_id integer,
  -- 'deposit': handed out to a deposit; 'seen': STP showed a transfer into it that no deposit of
  -- this database had (it was handed out by a state of the database since lost, or elsewhere).
  origin text NOT NULL DEFAULT 'deposit' CHECK (origin IN ('deposit', 'seen')),
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX stp_clabes_number ON stp_clabes (prefix, number);

-- Every CLABE the sequence handed out stays taken.
INSERT INTO stp_clabes (clabe, prefix, number, deposit_id, created_at)
SELECT connector_reference, substr(connector_reference, 1, 10), substr(connector_reference, 11, 7)::integer, id, created_at
FROM deposits
WHERE connector = 'stp' AND connector_reference ~ '^[0-9]{18}$' AND substr(connector_reference, 11, 7)::integer >= 1
ON CONFLICT DO NOTHING;
