import {
  ProtocolError,
  type Client,
  type CreateMessageRequest,
  type CreateMessageResult,
  type ElicitRequest,
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
): InputAnswerer {
  const { elicitation, sampling, roots } = profile;
  const elicit = (params: ElicitRequest['params']) =>
    answerElicitation(current()?.elicitation ?? elicitation?.answer ?? DECLINE, params);
  const sample = async (params: CreateMessageRequest['params'], signal: AbortSignal) => {
    const model = current()?.sample;
    if (!model)
      throw new ProtocolError(
        SAMPLING_REJECTED,
        "sampling request declined: Runway answers sampling only in eval runs, with the run's model",
      );
    return await model(params, signal);
  };
  const listRoots = () => ({ roots: roots ?? [] });
  if (elicitation) client.setRequestHandler('elicitation/create', (request) => elicit(request.params));
  if (sampling)
    client.setRequestHandler('sampling/createMessage', (request, ctx) => sample(request.params, ctx.mcpReq.signal));
  if (roots) client.setRequestHandler('roots/list', listRoots);
  // The same answers for a question a task asks (tasks.ts), which reaches Runway outside the SDK's handlers.
  return async (inputRequest, signal) => {
    const { method, params } = (inputRequest ?? {}) as { method?: unknown; params?: unknown };
    if (method === 'elicitation/create' && elicitation) return elicit(params as ElicitRequest['params']);
    if (method === 'sampling/createMessage' && sampling)
      return await sample(params as CreateMessageRequest['params'], signal);
    if (method === 'roots/list' && roots) return listRoots();
    throw new ProtocolError(-32601, `Runway does not answer ${String(method)} for this server's client profile`);
  };
}

/** Answers one question a task asks (an inputRequests entry: `{ method, params }`), as the profile and call would. */
export type InputAnswerer = (inputRequest: unknown, signal: AbortSignal) => Promise<unknown>;
