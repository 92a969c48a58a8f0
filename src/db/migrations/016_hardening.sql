-- Signed requests that changed state, kept while a replay of them could still be accepted: a
-- v3 write while its X-Date is valid, a streamline refund form for 24 hours. The same request
-- arriving again is answered with the first one's stored response and changes nothing. The
-- primary key is the claim: one index insert decides which copy runs, across processes.
CREATE TABLE signed_requests (
  merchant_id integer NOT NULL REFERENCES merchants(id),
  request_hash text NOT NULL,
  expires_at timestamptz NOT NULL,
  -- Null while the first request runs.
  status integer,
  content_type text,
  body text,
  PRIMARY KEY (merchant_id, request_hash)
);
CREATE INDEX signed_requests_expiry ON signed_requests (expires_at);

-- A merchant may require the SVC2 signature (method, path and query covered) on v3/v5 calls.
ALTER TABLE merchants ADD COLUMN require_svc2 boolean NOT NULL DEFAULT false;
