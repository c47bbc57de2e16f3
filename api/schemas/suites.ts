import { z } from 'zod';
import { epochMs, id } from './common.js';
import {
  budgetSchema,
  iterationIsolation,
  judgeModelSchema,
  passCriteriaSchema,
  serverIds,
  suiteDescription,
  suiteModel,
  suiteModels,
  suiteName,
} from './evals.js';
import { suiteScheduleSchema } from './suiteSchedule.js';

/**
 * One suite as the real product's client reads it (`GET /eval-suites/{s}`), plus Runway's own fields: the servers
 * by id, the pass criteria and the host. Also the reply of every route that changes a suite.
 */
export const suiteDetailSchema = z
  .object({
    id: z.string(),
    name: z.string(),
    description: z.string().nullable(),
    projectId: z.string(),
    environment: z.object({ servers: z.array(z.string()).meta({ description: "names of the suite's saved servers" }) }),
    executionConfig: z
      .object({
        model: z.string(),
        systemPrompt: z
          .string()
          .nullable()
          .meta({ description: 'always null: a case sets its own (advancedConfig.system)' }),
        temperature: z
          .number()
          .nullable()
          .meta({ description: 'always null: a case sets its own (advancedConfig.temperature)' }),
      })
      .nullable()
      .meta({ description: "the suite's default model for cases without one; null when it has none" }),
    hosts: z
      .array(z.unknown())
      .meta({ description: 'always empty: a Runway suite has at most one host, named by hostId' }),
    settings: z.object({ passCriteria: z.object({ minimumPassRate: z.number() }) }).catchall(z.unknown()),
    schedule: suiteScheduleSchema,
    serverIds: z.array(z.string()),
    passCriteria: z.object({ minimumPassRate: z.number() }),
    hostId: z
      .string()
      .nullable()
      .meta({ description: "the host whose client profile the suite's runs declare, if any" }),
    isolation: iterationIsolation,
    judgeModel: z
      .object({ model: z.string(), provider: z.string().optional() })
      .optional()
      .meta({ description: "the model that grades the suite's judge output checks; absent: each case's own model" }),
    models: z
      .array(z.object({ model: z.string(), provider: z.string().optional() }))
      .optional()
      .meta({ description: "default models of the suite's cases that name none; absent: executionConfig.model alone" }),
    budget: z
      .object({
        maxTokens: z.number().optional(),
        maxIterations: z.number().optional(),
        maxCostUsd: z.number().optional(),
      })
      .optional()
      .meta({ description: 'the budget of a run of the suite that gives none; absent: none' }),
    createdAt: epochMs,
    updatedAt: epochMs,
  })
  .meta({ id: 'EvalSuiteDetail' });

export type SuiteDetail = z.infer<typeof suiteDetailSchema>;

export const updateSuiteBody = z
  .strictObject({
    name: suiteName.optional().meta({ description: 'need not be unique' }),
    description: suiteDescription.nullable().optional().meta({ description: 'null clears it' }),
    serverIds: serverIds
      .optional()
      .meta({ description: 'servers of the project, enabled; runs started later connect these' }),
    model: suiteModel.nullable().optional().meta({ description: "default model of the suite's cases; null clears it" }),
    models: suiteModels
      .nullable()
      .optional()
      .meta({ description: "default models of the suite's cases (`model` becomes the first); null clears the list" }),
    budget: budgetSchema.nullable().optional().meta({ description: 'default budget of its runs; null clears it' }),
    passCriteria: passCriteriaSchema.optional(),
    hostId: id
      .nullable()
      .optional()
      .meta({ description: "a host of the project; null: each server's own client profile" }),
    isolation: iterationIsolation.optional(),
    judgeModel: judgeModelSchema
      .nullable()
      .optional()
      .meta({ description: "the model that grades judge output checks; null: each case's own model" }),
  })
  .meta({ id: 'UpdateEvalSuite' });

export const suiteDeletedSchema = z
  .object({ id: z.string(), deleted: z.literal(true) })
  .meta({ id: 'EvalSuiteDeleted' });
