-- A connector's configuration saved by one process reaches the others at once: a change of the
-- configuration columns (not the health facts the connectors record as they work) notifies
-- 'caja_connectors', on which every process on PostgreSQL listens and clears its cached copy
-- (src/connectors/registry.ts). Delivered at commit, so a listener never reads an older row.
CREATE FUNCTION caja_connectors_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('caja_connectors', '');
  RETURN NULL;
END
$$;

CREATE TRIGGER connectors_changed AFTER INSERT OR DELETE OR UPDATE OF enabled, settings, secrets, updated_at ON connectors
  FOR EACH STATEMENT EXECUTE FUNCTION caja_connectors_changed();
