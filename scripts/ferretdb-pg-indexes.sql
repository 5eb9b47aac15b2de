-- Makes FerretDB 1.24 on PostgreSQL use indexes for equality lookups, as MongoDB does.
--
-- Why: FerretDB stores each collection as a table of one jsonb column and creates a btree index
-- on ((_jsonb -> 'field')) for every MongoDB index, but it pushes an equality filter down as
-- `_jsonb -> $1 @> $2` — a parameterised key and the containment operator, which a btree index
-- cannot serve. Every find, update and delete by _id therefore scanned the whole table (measured:
-- 1 ms at 1,000 documents, 9 ms at 30,000), which made the ledger, the publish tasks and reads
-- by id grow with the collection.
--
-- What: for every btree index FerretDB creates on jsonb expressions, an event trigger adds a
-- companion GIN index over the same expressions (GIN serves @>), and the database plans every
-- statement with its bound values (plan_cache_mode = force_custom_plan), so `_jsonb -> '_id'`
-- matches the index expression. PostgreSQL still checks every row it returns and FerretDB filters
-- again afterwards, so results are exactly what a full scan gives; only the speed changes.
--
-- plan_cache_mode here is for builds that push keys down as parameters (FerretDB as released,
-- conditional-writes.patch alone; bench/db.mjs runs them). Ours (fast-writes.patch) sets
-- plan_cache_mode = auto on its own connections: it pushes _id down as the _id index's expression,
-- so lookups and writes by _id may keep a generic plan, and runs other filtered queries as unnamed
-- statements, which PostgreSQL plans with their values every time.
-- Applied by scripts/infra.sh to the FerretDB database before FerretDB starts; idempotent.

SET client_min_messages = warning;

DO $$ BEGIN
  EXECUTE format('ALTER DATABASE %I SET plan_cache_mode = force_custom_plan', current_database());
END $$;

CREATE OR REPLACE FUNCTION social_gin_companion(idx oid) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
  info record;
  exprs text[] := '{}';
  k int;
  expr text;
  companion text;
BEGIN
  SELECT i.indexrelid, i.indrelid, i.indnatts, c.relname AS name, n.nspname AS schema, am.amname AS method
    INTO info
    FROM pg_index i
    JOIN pg_class c ON c.oid = i.indexrelid
    JOIN pg_namespace n ON n.oid = c.relnamespace
    JOIN pg_am am ON am.oid = c.relam
   WHERE i.indexrelid = idx;
  IF NOT FOUND OR info.method <> 'btree' OR info.schema IN ('pg_catalog', 'information_schema', 'pg_toast') THEN
    RETURN;
  END IF;
  FOR k IN 1..info.indnatts LOOP
    expr := pg_get_indexdef(idx, k, true);
    -- Only FerretDB's own shape: (_jsonb -> 'field'::text).
    IF expr !~ '^\(_jsonb -> ''[^'']*''::text\)$' THEN
      RETURN;
    END IF;
    exprs := exprs || expr;
  END LOOP;
  companion := left(info.name, 59) || '_gin';
  EXECUTE format('CREATE INDEX IF NOT EXISTS %I ON %I.%I USING gin (%s) WITH (fastupdate = off)',
                 companion, info.schema, (SELECT relname FROM pg_class WHERE oid = info.indrelid),
                 array_to_string(exprs, ', '));
END;
$$;

CREATE OR REPLACE FUNCTION social_on_create_index() RETURNS event_trigger LANGUAGE plpgsql AS $$
DECLARE
  cmd record;
BEGIN
  FOR cmd IN SELECT * FROM pg_event_trigger_ddl_commands() WHERE object_type = 'index' LOOP
    PERFORM social_gin_companion(cmd.objid);
  END LOOP;
END;
$$;

-- A dropped MongoDB index takes its companion with it (dropping a table drops both anyway).
CREATE OR REPLACE FUNCTION social_on_drop_index() RETURNS event_trigger LANGUAGE plpgsql AS $$
DECLARE
  obj record;
BEGIN
  FOR obj IN SELECT * FROM pg_event_trigger_dropped_objects()
              WHERE object_type = 'index' AND original AND object_name !~ '_gin$' LOOP
    EXECUTE format('DROP INDEX IF EXISTS %I.%I', obj.schema_name, left(obj.object_name, 59) || '_gin');
  END LOOP;
END;
$$;

DROP EVENT TRIGGER IF EXISTS social_gin_companions;
CREATE EVENT TRIGGER social_gin_companions ON ddl_command_end
  WHEN TAG IN ('CREATE INDEX') EXECUTE FUNCTION social_on_create_index();

DROP EVENT TRIGGER IF EXISTS social_gin_companions_drop;
CREATE EVENT TRIGGER social_gin_companions_drop ON sql_drop
  WHEN TAG IN ('DROP INDEX') EXECUTE FUNCTION social_on_drop_index();

-- Indexes made before this script ran.
SELECT social_gin_companion(i.indexrelid)
  FROM pg_index i
  JOIN pg_class c ON c.oid = i.indexrelid
  JOIN pg_namespace n ON n.oid = c.relnamespace
 WHERE n.nspname NOT IN ('pg_catalog', 'information_schema', 'pg_toast', 'public')
   AND c.relname !~ '_gin$';
