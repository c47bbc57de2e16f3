import { z } from 'zod';
import { id } from './common.js';

/*
 * Tunnels (the real product's relay that exposes a server on the caller's machine): not offered by a self-hosted
 * Runway, which reaches saved servers directly. The bodies are the real document's, so a client of the real product
 * gets the 422 that says why rather than a 400 about its fields.
 */

export const tunnelCreateBody = z.strictObject({
  name: z.string().min(1).max(128).meta({ description: 'the name of the server the tunnel would be registered under' }),
});

export const tunnelParams = z.object({ projectId: id, serverId: id });

export const noTunnelReply = z.never().meta({
  description:
    'none: a self-hosted Runway offers no tunnels and answers 422 FEATURE_NOT_SUPPORTED (reason TUNNELS_NOT_OFFERED)',
});
