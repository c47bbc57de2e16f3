/** What every view receives: the route's parameters and the query of the hash (`#/...?base=r1`). */
export interface ViewProps {
  params: Record<string, string>;
  query: URLSearchParams;
}

/** The console's paths, one per view (routes.tsx maps each to its view), so views never spell a path by hand. */
export const paths = {
  suites: '/',
  suite: '/projects/:projectId/suites/:suiteId',
  run: '/projects/:projectId/runs/:runId',
  iteration: '/projects/:projectId/runs/:runId/iterations/:iterationId',
  compare: '/projects/:projectId/runs/:runId/compare',
  models: '/projects/:projectId/runs/:runId/models',
  servers: '/projects/:projectId/servers',
} as const;
