import cliProgress from 'cli-progress';
import type { EvalRun } from '../../api/client.js';

export interface ProgressView {
  update(progress: EvalRun['progress']): void;
  stop(): void;
}

/** The counts as the API gives them, passed, failed and errored being apart (domain/evals/verdicts.ts). */
const verdictCounts = (progress: EvalRun['progress']) =>
  `${progress.passed} passed, ${progress.failed} failed, ${progress.errored} errored`;

/**
 * The plain line for a run's progress, or undefined while the run has not planned its iterations yet (a total of
 * 0 says nothing; the "run started" line is already there).
 */
export function progressLine(progress: EvalRun['progress']): string | undefined {
  if (progress.total === 0) return undefined;
  return `[runway] ${progress.completed}/${progress.total} iterations finished: ${verdictCounts(progress)}`;
}

/**
 * A live bar on a terminal; on anything else (CI logs, pipes) one plain line each time the count moves, so logs
 * stay readable and small. Neither shows anything before the run knows how many iterations it has.
 */
export function progressView(stream: NodeJS.WritableStream & { isTTY?: boolean }): ProgressView {
  if (stream.isTTY) {
    const bar = new cliProgress.SingleBar(
      {
        stream,
        format: ' {bar} {value}/{total} iterations | {counts} | {duration_formatted}',
        hideCursor: true,
        etaBuffer: 20,
      },
      cliProgress.Presets.shades_classic,
    );
    let started = false;
    return {
      update(progress) {
        if (progress.total === 0) return;
        const payload = { counts: verdictCounts(progress) };
        if (!started) {
          bar.start(progress.total, progress.completed, payload);
          started = true;
        } else {
          bar.setTotal(progress.total);
          bar.update(progress.completed, payload);
        }
      },
      stop: () => {
        if (started) bar.stop();
      },
    };
  }
  let last: string | undefined;
  return {
    update(progress) {
      const line = progressLine(progress);
      if (line === undefined || line === last) return;
      last = line;
      stream.write(`${line}\n`);
    },
    stop() {},
  };
}
