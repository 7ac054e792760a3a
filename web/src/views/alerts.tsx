// A project's alerts (GET /v1/alerts?project=): its vulnerabilities across tracked scans, open ones by default,
// filtered by status, severity (at least / exactly), team, module, suppression, analysis state, KEV, a lowest EPSS
// score and a package or advisory search, in the order chosen (risk by default: KEV first, then severity, EPSS, CVSS;
// or severity, first seen, last seen) or a column's. Each row shows its KEV badge and EPSS figure. Every filter lives
// in the URL (a reload, browser Back or a shared link shows the same list); a refusal is shown in words. The list is
// read a page at a time ("More alerts"); each row links to its alert and says its analysis. The roles that triage
// select rows (a checkbox each, Shift+click or Shift+Space for a range, one for every row shown) and decide on them at
// once (POST /v1/alerts/analysis) with the triage form; the list is read again and the outcome said. The triage rules
// that decide for many alerts at once are a link away (views/triage-rules.tsx).
import { useEffect, useMemo, useState } from 'preact/hooks';
import { useLocation, useRoute } from 'preact-iso';
import { allPages, api, ApiError } from '../api';
import {
  ALERT_SORTS,
  ALERT_STATUSES,
  ANALYSIS_FILTERS,
  EPSS_THRESHOLDS,
  alertApiQuery,
  alertFiltersFromQuery,
  alertFiltersToQuery,
  alertScopes,
  alertsCountText,
  alertsNarrowed,
  type AlertFilters,
} from '../alerts';
import { SeverityBadge, When } from '../components/bits';
import { IntelBadges } from '../components/intel';
import { SelectField, SeverityFields, SUPPRESSED_OPTIONS, valueOptions } from '../components/fields';
import { errorText } from '../components/admin/common';
import { ListTable, MoreButton, useSorted } from '../components/list';
import { Page, Status } from '../components/page';
import { BulkTriage } from '../components/bulk-triage';
import { useLoad, usePages } from '../hooks';
import { percentText } from '../intel';
import { paths } from '../paths';
import { canTriage } from '../roles';
import { useMe } from '../session';
import { selectRows, STATE_LABELS, SUPPRESSING_STATES } from '../triage';
import type { Alert, AlertList, AnalysisState, Project } from '../types';
import { SEVERITIES } from '../types';

