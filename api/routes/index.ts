import type { RouteDeps } from '../app.js';
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
import { evalSuiteRoutes } from './evalSuites.js';
import { hostRoutes } from './hosts.js';
import { ingestRoutes } from './ingest.js';
import { ingestUploadRoutes } from './ingestUploads.js';
import { projectRoutes } from './projects.js';
import { serverOperationRoutes } from './serverOperations.js';
import { tunnelRoutes } from './tunnels.js';

/** Every route of /api/v1, in one list: the app mounts it and the OpenAPI document describes it. */
export function allRoutes(deps: RouteDeps): RouteSpec[] {
  return [
    ...accountRoutes(deps.catalogDeps),
    ...projectRoutes(deps.catalogDeps),
    ...chatRoutes(deps.catalogDeps),
    ...hostRoutes(deps.catalogDeps),
    ...evalSuiteRoutes(deps.suiteDeps.suites),
    ...evalSuiteOverviewRoutes(deps.suiteDeps.overview),
    ...evalSuiteScheduleRoutes(deps.suiteDeps.schedule),
    ...caseGenerationRoutes(deps.suiteDeps.caseGeneration),
    ...evalCaseRoutes(deps.suiteDeps.cases),
    // First: its GET /eval-runs/events would otherwise be taken for GET /eval-runs/{runId}.
    ...evalRunEventRoutes(deps.runDeps),
    ...evalRunRoutes(deps.runDeps),
    ...evalRunCompareRoutes(deps.runDeps),
    ...evalRunToolRoutes(deps.runDeps),
    ...ingestRoutes(deps.ingestDeps),
    ...ingestUploadRoutes(deps.ingestDeps),
    ...serverOperationRoutes(deps.catalogDeps),
    ...tunnelRoutes(deps.catalogDeps),
  ];
}
