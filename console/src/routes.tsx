import type { ComponentType } from 'preact';
import { SuiteView } from './views/suite';
import { SuitesView } from './views/suites';

/** What every view receives: the route's parameters and the query of the hash (`#/...?base=r1`). */
export interface ViewProps {
  params: Record<string, string>;
  query: URLSearchParams;
}

export interface RouteEntry {
  pattern: string;
  view: ComponentType<ViewProps>;
}

/** Until a view is written: says so instead of a blank page. */
const notYet =
  (what: string): ComponentType<ViewProps> =>
  () => (
    <section>
      <h1>{what}</h1>
      <p>This view is not part of this build yet.</p>
    </section>
  );

/** The route table, first match wins. Patterns are the ones of the console's design (one per view). */
export const routes: RouteEntry[] = [
  { pattern: '/', view: SuitesView },
  { pattern: '/projects/:projectId/suites/:suiteId', view: SuiteView },
  { pattern: '/projects/:projectId/runs/:runId', view: notYet('Run') },
  { pattern: '/projects/:projectId/runs/:runId/iterations/:iterationId', view: notYet('Iteration') },
  { pattern: '/projects/:projectId/runs/:runId/compare', view: notYet('Compare runs') },
  { pattern: '/projects/:projectId/servers', view: notYet('Servers') },
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
