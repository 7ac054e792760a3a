// A project's alerts (GET /v1/alerts?project=): its vulnerabilities across tracked scans, open ones by default,
// filtered by status, severity (at least / exactly), team, module, suppression, analysis state, KEV, a lowest EPSS
// score and a package or advisory search, in the order chosen (risk by default: KEV first, then severity, EPSS, CVSS;
// or severity, first seen, last seen) or a column's. Each row shows its KEV badge and EPSS figure. Every filter lives
// in the URL (a reload, browser Back or a shared link shows the same list); a refusal is shown in words. The list is
// read a page at a time ("More alerts"); each row links to its alert and says its analysis. The roles that triage
// select rows (a checkbox each, Shift+click or Shift+Space for a range, one for every row shown) and decide on them at
// once (POST /v1/alerts/analysis) with the triage form; the list is read again and the outcome said. The same query
// downloads as CSV. The list, its form and the bulk decision are components/alert-list.tsx's, shared with the
// organization's Alerts view (views/org-alerts.tsx). The triage rules that decide for many alerts at once are a link
// away (views/triage-rules.tsx).
import { useMemo } from 'preact/hooks';
import { useLocation, useRoute } from 'preact-iso';
import { allPages, ApiError } from '../api';
import { alertApiQuery, alertFiltersFromQuery, alertFiltersToQuery, alertScopes, alertsNarrowed } from '../alerts';
import { AlertFiltersForm, AlertList, CsvExport, useAlertPages } from '../components/alert-list';
import { Page } from '../components/page';
import { useLoad } from '../hooks';
import { paths } from '../paths';
import type { Alert, Project } from '../types';

export default function Alerts() {
  const { params } = useRoute();
  const { query, route } = useLocation();
  const projectId = params.projectId;
  const filters = alertFiltersFromQuery(query);
  const apiQuery = alertApiQuery(projectId, filters);
  const project = useLoad(
    async () =>
      (await allPages<Project>('/projects', 'projects')).find((p) => p.id === projectId || p.slug === projectId),
    [projectId],
  );
  // Every alert of the project (fixed and suppressed ones too): the teams and modules the filters offer.
  const everyAlert = useLoad(
    () => allPages<Alert>('/alerts', 'alerts', { project: projectId, status: 'all', suppressed: 'all' }),
    [projectId],
  );
  const scopes = useMemo(() => alertScopes(everyAlert.data ?? []), [everyAlert.data]);
  const list = useAlertPages(apiQuery);
  const name = project.data?.slug ?? projectId;
  const unknownProject = list.pages.error instanceof ApiError && list.pages.error.code === 'unknown_project';

  if ((!project.loading && !project.error && !project.data) || unknownProject)
    return (
      <Page title="Project not found">
        <p role="alert">
          No project <code>{projectId}</code> in this organization. <a href={paths.projects()}>See every project</a>.
        </p>
      </Page>
    );
  return (
    <Page
      title={`Alerts of ${name}`}
      actions={
        <>
          <a href={paths.project(projectId)}>Back to the project</a>
          <a href={paths.orgAlerts()}>Every project's alerts</a>
          <a href={paths.triageRules()}>Triage rules</a>
        </>
      }
    >
      <p class="muted">
        Each alert is one vulnerability of one package in this project, kept across the scans of its default branch
        {project.data?.defaultBranch ? (
          <>
            {' '}
            (<code>{project.data.defaultBranch}</code>)
          </>
        ) : null}
        .
      </p>
      <AlertFiltersForm
        f={filters}
        teams={scopes.teams}
        modules={scopes.modules}
        onChange={(next) => route(paths.alerts(projectId, alertFiltersToQuery(next)))}
      />
      <CsvExport query={apiQuery} />
      <AlertList
        list={list}
        filters={filters}
        narrowed={alertsNarrowed(filters)}
        caption={`Alerts of ${name}`}
        error={everyAlert.error}
        clean="No open alert: the latest tracked scans of this project have no known vulnerability that is not suppressed, or no tracked scan has completed yet."
      />
    </Page>
  );
}
