import { listProjects } from '../../db/projects.js';
import { listStoredServers, protocolOf, type StoredServer } from '../../db/servers.js';
import { requireProject } from '../../domain/access/project.js';
import type { RouteDeps } from '../app.js';
import { defineRoute } from '../route.js';
import { projectSchema, projectsQuery, serverSchema } from '../schemas/catalog.js';
import { collection, projectParams } from '../schemas/common.js';

/** The protocol a server last spoke, as the server list shows it. */
function protocolView(server: StoredServer) {
  const protocol = protocolOf(server);
  return protocol ? { era: protocol.era, version: protocol.version, seenAt: protocol.seenAt.getTime() } : null;
}

export function projectRoutes({ sql }: RouteDeps) {
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
        // A key acts in one organization: filtering by another one (or by a value that names none) yields nothing.
        if (query.organizationId !== undefined && query.organizationId !== principal.organizationId)
          return { items: [] };
        const rows = await listProjects(sql, principal);
        return {
          items: rows.map((p) => ({
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
        const project = await requireProject(sql, principal, params.projectId);
        const rows = await listStoredServers(sql, project.id);
        return {
          items: rows.map((s) => ({
            id: s.id,
            name: s.name,
            enabled: s.enabled,
            transportType: s.transportType,
            useOAuth: s.useOauth,
            hasClientSecret: s.clientSecretEnc !== null,
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
