import { boundJson } from '../jsonSize.js';
import { limits } from '../limits.js';

/** What a part cut for storage says: its size before, and the cap. */
export interface PartTruncation {
  originalBytes: number;
  limitBytes: number;
}

/** What a trace with cut parts says: the cap, and how many parts were cut. */
export interface TraceTruncation {
  limitBytesPerPart: number;
  parts: number;
}

/** Room kept for the part's `truncated` marker, so that a cut part and its marker stay within the cap. */
const MARKER_BYTES = 96;

/**
 * An iteration's trace as it is stored: every part of every message (a tool result, the model's text or tool call,
 * a prompt) at most limits.tracePartBytes of JSON. A larger part is stored cut (boundJson: its small fields whole,
 * its large text cut) with `truncated: { originalBytes, limitBytes }`, and the trace says how many parts were cut
 * (`truncated: { limitBytesPerPart, parts }`). A message with text content is one part.
 *
 * Only what is stored: the model got each tool result as the operation returned it (limits.serverReplyBytes), and
 * its context is bounded by its provider.
 */
export function boundTrace<T extends { messages: unknown[] }>(
  trace: T,
  limitBytes: number = limits.tracePartBytes,
): T & { truncated?: TraceTruncation } {
  let parts = 0;
  const bound = (part: unknown): unknown => {
    const { value: cut, originalBytes, cut: wasCut } = boundJson(part, limitBytes - MARKER_BYTES);
    if (!wasCut) return part;
    parts++;
    const truncated: PartTruncation = { originalBytes, limitBytes };
    return typeof cut === 'object' && cut !== null && !Array.isArray(cut)
      ? { ...cut, truncated }
      : { value: cut, truncated };
  };
  const messages = trace.messages.map((message) => {
    if (typeof message !== 'object' || message === null) return bound(message);
    const { content } = message as { content?: unknown };
    return Array.isArray(content) ? { ...message, content: content.map(bound) } : bound(message);
  });
  if (parts === 0) return trace;
  return { ...trace, messages, truncated: { limitBytesPerPart: limitBytes, parts } };
}
