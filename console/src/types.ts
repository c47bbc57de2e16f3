/**
 * The API's replies as the console reads them: inferred from the zod schemas of api/schemas (type imports only, so
 * none of the server's code is bundled), never declared again by hand.
 */
import type { z } from 'zod';
import type { projectSchema } from '../../api/schemas/catalog';
import type { caseSchema } from '../../api/schemas/cases';
import type { evalRunSchema, suiteListItem } from '../../api/schemas/evals';
import type { suiteOverviewSchema } from '../../api/schemas/suiteOverview';
import type { suiteDetailSchema } from '../../api/schemas/suites';
import type { RunStatistics as Statistics } from '../../domain/evals/statistics';

/** `{ items, nextCursor? }` of every list route. */
export interface Page<T> {
  items: T[];
  nextCursor?: string;
}

export type Project = z.infer<typeof projectSchema>;
export type SuiteListItem = z.infer<typeof suiteListItem>;
export type SuiteDetail = z.infer<typeof suiteDetailSchema>;
export type EvalRun = z.infer<typeof evalRunSchema>;
export type EvalCase = z.infer<typeof caseSchema>;

/** What `summary` carries besides its declared fields (domain/evals/statistics.ts), present on finished runs. */
export type RunStatistics = Partial<Statistics>;

/** `GET /eval-suites/{s}/overview`: the suite view's one request (suite, runs newest first, cases with history). */
export type SuiteOverview = z.infer<typeof suiteOverviewSchema>;
