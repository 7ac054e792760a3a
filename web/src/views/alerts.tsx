// A project's alerts (GET /v1/alerts?project=): its vulnerabilities across tracked scans, open ones by default,
// filtered by status, severity (at least / exactly), team, module, suppression and a package or advisory search, in
// the API's order or a column's. Every filter lives in the URL (a reload, browser Back or a shared link shows the same
// list); a refusal is shown in words. The list is read a page at a time ("More alerts"); each row links to its alert.
import { useEffect, useMemo, useState } from 'preact/hooks';
import { useLocation, useRoute } from 'preact-iso';
import { allPages, api, ApiError } from '../api';
import {
  ALERT_SORTS,
  ALERT_STATUSES,
  alertApiQuery,
  alertFiltersFromQuery,
  alertFiltersToQuery,
  alertScopes,
  alertsCountText,
  alertsNarrowed,
  type AlertFilters,
} from '../alerts';
import { SeverityBadge, When } from '../components/bits';
import { errorText } from '../components/admin/common';
import { ListTable, MoreButton, useSorted } from '../components/list';
import { Page, Status } from '../components/page';
import { useLoad, usePages } from '../hooks';
import { paths } from '../paths';
import type { Alert, AlertList, Project } from '../types';
import { SEVERITIES } from '../types';

const STATUS_LABELS: Record<AlertFilters['status'], string> = {
  open: 'Open',
  fixed: 'Fixed',
  all: 'Open and fixed',
};
const SORT_LABELS: Record<AlertFilters['sort'], string> = {
  severity: 'Most severe first',
  firstSeen: 'Newest first seen',
  lastSeen: 'Newest last seen',
};
const COLUMNS = ['Advisory', 'Severity', 'Package', 'Fixed version', 'Status', 'First seen', 'Last seen', 'Modules'];
const time = (iso: string | null | undefined) => (iso ? Date.parse(iso) : null);

/** A select of values the alerts name (teams, modules), keeping one from the URL that none names any more. */
function ScopeSelect(props: {
  id: string;
  label: string;
  any: string;
  value: string | undefined;
  values: string[];
  onChange(v: string | undefined): void;
}) {
  return (
    <div class="field">
      <label for={props.id}>{props.label}</label>
      <select
        id={props.id}
        value={props.value ?? ''}
        onChange={(e) => props.onChange(e.currentTarget.value || undefined)}
      >
        <option value="">{props.any}</option>
        {props.value && !props.values.includes(props.value) ? <option value={props.value}>{props.value}</option> : null}
        {props.values.map((v) => (
          <option key={v} value={v}>
            {v}
          </option>
        ))}
      </select>
    </div>
  );
}

function AlertFiltersForm({
  f,
  teams,
  modules,
  onChange,
}: {
  f: AlertFilters;
  teams: string[];
  modules: string[];
  onChange(next: AlertFilters): void;
}) {
  const [text, setText] = useState(f.q ?? '');
  useEffect(() => setText(f.q ?? ''), [f.q]);
  const set = (patch: Partial<AlertFilters>) => onChange({ ...f, ...patch });
  return (
    <form
      class="filters"
      role="search"
      aria-label="Alert filters"
      onSubmit={(e) => {
        e.preventDefault();
        set({ q: text.trim() || undefined });
      }}
    >
      <div class="field">
        <label for="a-status">Status</label>
        <select
          id="a-status"
          value={f.status}
          onChange={(e) => set({ status: e.currentTarget.value as AlertFilters['status'] })}
        >
          {ALERT_STATUSES.map((s) => (
            <option key={s} value={s}>
              {STATUS_LABELS[s]}
            </option>
          ))}
        </select>
      </div>
      <div class="field">
        <label for="a-severity">Severity</label>
        <select
          id="a-severity"
          value={f.severity ?? ''}
          onChange={(e) => set({ severity: (e.currentTarget.value || undefined) as AlertFilters['severity'] })}
        >
          <option value="">Any</option>
          {SEVERITIES.map((s) => (
            <option key={s} value={s}>
              {s}
            </option>
          ))}
        </select>
      </div>
      <div class="field">
        <label for="a-mode">Severity match</label>
        <select
          id="a-mode"
          value={f.severityMode}
          disabled={!f.severity}
          onChange={(e) => set({ severityMode: e.currentTarget.value as AlertFilters['severityMode'] })}
        >
          <option value="at_least">at least</option>
          <option value="exact">exactly</option>
        </select>
      </div>
      <ScopeSelect
        id="a-team"
        label="Team"
        any="All teams"
        value={f.team}
        values={teams}
        onChange={(team) => set({ team })}
      />
      <ScopeSelect
        id="a-module"
        label="Module"
        any="All modules"
        value={f.module}
        values={modules}
        onChange={(module) => set({ module })}
      />
      <div class="field">
        <label for="a-suppressed">Suppressed</label>
        <select
          id="a-suppressed"
          value={f.suppressed}
          onChange={(e) => set({ suppressed: e.currentTarget.value as AlertFilters['suppressed'] })}
        >
          <option value="false">Hide suppressed</option>
          <option value="true">Only suppressed</option>
          <option value="all">Show all</option>
        </select>
      </div>
      <div class="field">
        <label for="a-sort">Order</label>
        <select
          id="a-sort"
          value={f.sort}
          onChange={(e) => set({ sort: e.currentTarget.value as AlertFilters['sort'] })}
        >
          {ALERT_SORTS.map((s) => (
            <option key={s} value={s}>
              {SORT_LABELS[s]}
            </option>
          ))}
        </select>
      </div>
      <div class="field">
        <label for="a-q">Package or advisory (starts with)</label>
        <input
          id="a-q"
          type="search"
          maxLength={512}
          autoComplete="off"
          spellcheck={false}
          value={text}
          onInput={(e) => setText(e.currentTarget.value)}
        />
      </div>
      <button type="submit">Search</button>
    </form>
  );
}

