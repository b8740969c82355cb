import { lazy, Suspense, useEffect, useMemo, useState } from 'react';
import { Api } from './api/client.ts';
import { ApiContext } from './lib/api-context.ts';
import { useRoute } from './lib/route.ts';
import { PipelinesPage } from './pages/pipelines.tsx';
import { SignIn } from './pages/sign-in.tsx';

// A pipeline's page (CodeMirror, uPlot: most of the bundle) loads when first opened, so the list paints
// without waiting for it.
const PipelinePage = lazy(() => import('./pages/pipeline.tsx').then((m) => ({ default: m.PipelinePage })));

// The key lives for the browser tab's session only: closing the tab signs out.
const KEY_ITEM = 'svc.apiKey';

type Gate = { state: 'checking' } | { state: 'signed-in'; version: string } | { state: 'sign-in'; rejected: boolean };

export function App() {
  const [key, setKey] = useState(() => sessionStorage.getItem(KEY_ITEM) ?? undefined);
  const [gate, setGate] = useState<Gate>({ state: 'checking' });
  const api = useMemo(() => new Api(key, () => setGate({ state: 'sign-in', rejected: key !== undefined })), [key]);
  const route = useRoute();

  useEffect(() => {
    api
      .json<{ version: string }>('/v0/config')
      .then((c) => setGate({ state: 'signed-in', version: c.version }))
      .catch(() => setGate((g) => (g.state === 'sign-in' ? g : { state: 'sign-in', rejected: false })));
  }, [api]);

  if (gate.state === 'checking') return <p className="loading">Loading…</p>;
  if (gate.state === 'sign-in')
    return (
      <SignIn
        rejected={gate.rejected}
        onSignedIn={(k) => {
          sessionStorage.setItem(KEY_ITEM, k);
          setKey(k);
          setGate({ state: 'checking' });
        }}
      />
    );
  const signOut = () => {
    sessionStorage.removeItem(KEY_ITEM);
    setKey(undefined);
    setGate({ state: 'checking' });
  };
  return (
    <ApiContext.Provider value={api}>
      <header className="top">
        <a href="#/" className="brand">
          svc
        </a>
        <nav>
          <a href="#/">Pipelines</a>
        </nav>
        <span className="version">v{gate.version}</span>
        {key && (
          <button className="link" onClick={signOut}>
            Sign out
          </button>
        )}
      </header>
      {route.page === 'list' ? (
        <PipelinesPage />
      ) : (
        <Suspense fallback={<p className="loading">Loading…</p>}>
          <PipelinePage key={route.name} name={route.name} tab={route.tab} />
        </Suspense>
      )}
    </ApiContext.Provider>
  );
}
