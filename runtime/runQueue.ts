import type { PromoteQueuedRuns } from '../domain/useCases/runs/promoteQueuedRuns.js';
import type { Logger } from './logger.js';

/**
 * The queue's periodic sweep (issue 33), in every API process: a pass at start, then every intervalMs, each starting
 * the queued runs whose organization has a free slot (promoteQueuedRuns.sweep). Queued runs are started when a run
 * ends (the RunEnded tell); the sweep is what starts them when that tell was lost (a process stopped between a run's
 * end and its tell, a run ended by a replica that was stopping) and after a restart. Replicas sweeping at once take
 * turns per organization (its run lock), so no run starts twice and no cap is exceeded.
 */
export function startQueueSweep(
  queue: Pick<PromoteQueuedRuns, 'sweep'>,
  options: { intervalMs: number; log: Logger },
): { stop(): Promise<void> } {
  let stopped = false;
  let pass: Promise<void> | undefined;
  let timer: NodeJS.Timeout | undefined;
  const run = () => {
    pass = queue
      .sweep()
      .then(
        (started) => {
          if (started > 0) options.log.info({ started }, 'queue sweep started queued runs');
        },
        (error: unknown) =>
          options.log.warn(
            { err: error instanceof Error ? error.message : String(error) },
            'queue sweep failed; trying again next interval',
          ),
      )
      .finally(() => {
        pass = undefined;
        if (!stopped) schedule();
      });
  };
  const schedule = () => {
    timer = setTimeout(run, options.intervalMs);
    timer.unref();
  };
  run();
  return {
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await pass;
    },
  };
}
