// The organization's alerts (GET /v1/alerts): every project's, open ones by default, filtered by any filter the API has
// (project, ecosystem, status, severity at least or exactly, analysis, suppression, team, module, exact package,
// advisory by any alias, whether a fix is known, KEV, a lowest EPSS score, a package or advisory prefix) in the order
// chosen (risk by default). Every filter lives in the URL (a reload, Back, a shared link or a dashboard's link shows the
// same list). Each row names its project; the roles that triage decide on the selected rows at once, as in a project's
// list (components/alert-list.tsx), and the same query downloads as CSV (GET /v1/alerts/export.csv). The project
// choices are the organization's projects; the team choices, its teams as the portfolio counts them (one read each).
import { useMemo } from 'preact/hooks';
import { useLocation } from 'preact-iso';
import { allPages, api } from '../api';
import {
  orgAlertApiQuery,
  orgAlertFiltersFromQuery,
  orgAlertFiltersToQuery,
  orgAlertsNarrowed,
} from '../alert-filters';
import { AlertFiltersForm, AlertList, CsvExport, useAlertPages } from '../components/alert-list';
import { Page } from '../components/page';
import { useLoad } from '../hooks';
import { NO_TEAM, type Portfolio } from '../metrics';
import { paths } from '../paths';
import type { Project } from '../types';

export default function OrgAlerts() {
  const { query, route } = useLocation();
  const filters = orgAlertFiltersFromQuery(query);
  const apiQuery = orgAlertApiQuery(filters);
  const projects = useLoad(() => allPages<Project>('/projects', 'projects'), []);
  // the teams only: without them (an older server, a refusal) the team filter offers the URL's own, and the list stands
  const portfolio = useLoad((signal) => api.get<Portfolio>('/metrics/portfolio', undefined, signal), []);
  const slugs = useMemo(() => new Map((projects.data ?? []).map((p) => [p.id, p.slug])), [projects.data]);
  const projectOptions = useMemo(() => {
    const options = (projects.data ?? []).map((p) => ({ value: p.slug, label: p.slug }));
    const current = filters.project;
    // a link may name the project by its id: shown by its slug
    if (current && !options.some((o) => o.value === current))
      options.unshift({ value: current, label: slugs.get(current) ?? current });
    return options;
  }, [projects.data, slugs, filters.project]);
  const teams = (portfolio.data?.teams ?? []).map((t) => t.team).filter((t) => t !== NO_TEAM);
  const list = useAlertPages(apiQuery);

  return (
    <Page title="Alerts" actions={<a href={paths.triageRules()}>Triage rules</a>}>
      <p class="muted">
        Every project's alerts: each is one vulnerability of one package in one project, kept across the scans of the
        project's default branch. The filters live in the address: a link to this page shows the same list.
      </p>
      <AlertFiltersForm
        f={filters}
        teams={teams}
        projects={projectOptions}
        onChange={(next) => route(paths.orgAlerts(orgAlertFiltersToQuery(next)))}
      />
      <CsvExport query={apiQuery} />
      <AlertList
        list={list}
        filters={filters}
        narrowed={orgAlertsNarrowed(filters)}
        caption="Alerts of every project"
        projects={slugs}
        error={projects.error}
        clean="No open alert: the latest tracked scans of the organization's projects have no known vulnerability that is not suppressed, or no tracked scan has completed yet."
      />
    </Page>
  );
}
