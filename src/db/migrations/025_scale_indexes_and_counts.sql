-- Costs that stay flat as the tables grow (docs/performance.md, "At scale").

-- A merchant's lists page newest first by id: without this index a small merchant's page walked
-- the primary key backwards over every other merchant's rows.
CREATE INDEX deposits_merchant_id_idx ON deposits (merchant_id, id);
-- The panel's search box finds a payer by e-mail in any case.
CREATE INDEX deposits_payer_email_idx ON deposits (merchant_id, lower(payer_email));
-- A deposit's page lists its notifications whatever their status (notifications_subject_idx
-- covers pending rows only: the claim's per-subject order). Led by the merchant, which the page
-- always names and the claim never does: an index on (subject_key, id) over every row drew the
-- claim's per-subject probe away from the small pending-only index (measured: the PGlite race
-- test of test/notifications/durability.test.ts went from 9 s to over its 35 s limit).
CREATE INDEX notifications_merchant_subject_idx ON notifications (merchant_id, subject_key);

-- The panel home's figures per merchant, UTC day, country and method, kept beside the rows they
-- count instead of aggregated over 30 days of deposits on every view. Each write of a counted row
-- appends a delta (a trigger, so no writer can forget it and no two writers contend on a
-- counter row); the deposit worker folds deltas into panel_day_figures; the home adds both, so
-- it is exact at every moment and reads at most (days × countries × methods) rows plus the
-- deltas of one worker interval. Refunds and cashouts count on rows of country and method ''.
CREATE TABLE panel_day_figures (
  merchant_id integer NOT NULL,
  day date NOT NULL,
  country text NOT NULL,
  payment_method text NOT NULL,
  created bigint NOT NULL DEFAULT 0,
  completed bigint NOT NULL DEFAULT 0,
  completed_usd numeric NOT NULL DEFAULT 0,
  refunds bigint NOT NULL DEFAULT 0,
  cashouts bigint NOT NULL DEFAULT 0,
  PRIMARY KEY (merchant_id, day, country, payment_method)
);

CREATE TABLE panel_day_deltas (
  id bigserial PRIMARY KEY,
  merchant_id integer NOT NULL,
  day date NOT NULL,
  country text NOT NULL,
  payment_method text NOT NULL,
  created bigint NOT NULL DEFAULT 0,
  completed bigint NOT NULL DEFAULT 0,
  completed_usd numeric NOT NULL DEFAULT 0,
  refunds bigint NOT NULL DEFAULT 0,
  cashouts bigint NOT NULL DEFAULT 0
);
CREATE INDEX panel_day_deltas_merchant_idx ON panel_day_deltas (merchant_id, day);

-- A deposit counts once as created in its (day, country, method) group and, while COMPLETED, as
-- completed with its USD amount. An update that changes any of these takes the old row's share
-- out and puts the new one's in (a HOSTED deposit gets its method when the customer chooses one).
CREATE FUNCTION panel_deposit_delta() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'UPDATE' THEN
    IF OLD.status IS NOT DISTINCT FROM NEW.status AND OLD.country IS NOT DISTINCT FROM NEW.country
       AND OLD.payment_method IS NOT DISTINCT FROM NEW.payment_method AND OLD.usd_amount IS NOT DISTINCT FROM NEW.usd_amount THEN
      RETURN NULL;
    END IF;
    INSERT INTO panel_day_deltas (merchant_id, day, country, payment_method, created, completed, completed_usd)
    VALUES (OLD.merchant_id, (OLD.created_at AT TIME ZONE 'UTC')::date, OLD.country, coalesce(OLD.payment_method, '-'), -1,
            CASE WHEN OLD.status = 'COMPLETED' THEN -1 ELSE 0 END, CASE WHEN OLD.status = 'COMPLETED' THEN -OLD.usd_amount ELSE 0 END);
  END IF;
  INSERT INTO panel_day_deltas (merchant_id, day, country, payment_method, created, completed, completed_usd)
  VALUES (NEW.merchant_id, (NEW.created_at AT TIME ZONE 'UTC')::date, NEW.country, coalesce(NEW.payment_method, '-'), 1,
          CASE WHEN NEW.status = 'COMPLETED' THEN 1 ELSE 0 END, CASE WHEN NEW.status = 'COMPLETED' THEN NEW.usd_amount ELSE 0 END);
  RETURN NULL;
