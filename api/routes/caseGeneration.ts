import { MAX_GENERATED_CASES } from '../../domain/evals/caseGeneration/generateDrafts.js';
import { GENERATION_TIMEOUT_MS } from '../../domain/evals/caseGeneration/modelDrafts.js';
import { promptBounds } from '../../domain/evals/caseGeneration/prompt.js';
import type { GenerateCases } from '../../domain/useCases/suites/generateCases.js';
import { toCaseView } from '../caseViews.js';
import { defineRoute } from '../route.js';
import { generateCasesBody, generatedCasesSchema } from '../schemas/caseGeneration.js';
import { suiteParams } from '../schemas/evals.js';

export function caseGenerationRoutes(deps: { generateCases: GenerateCases }) {
  return [
    defineRoute({
      method: 'post',
      path: '/projects/:projectId/eval-suites/:suiteId/cases/generate',
      tag: 'Evals',
      summary: "Draft cases from the suite servers' tools with a model, and save the valid ones",
      description:
        `A model (default: the suite's; the key follows the rule of eval runs, docs/MODEL-KEYS.md) drafts \`count\` cases (1 to ${MAX_GENERATED_CASES}), normal and negative ` +
        "(a negative case expects that no tool is called), from the names, descriptions and input schemas of the suite servers' tools " +
        `(at most ${promptBounds.maxTools} tools in the prompt). Every draft is checked: expected tools must exist and their arguments must be valid against the tool's input schema; ` +
        'the valid ones are saved as cases of the suite (a draft with the title and query of an existing case is not written over it) and the others are listed in `skipped` with the reason. ' +
        `The model has ${GENERATION_TIMEOUT_MS / 1000} s (504 TIMEOUT); a model that cannot be used is 400 VALIDATION_ERROR as in POST /eval-runs; a provider failure or an answer that is not the JSON asked for ` +
        "is 502 SERVER_UNREACHABLE with details.reason (MODEL_OUTPUT_INVALID, PROVIDER_AUTH_FAILED, ...), and nothing is saved. No server of the suite reachable: the servers' own error (502, 401 OAUTH_REQUIRED, 504).",
      params: suiteParams,
      body: generateCasesBody,
      idempotent: true,
      status: 201,
      response: generatedCasesSchema,
      errors: [
        'VALIDATION_ERROR',
        'NOT_FOUND',
        'OAUTH_REQUIRED',
        'FEATURE_NOT_SUPPORTED',
        'SERVER_UNREACHABLE',
        'TIMEOUT',
      ],
      async handler({ principal, params, body }) {
        const outcome = await deps.generateCases({ principal, ...params, ...body });
        const created = outcome.created.map(toCaseView);
        return {
          generationModel: outcome.generationModel,
          provider: outcome.provider,
          promptVersion: outcome.promptVersion,
          created,
          counts: {
            normal: created.filter((c) => !c.isNegative).length,
            negative: created.filter((c) => c.isNegative).length,
          },
          skipped: outcome.skipped,
          tools: outcome.tools,
          ...(outcome.unreachableServers.length > 0 && { unreachableServers: outcome.unreachableServers }),
          usage: outcome.usage,
        };
      },
    }),
  ];
}
