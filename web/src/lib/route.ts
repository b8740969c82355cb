import { useEffect, useState } from 'react';

// Hash routes (#/, #/pipelines/NAME/TAB): the server serves one index.html at / and needs no
// fallback for client paths.

export type Tab = 'program' | 'config' | 'data' | 'health';
export const TABS: readonly Tab[] = ['program', 'config', 'data', 'health'];

export type Route = { page: 'list' } | { page: 'pipeline'; name: string; tab: Tab };

export function parseRoute(hash: string): Route {
  const parts = hash.replace(/^#\/?/, '').split('/').map(decodeURIComponent);
  if (parts[0] === 'pipelines' && parts[1]) {
    const tab = TABS.find((t) => t === parts[2]) ?? 'program';
    return { page: 'pipeline', name: parts[1], tab };
  }
  return { page: 'list' };
}

export const hrefOf = (route: Route): string =>
  route.page === 'list' ? '#/' : `#/pipelines/${encodeURIComponent(route.name)}/${route.tab}`;

export function useRoute(): Route {
  const [route, setRoute] = useState(() => parseRoute(window.location.hash));
  useEffect(() => {
    const on = () => setRoute(parseRoute(window.location.hash));
    window.addEventListener('hashchange', on);
    return () => window.removeEventListener('hashchange', on);
  }, []);
  return route;
}
