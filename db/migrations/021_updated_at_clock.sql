-- Issue 20 item 14: updatedAt was earlier than createdAt. created_at defaults to clock_timestamp() (the insert's own
-- time) but updated_at defaulted to now() (the transaction's start), so a row inserted in a transaction had
-- updated_at < created_at. Every updated_at now defaults to clock_timestamp() (the statements that set it do too),
-- and rows written before are repaired. Generic over the tables, so it also covers any table added before it.
DO $$
DECLARE
  t record;
BEGIN
  FOR t IN
    SELECT c.table_name FROM information_schema.columns c
    JOIN information_schema.tables tb ON tb.table_schema = c.table_schema AND tb.table_name = c.table_name AND tb.table_type = 'BASE TABLE'
    WHERE c.table_schema = current_schema() AND c.column_name = 'updated_at'
  LOOP
    EXECUTE format('ALTER TABLE %I ALTER COLUMN updated_at SET DEFAULT clock_timestamp()', t.table_name);
    IF EXISTS (SELECT 1 FROM information_schema.columns
               WHERE table_schema = current_schema() AND table_name = t.table_name AND column_name = 'created_at') THEN
      EXECUTE format('UPDATE %I SET updated_at = created_at WHERE updated_at < created_at', t.table_name);
    END IF;
  END LOOP;
END $$;
