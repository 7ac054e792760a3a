// The one layout: skip link, header with the organization, the navigation (from the routes table) and sign-out. On
// a narrow screen the navigation and the account fold behind a Menu button (closed again on every navigation), so
// that the header takes one line; on a wide one they share the header's one line.
import type { ComponentChildren } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { useLocation } from 'preact-iso';
import { routes } from './routes';
import { paths } from './paths';
import { isManager } from './roles';
import { useMe, useSession } from './session';

/** Ends the session (DELETE of the current one), then the sign-in page. */
function SignOutButton() {
  const { signOut } = useSession();
  const { route } = useLocation();
  return (
    <button
      type="button"
      onClick={async () => {
        await signOut();
        route(paths.signIn());
      }}
    >
      Sign out
    </button>
  );
}

export function Layout({ children }: { children: ComponentChildren }) {
  const me = useMe();
  const { path } = useLocation();
  const [open, setOpen] = useState(false);
  useEffect(() => setOpen(false), [path]);
  const admin = isManager(me.member?.role);
  // every role reads members, hosts and gateways (hosts:read, gateways:read); the rest is for owners and admins
  const nav = routes.filter((r) => r.nav && (r.nav.section === 'triage' || admin || r.nav.allRoles));
  // the location's path has no trailing slash (the dashboard's is /app); an alert's page (/app/alerts/ID) belongs to
  // the Alerts view, a project's alerts to its project
  const current = (p: string) =>
    path === p.replace(/\/+$/, '') ||
    path.startsWith(`${p}/`) ||
    (p === paths.projects() && path.startsWith('/app/scans')) ||
    // an advisory's page answers "where is it?" across projects, as the where-used search does for a package
    (p === paths.whereUsed() && path.startsWith('/app/advisories/'));
  return (
    <div class="shell">
      <a class="skip" href="#main">
        Skip to content
      </a>
      <header class={`top${open ? ' menu-open' : ''}`}>
        <a class="brand" href={paths.home()}>
          Supply-chain scanner
        </a>
        <button
          type="button"
          class="menu-toggle"
          aria-expanded={open ? 'true' : 'false'}
          aria-controls="main-menu"
          onClick={() => setOpen(!open)}
        >
          Menu
        </button>
        <div class="menu" id="main-menu">
          <nav aria-label="Main">
            <ul>
              {nav.map((r) => (
                <li key={r.path}>
                  <a href={r.path} aria-current={current(r.path) ? 'page' : undefined}>
                    {r.nav!.label}
                  </a>
                </li>
              ))}
            </ul>
          </nav>
          <div class="who">
            <span class="muted who-name">
              <span class="who-email">
                {me.user.email}
                {me.org ? ' · ' : ''}
              </span>
              {me.org ? <span class="who-org">{me.org.name}</span> : null}
              {me.member ? <span class="who-role"> ({me.member.role})</span> : null}
            </span>
            <SignOutButton />
          </div>
        </div>
      </header>
      <main id="main" tabIndex={-1}>
        {children}
      </main>
    </div>
  );
}

/** The page a signed-in user without an organization sees (org and member are null until an invitation). */
export function NoOrganization() {
  const me = useMe();
  return (
    <main id="main" class="narrow">
      <h1>No organization yet</h1>
      <p>
        You are signed in as <strong>{me.user.email}</strong>, but you do not belong to an organization. Ask an
        administrator for an invitation and open its link.
      </p>
      <SignOutButton />
    </main>
  );
}
