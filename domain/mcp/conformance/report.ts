/**
 * What a conformance check of a saved server found: the official MCP conformance suite
 * (`@modelcontextprotocol/conformance`) run against the server at one protocol revision, per scenario and per check,
 * and the score derived from it. The runner (runner.ts) produces it; the check's story stores and serves it.
 */
import type { SavedServer } from '../../catalog/server.js';

/** The revisions the suite carries a frozen requirement set for. */
export const CONFORMANCE_REVISIONS = ['2025-11-25', '2026-07-28'] as const;
export type ConformanceRevision = (typeof CONFORMANCE_REVISIONS)[number];

/** One check of a scenario, as the suite reported it (its SUCCESS/FAILURE/WARNING/SKIPPED/INFO, in our words). */
export interface ConformanceCheck {
  id: string;
  name: string;
  description: string;
  status: 'passed' | 'failed' | 'warning' | 'skipped' | 'info';
  /** the suite's own message for a failure or warning; null otherwise */
  message: string | null;
  specReferences: { id: string; url: string }[];
}

export interface ConformanceScenario {
  name: string;
  /** counts toward the score: in the revision's requirement set (false: run and reported, never scored) */
  scored: boolean;
  /** why it is not scored (the requirement set's reason: pending, extension, added-after-release, ...); null if scored */
  notScoredReason: string | null;
  /** passed: no check failed; failed: at least one did; not_applicable: the suite did not run it for this server */
  status: 'passed' | 'failed' | 'not_applicable';
  checks: ConformanceCheck[];
}

export interface ConformanceScore {
  /** 0-100, an integer */
  value: number;
  passedScenarios: number;
  scoredScenarios: number;
  passedChecks: number;
  failedChecks: number;
  /** how `value` is computed, in one sentence a user reads */
  method: string;
}

export interface ConformanceReport {
  specVersion: ConformanceRevision;
  /** the suite's package version, e.g. 0.2.0-alpha.12 */
  suiteVersion: string;
  scenarios: ConformanceScenario[];
  score: ConformanceScore;
  startedAt: string;
  finishedAt: string;
  /**
   * what the loopback bridge refused or cut during the check, each said once (a redirect not followed, a reply past
   * the size limit, a request past the time limit, an address the outbound rules refuse); absent when nothing was
   */
  notes?: string[];
}

export interface ConformanceOptions {
  specVersion: ConformanceRevision;
  signal?: AbortSignal;
  /** the whole check's limit; the runner stops the suite and fails with a timeout past it */
  timeoutMs: number;
  /** called now and then while the suite runs (an activity heartbeats with it) */
  onProgress?: (progress: { scenariosDone: number }) => void;
}

/**
 * Runs the official suite against a saved server (Streamable HTTP only: stdio and legacy SSE servers are refused with
 * FEATURE_NOT_SUPPORTED, 422, details.reason TRANSPORT_NOT_CHECKABLE).
 */
export interface ConformanceRunner {
  check(server: SavedServer, options: ConformanceOptions): Promise<ConformanceReport>;
}
