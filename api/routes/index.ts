import type { RouteSpec } from '../route.js';
import { accountRoutes } from './account.js';
import { caseGenerationRoutes } from './caseGeneration.js';
import { chatRoutes } from './chat.js';
import { evalCaseRoutes } from './evalCases.js';
import { evalRunCompareRoutes } from './evalRunCompare.js';
import { evalRunEventRoutes } from './evalRunEvents.js';
import { evalRunToolRoutes } from './evalRunTools.js';
import { evalRunRoutes } from './evalRuns.js';
import { evalSuiteOverviewRoutes } from './evalSuiteOverview.js';
import { evalSuiteScheduleRoutes } from './evalSuiteSchedule.js';
import { evalSuiteToolLintRoutes } from './evalSuiteToolLint.js';
import { evalSuiteRoutes } from './evalSuites.js';
import { hostRoutes } from './hosts.js';
import { ingestRoutes } from './ingest.js';
import { ingestUploadRoutes } from './ingestUploads.js';
import { projectRoutes } from './projects.js';
import { serverConformanceRoutes } from './serverConformance.js';
import { serverOperationRoutes } from './serverOperations.js';
import { serverSurfaceRoutes } from './serverSurfaces.js';
import { tunnelRoutes } from './tunnels.js';
import { webhookRoutes } from './webhooks.js';

/** Every route of /api/v1, in one list: the app mounts it and the OpenAPI document describes it. */
/** What a route module takes: its first parameter. */
type Takes<F extends (deps: never) => RouteSpec[]> = Parameters<F>[0];

/**
 * What the route modules take, by group: each group is bound once by createApp (api/app.ts, the API's composition
 * root), and each module declares the part of its group it uses.
 */
export interface RouteGroups {
  catalogDeps: Takes<typeof accountRoutes> &
    Takes<typeof projectRoutes> &
    Takes<typeof chatRoutes> &
    Takes<typeof hostRoutes> &
    Takes<typeof serverOperationRoutes> &
    Takes<typeof serverSurfaceRoutes> &
    Takes<typeof tunnelRoutes>;
  suiteDeps: {
    suites: Takes<typeof evalSuiteRoutes>;
    overview: Takes<typeof evalSuiteOverviewRoutes>;
    schedule: Takes<typeof evalSuiteScheduleRoutes>;
    caseGeneration: Takes<typeof caseGenerationRoutes>;
    toolLint: Takes<typeof evalSuiteToolLintRoutes>;
    cases: Takes<typeof evalCaseRoutes>;
  };
  runDeps: Takes<typeof evalRunEventRoutes> &
    Takes<typeof evalRunRoutes> &
    Takes<typeof evalRunCompareRoutes> &
    Takes<typeof evalRunToolRoutes>;
  ingestDeps: Takes<typeof ingestRoutes> & Takes<typeof ingestUploadRoutes>;
  conformanceDeps: Takes<typeof serverConformanceRoutes>;
  webhookDeps: Takes<typeof webhookRoutes>;
}

export function allRoutes(deps: RouteGroups): RouteSpec[] {
  return [
    ...accountRoutes(deps.catalogDeps),
    ...projectRoutes(deps.catalogDeps),
    ...chatRoutes(deps.catalogDeps),
    ...hostRoutes(deps.catalogDeps),
    ...evalSuiteRoutes(deps.suiteDeps.suites),
    ...evalSuiteOverviewRoutes(deps.suiteDeps.overview),
    ...evalSuiteScheduleRoutes(deps.suiteDeps.schedule),
    ...caseGenerationRoutes(deps.suiteDeps.caseGeneration),
    ...evalSuiteToolLintRoutes(deps.suiteDeps.toolLint),
    ...evalCaseRoutes(deps.suiteDeps.cases),
    // First: its GET /eval-runs/events would otherwise be taken for GET /eval-runs/{runId}.
    ...evalRunEventRoutes(deps.runDeps),
    ...evalRunRoutes(deps.runDeps),
    ...evalRunCompareRoutes(deps.runDeps),
    ...evalRunToolRoutes(deps.runDeps),
    ...ingestRoutes(deps.ingestDeps),
    ...ingestUploadRoutes(deps.ingestDeps),
    ...serverOperationRoutes(deps.catalogDeps),
    ...serverConformanceRoutes(deps.conformanceDeps),
    ...serverSurfaceRoutes(deps.catalogDeps),
    ...tunnelRoutes(deps.catalogDeps),
    ...webhookRoutes(deps.webhookDeps),
  ];
}
