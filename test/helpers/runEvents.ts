import { createParser, type EventSourceMessage } from 'eventsource-parser';

export interface Read {
  status: number;
  headers: Headers;
  events: EventSourceMessage[];
  /** the parsed data of each event */
  data: any[];
  body?: any;
}

/**
 * Reads a run's events stream with fetch and eventsource-parser, as the console does, until the server closes it or
 * `stop` says enough (then the client aborts).
 */
export async function readEvents(
  url: string,
  key: string,
  options: {
    lastEventId?: string;
    stop?: (events: EventSourceMessage[]) => boolean;
    onEvent?: (event: EventSourceMessage) => void;
    onComment?: (comment: string) => void;
  } = {},
): Promise<Read> {
  const abort = new AbortController();
  const response = await fetch(url, {
    headers: {
      authorization: `Bearer ${key}`,
      accept: 'text/event-stream',
      ...(options.lastEventId !== undefined ? { 'last-event-id': options.lastEventId } : {}),
    },
    signal: abort.signal,
  });
  if (!response.headers.get('content-type')?.startsWith('text/event-stream')) {
    return { status: response.status, headers: response.headers, events: [], data: [], body: await response.json() };
  }
  const events: EventSourceMessage[] = [];
  const parser = createParser({
    onEvent: (event) => {
      events.push(event);
      options.onEvent?.(event);
    },
    onComment: (comment) => options.onComment?.(comment),
  });
  const decoder = new TextDecoder();
  const reader = response.body!.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    parser.feed(decoder.decode(value, { stream: true }));
    if (options.stop?.(events)) {
      abort.abort();
      break;
    }
  }
  return { status: response.status, headers: response.headers, events, data: events.map((e) => JSON.parse(e.data)) };
}

export const iterationsOf = (read: Read) => read.events.filter((e) => e.event === 'iteration');
