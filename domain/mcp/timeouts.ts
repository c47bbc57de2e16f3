import type { RequestOptions } from '@modelcontextprotocol/client';
import type { ResumptionLimits } from './resumption.js';
import type { ServerTimeouts } from '../catalog/server.js';

/** The phases an operation can time out in; a 504 names the phase. */
export type Phase = 'connect' | 'initialize' | 'request';

export interface McpTimeouts {
  connectMs: number;
  initializeMs: number;
  requestMs: number;
  /** how far progress notifications may stretch one request */
  maxTotalMs: number;
  /** how often and how long a request may wait for its response stream to be resumed */
  resumption: ResumptionLimits;
}

/** The deployment's MCP timeouts (settings of the same names, runtime/config.ts), in ms. */
export interface McpTimeoutSettings {
  MCP_CONNECT_TIMEOUT_MS: number;
  MCP_INITIALIZE_TIMEOUT_MS: number;
  MCP_REQUEST_TIMEOUT_MS: number;
  MCP_MAX_TOTAL_TIMEOUT_MS: number;
  MCP_RESUME_MAX_ATTEMPTS: number;
  MCP_RESUME_MAX_DELAY_MS: number;
}

const positive = (value: unknown): number | undefined =>
  typeof value === 'number' && Number.isFinite(value) && value > 0 ? value : undefined;

/** The service defaults, overridden per saved server (servers.timeouts). */
export function resolveTimeouts(config: McpTimeoutSettings, overrides: ServerTimeouts | null | undefined): McpTimeouts {
  const requestMs = positive(overrides?.requestMs) ?? config.MCP_REQUEST_TIMEOUT_MS;
  return {
    connectMs: positive(overrides?.connectMs) ?? config.MCP_CONNECT_TIMEOUT_MS,
    initializeMs: positive(overrides?.initializeMs) ?? config.MCP_INITIALIZE_TIMEOUT_MS,
    requestMs,
    // A maximum below the per-request timeout would make progress shorten a call instead of extending it.
    maxTotalMs: Math.max(positive(overrides?.maxTotalMs) ?? config.MCP_MAX_TOTAL_TIMEOUT_MS, requestMs),
    resumption: { maxAttempts: config.MCP_RESUME_MAX_ATTEMPTS, maxDelayMs: config.MCP_RESUME_MAX_DELAY_MS },
  };
}

/**
 * SDK options for one request: each progress notification restarts the request timeout, up to the maximum total.
 * Asking for progress (onprogress) is what makes the SDK send a progress token, so it is always set.
 */
export function requestOptions(
  timeouts: McpTimeouts,
  signal?: AbortSignal,
  onprogress: RequestOptions['onprogress'] = ignoreProgress,
): RequestOptions {
  return {
    timeout: timeouts.requestMs,
    maxTotalTimeout: timeouts.maxTotalMs,
    resetTimeoutOnProgress: true,
    onprogress,
    signal,
  };
}

const ignoreProgress = () => {};
