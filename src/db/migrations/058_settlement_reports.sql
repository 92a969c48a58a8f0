-- Daily settlement reports (src/settlements/, docs/balance.md#settlement-reports): per merchant,
-- currency and day of the merchant's timezone, every ledger movement of the day with its
-- reference, and the opening and closing balances. Immutable once generated: a movement booked
-- after its day's report (a late or back-dated transfer) is a correction line of the next report.
ALTER TABLE merchants ADD COLUMN timezone text NOT NULL DEFAULT 'UTC';

CREATE TABLE settlement_reports (
  id serial PRIMARY KEY,
  merchant_id integer NOT NULL REFERENCES merchants(id),
  currency text NOT NULL CHECK (currency ~ '^[A-Z]{3}$'),
  day date NOT NULL,
  timezone text NOT NULL,
  period_start timestamptz NOT NULL,
  period_end timestamptz NOT NULL,
  opening_available numeric NOT NULL,
  opening_reserved numeric NOT NULL,
  opening_fees numeric NOT NULL,
  closing_available numeric NOT NULL,
  closing_reserved numeric NOT NULL,
  closing_fees numeric NOT NULL,
  line_count integer NOT NULL,
  generated_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (merchant_id, currency, day)
);

CREATE TABLE settlement_report_lines (
  report_id integer NOT NULL REFERENCES settlement_reports(id),
  line integer NOT NULL,
  merchant_id integer NOT NULL,
  currency text NOT NULL,
  transfer_id bigint NOT NULL REFERENCES ledger_transfers(id),
  kind text NOT NULL,
  subject_type text NOT NULL,
  subject_id integer NOT NULL,
  reference text,
  available numeric NOT NULL,
  reserved numeric NOT NULL,
  fees numeric NOT NULL,
  booked_at timestamptz NOT NULL,
  -- Booked before the report's period: it missed an earlier day's report.
  correction boolean NOT NULL,
  PRIMARY KEY (report_id, line),
  -- A movement is reported once.
  UNIQUE (merchant_id, currency, transfer_id)
);

CREATE FUNCTION settlement_reports_immutable() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'settlement reports are immutable: % on % refused; a correction is a line of a later report', TG_OP, TG_TABLE_NAME
    USING ERRCODE = 'restrict_violation';
END;
$$;
CREATE TRIGGER settlement_reports_immutable BEFORE UPDATE OR DELETE ON settlement_reports
  FOR EACH ROW EXECUTE FUNCTION settlement_reports_immutable();
CREATE TRIGGER settlement_report_lines_immutable BEFORE UPDATE OR DELETE ON settlement_report_lines
  FOR EACH ROW EXECUTE FUNCTION settlement_reports_immutable();

-- A day's movements of one merchant, read by the settlement worker (and a period's, by anyone).
CREATE INDEX ledger_transfers_merchant_time_idx ON ledger_transfers (merchant_id, created_at);
