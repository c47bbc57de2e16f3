import { z } from 'zod';
import { epochMs } from './common.js';
import { suiteScheduleSchema } from './suiteSchedule.js';

/** GET/PATCH /eval-suites/{s}: a suite as the real product's client reads it, plus Runway's own fields. */
export const suiteDetailSchema = z
  .object({
    id: z.string(),
    name: z.string(),
    description: z.string().nullable(),
    projectId: z.string(),
    environment: z.object({ servers: z.array(z.string()).meta({ description: "names of the suite's saved servers" }) }),
    executionConfig: z
      .object({ model: z.string(), systemPrompt: z.string().nullable(), temperature: z.number().nullable() })
      .nullable()
      .meta({ description: "the suite's default model; null when it has none" }),
    hosts: z.array(z.object({ id: z.string() })),
    settings: z.object({ passCriteria: z.object({ minimumPassRate: z.number() }) }).catchall(z.unknown()),
    schedule: suiteScheduleSchema,
    createdAt: epochMs,
    updatedAt: epochMs,
    serverIds: z.array(z.string()),
    passCriteria: z.object({ minimumPassRate: z.number() }),
    hostId: z.string().nullable(),
  })
  .meta({ id: 'EvalSuiteDetail' });
