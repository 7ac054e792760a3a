// App URLs (base /app, vite.config.ts). Only same-app paths are ever followed after sign-in (no open redirect).
export const BASE = '/app';

export const paths = {
  /** The dashboard: the organization's open alerts, their trend, the riskiest ones, by team and by project. */
  home: () => `${BASE}/`,
  /** `reason`: why the user is sent there (`expired`: a session that ended while in use), said on the page. */
  signIn: (next?: string, reason?: 'expired') => withQuery(`${BASE}/sign-in`, { next: next || undefined, reason }),
  projects: () => `${BASE}/projects`,
  project: (id: string) => `${BASE}/projects/${encodeURIComponent(id)}`,
  inventory: (id: string) => `${BASE}/projects/${encodeURIComponent(id)}/inventory`,
  /** A project's alerts, with the Alerts view's URL query (alerts.ts: alertFiltersToQuery). */
  alerts: (projectId: string, query: Record<string, string | undefined> = {}) =>
    withQuery(`${BASE}/projects/${encodeURIComponent(projectId)}/alerts`, query),
  /** The organization's alerts, with the org-wide Alerts view's URL query (alert-filters.ts: orgAlertFiltersToQuery). */
  orgAlerts: (query: Record<string, string | undefined> = {}) => withQuery(`${BASE}/alerts`, query),
  alert: (id: string) => `${BASE}/alerts/${encodeURIComponent(id)}`,
  /** An advisory (any id of its alias group) and the organization's open alerts of it, by project. */
  advisory: (id: string) => `${BASE}/advisories/${encodeURIComponent(id)}`,
  /** Where a package is used across the organization's projects (intel.ts: usageSearchToQuery). */
  whereUsed: (query: Record<string, string | undefined> = {}) => withQuery(`${BASE}/where-used`, query),
  /** The triage rules; `preview`: the rule whose matches are shown. */
  triageRules: (preview?: string) => withQuery(`${BASE}/triage-rules`, { preview }),
  scan: (id: string) => `${BASE}/scans/${encodeURIComponent(id)}`,
  /** A scan compared with a baseline (automatic unless `query.baseline` names a scan; compare.ts: compareQueryToUrl). */
  compare: (scanId: string, query: Record<string, string | undefined> = {}) =>
    withQuery(`${BASE}/scans/${encodeURIComponent(scanId)}/compare`, query),
  finding: (scanId: string, findingId: string, query = '') =>
    `${BASE}/scans/${encodeURIComponent(scanId)}/findings/${encodeURIComponent(findingId)}${query}`,
  members: () => `${BASE}/members`,
  invitations: () => `${BASE}/invitations`,
  acceptInvitation: () => `${BASE}/invitations/accept`,
  apiKeys: () => `${BASE}/api-keys`,
  audit: () => `${BASE}/audit`,
};

/** The path to return to after sign-in: only a path of this app (never another origin, never `//host`). */
export function safeNext(next: string | undefined): string {
  if (!next || !next.startsWith(`${BASE}/`) || next.startsWith('//') || next.includes('\\')) return paths.home();
  if (next.startsWith(`${BASE}/sign-in`)) return paths.home();
  return next;
}

/** Builds a query string from the non-empty values (filters live in the URL). */
export function withQuery(path: string, query: Record<string, string | undefined>): string {
  const qs = new URLSearchParams();
  for (const [k, v] of Object.entries(query)) if (v) qs.set(k, v);
  const s = qs.toString();
  return s ? `${path}?${s}` : path;
}