const STATUS_LABELS: Record<AlertFilters['status'], string> = {
  open: 'Open',
  fixed: 'Fixed',
  all: 'Open and fixed',
};
const SORT_LABELS: Record<AlertFilters['sort'], string> = {
  risk: 'Risk (KEV, severity, EPSS)',
  severity: 'Most severe first',
  firstSeen: 'Newest first seen',
  lastSeen: 'Newest last seen',
};
const ANALYSIS_LABELS: Record<NonNullable<AlertFilters['analysis']>, string> = { ...STATE_LABELS, none: 'No analysis' };
const KEV_OPTIONS = [
  { value: 'true', label: 'Only known exploited (KEV)' },
  { value: 'false', label: 'Not in KEV' },
] as const;
/** The thresholds offered, and the URL's own when it is another. */
const epssOptions = (current: string | undefined) => {
  const options = EPSS_THRESHOLDS.map((t) => ({ value: t as string, label: `${percentText(Number(t))} or more` }));
  return current && !options.some((o) => Number(o.value) === Number(current))
    ? [{ value: current, label: `${percentText(Number(current))} or more` }, ...options]
    : options;
};
const COLUMNS = [
  'Advisory',
  'Severity',
  'Exploitation',
  'Package',
  'Fixed version',
  'Status',
  'First seen',
  'Last seen',
  'Modules',
];
/** The Exploitation column's order: KEV first, then the highest EPSS score; neither known last. */
const exploitation = (a: Alert) => (a.kev || a.epss ? (a.kev ? 0 : 2) + (a.epss ? 1 - a.epss.score : 1) : null);
const time = (iso: string | null | undefined) => (iso ? Date.parse(iso) : null);

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
      <SelectField
        id="a-status"
        label="Status"
        value={f.status}
        options={ALERT_STATUSES.map((s) => ({ value: s, label: STATUS_LABELS[s] }))}
        onChange={(status) => status && set({ status })}
      />
      <SeverityFields idPrefix="a" severity={f.severity} severityMode={f.severityMode} onChange={set} />
      <SelectField
        id="a-team"
        label="Team"
        any="All teams"
        value={f.team}
        options={valueOptions(teams, f.team)}
        onChange={(team) => set({ team })}
      />
      <SelectField
        id="a-module"
        label="Module"
        any="All modules"
        value={f.module}
        options={valueOptions(modules, f.module)}
        onChange={(module) => set({ module })}
      />
      <SelectField
        id="a-suppressed"
        label="Suppressed"
        value={f.suppressed}
        options={SUPPRESSED_OPTIONS}
        onChange={(suppressed) => suppressed && set({ suppressed })}
      />
      <SelectField
        id="a-analysis"
        label="Analysis"
        any="Any analysis"
        value={f.analysis}
        options={ANALYSIS_FILTERS.map((a) => ({ value: a, label: ANALYSIS_LABELS[a] }))}
        // the alerts of a state that suppresses are suppressed (mostly): the list shows them rather than none
        onChange={(analysis) =>
          set({
            analysis,
            suppressed:
              f.suppressed === 'false' && SUPPRESSING_STATES.includes(analysis as AnalysisState) ? 'all' : f.suppressed,
          })
        }
      />
      <SelectField
        id="a-kev"
        label="Known exploited"
        any="Any"
        value={f.kev}
        options={KEV_OPTIONS}
        onChange={(kev) => set({ kev })}
      />
      <SelectField
        id="a-epss"
        label="EPSS score"
        any="Any"
        value={f.epssMin}
        options={epssOptions(f.epssMin)}
        onChange={(epssMin) => set({ epssMin })}
      />
      <SelectField
        id="a-sort"
        label="Order"
        value={f.sort}
        options={ALERT_SORTS.map((s) => ({ value: s, label: SORT_LABELS[s] }))}
        onChange={(sort) => sort && set({ sort })}
      />
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
      {a.analysis ? (
        <div class="analysis-state">
          {STATE_LABELS[a.analysis.state]}
          {a.analysis.expired ? ' (expired)' : ''}
        </div>
      ) : null}
      {a.suppressed ? (
        <div class="muted">suppressed{a.suppressionSource === 'analysis' ? ' by its analysis' : ''}</div>
      ) : null}
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
  const triage = canTriage(useMe().member?.role);
  const listQuery = JSON.stringify(apiQuery);
  // read again after a bulk decision (the list's key changes with each)
  const [decided, setDecided] = useState(0);
  const key = `${listQuery} ${decided}`;
  // The filters whose rows are shown: just after the URL changes, the previous list is still there, not yet loading.
  const [shown, setShown] = useState('');
  const pages = usePages<Alert>(key, async (cursor, signal) => {
    const p = await api.get<AlertList>('/alerts', { ...apiQuery, limit: 100, cursor }, signal);
    if (!signal.aborted) setShown(key);
    return { items: p.alerts, nextCursor: p.nextCursor };
  });
  const { rows, sort } = useSorted<Alert>(pages.items, [
    ...(triage ? [null] : []),
    (a) => a.advisory,
    (a) => SEVERITIES.indexOf(a.severity),
    exploitation,
    (a) => a.package,
    (a) => a.fixedVersion,
    (a) => a.status,
    (a) => time(a.firstSeenAt),
    (a) => time(a.lastSeenAt),
    (a) => a.modules.join(' ') || null,
  ]);
  const setFilters = (next: AlertFilters) => route(paths.alerts(projectId, alertFiltersToQuery(next)));

  // The selection (of rows shown) and the row a Shift+click extends it from: other filters start afresh.
  const [selected, setSelected] = useState<ReadonlySet<string>>(new Set());
  const [anchor, setAnchor] = useState<string | null>(null);
  useEffect(() => {
    setSelected(new Set());
    setAnchor(null);
  }, [listQuery]);
  const ids = rows.map((a) => a.id);
  const chosen = ids.filter((id) => selected.has(id));
  const n = chosen.length;
  const selectEvery = (on: boolean) => {
    setSelected(new Set(on ? ids : []));
    setAnchor(null);
  };
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
    <Page
      title={`Alerts of ${name}`}
      actions={
        <>
          <a href={paths.project(projectId)}>Back to the project</a>
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
      {triage ? (
        <BulkTriage
          total={rows.length}
          selected={n}
          alertIds={chosen}
          selectEveryLabel={`Select every alert shown (${rows.length})`}
          countText={n ? `${n} selected` : 'none selected'}
          toggleLabel={n ? `Triage the ${n} selected…` : 'Triage the selected alerts…'}
          formLabel={`Triage the ${n} selected ${n === 1 ? 'alert' : 'alerts'}`}
          submitLabel={`Apply to ${n} ${n === 1 ? 'alert' : 'alerts'}`}
          onSelectEvery={selectEvery}
          onDecided={() => {
            selectEvery(false);
            setDecided((d) => d + 1);
          }}
          resetKey={listQuery}
        />
      ) : null}
      {rows.length ? (
        <ListTable caption={`Alerts of ${name}`} columns={triage ? ['Select', ...COLUMNS] : COLUMNS} sort={sort}>
          {rows.map((a) => (
            <tr key={a.id}>
              {triage ? (
                <td class="select-cell">
                  <input
                    type="checkbox"
                    aria-label={`Select ${a.advisory} in ${a.package}`}
                    checked={selected.has(a.id)}
                    // a click (or Space) with Shift turns every row from the previous one clicked the same way
                    onClick={(e) => {
                      const on = e.currentTarget.checked;
                      setSelected((s) => selectRows(s, ids, a.id, on, anchor, e.shiftKey));
                      setAnchor(a.id);
                    }}
                  />
                </td>
              ) : null}
              <th scope="row" class="cell-wrap">
                <a href={paths.alert(a.id)}>{a.advisory}</a>
              </th>
              <td>
                <SeverityBadge severity={a.severity} />
              </td>
              <td>
                {a.kev || a.epss ? <IntelBadges kev={a.kev} epss={a.epss} /> : <span class="muted">none known</span>}
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
