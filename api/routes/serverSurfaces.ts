import type { DiffServerSurfaces } from '../../domain/useCases/surfaces/diffServerSurfaces.js';
import type { GetServerSurface } from '../../domain/useCases/surfaces/getServerSurface.js';
import type { ListServerSurfaces } from '../../domain/useCases/surfaces/listServerSurfaces.js';
import type { SurfaceSummary } from '../../domain/ports/surfaceStore.js';
import { defineRoute } from '../route.js';
import { collection } from '../schemas/common.js';
import {
  surfaceDiffQuery,
  surfaceDiffSchema,
  surfaceParams,
  surfaceSchema,
  surfacesParams,
  surfacesQuery,
  surfaceSummarySchema,
} from '../schemas/surfaces.js';

const BASE = '/projects/:projectId/servers/:serverId/surfaces';
const TAG = 'Tool surfaces';

const toSummary = (s: SurfaceSummary) => ({
  serverId: s.serverId,
  hash: s.hash,
  toolCount: s.toolCount,
  truncated: s.truncated,
  firstSeenAt: s.firstSeenAt.getTime(),
  lastSeenAt: s.lastSeenAt.getTime(),
  exportCount: s.exportCount,
  runCount: s.runCount,
  recentRunIds: s.recentRunIds,
});

/** A server's tool surfaces (Runway extension): what eval runs and exports saw, and the diff of two. */
export function serverSurfaceRoutes(deps: {
  listServerSurfaces: ListServerSurfaces;
  getServerSurface: GetServerSurface;
  diffServerSurfaces: DiffServerSurfaces;
}) {
  return [
    defineRoute({
      method: 'get',
      path: BASE,
      tag: TAG,
      summary: 'The distinct tool surfaces the server showed eval runs and exports, the latest seen first',
      params: surfacesParams,
      query: surfacesQuery,
      response: collection(surfaceSummarySchema, 'ToolSurfacePage'),
      errors: ['VALIDATION_ERROR', 'NOT_FOUND'],
      handler: async ({ principal, params, query }) => {
        const page = await deps.listServerSurfaces({ principal, ...params, limit: query.limit, cursor: query.cursor });
        return { items: page.items.map(toSummary), ...(page.nextCursor && { nextCursor: page.nextCursor }) };
      },
    }),
    // Before /surfaces/{hash}: `diff` is no hash, and would be refused as one.
    defineRoute({
      method: 'get',
      path: `${BASE}/diff`,
      tag: TAG,
      summary: 'What changed from one surface to another: tools added, removed, and changed field by field',
      description:
        'Schemas and annotations are compared by JSON pointer; each value is cut to 2 KB of JSON and a tool lists at most 100 changes. ' +
        '400 for a malformed hash, 404 (details.reason SURFACE_NOT_FOUND) for one the server never showed.',
      params: surfacesParams,
      query: surfaceDiffQuery,
      response: surfaceDiffSchema,
      errors: ['VALIDATION_ERROR', 'NOT_FOUND'],
      handler: async ({ principal, params, query }) =>
        await deps.diffServerSurfaces({ principal, ...params, from: query.from, to: query.to }),
    }),
    defineRoute({
      method: 'get',
      path: `${BASE}/:hash`,
      tag: TAG,
      summary: 'One tool surface in full',
      params: surfaceParams,
      response: surfaceSchema,
      errors: ['VALIDATION_ERROR', 'NOT_FOUND'],
      handler: async ({ principal, params }) => {
        const found = await deps.getServerSurface({ principal, ...params });
        return {
          ...toSummary(found),
          tools: found.surface.tools,
          ...(found.surface.truncated && { truncation: found.surface.truncated }),
        };
      },
    }),
  ];
}
