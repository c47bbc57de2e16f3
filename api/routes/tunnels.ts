import { NO_TUNNELS_WHY } from '../../domain/catalog/tunnels.js';
import type { CloseTunnel } from '../../domain/useCases/catalog/closeTunnel.js';
import type { CreateTunnel } from '../../domain/useCases/catalog/createTunnel.js';
import { defineRoute } from '../route.js';
import { projectParams } from '../schemas/common.js';
import { noTunnelReply, tunnelCreateBody, tunnelParams } from '../schemas/tunnels.js';

const TAG = 'Tunnels';

/**
 * The real product's relay tunnels (a server on the caller's machine, exposed through its edge). The routes exist
 * so its clients learn why, after the same project checks as any route (another project's ids are 404), instead
 * of "no route".
 */
export function tunnelRoutes(deps: { createTunnel: CreateTunnel; closeTunnel: CloseTunnel }) {
  return [
    defineRoute({
      method: 'post',
      path: '/projects/:projectId/tunnels',
      tag: TAG,
      summary: 'Create a relay tunnel for a project server (not offered: servers are reached directly)',
      description: `Always 422 FEATURE_NOT_SUPPORTED once the project is found. ${NO_TUNNELS_WHY}`,
      params: projectParams,
      body: tunnelCreateBody,
      status: 201,
      response: noTunnelReply,
      errors: ['NOT_FOUND', 'FEATURE_NOT_SUPPORTED'],
      handler: async ({ principal, params }) => await deps.createTunnel({ principal, projectId: params.projectId }),
    }),
    defineRoute({
      method: 'post',
      path: '/projects/:projectId/tunnels/:serverId/close',
      tag: TAG,
      summary: "Revoke a tunnel's grant (not offered: servers are reached directly)",
      description: `Always 422 FEATURE_NOT_SUPPORTED once the project and server are found. ${NO_TUNNELS_WHY}`,
      params: tunnelParams,
      response: noTunnelReply,
      errors: ['NOT_FOUND', 'FEATURE_NOT_SUPPORTED'],
      handler: async ({ principal, params }) => await deps.closeTunnel({ principal, ...params }),
    }),
  ];
}
