import { z } from 'zod';
import {
  DEFAULT_GENERATED_CASES,
  generateCaseDrafts,
  MAX_GENERATED_CASES,
} from '../../domain/evals/caseGeneration/generateDrafts.js';
import {
  chooseGenerationModel,
  generatedCaseModel,
  resolveGenerationModel,
} from '../../domain/evals/caseGeneration/generationModel.js';
import { GENERATION_TIMEOUT_MS } from '../../domain/evals/caseGeneration/modelDrafts.js';
import { promptBounds } from '../../domain/evals/caseGeneration/prompt.js';
import { saveDrafts } from '../../domain/evals/caseGeneration/saveDrafts.js';
import { hostClientProfile, requireAllowedRoots } from '../../domain/mcp/index.js';
import { createLanguageModel } from '../../domain/models/providers.js';
import { int4 } from '../../db/columnLimits.js';
import { findSuite, listCases } from '../../db/evalSuites.js';
import { findHost } from '../../db/hosts.js';
import { getProviderKeys } from '../../db/providerKeys.js';
import { requireProject } from '../../domain/access/project.js';
import type { RouteDeps } from '../app.js';
import { toCaseView } from '../caseViews.js';
import { notFound, validationError } from '../errors.js';
import { defineRoute } from '../route.js';
import { caseSchema } from '../schemas/cases.js';
import { suiteParams } from '../schemas/evals.js';
import { requireServerSelection, requireServers } from '../../domain/evals/serverSelection.js';

export const generateCasesBody = z
  .strictObject({
    count: int4({ min: 1, max: MAX_GENERATED_CASES })
      .default(DEFAULT_GENERATED_CASES)
      .meta({ description: `cases to draft, 1 to ${MAX_GENERATED_CASES} (default ${DEFAULT_GENERATED_CASES})` }),
    model: z.string().trim().min(1).max(300).optional().meta({
      description:
        "the model that drafts the cases (default: the suite's model); a hosted id or the provider's own id with provider",
    }),
    provider: z.string().trim().min(1).max(100).optional().meta({
      description: "the provider of a provider-native model id (default: the one the suite's cases use with it)",
    }),
  })
  .meta({ id: 'GenerateCases' });

const count = z.number().int();

export const generatedCasesSchema = z
  .object({
    generationModel: z.string().meta({ description: 'the model that drafted the cases' }),
    provider: z.string().optional(),
    promptVersion: z.string().meta({ description: 'the version of the fixed prompt the cases were drafted with' }),
    created: z.array(caseSchema).meta({ description: "the drafts saved as cases of the suite, in the model's order" }),
    counts: z.object({ normal: count, negative: count }).meta({ description: 'of the created cases' }),
    skipped: z.array(z.object({ title: z.string(), error: z.string() })).meta({
      description:
        'drafts not saved, with the reason: an unknown tool, arguments invalid for the tool, a duplicate, a case the suite already has',
    }),
    tools: z
      .object({ listed: count, inPrompt: count })
      .meta({ description: "the tools of the suite's servers, and how many of them the prompt described" }),
    unreachableServers: z
      .array(z.object({ serverId: z.string(), name: z.string(), code: z.string(), message: z.string() }))
      .optional()
      .meta({ description: 'servers of the suite that could not be listed; the cases were drafted from the others' }),
    usage: z.object({ inputTokens: count, outputTokens: count, totalTokens: count }),
  })
  .meta({ id: 'GeneratedCases' });

export function caseGenerationRoutes({ sql, box, mcp, catalog }: RouteDeps) {
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
        const project = await requireProject(sql, principal, params.projectId);
        const suite = await findSuite(sql, project.id, params.suiteId);
        if (!suite) throw notFound('eval suite', { suiteId: params.suiteId });
        if (suite.serverIds.length === 0) {
          throw validationError('this suite has no saved server selection: there are no tools to draft cases from', {
            suiteId: suite.id,
            reason: 'NO_SAVED_SERVER_SELECTION',
          });
        }
        await requireServerSelection(sql, project.id, suite.serverIds);
        const host = suite.hostId === null ? undefined : await findHost(sql, project.id, suite.hostId);
        const cases = await listCases(sql, suite.id);
        const generation = chooseGenerationModel(body, suite, cases);
        const orgProviderKeys = await getProviderKeys(sql, box, principal.organizationId);
        const resolved = resolveGenerationModel(generation, { catalog, orgProviderKeys, modelApiKeys: {} });
        // The servers' secrets are opened once every check passed, for drafting, which connects to them. They are
        // asked as the suite's runs ask them: with its host's client profile when it has one.
        const servers = await requireServers(sql, box, project.id, suite.serverIds);
        const profile = host ? hostClientProfile(host.config) : undefined;
        if (profile) requireAllowedRoots(profile, servers);
        const profiled = profile ? servers.map((s) => ({ ...s, clientProfile: profile })) : servers;

        const outcome = await generateCaseDrafts(
          { mcp },
          { servers: profiled, model: createLanguageModel(resolved), count: body.count },
        );
        const saved = await saveDrafts(sql, suite.id, outcome.drafts, generatedCaseModel(suite, cases, generation));
        const created = saved.created.map(toCaseView);
        return {
          generationModel: generation.model,
          provider: resolved.provider,
          promptVersion: outcome.promptVersion,
          created,
          counts: {
            normal: created.filter((c) => !c.isNegative).length,
            negative: created.filter((c) => c.isNegative).length,
          },
          skipped: [...outcome.skipped, ...saved.skipped],
          tools: outcome.tools,
          ...(outcome.unreachableServers.length > 0 && { unreachableServers: outcome.unreachableServers }),
          usage: outcome.usage,
        };
      },
    }),
  ];
}
