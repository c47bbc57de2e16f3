-- Issue 18: a run's events stream (GET /eval-runs/{id}/events) sends each iteration once it is final, in the order
-- iterations became final, and resumes after the last one a client saw (Last-Event-ID). `seq` is plan order, not
-- that order, so a final iteration gets a stream position from a sequence at the moment its status becomes final:
-- completed or failed by the worker, cancelled when its run ends, or inserted final by ingest. A trigger assigns it,
-- so every path that ends an iteration (and any added later) does, in the same statement.
CREATE SEQUENCE eval_iterations_stream_position_seq AS bigint;

ALTER TABLE eval_iterations ADD COLUMN stream_position bigint;

CREATE FUNCTION eval_iterations_stream_position() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NEW.status IN ('completed', 'failed', 'cancelled')
     AND (TG_OP = 'INSERT' OR OLD.status NOT IN ('completed', 'failed', 'cancelled')) THEN
    NEW.stream_position := nextval('eval_iterations_stream_position_seq');
  END IF;
  RETURN NEW;
END $$;

CREATE TRIGGER eval_iterations_stream_position
  BEFORE INSERT OR UPDATE OF status ON eval_iterations
  FOR EACH ROW EXECUTE FUNCTION eval_iterations_stream_position();

-- Iterations already final: positions in plan order, run by run.
UPDATE eval_iterations i SET stream_position = o.position
FROM (
  SELECT id, nextval('eval_iterations_stream_position_seq') AS position
  FROM (SELECT id FROM eval_iterations WHERE status IN ('completed', 'failed', 'cancelled') ORDER BY run_id, seq) f
) o
WHERE i.id = o.id;

-- The stream's read: a run's final iterations after a position.
CREATE INDEX eval_iterations_stream_idx ON eval_iterations (run_id, stream_position)
  WHERE stream_position IS NOT NULL;
