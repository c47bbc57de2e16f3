import { OperationFailure } from '../failures.js';

/** Why a self-hosted Runway has no relay tunnels (the real product exposes a caller's local server through its edge). */
export const NO_TUNNELS_WHY =
  'A self-hosted Runway reaches MCP servers directly, so no tunnel is needed: save the server with its own URL (or as a stdio command) and run operations on it.';

export const tunnelsNotOffered = () =>
  new OperationFailure('FEATURE_NOT_SUPPORTED', `tunnels are not offered by a self-hosted Runway. ${NO_TUNNELS_WHY}`, {
    reason: 'TUNNELS_NOT_OFFERED',
  });
