import { setImmediate } from 'node:timers/promises';
import { jsonBytes, measured, type Bounded } from '../jsonSize.js';
import { limits } from '../limits.js';

/**
 * What a reply of a server operation says when it holds less than the server sent (limits.serverReplyBytes): the
 * limit and, for a result, the size the server sent; for one page, the items left out; for an export or a doctor,
 * the lists that stop early (paging stopped there).
 */
export interface Truncation {
  reason: 'REPLY_TOO_LARGE';
  limitBytes: number;
  originalBytes?: number;
  omittedItems?: number;
  lists?: string[];
}

/**
 * The bytes one server operation may still answer with, across its lists and pages (an export's four lists share
 * one). Items are measured as they arrive (their JSON), so a list stops paging once the budget is spent.
 */
export class ReplyBudget {
  #left: number;
  readonly #cut = new Set<string>();

  constructor(readonly limitBytes: number = limits.serverReplyBytes) {
    this.#left = limitBytes;
  }

  /** Whether `item` fits in what is left (then it is counted). */
  take(item: unknown): boolean {
    const bytes = jsonBytes(item);
    if (bytes > this.#left) return false;
    this.#left -= bytes;
    return true;
  }

  /** `list` had more than the budget held. */
  cut(list: string): void {
    this.#cut.add(list);
  }

  /** What the reply says when a list was cut; undefined when everything fit. */
  truncation(): Truncation | undefined {
    if (this.#cut.size === 0) return undefined;
    return { reason: 'REPLY_TOO_LARGE', limitBytes: this.limitBytes, lists: [...this.#cut] };
  }
}

/** Room kept for the `truncated` marker itself, so that a cut result and its marker stay within the limit. */
const MARKER_BYTES = 256;

/**
 * A server's result (tools/call, prompts/get, resources/read) as a reply may hold it: unchanged when its JSON fits
 * `limitBytes`, else cut (boundJson: small fields whole, the large ones cut) with `truncated` saying so. In turns of
 * the event loop of its own: measured after the turn that read the message, cut (when past the limit) in the next,
 * answered with in the one after; so that a large result is not read, measured, cut and written in one stretch while
 * every other request waits.
 */
export async function boundResult<T extends object>(
  result: T,
  limitBytes: number = limits.serverReplyBytes,
): Promise<T & { truncated?: Truncation }> {
  await setImmediate();
  const sized = measured(result);
  if (sized.bytes <= limitBytes - MARKER_BYTES) return result;
  await setImmediate();
  const bounded = marked(sized.bound(limitBytes - MARKER_BYTES), limitBytes);
  await setImmediate();
  return bounded;
}

function marked<T extends object>(
  { value, originalBytes, cut }: Bounded<T>,
  limitBytes: number,
): T & { truncated?: Truncation } {
  if (!cut) return value;
  const truncated: Truncation = { reason: 'REPLY_TOO_LARGE', limitBytes, originalBytes };
  return { ...value, truncated };
}
