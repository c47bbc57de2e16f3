import cliProgress from 'cli-progress';
import type { EvalRun } from '../../api/client.js';

export interface ProgressView {
  update(progress: EvalRun['progress']): void;
  stop(): void;
}

/**
 * A live bar on a terminal; on anything else (CI logs, pipes) one plain line each time the count moves, so logs
 * stay readable and small.
 */
export function progressView(stream: NodeJS.WritableStream & { isTTY?: boolean }): ProgressView {
  if (stream.isTTY) {
    const bar = new cliProgress.SingleBar(
      {
        stream,
        format: ' {bar} {value}/{total} iterations | {passed} passed, {failed} failed | {duration_formatted}',
        hideCursor: true,
        etaBuffer: 20,
      },
      cliProgress.Presets.shades_classic,
    );
    let started = false;
    return {
      update(progress) {
        const payload = { passed: progress.passed, failed: progress.failed };
        if (!started) {
          bar.start(Math.max(progress.total, 1), progress.completed, payload);
          started = true;
        } else {
          bar.setTotal(Math.max(progress.total, 1));
          bar.update(progress.completed, payload);
        }
      },
      stop: () => {
        if (started) bar.stop();
      },
    };
  }
  let last = '';
  return {
    update(progress) {
      const line = `[runway] ${progress.completed}/${progress.total} iterations finished: ${progress.passed} passed, ${progress.failed} failed`;
      if (line === last) return;
      last = line;
      stream.write(`${line}\n`);
    },
    stop() {},
  };
}
