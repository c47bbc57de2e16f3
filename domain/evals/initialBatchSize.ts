// Pure arithmetic of the plan (planRun), which the workflow reads back as its first batches' size.

/** The first batches: about this many per lane over the run, so the first timings come in early... */
const initialBatchesPerLane = 8;
/** ...and never more iterations than this before any batch has been timed. */
const initialMaxSize = 25;

/**
 * The size of the first batches of a run of `iterations` over `lanes` (at least 1) lanes: the plan's `batchSize`, the
 * workflow's BatchSizing `initialSize` (workflows/batching.ts). The plan computes it and the plan is recorded in
 * history, so a change here reaches only runs planned after it; the workflow's pre-patch branch cuts every batch to
 * this size.
 */
export function initialBatchSize(iterations: number, lanes: number): number {
  return Math.min(initialMaxSize, Math.max(1, Math.ceil(iterations / (lanes * initialBatchesPerLane))));
}
