import type { DiscoverResult, PriorDiscovery, ProtocolEra } from '@modelcontextprotocol/client';
import { SUPPORTED_PROTOCOL_VERSIONS } from '@modelcontextprotocol/client';

/** The revision of the stateless era (`server/discover`, the `_meta` envelope, MRTR, the Tasks extension). */
export const MODERN_REVISION = '2026-07-28';

/** Every protocol revision Runway speaks, newest first: the 2026 era, then the `initialize` era's revisions. */
export const RUNWAY_PROTOCOL_VERSIONS: readonly string[] = [MODERN_REVISION, ...SUPPORTED_PROTOCOL_VERSIONS];

/** What Runway learned about a server's protocol the last time it connected (validate, doctor, server lists). */
export interface ProtocolVerdict {
  era: ProtocolEra;
  version: string;
  /** modern servers: their advertisement, reused for its `ttlMs` (zero round trips) */
  discover?: DiscoverResult;
  /** epoch ms */
  learnedAt: number;
}

/** Verdicts are per saved server and revision of its settings: an edited server is probed again. */
export const eraKey = (server: { id: string; revision: number | string }) => `${server.id}:${server.revision}`;

/** A modern server's advertisement without a `ttlMs` is trusted this long before it is asked again. */
const DEFAULT_DISCOVER_TTL_MS = 5 * 60_000;
/** A legacy verdict is rechecked after this long: an upgraded server still answers `initialize` (silently stale). */
const LEGACY_VERDICT_TTL_MS = 60 * 60_000;
const MAX_REMEMBERED = 10_000;

/**
 * The protocol era each saved server spoke, remembered per server and revision of its settings, so a new session
 * skips the `server/discover` probe: a legacy server goes straight to `initialize` and a modern one adopts its
 * advertisement while its `ttlMs` lasts (SEP: server/discover results are cacheable). A verdict that stops matching
 * (the connect fails on it) is forgotten and the server probed again (connection.ts).
 */
export class ProtocolEras {
  private readonly verdicts = new Map<string, ProtocolVerdict>();

  constructor(private readonly now: () => number = Date.now) {}

  /** What to tell the SDK's connect(): a fresh verdict, else nothing (probe). */
  prior(key: string): PriorDiscovery | undefined {
    const verdict = this.verdicts.get(key);
    if (!verdict) return undefined;
    const age = this.now() - verdict.learnedAt;
    if (verdict.era === 'legacy') return age < LEGACY_VERDICT_TTL_MS ? { kind: 'legacy' } : undefined;
    const ttl = discoverTtlMs(verdict.discover);
    return verdict.discover && age < ttl ? { kind: 'modern', discover: verdict.discover } : undefined;
  }

  remember(key: string, verdict: Omit<ProtocolVerdict, 'learnedAt'>): void {
    this.verdicts.delete(key);
    if (this.verdicts.size >= MAX_REMEMBERED) this.verdicts.delete(this.verdicts.keys().next().value as string);
    this.verdicts.set(key, { ...verdict, learnedAt: this.now() });
  }

  forget(key: string): void {
    this.verdicts.delete(key);
  }
}

function discoverTtlMs(discover: DiscoverResult | undefined): number {
  const ttl = (discover as { ttlMs?: unknown } | undefined)?.ttlMs;
  return typeof ttl === 'number' && Number.isFinite(ttl) && ttl >= 0 ? ttl : DEFAULT_DISCOVER_TTL_MS;
}
