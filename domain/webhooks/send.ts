import { request } from 'undici';
import { guardedAgent, OutboundError, type Lookup } from '../mcp/outbound.js';
import { storableText } from '../columnLimits.js';
import type { WebhookTargets } from './webhook.js';

/** What one attempt to deliver a message came to. */
export interface SendOutcome {
  succeeded: boolean;
  statusCode: number | null;
  durationMs: number;
  /** the start of the endpoint's reply, as text (at most EXCERPT_BYTES bytes read) */
  responseExcerpt: string | null;
  /** why there was no 2xx: our own words and error codes, never what the endpoint sent */
  error: string | null;
}

/** Bytes of the reply read (and kept) at most: the rest is never read. */
export const EXCERPT_BYTES = 1024;

/**
 * POSTs one signed message to an endpoint URL, as hostile as any caller-supplied URL: the address connected to
 * (after DNS, so a name cannot rebind past the check) must be one the targets allow; no redirect is followed (a 3xx
 * is a failed attempt); the whole attempt is bounded by `timeoutMs`; at most EXCERPT_BYTES of the reply are read.
 * A 2xx succeeds; anything else, or no answer, fails (and Temporal retries the activity).
 */
export async function sendWebhook(
  target: { url: string; headers: Record<string, string>; body: string },
  options: { targets: WebhookTargets; timeoutMs: number; lookup?: Lookup },
): Promise<SendOutcome> {
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  const refusal = options.targets.refusal(target.url);
  if (refusal) return failed(elapsed(), refusal);
  const agent = guardedAgent(options.targets.policy, options.lookup);
  const signal = AbortSignal.timeout(options.timeoutMs);
  try {
    const reply = await request(target.url, {
      method: 'POST',
      headers: { ...target.headers, 'user-agent': 'Runway-Webhooks/1' },
      body: target.body,
      dispatcher: agent,
      signal,
      maxRedirections: 0,
    });
    let excerpt = Buffer.alloc(0);
    try {
      for await (const chunk of reply.body) {
        excerpt = Buffer.concat([excerpt, chunk as Buffer]);
        if (excerpt.length >= EXCERPT_BYTES) break;
      }
    } catch {
      // a reply cut short still has its status: what was read is kept
    } finally {
      reply.body.destroy();
    }
    const text = storableText(excerpt.subarray(0, EXCERPT_BYTES).toString('utf8'));
    const ok = reply.statusCode >= 200 && reply.statusCode < 300;
    return {
      succeeded: ok,
      statusCode: reply.statusCode,
      durationMs: elapsed(),
      responseExcerpt: text === '' ? null : text,
      error: ok
        ? null
        : reply.statusCode >= 300 && reply.statusCode < 400
          ? `answered ${reply.statusCode}: redirects are not followed`
          : `answered ${reply.statusCode}`,
    };
  } catch (error) {
    if (signal.aborted) return failed(elapsed(), `no answer within ${options.timeoutMs} ms`);
    const refused = outboundCause(error);
    if (refused) return failed(elapsed(), refused.message);
    const code = (error as NodeJS.ErrnoException | null)?.code;
    return failed(elapsed(), code ? `could not reach the endpoint (${code})` : 'could not reach the endpoint');
  } finally {
    await agent.destroy().catch(() => {});
  }
}

const failed = (durationMs: number, error: string): SendOutcome => ({
  succeeded: false,
  statusCode: null,
  durationMs,
  responseExcerpt: null,
  error,
});

function outboundCause(error: unknown): OutboundError | undefined {
  let current: unknown = error;
  for (let depth = 0; current && depth < 6; depth++) {
    if (current instanceof OutboundError) return current;
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}
