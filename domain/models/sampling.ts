/**
 * An MCP server's sampling/createMessage request, answered by a model: what an eval run does with its own model
 * when a tool it calls asks the client to sample. The request's model preferences are not followed (the run's
 * model is the one under test), nor `includeContext` (Runway does not declare the context capability).
 */
import { generateText, type ModelMessage } from 'ai';
import {
  ProtocolErrorCode,
  ProtocolError,
  type CreateMessageRequest,
  type CreateMessageResult,
} from '@modelcontextprotocol/client';
import type { ChatModel } from './providers.js';

type SamplingParams = CreateMessageRequest['params'];
type Block = Exclude<SamplingParams['messages'][number]['content'], unknown[]>;

/** A server asking for more is given this many output tokens at most. */
export const MAX_SAMPLING_TOKENS = 8_192;

export interface SamplingAnswer {
  result: CreateMessageResult;
  usage: { inputTokens: number; outputTokens: number };
}

export async function answerSampling(
  model: ChatModel,
  params: SamplingParams,
  options: { signal: AbortSignal; maxRetries: number },
): Promise<SamplingAnswer> {
  // Runway declares `sampling: {}`, without `tools`: a server may not send them.
  if (params.tools?.length || params.toolChoice)
    throw new ProtocolError(
      ProtocolErrorCode.InvalidParams,
      'tools in sampling requests are not supported by this client',
    );
  const result = await generateText({
    model,
    system: params.systemPrompt,
    messages: params.messages.map(toModelMessage),
    maxOutputTokens: Math.min(params.maxTokens, MAX_SAMPLING_TOKENS),
    temperature: params.temperature,
    stopSequences: params.stopSequences,
    abortSignal: options.signal,
    maxRetries: options.maxRetries,
  });
  return {
    result: {
      role: 'assistant',
      content: { type: 'text', text: result.text },
      model: result.response.modelId || model.modelId,
      stopReason: stopReason(result.finishReason),
    },
    usage: { inputTokens: result.usage.inputTokens ?? 0, outputTokens: result.usage.outputTokens ?? 0 },
  };
}

function toModelMessage(message: SamplingParams['messages'][number]): ModelMessage {
  const blocks = (Array.isArray(message.content) ? message.content : [message.content]) as Block[];
  const parts = blocks.map((block) => {
    switch (block.type) {
      case 'text':
        return { type: 'text' as const, text: block.text };
      case 'image':
        return message.role === 'user'
          ? { type: 'image' as const, image: block.data, mediaType: block.mimeType }
          : { type: 'file' as const, data: block.data, mediaType: block.mimeType };
      case 'audio':
        return { type: 'file' as const, data: block.data, mediaType: block.mimeType };
      default:
        throw new ProtocolError(
          ProtocolErrorCode.InvalidParams,
          `sampling messages with ${block.type} content are not supported by this client`,
        );
    }
  });
  return message.role === 'user'
    ? { role: 'user', content: parts }
    : {
        role: 'assistant',
        content: parts.filter((part) => part.type !== 'image') as Extract<
          ModelMessage,
          { role: 'assistant' }
        >['content'],
      };
}

/** The AI SDK's finish reason in MCP's words. */
function stopReason(finishReason: string): string {
  if (finishReason === 'stop') return 'endTurn';
  if (finishReason === 'length') return 'maxTokens';
  return finishReason;
}
