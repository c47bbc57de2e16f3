import type { Request } from 'express';
import type { Host } from '../../domain/catalog/host.js';
import type { CreateHost } from '../../domain/useCases/catalog/createHost.js';
import type { DeleteHost } from '../../domain/useCases/catalog/deleteHost.js';
import type { EditHost } from '../../domain/useCases/catalog/editHost.js';
import type { GetHost } from '../../domain/useCases/catalog/getHost.js';
import type { ListHosts } from '../../domain/useCases/catalog/listHosts.js';
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
  return {
    id: h.id,
    name: h.name,
    hostConfigId: hostConfigId(h.config),
    config: h.config,
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
    hostConfigId: hostConfigId(h.config),
    modelId: typeof modelId === 'string' ? modelId : '',
    serverCount: Array.isArray(serverIds) ? serverIds.length : 0,
    createdAt: h.createdAt.getTime(),
    updatedAt: h.updatedAt.getTime(),
  };
}

/**
 * The config exactly as the caller sent it. The schema only checks it; what is stored is the parsed JSON itself, so
 * that no key or value can be changed or dropped on the way (zod's output, for one, loses a `__proto__` key).
 */
function givenConfig(req: Request, checked: HostConfig): HostConfig {
  const sent = (req.body as { config?: unknown } | undefined)?.config;
  return sent !== null && typeof sent === 'object' && !Array.isArray(sent) ? (sent as HostConfig) : checked;
}

export function hostRoutes(deps: {
  listHosts: ListHosts;
  createHost: CreateHost;
  getHost: GetHost;
  editHost: EditHost;
  deleteHost: DeleteHost;
}) {
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
        const hosts = await deps.listHosts({ principal, projectId: params.projectId });
        return { items: hosts.map(summary) };
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
      idempotent: true,
      response: hostDetailSchema,
      errors: ['VALIDATION_ERROR', 'NOT_FOUND'],
      async handler({ principal, params, body, req }) {
        const config: HostConfig = body.template
          ? templateConfig(body.template, body.theme)
          : givenConfig(req, body.config!);
        const host = await deps.createHost({
          principal,
          projectId: params.projectId,
          name: body.name,
          template: body.template ?? null,
          config,
        });
        return detail(host);
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
        return detail(await deps.getHost({ principal, ...params }));
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
        const config = body.config && givenConfig(req, body.config);
        return detail(await deps.editHost({ principal, ...params, name: body.name, config }));
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
        await deps.deleteHost({ principal, ...params });
        return { id: params.hostId, deleted: true as const };
      },
    }),
  ];
}