END;
$$;
CREATE TRIGGER deposits_panel_figures AFTER INSERT OR UPDATE ON deposits
  FOR EACH ROW EXECUTE FUNCTION panel_deposit_delta();

CREATE FUNCTION panel_refund_cashout_delta() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO panel_day_deltas (merchant_id, day, country, payment_method, refunds, cashouts)
  VALUES (NEW.merchant_id, (NEW.created_at AT TIME ZONE 'UTC')::date, '', '',
          CASE WHEN TG_TABLE_NAME = 'refunds' THEN 1 ELSE 0 END, CASE WHEN TG_TABLE_NAME = 'cashouts' THEN 1 ELSE 0 END);
  RETURN NULL;
END;
$$;
CREATE TRIGGER refunds_panel_figures AFTER INSERT ON refunds FOR EACH ROW EXECUTE FUNCTION panel_refund_cashout_delta();
CREATE TRIGGER cashouts_panel_figures AFTER INSERT ON cashouts FOR EACH ROW EXECUTE FUNCTION panel_refund_cashout_delta();

-- The figures of the rows already there (and of rows written by bulk loads with triggers off).
CREATE FUNCTION panel_day_figures_rebuild() RETURNS void LANGUAGE sql AS $$
  DELETE FROM panel_day_deltas;
  DELETE FROM panel_day_figures;
  INSERT INTO panel_day_figures (merchant_id, day, country, payment_method, created, completed, completed_usd, refunds, cashouts)
  SELECT merchant_id, day, country, payment_method, sum(created), sum(completed), sum(completed_usd), sum(refunds), sum(cashouts)
  FROM (
    SELECT merchant_id, (created_at AT TIME ZONE 'UTC')::date AS day, country, coalesce(payment_method, '-') AS payment_method,
           count(*) AS created, count(*) FILTER (WHERE status = 'COMPLETED') AS completed,
           coalesce(sum(usd_amount) FILTER (WHERE status = 'COMPLETED'), 0) AS completed_usd, 0 AS refunds, 0 AS cashouts
    FROM deposits GROUP BY 1, 2, 3, 4
    UNION ALL
    SELECT merchant_id, (created_at AT TIME ZONE 'UTC')::date, '', '', 0, 0, 0, count(*), 0 FROM refunds GROUP BY 1, 2
    UNION ALL
    SELECT merchant_id, (created_at AT TIME ZONE 'UTC')::date, '', '', 0, 0, 0, 0, count(*) FROM cashouts GROUP BY 1, 2
  ) x
  GROUP BY 1, 2, 3, 4;
$$;
SELECT panel_day_figures_rebuild();

-- /metrics reports failed notifications on every scrape: a count kept by a trigger that fires
-- only when a row enters or leaves 'failed' (rare), instead of counting the whole outbox. The
-- pending count stays a count: it reads the pending rows' partial index, the size of the backlog.
CREATE TABLE outbox_counts (
  status text PRIMARY KEY,
  n bigint NOT NULL
);
INSERT INTO outbox_counts SELECT 'failed', count(*) FROM notifications WHERE status = 'failed';

CREATE FUNCTION outbox_failed_count() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE outbox_counts SET n = n + (CASE WHEN TG_OP <> 'DELETE' AND NEW.status = 'failed' THEN 1 ELSE 0 END)
                                  - (CASE WHEN TG_OP <> 'INSERT' AND OLD.status = 'failed' THEN 1 ELSE 0 END)
  WHERE status = 'failed';
  RETURN NULL;
END;
$$;
CREATE TRIGGER notifications_failed_count_insert AFTER INSERT ON notifications
  FOR EACH ROW WHEN (NEW.status = 'failed') EXECUTE FUNCTION outbox_failed_count();
CREATE TRIGGER notifications_failed_count_update AFTER UPDATE OF status ON notifications
  FOR EACH ROW WHEN ((OLD.status = 'failed') <> (NEW.status = 'failed')) EXECUTE FUNCTION outbox_failed_count();
CREATE TRIGGER notifications_failed_count_delete AFTER DELETE ON notifications
  FOR EACH ROW WHEN (OLD.status = 'failed') EXECUTE FUNCTION outbox_failed_count();
