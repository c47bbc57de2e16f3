import { OperationFailure } from '../../failures.js';
import { resolveModel, validateRunModels, type ModelAccess, type ResolvedModel } from '../../models/catalog.js';
import type { Case } from '../case.js';
import type { Suite } from '../suite.js';

export interface GenerationModel {
  model: string;
  /** the provider a provider-native id needs; absent for a hosted id */
  provider?: string;
}

/**
 * The model that drafts the cases: the one asked for, else the suite's default model, else the model of the
 * suite's first case that names one. A provider-native id takes the provider given with it, else the provider the
 * suite's cases use with that model (a suite authored with `model` + `provider` keeps the provider on its cases).
 */
export function chooseGenerationModel(
  requested: { model?: string; provider?: string },
  suite: Pick<Suite, 'id' | 'defaultModel'>,
  cases: readonly Pick<Case, 'model' | 'provider'>[],
): GenerationModel {
  const model = requested.model ?? suite.defaultModel ?? cases.find((c) => c.model)?.model ?? undefined;
  if (model === undefined) {
    throw new OperationFailure('VALIDATION_ERROR', 'the suite has no model to draft cases with: pass model', {
      suiteId: suite.id,
      reason: 'MODEL_REQUIRED',
    });
  }
  const provider =
    requested.provider ??
    cases.find((c) => (c.model ?? suite.defaultModel) === model && c.provider)?.provider ??
    undefined;
  return provider === undefined ? { model } : { model, provider };
}

/**
 * The endpoint and key for the model, by the rule eval runs follow (docs/MODEL-KEYS.md): a refusal is the same
 * 400 VALIDATION_ERROR POST /eval-runs answers (`details: { model, provider, hostedModels, reason }`).
 */
export function resolveGenerationModel(choice: GenerationModel, access: ModelAccess): ResolvedModel {
  const rejected = validateRunModels([choice], access);
  if (rejected) throw rejected;
  const resolved = resolveModel({ ...choice, ...access });
  if (!resolved.ok) throw new OperationFailure('VALIDATION_ERROR', resolved.message, resolved.details);
  return resolved;
}

/**
 * The model a generated case is saved with. A suite with a default model: none, so the case runs on it as the
 * suite's other cases do (and follows it when it changes), with the provider the suite's cases use for it (or the
 * one the request gave for it). A suite
 * without one: the model that drafted the case, so that the case can run at all.
 */
export function generatedCaseModel(
  suite: Pick<Suite, 'id' | 'defaultModel'>,
  cases: readonly Pick<Case, 'model' | 'provider'>[],
  generation: GenerationModel,
): { model?: string; provider?: string } {
  if (suite.defaultModel === null) return generation;
  // the suite's cases say the provider; a suite without cases keeps none, and the request may have given it
  const provider =
    chooseGenerationModel({}, suite, cases).provider ??
    (generation.model === suite.defaultModel ? generation.provider : undefined);
  return provider === undefined ? {} : { provider };
}
