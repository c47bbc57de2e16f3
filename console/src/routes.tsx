import type { ComponentType } from 'preact';
import { paths, type ViewProps } from './paths';
import { CompareView } from './views/compare';
import { ModelsView } from './views/models';
import { RunView } from './views/run';
import { ServersView } from './views/servers';
import { SuiteView } from './views/suite';
import { SuitesView } from './views/suites';
import { TraceView } from './views/trace';

export interface RouteEntry {
  pattern: string;
  view: ComponentType<ViewProps>;
}

/** The route table, first match wins: each of the console's paths (paths.ts) and its view. */
export const routes: RouteEntry[] = [
  { pattern: paths.suites, view: SuitesView },
  { pattern: paths.suite, view: SuiteView },
  { pattern: paths.run, view: RunView },
  { pattern: paths.iteration, view: TraceView },
  { pattern: paths.compare, view: CompareView },
  { pattern: paths.models, view: ModelsView },
  { pattern: paths.servers, view: ServersView },
];
