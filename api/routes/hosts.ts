import type { Request } from 'express';
import {
  createHost,
  deleteHost,
  findHost,
  HeadersWithoutValueError,
  listHosts,
  updateHost,
  visibleConfig,
  type Host,
} from '../../db/hosts.js';
import type { Db } from '../../db/connection.js';
import { getRootFences } from '../../db/servers.js';
import { hostClientProfile, requireAllowedRoots } from '../../domain/mcp/index.js';
import { requireProject } from '../../domain/access/project.js';
import type { RouteDeps } from '../app.js';
import { notFound, validationError } from '../errors.js';
import { hostConfigId } from '../hostConfigId.js';
import { templateConfig } from '../hostTemplates.js';
import { defineRoute } from '../route.js';
import { projectParams } from '../schemas/common.js';
import {
  createHostBody,
  hostDeletedSchema,
  hostDetailSchema,
  hostListSchema,
  hostParams,
  updateHostBody,
  type HostConfig,
} from '../schemas/hosts.js';

function detail(h: Host) {
  const config = visibleConfig(h);
  return {
    id: h.id,
    name: h.name,
    hostConfigId: hostConfigId(config),
    config,
    createdAt: h.createdAt.getTime(),
    updatedAt: h.updatedAt.getTime(),
  };
}

/** What the list shows of a config: a config saved without a model or servers shows none. */
function summary(h: Host) {
  const { modelId, serverIds } = h.config;
  return {
    id: h.id,
    name: h.name,
    hostConfigId: hostConfigId(visibleConfig(h)),
    modelId: typeof modelId === 'string' ? modelId : '',
    serverCount: Array.isArray(serverIds) ? serverIds.length : 0,
    createdAt: h.createdAt.getTime(),
    updatedAt: h.updatedAt.getTime(),
  };
}

/** A redaction marker for a header with no stored value is the caller's mistake: 400, naming the headers. */
async function saving<T>(write: Promise<T>): Promise<T> {
  try {
    return await write;
  } catch (error) {
    if (error instanceof HeadersWithoutValueError)
      throw validationError(`config.connectionDefaults.headers: ${error.message}`, { headers: error.names });
    throw error;
  }
}

/**
 * The config exactly as the caller sent it. The schema only checks it; what is stored is the parsed JSON itself, so
 * that no key or value can be changed or dropped on the way (zod's output, for one, loses a `__proto__` key).
 */
function givenConfig(req: Request, checked: HostConfig): HostConfig {
  const sent = (req.body as { config?: unknown } | undefined)?.config;
  return sent !== null && typeof sent === 'object' && !Array.isArray(sent) ? (sent as HostConfig) : checked;
}

/**
 * A host may only attach servers of its own project, and its roots must lie inside what those servers allow
 * (rootsFence.ts). A host is used with other servers too (a suite's, a run's): those are checked where it is used.
 */
async function checkServers(sql: Db, projectId: string, config: HostConfig): Promise<void> {
  if (!config.serverIds || config.serverIds.length === 0) return;
  const found = await getRootFences(sql, projectId, config.serverIds);
  const known = new Set(found.map((r) => r.id));
  const unknown = config.serverIds.filter((serverId) => !known.has(serverId));
  if (unknown.length > 0)
    throw validationError(`config.serverIds: no such server in this project: ${unknown.join(', ')}`, {
      serverIds: unknown,
    });
  requireAllowedRoots(hostClientProfile(config), found);
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
        return { items: rows.map(summary) };
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
      async handler({ principal, params, body, req }) {
        const project = await requireProject(sql, principal, params.projectId);
        const config: HostConfig = body.template
          ? templateConfig(body.template, body.theme)
          : givenConfig(req, body.config!);
        await checkServers(sql, project.id, config);
        return detail(
          await saving(
            createHost(sql, box, { projectId: project.id, name: body.name, template: body.template ?? null, config }),
          ),
        );
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
      async handler({ principal, params, body, req }) {
        const project = await requireProject(sql, principal, params.projectId);
        const config = body.config && givenConfig(req, body.config);
        if (config) await checkServers(sql, project.id, config);
        const host = await saving(updateHost(sql, box, project.id, params.hostId, { name: body.name, config }));
        if (!host) throw notFound('host', { hostId: params.hostId });
        return detail(host);
      },
    }),
    defineRoute({
      method: 'delete',
      path: '/projects/:projectId/hosts/:hostId',
      tag: 'Hosts',
      summary: 'Delete a host (no body fields)',
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
