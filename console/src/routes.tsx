import type { ComponentType } from 'preact';
import { CompareView } from './views/compare';
import { RunView } from './views/run';
import { ServersView } from './views/servers';
import { SuiteView } from './views/suite';
import { SuitesView } from './views/suites';
import { TraceView } from './views/trace';

/** What every view receives: the route's parameters and the query of the hash (`#/...?base=r1`). */
export interface ViewProps {
  params: Record<string, string>;
  query: URLSearchParams;
}

export interface RouteEntry {
  pattern: string;
  view: ComponentType<ViewProps>;
}

/** The route table, first match wins. Patterns are the ones of the console's design (one per view). */
export const routes: RouteEntry[] = [
  { pattern: '/', view: SuitesView },
  { pattern: '/projects/:projectId/suites/:suiteId', view: SuiteView },
  { pattern: '/projects/:projectId/runs/:runId', view: RunView },
  { pattern: '/projects/:projectId/runs/:runId/iterations/:iterationId', view: TraceView },
  { pattern: '/projects/:projectId/runs/:runId/compare', view: CompareView },
  { pattern: '/projects/:projectId/servers', view: ServersView },
];

/** Links to the routes, so views never spell a path by hand. */
export const paths = {
  suites: '/',
  suite: '/projects/:projectId/suites/:suiteId',
  run: '/projects/:projectId/runs/:runId',
  iteration: '/projects/:projectId/runs/:runId/iterations/:iterationId',
  compare: '/projects/:projectId/runs/:runId/compare',
  servers: '/projects/:projectId/servers',
} as const;
