/**
 * The worker's side of a conformance check (issue 32): one activity runs the official suite against the saved server
 * through the ConformanceRunner and stores what came of it, the other records an ending the workflow saw (the
 * activity timed out for good, or was cancelled before it could say so). A failure of the server or the suite is the
 * check's result (failed, with the suite's or the runner's reason), never retried: another run of the suite would
 * meet the same server. Only a failure to store the result (the database) fails the activity, which Temporal retries.
 */
import { CancelledFailure, Context } from '@temporalio/activity';
import {
  CHECK_FAILURE_CODES,
  conformanceRefusal,
  type ConformanceCheck,
  type ConformanceCheckStatus,
} from '../domain/catalog/conformanceCheck.js';
import { OperationFailure } from '../domain/failures.js';
import type { ConformanceRunner } from '../domain/mcp/conformance/report.js';
import type { ConformanceCheckStore } from '../domain/ports/conformanceCheckStore.js';
import type { ConformanceCheckInput } from '../domain/ports/conformanceWorkflows.js';
import type { ServerDirectory } from '../domain/ports/serverDirectory.js';
import type { Logger } from '../runtime/logger.js';

export interface ConformanceActivityDeps {
  checks: ConformanceCheckStore;
  servers: Pick<ServerDirectory, 'savedServers'>;
  runner: ConformanceRunner;
  log: Logger;
  /** told once a check completed with its report (issue 33: conformance.completed webhooks); never fails the check */
  completed?: (check: ConformanceCheck) => Promise<void>;
}

/** How often the activity tells Temporal it is alive while the suite runs (its heartbeat timeout is a minute). */
const HEARTBEAT_EVERY_MS = 5_000;

export interface CheckEnding {
  checkId: string;
  status: 'failed' | 'cancelled';
  code: string;
  message: string;
}

class CheckTimedOut extends Error {
  constructor(readonly timeoutMs: number) {
    super(`the conformance suite did not finish within the check's time limit (${Math.round(timeoutMs / 1000)} s)`);
  }
}

export function conformanceActivities(deps: ConformanceActivityDeps) {
  const { checks, runner, log } = deps;
  const fail = async (checkId: string, code: string, message: string) => {
    await checks.end(checkId, { status: 'failed', code, message });
    return { status: 'failed' as ConformanceCheckStatus };
  };

  return {
    /** Runs the suite against the check's server and stores the report, or why there is none. */
    async runConformanceCheck(input: ConformanceCheckInput): Promise<{ status: ConformanceCheckStatus }> {
      const check = await checks.markRunning(input.checkId);
      if (!check) return { status: (await checks.byId(input.checkId))?.status ?? 'failed' };
      const [server] = await deps.servers.savedServers(check.projectId, [check.serverId]);
      if (!server) return await fail(check.id, CHECK_FAILURE_CODES.serverGone, 'the server was deleted');
      if (!server.enabled)
        return await fail(check.id, CHECK_FAILURE_CODES.serverGone, `server '${server.name}' was disabled`);
      const refusal = conformanceRefusal(server.transportType);
      if (refusal) return await fail(check.id, 'FEATURE_NOT_SUPPORTED', refusal);

      const context = Context.current();
      const stop = new AbortController();
      const cancelled = context.cancellationSignal;
      const onCancel = () => stop.abort(cancelled.reason);
      cancelled.addEventListener('abort', onCancel, { once: true });
      const limit = setTimeout(() => stop.abort(new CheckTimedOut(input.timeoutMs)), input.timeoutMs);
      let progress = { scenariosDone: 0 };
      const beat = setInterval(() => context.heartbeat(progress), HEARTBEAT_EVERY_MS);
      // A runner that does not stop when told still loses the race: the check ends at its limit all the same.
      const stopped = new Promise<never>((_resolve, reject) => {
        const onStop = () => reject(stop.signal.reason instanceof Error ? stop.signal.reason : new Error('stopped'));
        if (stop.signal.aborted) onStop();
        else stop.signal.addEventListener('abort', onStop, { once: true });
      });
      try {
        context.heartbeat(progress);
        const report = await Promise.race([
          runner.check(server, {
            specVersion: check.specVersion,
            signal: stop.signal,
            timeoutMs: input.timeoutMs,
            onProgress: (next) => {
              progress = next;
              context.heartbeat(next);
            },
          }),
          stopped,
        ]);
        const completed = await checks.complete(check.id, report);
        log.info({ checkId: check.id, score: report.score.value }, 'conformance check completed');
        if (completed && deps.completed) {
          const stored = await checks.byId(check.id);
          if (stored)
            await deps.completed(stored).catch((error: unknown) => {
              log.warn({ checkId: check.id, err: error }, 'a conformance completion listener failed');
            });
        }
        return { status: 'completed' };
      } catch (error) {
        if (cancelled.aborted) {
          await checks.end(check.id, {
            status: 'cancelled',
            code: CHECK_FAILURE_CODES.cancelled,
            message: 'the check was cancelled',
          });
          throw error instanceof CancelledFailure ? error : new CancelledFailure('conformance check cancelled');
        }
        if (stop.signal.reason instanceof CheckTimedOut)
          return await fail(check.id, CHECK_FAILURE_CODES.timeout, stop.signal.reason.message);
        if (error instanceof OperationFailure) return await fail(check.id, error.code, error.message);
        log.warn({ checkId: check.id, err: error }, 'conformance runner failed');
        return await fail(
          check.id,
          CHECK_FAILURE_CODES.internal,
          `the conformance runner failed: ${error instanceof Error ? error.message : String(error)}`,
        );
      } finally {
        clearTimeout(limit);
        clearInterval(beat);
        cancelled.removeEventListener('abort', onCancel);
      }
    },

    /** Records an ending the workflow saw (a check already ended keeps its own). */
    async endConformanceCheck(ending: CheckEnding): Promise<void> {
      await checks.end(ending.checkId, { status: ending.status, code: ending.code, message: ending.message });
    },
  };
}
