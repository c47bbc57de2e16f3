import type { JSONRPCMessage, Transport } from '@modelcontextprotocol/client';
import { placeholderFor } from './tasks.js';

/**
 * What the SDK's Client is handed of a server's answers, where the SDK would refuse an answer Runway can use:
 * - a task (Tasks extension: `resultType: "task"`) becomes a placeholder result that operations follow (tasks.ts);
 * - on the 2026 wire, a result without `resultType` is taken as complete (the conformance suite's
 *   sep-2322 scenario: absent means complete), where the SDK would reject it.
 * A Proxy, not a wrapper class: the SDK tells its transports apart by class (the stdio probe, the HTTP headers),
 * and a Proxy is the same instance to `instanceof`.
 */
export function withReadableAnswers<T extends Transport>(transport: T, modern: () => boolean): T {
  const reshape = (message: JSONRPCMessage): JSONRPCMessage => {
    const result = (message as { result?: Record<string, unknown> }).result;
    if (!result || typeof result !== 'object' || Array.isArray(result)) return message;
    if (result.resultType === 'task') return placeholderFor(message);
    if (result.resultType === undefined && modern())
      return { ...message, result: { ...result, resultType: 'complete' } } as JSONRPCMessage;
    return message;
  };
  return new Proxy(transport, {
    set(target, property, value: unknown, receiver) {
      if (property === 'onmessage' && typeof value === 'function') {
        const deliver = value as NonNullable<Transport['onmessage']>;
        const reshaped: Transport['onmessage'] = (message, extra) => deliver(reshape(message), extra);
        return Reflect.set(target, property, reshaped, receiver);
      }
      return Reflect.set(target, property, value, receiver);
    },
  });
}
