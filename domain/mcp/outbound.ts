import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { isIP, type LookupFunction } from 'node:net';
import type { FetchLike } from '@modelcontextprotocol/client';
import { Agent, buildConnector } from 'undici';
import { classifyAddress, type AddressClass } from './addressClass.js';

/**
 * The one guard for requests the service sends on a saved server's behalf outside the MCP session itself: OAuth
 * discovery and refresh, and doctor's probe. Callers and remote metadata choose some of these URLs, so:
 * - the address actually connected to (after DNS, so rebinding cannot slip past) must be public, or in a range
 *   class the saved server's own URL resolves into (a self-hosted server on a private network may use its own
 *   network; nobody can steer the service from there to loopback, or from the internet into a private network);
 *   link-local and cloud metadata addresses are refused always;
 * - redirects are followed only within the same origin, a bounded number of times, so saved headers and secrets
 *   never reach another host.
 */

/** Ranges allowed only when the saved server itself resolves into the same class. */
const HOME_CLASSES: ReadonlySet<AddressClass> = new Set(['loopback', 'private', 'carrierGradeNat', 'unspecified']);

export { classifyAddress, type AddressClass } from './addressClass.js';

/** Which addresses a saved server's outbound requests may reach. */
export class OutboundPolicy {
  constructor(
    /** the range classes the saved server's own URL resolves into (besides public) */
    readonly home: ReadonlySet<AddressClass>,
  ) {}

  allows(address: string): boolean {
    const kind = classifyAddress(address);
    return kind === 'public' || (HOME_CLASSES.has(kind) && this.home.has(kind));
  }
}

export type Lookup = (
  hostname: string,
  options: { all: true },
  callback: (error: NodeJS.ErrnoException | null, addresses: LookupAddress[]) => void,
) => void;

const systemLookup: Lookup = (hostname, options, callback) => dnsLookup(hostname, options, callback);

const resolveAll = (lookup: Lookup, hostname: string) =>
  new Promise<LookupAddress[]>((resolve, reject) =>
    lookup(hostname, { all: true }, (error, addresses) => (error ? reject(error) : resolve(addresses))),
  );

const bareHost = (url: URL) => url.hostname.replace(/^\[|\]$/g, '');

/** The policy for a saved server: its URL's host, resolved now, decides which non-public classes are home. */
export async function outboundPolicyFor(serverUrl: string, lookup: Lookup = systemLookup): Promise<OutboundPolicy> {
  const host = bareHost(new URL(serverUrl));
  // An unresolvable saved host has no home network: its requests may only go to public addresses.
  const addresses = isIP(host) ? [host] : (await resolveAll(lookup, host).catch(() => [])).map((a) => a.address);
  const home = new Set(addresses.map(classifyAddress).filter((kind) => HOME_CLASSES.has(kind)));
  return new OutboundPolicy(home);
}

export type OutboundFailureKind = 'refused_address' | 'redirect_refused' | 'unreachable' | 'timeout';

/**
 * An outbound request that did not get an answer, and why. The message names only our own reasons and error codes
 * (ECONNREFUSED, ...), never anything the remote side sent.
 */
export class OutboundError extends Error {
  constructor(
    readonly kind: OutboundFailureKind,
    message: string,
  ) {
    super(message);
    this.name = 'OutboundError';
  }
}

/** Same-origin redirects followed per request, at most. */
export const MAX_REDIRECTS = 3;
const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);

export interface OutboundOptions {
  /** the deadline of the whole job (every request of it); a request past it fails with kind `timeout` */
  signal?: AbortSignal;
  /** DNS resolution; node:dns by default */
  lookup?: Lookup;
}

/**
 * An undici dispatcher that connects only to addresses `policy` allows: checked at connect time on the addresses DNS
 * gave, so the name cannot resolve elsewhere between check and use. Every outbound request of a saved server goes
 * through one (Outbound's fetch; the conformance bridge's requests, conformance/bridge.ts). Close it when done.
 */
