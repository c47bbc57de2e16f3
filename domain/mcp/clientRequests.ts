import {
  ProtocolError,
  type Client,
  type CreateMessageRequest,
  type CreateMessageResult,
} from '@modelcontextprotocol/client';
import type { ClientProfile, ElicitationAnswer } from './clientProfile.js';
import { answerElicitation, DECLINE } from './elicitation.js';

/** The spec's error for a sampling request the user rejected ("User rejected sampling request"). */
export const SAMPLING_REJECTED = -1;

/**
 * How one operation answers the requests its server sends while it runs, instead of the profile's policy: an
 * elicitation answer (a tools/call body, a test case's script) and a model for sampling (an eval run's).
 */
export interface ClientAnswers {
  elicitation?: ElicitationAnswer;
  sample?: (params: CreateMessageRequest['params'], signal: AbortSignal) => Promise<CreateMessageResult>;
}

/**
 * Answers the requests a profile declares. `current` names the answers of the operation that holds the session
 * (the pool lends a session to one such operation at a time), if any. Requests for anything else, declared or not,
 * get the SDK's JSON-RPC error (-32601 for an unknown method, -32602 for an undeclared elicitation mode).
 */
export function answerServerRequests(
  client: Client,
  profile: ClientProfile,
  current: () => ClientAnswers | undefined,
): void {
  const { elicitation, sampling, roots } = profile;
  if (elicitation) {
    client.setRequestHandler('elicitation/create', (request) =>
      answerElicitation(current()?.elicitation ?? elicitation.answer ?? DECLINE, request.params),
    );
  }
  if (sampling) {
    client.setRequestHandler('sampling/createMessage', async (request, ctx) => {
      const sample = current()?.sample;
      if (!sample)
        throw new ProtocolError(
          SAMPLING_REJECTED,
          "sampling request declined: Runway answers sampling only in eval runs, with the run's model",
        );
      return await sample(request.params, ctx.mcpReq.signal);
    });
  }
  if (roots) client.setRequestHandler('roots/list', () => ({ roots }));
}
