-- Issue 31 (adaptive iterations): a run that spends iterations where its comparison with a baseline run is still
-- open. NULL: a fixed-n run, as every run before this migration. Otherwise
-- { baselineRunId, maxIterationsPerCase, stopWhen, design: { alpha, firstRound, roundSize, maxIterations, spending,
-- futilityZ }, cases?: [{ caseId, title, iterations, look, stopReason, pValue }] }, the cases written after each
-- round (domain/useCases/runs/adaptiveRound.ts).
ALTER TABLE eval_runs ADD COLUMN adaptive jsonb;
