// The one routes table: every view of the app, its URL pattern, whether it needs a session and an organization, and
// its entry in the navigation. Views are code-split (lazy): the first page loads the shell and the view it shows.
// To add a view: add its file under views/ and one entry here.
import { lazy } from 'preact-iso';
import type { AnyComponent } from 'preact';
import { BASE } from './paths';

export interface AppRoute {
  path: string;
  component: AnyComponent<any>;
  /** Shown without a session (sign-in; the invitation page signs in itself when needed). */
  public?: boolean;
  /** Shown to a signed-in user without organization (the invitation page). */
  noOrg?: boolean;
  /** In the navigation: triage entries for everyone; admin entries for owners and admins, or every role with `allRoles`. */
  nav?: { label: string; section: 'triage' | 'admin'; allRoles?: boolean };
}

export const routes: AppRoute[] = [
  { path: `${BASE}/sign-in`, component: lazy(() => import('./views/sign-in')), public: true },
  {
    path: `${BASE}/`,
    component: lazy(() => import('./views/dashboard')),
    nav: { label: 'Dashboard', section: 'triage' },
  },
  {
    path: `${BASE}/projects`,
    component: lazy(() => import('./views/projects')),
    nav: { label: 'Projects', section: 'triage' },
  },
  {
    path: `${BASE}/alerts`,
    component: lazy(() => import('./views/org-alerts')),
    nav: { label: 'Alerts', section: 'triage' },
  },
  { path: `${BASE}/projects/:projectId`, component: lazy(() => import('./views/project')) },
  { path: `${BASE}/projects/:projectId/inventory`, component: lazy(() => import('./views/inventory')) },
  { path: `${BASE}/projects/:projectId/alerts`, component: lazy(() => import('./views/alerts')) },
  { path: `${BASE}/alerts/:alertId`, component: lazy(() => import('./views/alert')) },
  { path: `${BASE}/advisories/:advisoryId`, component: lazy(() => import('./views/advisory')) },
  {
    path: `${BASE}/triage-rules`,
    component: lazy(() => import('./views/triage-rules')),
    nav: { label: 'Rules', section: 'triage' },
  },
  {
    path: `${BASE}/where-used`,
    component: lazy(() => import('./views/where-used')),
    nav: { label: 'Where used', section: 'triage' },
  },
  { path: `${BASE}/scans/:scanId`, component: lazy(() => import('./views/findings')) },
  { path: `${BASE}/scans/:scanId/compare`, component: lazy(() => import('./views/compare')) },
  { path: `${BASE}/scans/:scanId/findings/:findingId`, component: lazy(() => import('./views/finding')) },
  {
    path: `${BASE}/members`,
    component: lazy(() => import('./views/admin/members')),
    nav: { label: 'Members', section: 'admin', allRoles: true },
  },
  {
    path: `${BASE}/invitations`,
    component: lazy(() => import('./views/admin/invitations')),
    nav: { label: 'Invitations', section: 'admin' },
  },
  {
    path: `${BASE}/invitations/accept`,
    component: lazy(() => import('./views/admin/accept')),
    public: true,
    noOrg: true,
  },
  {
    path: `${BASE}/api-keys`,
    component: lazy(() => import('./views/admin/api-keys')),
    nav: { label: 'API keys', section: 'admin' },
  },
  {
    path: `${BASE}/audit`,
    component: lazy(() => import('./views/admin/audit')),
    nav: { label: 'Audit trail', section: 'admin' },
  },
  {
    path: `${BASE}/hosts`,
    component: lazy(() => import('./views/admin/hosts')),
    nav: { label: 'Hosts', section: 'admin', allRoles: true },
  },
  { path: `${BASE}/hosts/registration-tokens`, component: lazy(() => import('./views/admin/registration-tokens')) },
  {
    path: `${BASE}/gateways`,
    component: lazy(() => import('./views/admin/gateways')),
    nav: { label: 'Gateways', section: 'admin', allRoles: true },
  },
  { path: `${BASE}/gateways/enrollment-tokens`, component: lazy(() => import('./views/admin/enrollment-tokens')) },
  // MCP auditing: every role holds mcp:read; the registry page holds the control level too
  {
    path: `${BASE}/mcp/servers`,
    component: lazy(() => import('./views/mcp/servers')),
    nav: { label: 'MCP servers', section: 'admin', allRoles: true },
  },
  { path: `${BASE}/mcp/servers/:id`, component: lazy(() => import('./views/mcp/server')) },
  {
    path: `${BASE}/mcp/registry`,
    component: lazy(() => import('./views/mcp/registry')),
    nav: { label: 'MCP registry', section: 'admin', allRoles: true },
  },
  {
    path: `${BASE}/mcp/usage`,
    component: lazy(() => import('./views/mcp/usage')),
    nav: { label: 'MCP usage', section: 'admin', allRoles: true },
  },
];

/** The route entry of a path (same matching rules as preact-iso: segments, `:param`). */
export function routeOf(path: string): AppRoute | undefined {
  const segs = path.replace(/\/+$/, '').split('/');
  return routes.find((r) => {
    const rs = r.path.replace(/\/+$/, '').split('/');
    return rs.length === segs.length && rs.every((s, i) => s.startsWith(':') || s === segs[i]);
  });
}
