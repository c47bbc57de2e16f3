import type { RequestHandler } from 'express';
import { answerScrape, type Metrics } from '../runtime/metrics.js';
import type { MountedRoute } from './openapi.js';

/**
 * Records each request's latency under its route pattern (`/api/v1/projects/:projectId/servers`), taken from the
 * routes the app actually mounts, so a path full of ids never becomes a label. Unknown paths share `unmatched`.
 */
export function httpMetrics(metrics: Metrics, routes: () => MountedRoute[]): RequestHandler {
  let patterns: { method: string; regexp: RegExp; route: string }[] | undefined;
  const routeOf = (method: string, path: string): string => {
    patterns ??= routes().map((r) => ({
      method: r.method,
      regexp: patternRegExp(r.path, r.kind === 'mount'),
      route: r.path,
    }));
    return (
      patterns.find((p) => (p.method === method || p.method === 'ALL') && p.regexp.test(path))?.route ??
      patterns.find((p) => p.regexp.test(path))?.route ??
      'unmatched'
    );
  };
  return (req, res, next) => {
    const end = metrics.httpDuration.startTimer();
    // Read now: once a router has the request, req.path is relative to its mount point.
    const path = req.path;
    res.on('finish', () => {
      end({
        method: req.method,
        route: routeOf(req.method === 'HEAD' ? 'GET' : req.method, path),
        status: String(res.statusCode),
      });
    });
    next();
  };
}

function patternRegExp(path: string, prefix: boolean): RegExp {
  const source = path
    .split('/')
    .map((segment) => {
      if (/^:[A-Za-z_]\w*$/.test(segment)) return '[^/]+';
      if (/^\*[A-Za-z_]\w*$/.test(segment)) return '.+';
      return segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    })
    .join('/');
  return new RegExp(`^${source}${prefix ? '(?:/.*)?' : '/?'}$`);
}

/** `GET /metrics` on the API (outside /api/v1: no API key; METRICS_TOKEN when configured). */
export function metricsRoute(metrics: Metrics, token: string | undefined): RequestHandler {
  return async (req, res) => {
    await answerScrape(metrics, token, req.get('authorization'), res);
  };
}
