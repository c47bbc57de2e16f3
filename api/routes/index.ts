import type { RouteDeps } from '../app.js';
import type { RouteSpec } from '../route.js';
import { accountRoutes } from './account.js';
import { chatRoutes } from './chat.js';
import { hostRoutes } from './hosts.js';
import { projectRoutes } from './projects.js';

/** Every route of /api/v1, in one list: the app mounts it and the OpenAPI document describes it. */
export function allRoutes(deps: RouteDeps): RouteSpec[] {
  return [...accountRoutes(deps), ...projectRoutes(deps), ...chatRoutes(deps), ...hostRoutes(deps)];
}
