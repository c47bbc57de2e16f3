import type { RouteDeps } from '../app.js';
import type { RouteSpec } from '../route.js';
import { accountRoutes } from './account.js';
import { caseGenerationRoutes } from './caseGeneration.js';
import { chatRoutes } from './chat.js';
import { evalCaseRoutes } from './evalCases.js';
import { evalSuiteOverviewRoutes } from './evalSuiteOverview.js';
import { evalSuiteScheduleRoutes } from './evalSuiteSchedule.js';
import { evalSuiteRoutes } from './evalSuites.js';
import { hostRoutes } from './hosts.js';
import { ingestRoutes } from './ingest.js';
import { ingestUploadRoutes } from './ingestUploads.js';
import { projectRoutes } from './projects.js';
import { serverOperationRoutes } from './serverOperations.js';
import { tunnelRoutes } from './tunnels.js';

/** The run routes, built in createApp's runs block from the use cases they call (domain/useCases/runs). */
export interface RunRoutes {
  events: RouteSpec[];
  runs: RouteSpec[];
  compare: RouteSpec[];
  tools: RouteSpec[];
}

/** Every route of /api/v1, in one list: the app mounts it and the OpenAPI document describes it. */
export function allRoutes(deps: RouteDeps, runs: RunRoutes): RouteSpec[] {
  return [
    ...accountRoutes(deps),
    ...projectRoutes(deps),
    ...chatRoutes(deps),
    ...hostRoutes(deps),
    ...evalSuiteRoutes(deps),
    ...evalSuiteOverviewRoutes(deps),
    ...evalSuiteScheduleRoutes(deps),
    ...caseGenerationRoutes(deps),
    ...evalCaseRoutes(deps),
    // First: its GET /eval-runs/events would otherwise be taken for GET /eval-runs/{runId}.
    ...runs.events,
    ...runs.runs,
    ...runs.compare,
    ...runs.tools,
    ...ingestRoutes(deps),
    ...ingestUploadRoutes(deps),
    ...serverOperationRoutes(deps),
    ...tunnelRoutes(deps),
  ];
}
