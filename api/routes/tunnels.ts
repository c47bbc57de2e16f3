import { findServerInVisibleProject } from '../../db/servers.js';
import { requireProject } from '../../domain/access/project.js';
import type { RouteDeps } from '../app.js';
import { ApiError, notFound } from '../errors.js';
import { defineRoute } from '../route.js';
import { projectParams } from '../schemas/common.js';
import { noTunnelReply, tunnelCreateBody, tunnelParams } from '../schemas/tunnels.js';

const TAG = 'Tunnels';
const WHY =
  'A self-hosted Runway reaches MCP servers directly, so no tunnel is needed: save the server with its own URL (or as a stdio command) and run operations on it.';

const notOffered = () =>
  new ApiError('FEATURE_NOT_SUPPORTED', `tunnels are not offered by a self-hosted Runway. ${WHY}`, {
    reason: 'TUNNELS_NOT_OFFERED',
  });

/**
 * The real product's relay tunnels (a server on the caller's machine, exposed through its edge). The routes exist
 * so its clients learn why, after the same project checks as any route (another project's ids are 404), instead
 * of "no route".
 */
export function tunnelRoutes({ sql }: RouteDeps) {
  return [
    defineRoute({
      method: 'post',
      path: '/projects/:projectId/tunnels',
      tag: TAG,
      summary: 'Create a relay tunnel for a project server (not offered: servers are reached directly)',
      description: `Always 422 FEATURE_NOT_SUPPORTED once the project is found. ${WHY}`,
      params: projectParams,
      body: tunnelCreateBody,
      status: 201,
      response: noTunnelReply,
      errors: ['NOT_FOUND', 'FEATURE_NOT_SUPPORTED'],
      async handler({ principal, params }) {
        await requireProject(sql, principal, params.projectId);
        throw notOffered();
      },
    }),
    defineRoute({
      method: 'post',
      path: '/projects/:projectId/tunnels/:serverId/close',
      tag: TAG,
      summary: "Revoke a tunnel's grant (not offered: servers are reached directly)",
      description: `Always 422 FEATURE_NOT_SUPPORTED once the project and server are found. ${WHY}`,
      params: tunnelParams,
      response: noTunnelReply,
      errors: ['NOT_FOUND', 'FEATURE_NOT_SUPPORTED'],
      async handler({ principal, params }) {
        const { projectVisible, server } = await findServerInVisibleProject(
          sql,
          principal,
          params.projectId,
          params.serverId,
        );
        if (!projectVisible) throw notFound('project', { projectId: params.projectId });
        if (!server) throw notFound('server', { serverId: params.serverId });
        throw notOffered();
      },
    }),
  ];
}
