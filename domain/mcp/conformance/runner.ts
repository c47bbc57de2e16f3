/**
 * PLACEHOLDER, replaced at merge by the conformance engine's runner (issue 32, the engine's branch): the one function
 * the worker's composition (worker/createWorker.ts composeActivities) calls to build the runner of conformance
 * checks. Until that branch is merged, every check run by a worker ends failed with this message (the API, the
 * workflow and the stored history work; the tests inject a runner of their own).
 */
import { OperationFailure } from '../../failures.js';
import type { Logger } from '../../ports/logger.js';
import type { McpOperations } from '../operations.js';
import type { ConformanceRunner } from './report.js';

/** What the worker gives the runner: its MCP operations (OAuth tokens, injected headers) and its log. */
export interface ConformanceRunnerDeps {
  mcp: McpOperations;
  log: Logger;
}

export function createConformanceRunner(_deps: ConformanceRunnerDeps): ConformanceRunner {
  return {
    check() {
      return Promise.reject(
        new OperationFailure(
          'INTERNAL_ERROR',
          'conformance runner not built: this build of Runway has no conformance suite runner (domain/mcp/conformance/runner.ts)',
          { reason: 'CONFORMANCE_RUNNER_MISSING' },
        ),
      );
    },
  };
}