export function guardedAgent(policy: OutboundPolicy, lookup: Lookup = systemLookup): Agent {
  const guardedLookup: LookupFunction = (hostname, lookupOptions, callback) => {
    lookup(hostname, { all: true }, (error, addresses) => {
      if (error) return callback(error, '', 0);
      const allowed = addresses.filter((a) => policy.allows(a.address));
      if (allowed.length === 0) return callback(refusedAddress(hostname), '', 0);
      if (lookupOptions.all) return (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, allowed);
      callback(null, allowed[0].address, allowed[0].family);
    });
  };
  const connector = buildConnector({ lookup: guardedLookup });
  return new Agent({
    connect: (connectOptions, callback) => {
      // net.connect skips the lookup hook for IP literals: those are checked here.
      const host = connectOptions.hostname.replace(/^\[|\]$/g, '');
      if (isIP(host) && !policy.allows(host)) return callback(refusedAddress(host), null);
      connector(connectOptions, callback);
    },
  });
}

/**
 * A fetch for one job (a refresh, a probe) on behalf of one saved server, checking every address it connects to
 * against the server's policy. Close it when the job is done (it owns a connection pool).
 */
export class Outbound {
  readonly #agent: Agent;
  readonly #signal: AbortSignal | undefined;

  private constructor(policy: OutboundPolicy, options: OutboundOptions) {
    this.#signal = options.signal;
    this.#agent = guardedAgent(policy, options.lookup);
  }

  static async forServer(serverUrl: string, options: OutboundOptions = {}): Promise<Outbound> {
    return new Outbound(await outboundPolicyFor(serverUrl, options.lookup), options);
  }

  /** fetch with the address rules, same-origin redirects only (at most MAX_REDIRECTS), and the job's deadline. */
  readonly fetch: FetchLike = async (input, init) => {
    let url = new URL(String(input));
    let request: RequestInit = { ...init };
    for (let followed = 0; ; followed++) {
      if (url.protocol !== 'http:' && url.protocol !== 'https:')
        throw new OutboundError('refused_address', `only http and https URLs are fetched, not ${url.protocol}`);
      const response = await this.#send(url, request);
      const location = REDIRECT_STATUSES.has(response.status) ? response.headers.get('location') : null;
      if (location === null) return response;
      await response.body?.cancel();
      const next = new URL(location, url);
      if (next.origin !== url.origin || next.username || next.password) {
        throw new OutboundError(
          'redirect_refused',
          'redirected to another origin; not followed, so nothing saved goes to another host',
        );
      }
      if (followed === MAX_REDIRECTS)
        throw new OutboundError('redirect_refused', `more than ${MAX_REDIRECTS} redirects`);
      // As browsers do: 303 (and 301/302 after a POST) continue as a GET without the body.
      const method = (request.method ?? 'GET').toUpperCase();
      if (response.status === 303 || ((response.status === 301 || response.status === 302) && method === 'POST')) {
        request = { ...request, method: 'GET', body: undefined };
      }
      url = next;
    }
  };

  async close(): Promise<void> {
    await this.#agent.destroy().catch(() => {});
  }

  async #send(url: URL, init: RequestInit): Promise<Response> {
    const signals = [init.signal, this.#signal].filter((s): s is AbortSignal => Boolean(s));
    try {
      return await fetch(url, {
        ...init,
        redirect: 'manual',
        signal: signals.length ? AbortSignal.any(signals) : undefined,
        // undici's own Agent drives the global fetch; the cast bridges its types and the ones bundled with Node.
        ...({ dispatcher: this.#agent } as object),
      });
    } catch (error) {
      if (init.signal?.aborted) throw error; // the caller's own deadline or cancellation: theirs to describe
      if (this.#signal?.aborted) throw new OutboundError('timeout', 'no answer in time');
      const refused = causeOf(error, OutboundError);
      if (refused) throw refused;
      if (error instanceof TypeError) {
        const code = (causeOf(error, Error) as NodeJS.ErrnoException | undefined)?.code;
        throw new OutboundError('unreachable', code ? `fetch failed (${code})` : 'fetch failed');
      }
      throw error;
    }
  }
}

function refusedAddress(host: string): OutboundError {
  return new OutboundError(
    'refused_address',
    `${host} is not an address outbound requests may reach (link-local, metadata, or a private range the saved server is not in)`,
  );
}

/** The first error of type `type` in `error`'s cause chain (fetch wraps connection errors in a TypeError). */
function causeOf<T extends Error>(error: unknown, type: abstract new (...args: never[]) => T): T | undefined {
  let current = (error as { cause?: unknown } | null)?.cause;
  for (let depth = 0; current && depth < 5; depth++) {
    if (current instanceof type) return current;
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}
