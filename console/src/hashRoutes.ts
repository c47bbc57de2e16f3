/* Pure: no DOM, no imports (the unit tests read it in Node: test/unit/console-pure.test.ts). */

/**
 * Hash routes (`#/projects/p1/suites/s1?tab=cases`): the page is one file, any link can be opened, bookmarked and
 * reached with the back button. Patterns name their parameters with `:` (`/projects/:projectId/runs/:runId`).
 */
export interface Location {
  path: string;
  query: URLSearchParams;
}

export function parseHash(hash: string): Location {
  const raw = hash.replace(/^#/, '') || '/';
  const at = raw.indexOf('?');
  const path = at === -1 ? raw : raw.slice(0, at);
  return {
    path: path.startsWith('/') ? path : `/${path}`,
    query: new URLSearchParams(at === -1 ? '' : raw.slice(at + 1)),
  };
}

/** The parameters when `path` fits `pattern`, else null. */
export function matchPath(pattern: string, path: string): Record<string, string> | null {
  const want = pattern.split('/').filter(Boolean);
  const have = path.split('/').filter(Boolean);
  if (want.length !== have.length) return null;
  const params: Record<string, string> = {};
  for (let i = 0; i < want.length; i++) {
    if (want[i].startsWith(':')) {
      try {
        params[want[i].slice(1)] = decodeURIComponent(have[i]);
      } catch {
        return null;
      }
    } else if (want[i] !== have[i]) return null;
  }
  return params;
}

/**
 * A link to a route: `href('/projects/:projectId/runs/:runId', { projectId, runId }, { base })` ->
 * `#/projects/p1/runs/r2?base=r1`. Query values that are undefined or empty are left out.
 */
export function href(
  pattern: string,
  params: Record<string, string> = {},
  query: Record<string, string | undefined | null> = {},
): string {
  const path = pattern.replace(/:([A-Za-z]+)/g, (_m, name: string) => {
    const value = params[name];
    if (value === undefined) throw new Error(`href: no value for :${name} in ${pattern}`);
    return encodeURIComponent(value);
  });
  const search = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) if (value) search.set(name, value);
  const tail = search.toString();
  return `#${path}${tail ? `?${tail}` : ''}`;
}
