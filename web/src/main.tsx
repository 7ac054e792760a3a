// Entry: the session, the router and the shell. Views are loaded lazily from the routes table.
import { render } from 'preact';
import { useEffect } from 'preact/hooks';
import { ErrorBoundary, LocationProvider, Route, Router, useLocation } from 'preact-iso';
import { setUnauthorizedHandler } from './api';
import { startHomeReads } from './home-reads';
import { Layout, NoOrganization } from './layout';
import { BASE, paths } from './paths';
import { routeOf, routes } from './routes';
import { SessionProvider, useSession } from './session';
import NotFound from './views/not-found';
import './styles.css';

// At the home, the dashboard's code and its three reads start beside the session check instead of after it.
if (location.pathname === BASE || location.pathname === `${BASE}/`) {
  void import('./views/dashboard');
  startHomeReads();
}

function Redirect({ to }: { to: string }) {
  const { route } = useLocation();
  useEffect(() => route(to, true), [to]);
  return null;
}

function Views() {
  return (
    <ErrorBoundary>
      <Router>
        {[
          ...routes.map((r) => <Route key={r.path} path={r.path} component={r.component} />),
          <Route key="404" default component={NotFound} />,
        ]}
      </Router>
    </ErrorBoundary>
  );
}

function Shell() {
  const session = useSession();
  const { url, path, route } = useLocation();
  useEffect(() => {
    setUnauthorizedHandler(() => {
      session.lost();
      const here = location.pathname + location.search + location.hash;
      if (!location.pathname.startsWith(`${BASE}/sign-in`)) route(paths.signIn(here, 'expired'), true);
    });
  }, []);
  const entry = routeOf(path);
  const s = session.state;
  if (s.status === 'loading')
    return (
      <div class="boot">
        <p class="brand">Supply-chain scanner</p>
        <p role="status" class="muted">
          Checking your session…
        </p>
      </div>
    );
  if (s.status === 'error')
    return (
      <p role="alert" class="error boot">
        The service did not answer: {s.message}
      </p>
    );
  if (entry?.public)
    return (
      <main id="main" class="narrow">
        <Views />
      </main>
    );
  if (s.status === 'signed-out') return <Redirect to={paths.signIn(url)} />;
  if (!s.me.org && !entry?.noOrg) return <NoOrganization />;
  return (
    <Layout>
      <Views />
    </Layout>
  );
}

// The view of the address being opened starts loading now, beside GET /v1/me, not after it.
(routeOf(location.pathname)?.component as { preload?: () => Promise<unknown> } | undefined)
  ?.preload?.()
  .catch(() => undefined);

render(
  <SessionProvider>
    <LocationProvider scope={BASE}>
      <Shell />
    </LocationProvider>
  </SessionProvider>,
  document.getElementById('root')!,
);
