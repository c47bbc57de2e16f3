import { createHost, deleteHost, findHost, HeadersWithoutValueError, listHosts, updateHost, visibleConfig, type HostRow } from '../../db/hosts.js';
import type { Db } from '../../db/connection.js';
import { requireProject } from '../access.js';
import type { RouteDeps } from '../app.js';
import { notFound, validationError } from '../errors.js';
import { templateConfig } from '../hostTemplates.js';
import { defineRoute } from '../route.js';
import { projectParams } from '../schemas/common.js';
import {
  createHostBody, hostDeletedSchema, hostDetailSchema, hostListSchema, hostParams, updateHostBody, type HostConfig,
} from '../schemas/hosts.js';

// The stored config is one hostConfigSchema accepted (or a built-in template's), so it is a HostConfig.
const detail = (h: HostRow) => ({ id: h.id, name: h.name, config: visibleConfig(h) as HostConfig, createdAt: h.created_at.getTime(), updatedAt: h.updated_at.getTime() });

/** A redaction marker for a header with no stored value is the caller's mistake: 400, naming the headers. */
async function saving<T>(write: Promise<T>): Promise<T> {
  try {
    return await write;
  } catch (error) {
    if (error instanceof HeadersWithoutValueError) throw validationError(`config.connectionDefaults.headers: ${error.message}`, { headers: error.names });
    throw error;
  }
}

/** A host may only attach servers of its own project. */
async function checkServers(sql: Db, projectId: string, config: HostConfig): Promise<void> {
  if (config.serverIds.length === 0) return;
  const found = await sql<{ id: string }[]>`SELECT id FROM servers WHERE project_id = ${projectId} AND id = ANY(${config.serverIds})`;
  const known = new Set(found.map((r) => r.id));
  const unknown = config.serverIds.filter((serverId) => !known.has(serverId));
  if (unknown.length > 0) throw validationError(`config.serverIds: no such server in this project: ${unknown.join(', ')}`, { serverIds: unknown });
}

export function hostRoutes({ sql, box }: RouteDeps) {
  return [
    defineRoute({
      method: 'get',
      path: '/projects/:projectId/hosts',
      tag: 'Hosts',
      summary: "The project's hosts (model plus client capability profiles)",
      params: projectParams,
      response: hostListSchema,
      errors: ['NOT_FOUND'],
      async handler({ principal, params }) {
        const project = await requireProject(sql, principal, params.projectId);
        const rows = await listHosts(sql, project.id);
        return {
          items: rows.map((h) => ({
            id: h.id,
            name: h.name,
            modelId: h.config.modelId ?? '',
            serverCount: h.config.serverIds?.length ?? 0,
            createdAt: h.created_at.getTime(),
            updatedAt: h.updated_at.getTime(),
          })),
        };
      },
    }),
    defineRoute({
      method: 'post',
      path: '/projects/:projectId/hosts',
      tag: 'Hosts',
      summary: 'Create a host from a built-in template or a full config',
      params: projectParams,
      body: createHostBody,
      status: 201,
      response: hostDetailSchema,
      errors: ['VALIDATION_ERROR', 'NOT_FOUND'],
      async handler({ principal, params, body }) {
        const project = await requireProject(sql, principal, params.projectId);
        const config = body.template ? templateConfig(body.template) : (body.config as HostConfig);
        await checkServers(sql, project.id, config);
        return detail(await saving(createHost(sql, box, { projectId: project.id, name: body.name, template: body.template ?? null, config })));
      },
    }),
    defineRoute({
      method: 'get',
      path: '/projects/:projectId/hosts/:hostId',
      tag: 'Hosts',
      summary: 'One host with its full config (header values redacted)',
      params: hostParams,
      response: hostDetailSchema,
      errors: ['NOT_FOUND'],
      async handler({ principal, params }) {
        const project = await requireProject(sql, principal, params.projectId);
        const host = await findHost(sql, project.id, params.hostId);
        if (!host) throw notFound('host', { hostId: params.hostId });
        return detail(host);
      },
    }),
    defineRoute({
      method: 'patch',
      path: '/projects/:projectId/hosts/:hostId',
      tag: 'Hosts',
      summary: 'Rename a host or replace its config (a header value of "[redacted]" keeps the stored value)',
      params: hostParams,
      body: updateHostBody,
      response: hostDetailSchema,
      errors: ['VALIDATION_ERROR', 'NOT_FOUND'],
      async handler({ principal, params, body }) {
        const project = await requireProject(sql, principal, params.projectId);
        if (body.config) await checkServers(sql, project.id, body.config);
        const host = await saving(updateHost(sql, box, project.id, params.hostId, { name: body.name, config: body.config }));
        if (!host) throw notFound('host', { hostId: params.hostId });
        return detail(host);
      },
    }),
    defineRoute({
      method: 'delete',
      path: '/projects/:projectId/hosts/:hostId',
      tag: 'Hosts',
      summary: 'Delete a host',
      params: hostParams,
      response: hostDeletedSchema,
      errors: ['NOT_FOUND'],
      async handler({ principal, params }) {
        const project = await requireProject(sql, principal, params.projectId);
        if (!(await deleteHost(sql, project.id, params.hostId))) throw notFound('host', { hostId: params.hostId });
        return { id: params.hostId, deleted: true as const };
      },
    }),
  ];
}
