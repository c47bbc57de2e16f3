import { setTimeout as sleep } from 'node:timers/promises';
import type { RunFeed } from '../domain/useCases/runs/followRun.js';
import type { RunsFeed } from '../domain/useCases/runs/followRuns.js';
import type { Logger } from '../runtime/logger.js';
import type { EventIdCodec } from './eventIds.js';
import type { EventStream } from './eventStream.js';
import { toEvalRun, toIteration } from './evalViews.js';

/** Iterations read per poll; a full batch is followed at once by the next (still paced by the client's reading). */
const BATCH = 200;
/**
 * How far behind the highest position sent each poll reads again. Positions are taken when an iteration's status
 * becomes final but seen when its statement commits, so a commit can become visible after one holding a later
 * position (two batches finishing at once). Those commits are single statements, milliseconds apart; in that time
 * the installation's other runs take far fewer than this many positions. Ids sent are skipped, never repeated.
 */
const LATE_COMMIT_WINDOW = 1000;

export interface RunEventsDeps {
  log: Logger;
  pollMs: number;
  eventIds: EventIdCodec;
}

/**
 * A run's events on an open stream: `run` first, then each final iteration once (`iteration`, its `id:` the stream
 * position to resume after, sealed by EventIdCodec), `run` again whenever the run's progress or status changes, and `end` with the final
 * run, after which the stream closes. `feed.after` is the position of the Last-Event-ID a reconnecting client sent
 * (0: from the start). What it reads, it reads through the feed (the followRun use case).
 */
export async function streamRunEvents(deps: RunEventsDeps, stream: EventStream, feed: RunFeed) {
  const { run, after } = feed;
  /** the highest position sent, and the floor below which nothing is read (what an earlier connection sent) */
  let high = after;
  const floor = after;
  /** ids sent on this connection within the late-commit window, by position */
  const sent = new Map<string, number>();
  let lastRun = '';

  const sendNewIterations = async (): Promise<number> => {
    const from = Math.max(floor, high - LATE_COMMIT_WINDOW);
    for (const [id, position] of sent) if (position <= from) sent.delete(id);
    const rows = await feed.iterations(from, [...sent.keys()], BATCH);
    for (const row of rows) {
      if (stream.closed) break;
      const position = row.streamPosition!;
      sent.set(row.id, position);
      high = Math.max(high, position);
      await stream.send('iteration', toIteration(row), deps.eventIds.encode(run.id, high));
    }
    return rows.length;
  };

  try {
    for (;;) {
      // The run is read before its iterations: once it reads final, every iteration it ended with is visible.
      const { run: current, progress, toolSurfaces } = await feed.read();
      const view = toEvalRun(current, progress, toolSurfaces);
      if (stream.closed) return;
      const ended = current.status !== 'running' && current.status !== 'queued';
      const serialized = JSON.stringify(view);
      // A run that ends mid-stream says so once, with `end`; one that had ended already is still sent first.
      if (serialized !== lastRun && (!ended || lastRun === '')) {
        lastRun = serialized;
        await stream.send('run', view);
      }
      let read: number;
      do read = await sendNewIterations();
      while (read === BATCH && !stream.closed && ended);
      if (stream.closed) return;
      if (ended) {
        await stream.send('end', view);
        stream.close('end');
        return;
      }
      if (read === BATCH) continue;
      await sleep(deps.pollMs, undefined, { signal: stream.signal }).catch(() => {});
      if (stream.closed) return;
    }
  } catch (error) {
    deps.log.error({ err: error, runId: run.id }, 'run events stream failed');
    stream.close('error');
  }
}

/**
 * Several runs of a project on one stream, without their iterations (what a page listing runs shows): `run` for each
 * one first, in the order asked (one that had ended already too, so a client that reconnects learns of an end it
 * missed), again whenever its progress or status changes, its final state once when it ends; then, once none of
 * them runs, `end` and the stream closes. Each poll is two statements whatever the number of runs (feed.read, the
 * followRuns use case).
 */
export async function streamRunsEvents(deps: Omit<RunEventsDeps, 'eventIds'>, stream: EventStream, feed: RunsFeed) {
  const { projectId, runs } = feed;
  /** the runs still followed, in the order asked, and what was last sent of each */
  let following = runs.map((run) => run.id);
  const lastSent = new Map<string, string>();
  try {
    for (;;) {
      // Each run is read before its progress: once it reads final, every iteration it ended with is counted.
      const current = await feed.read(following);
      if (stream.closed) return;
      for (const { run, progress } of current) {
        const view = toEvalRun(run, progress);
        const serialized = JSON.stringify(view);
        if (serialized !== lastSent.get(run.id)) {
          lastSent.set(run.id, serialized);
          await stream.send('run', view);
          if (stream.closed) return;
        }
      }
      following = current
        .filter(({ run }) => run.status === 'running' || run.status === 'queued')
        .map(({ run }) => run.id);
      if (following.length === 0) {
        await stream.send('end', {});
        stream.close('end');
        return;
      }
      await sleep(deps.pollMs, undefined, { signal: stream.signal }).catch(() => {});
      if (stream.closed) return;
    }
  } catch (error) {
    deps.log.error({ err: error, projectId, runIds: runs.map((run) => run.id) }, 'runs events stream failed');
    stream.close('error');
  }
}