function StatusText({ a }: { a: Alert }) {
  return (
    <>
      <span class={`alert-status alert-${a.status}`}>{a.status}</span>
      {a.status === 'fixed' && a.fixedAt ? (
        <div class="muted">
          <When iso={a.fixedAt} />
        </div>
      ) : null}
      {a.suppressed ? <div class="muted">suppressed</div> : null}
    </>
  );
}

export default function Alerts() {
  const { params } = useRoute();
  const { query, url, route } = useLocation();
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
  const key = JSON.stringify(apiQuery);
  // The filters whose rows are shown: just after the URL changes, the previous list is still there, not yet loading.
  const [shown, setShown] = useState('');
  const pages = usePages<Alert>(key, async (cursor, signal) => {
    const p = await api.get<AlertList>('/alerts', { ...apiQuery, limit: 100, cursor }, signal);
    if (!signal.aborted) setShown(key);
    return { items: p.alerts, nextCursor: p.nextCursor };
  });
  const { rows, sort } = useSorted<Alert>(pages.items, [
    (a) => a.advisory,
    (a) => SEVERITIES.indexOf(a.severity),
    (a) => a.package,
    (a) => a.fixedVersion,
    (a) => a.status,
    (a) => time(a.firstSeenAt),
    (a) => time(a.lastSeenAt),
    (a) => a.modules.join(' ') || null,
  ]);
  const setFilters = (next: AlertFilters) => route(paths.alerts(projectId, alertFiltersToQuery(next)));
  const name = project.data?.slug ?? projectId;
  // the rows shown are the URL's list (while other filters' first page loads, the previous rows stay, uncounted)
  const current = shown === key && pages.loaded && !pages.loading;
  const unknownProject = pages.error instanceof ApiError && pages.error.code === 'unknown_project';

  if ((!project.loading && !project.error && !project.data) || unknownProject)
    return (
      <Page title="Project not found">
        <p role="alert">
          No project <code>{projectId}</code> in this organization. <a href={paths.projects()}>See every project</a>.
        </p>
      </Page>
    );
  return (
    <Page title={`Alerts of ${name}`} actions={<a href={paths.project(projectId)}>Back to the project</a>}>
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
      <AlertFiltersForm f={filters} teams={scopes.teams} modules={scopes.modules} onChange={setFilters} />
      <p role="status" aria-live="polite" class="list-counts" data-ready-url={current ? url.split('#')[0] : undefined}>
        {shown === key && pages.loaded && (!pages.loading || pages.cursor)
          ? alertsCountText(pages.items.length, filters, !pages.next)
          : pages.loading
            ? 'Loading alerts…'
            : ''}
      </p>
      <Status
        error={pages.error ? errorText(pages.error) : everyAlert.error ? errorText(everyAlert.error) : undefined}
      />
      {current && !pages.items.length ? (
        alertsNarrowed(filters) ? (
          <p>No alert matches these filters.</p>
        ) : (
          <p class="clean">
            No open alert: the latest tracked scans of this project have no known vulnerability that is not suppressed,
            or no tracked scan has completed yet.
          </p>
        )
      ) : null}
      {rows.length ? (
        <ListTable caption={`Alerts of ${name}`} columns={COLUMNS} sort={sort}>
          {rows.map((a) => (
            <tr key={a.id}>
              <th scope="row" class="cell-wrap">
                <a href={paths.alert(a.id)}>{a.advisory}</a>
              </th>
              <td>
                <SeverityBadge severity={a.severity} />
              </td>
              <td class="cell-wrap">
                {a.package}
                <div class="muted">
                  {a.installedVersions.join(', ')} · {a.ecosystem}
                </div>
              </td>
              <td>{a.fixedVersion ?? <span class="muted">no fix</span>}</td>
              <td>
                <StatusText a={a} />
              </td>
              <td>
                <When iso={a.firstSeenAt} />
              </td>
              <td>
                <When iso={a.lastSeenAt} />
              </td>
              <td class="cell-wrap">
                {a.modules.length ? a.modules.join(', ') : <span class="muted">none</span>}
                {a.teams.length ? <div class="muted">{a.teams.map((t) => `team ${t}`).join(', ')}</div> : null}
              </td>
            </tr>
          ))}
        </ListTable>
      ) : null}
      <MoreButton pages={pages} label="More alerts" />
    </Page>
  );
}
