import {
  ProtocolError,
  type Client,
  type CreateMessageRequest,
  type CreateMessageResult,
  type ElicitRequest,
  type ElicitResult,
  type RequestId,
} from '@modelcontextprotocol/client';
import type { ClientProfile, ElicitationAnswer } from './clientProfile.js';
import { answerElicitation, DECLINE } from './elicitation.js';

/** The spec's error for a sampling request the user rejected ("User rejected sampling request"). */
export const SAMPLING_REJECTED = -1;

/** One elicitation question a server asked. */
export interface ElicitationQuestion {
  /**
   * its name: the key a 2026-07-28 server gave it in `inputRequests` (of a result or of a task); a 2025-11-25
   * server's elicitation/create request has none (its JSON-RPC id names the message, not the question)
   */
  name?: string;
  params: ElicitRequest['params'];
}

/**
 * An operation that answers each elicitation question itself, and sees what was sent (an eval iteration: its case's
 * script, its trace). `answerWith` sends an answer as every answer is sent (elicitation.ts: checked against the form,
 * URL mode declined); given none, the operation's `elicitation`, else the profile's. Throwing refuses the question:
 * the server gets the error (a 2026 request fails with it).
 */
export interface ElicitationHook {
  /** the operation brings answers of its own: it declares elicitation, as an `elicitation` answer does */
  readonly declares: boolean;
  answer(
    question: ElicitationQuestion,
    answerWith: (answer: ElicitationAnswer | undefined) => ElicitResult,
  ): ElicitResult;
}

/**
 * How one operation answers the requests its server sends while it runs, instead of the profile's policy: an
 * elicitation answer (a tools/call body), or a hook answering each question (an eval iteration), and a model for
 * sampling (an eval run's).
 */
export interface ClientAnswers {
  elicitation?: ElicitationAnswer;
  elicit?: ElicitationHook;
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
  const elicit = (params: ElicitRequest['params'], name: string | undefined) => {
    const answers = current();
    const answerWith = (answer: ElicitationAnswer | undefined) =>
      answerElicitation(answer ?? answers?.elicitation ?? elicitation?.answer ?? DECLINE, params);
    if (!answers?.elicit) return answerWith(undefined);
    return answers.elicit.answer({ ...(name !== undefined && { name }), params }, answerWith);
  };
  // The SDK hands a question a 2026 server asked inside a result to the same handler as a 2025 server's request,
  // with the question's inputRequests key where the JSON-RPC id would be: a session speaks one era.
  const questionName = (id: RequestId) => (client.getProtocolEra() === 'modern' ? String(id) : undefined);
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
  if (elicitation)
    client.setRequestHandler('elicitation/create', (request, ctx) =>
      elicit(request.params, questionName(ctx.mcpReq.id)),
    );
  if (sampling)
    client.setRequestHandler('sampling/createMessage', (request, ctx) => sample(request.params, ctx.mcpReq.signal));
  if (roots) client.setRequestHandler('roots/list', listRoots);
  // The same answers for a question a task asks (tasks.ts), which reaches Runway outside the SDK's handlers.
  return async (inputRequest, signal, name) => {
    const { method, params } = (inputRequest ?? {}) as { method?: unknown; params?: unknown };
    if (method === 'elicitation/create' && elicitation) return elicit(params as ElicitRequest['params'], name);
    if (method === 'sampling/createMessage' && sampling)
      return await sample(params as CreateMessageRequest['params'], signal);
    if (method === 'roots/list' && roots) return listRoots();
    throw new ProtocolError(-32601, `Runway does not answer ${String(method)} for this server's client profile`);
  };
}

/**
 * Answers one question a task asks (an inputRequests entry: `{ method, params }`, under its key `name`), as the
 * profile and call would.
 */
export type InputAnswerer = (inputRequest: unknown, signal: AbortSignal, name?: string) => Promise<unknown>;
