import type { Logger } from '../domain/ports/logger.js';
import type { RunEnded, RunEndedEvent } from '../domain/ports/runEnded.js';

/**
 * Several RunEnded listeners as one: each is told in turn, and one that throws is logged and never reaches the
 * caller (the run has ended whatever a listener does) nor keeps the others from being told.
 */
export function fanOutRunEnded(logger: Logger, ...listeners: RunEnded[]): RunEnded {
  return async (event: RunEndedEvent) => {
    for (const listener of listeners) {
      try {
        await listener(event);
      } catch (error) {
        logger.warn({ runId: event.run.id, err: error }, 'a run-ended listener failed');
      }
    }
  };
}
