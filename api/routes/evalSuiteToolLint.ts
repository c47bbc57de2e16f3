import {
  SUITE_LINT_MAX_SERVERS,
  SUITE_LINT_PARALLELISM,
  SUITE_LINT_SERVER_MS,
  type LintSuiteTools,
} from '../../domain/useCases/suites/lintSuiteTools.js';
import { defineRoute } from '../route.js';
import { suiteParams } from '../schemas/evals.js';
import { suiteToolLintSchema } from '../schemas/toolLint.js';

export function evalSuiteToolLintRoutes(deps: { lintSuiteTools: LintSuiteTools }) {
  return [
    defineRoute({
      method: 'get',
      path: '/projects/:projectId/eval-suites/:suiteId/tool-lint',
      tag: 'Evals',
      summary: "Tool lint of the suite's servers, and the tool names they share (Runway extension)",
      description:
        "Lists the tools of each of the suite's servers (as its runs ask them: with its host's client profile) and lints them as doctor does " +
        '(docs/SERVER-CHECKS.md "Tool lint"), then adds the findings across servers: a tool name two or more servers list, which a model cannot tell apart. ' +
        `At most ${SUITE_LINT_MAX_SERVERS} servers are linted (the others are \`skipped\`), ${SUITE_LINT_PARALLELISM} at a time; listing one server's tools may take ${SUITE_LINT_SERVER_MS / 1000} s after its own connect and initialize timeouts. ` +
        'A server that cannot be listed is `failed` with its error, and the others are still linted. A disabled or deleted server of the suite is refused as in POST /eval-runs.',
      params: suiteParams,
      response: suiteToolLintSchema,
      errors: ['NOT_FOUND', 'VALIDATION_ERROR'],
      async handler({ principal, params }) {
        return await deps.lintSuiteTools({ principal, ...params });
      },
    }),
  ];
}
