import { useEffect, useMemo, useState } from 'preact/hooks';
import { parseHash, type Location } from './hashRoutes';

export { href, matchPath, parseHash, type Location } from './hashRoutes';

/** Goes to a route (an href), adding to the history. */
export function navigate(to: string): void {
  if (location.hash !== to) location.hash = to;
}

/** The current hash route, followed. */
export function useLocation(): Location {
  const [hash, setHash] = useState(location.hash);
  useEffect(() => {
    const onChange = () => setHash(location.hash);
    addEventListener('hashchange', onChange);
    return () => removeEventListener('hashchange', onChange);
  }, []);
  return useMemo(() => parseHash(hash), [hash]);
}
