import type { ListedServer } from '../../domain/catalog/server.js';
import type { ListProjects } from '../../domain/useCases/catalog/listProjects.js';
import type { ListProjectServers } from '../../domain/useCases/catalog/listProjectServers.js';
import { defineRoute } from '../route.js';
import { projectSchema, projectsQuery, serverSchema } from '../schemas/catalog.js';
import { collection, projectParams } from '../schemas/common.js';

/** The protocol a server last spoke, as the server list shows it. */
function protocolView({ protocol }: ListedServer) {
  return protocol ? { era: protocol.era, version: protocol.version, seenAt: protocol.seenAt.getTime() } : null;
}

export function projectRoutes(deps: { listProjects: ListProjects; listProjectServers: ListProjectServers }) {
  return [
    defineRoute({
      method: 'get',
      path: '/projects',
      tag: 'Catalog',
      summary: 'Projects the key can access',
      query: projectsQuery,
      response: collection(projectSchema),
      errors: ['VALIDATION_ERROR'],
      async handler({ principal, query }) {
        // A repeated parameter is no one value: it names no organization, so it selects nothing.
        if (Array.isArray(query.organizationId)) return { items: [] };
        const projects = await deps.listProjects({ principal, organizationId: query.organizationId });
        return {
          items: projects.map((p) => ({
            id: p.id,
            name: p.name,
            description: p.description,
            icon: p.icon,
            organizationId: p.organizationId,
            visibility: p.visibility,
            role: p.role,
            createdAt: p.createdAt.getTime(),
            updatedAt: p.updatedAt.getTime(),
          })),
        };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/projects/:projectId/servers',
      tag: 'Catalog',
      summary: "The project's saved MCP servers",
      params: projectParams,
      response: collection(serverSchema),
      errors: ['NOT_FOUND'],
      async handler({ principal, params }) {
        const servers = await deps.listProjectServers({ principal, projectId: params.projectId });
        return {
          items: servers.map((s) => ({
            id: s.id,
            name: s.name,
            enabled: s.enabled,
            transportType: s.transportType,
            useOAuth: s.useOAuth,
            hasClientSecret: s.hasClientSecret,
            projectId: s.projectId,
            url: s.url ?? '',
            oauthScopes: s.oauthScopes,
            createdAt: s.createdAt.getTime(),
            updatedAt: s.updatedAt.getTime(),
            protocol: protocolView(s),
          })),
        };
      },
    }),
  ];
}
