// The alerts list of GET /v1/alerts, shared by a project's Alerts view (views/alerts.tsx) and the organization's
// (views/org-alerts.tsx): the filter form, the list read a page at a time ("More alerts") and counted in words, each
// row linking to its alert with its KEV badge, EPSS figure and analysis, the bulk decision of the selected rows for the
// roles that triage (a checkbox each, Shift+click or Shift+Space for a range, one for every row shown), and the CSV
// export of the same query (GET /v1/alerts/export.csv). The organization's list adds a Project column and the filters
// a project's list has no use for. Text only: every value from the API is a text node.
import type { ComponentChildren } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { useLocation } from 'preact-iso';
import { api, downloadFile } from '../api';
import { ALERT_SORTS, ALERT_STATUSES, ANALYSIS_FILTERS, EPSS_THRESHOLDS, alertsCountText } from '../alerts';
import type { AlertFilters } from '../alerts';
import type { OrgAlertFilters } from '../alert-filters';
import { usePages } from '../hooks';
import { ECOSYSTEMS, percentText } from '../intel';
import { paths } from '../paths';
import { canTriage } from '../roles';
import { useMe } from '../session';
import { selectRows, STATE_LABELS, SUPPRESSING_STATES } from '../triage';
import type { Alert, AlertList as AlertListPage, AnalysisState } from '../types';
import { SEVERITIES } from '../types';
import { errorText } from './admin/common';
import { SeverityBadge, When } from './bits';
import { BulkTriage } from './bulk-triage';
import { SelectField, SeverityFields, SUPPRESSED_OPTIONS, valueOptions, type SelectOption } from './fields';
import { IntelBadges } from './intel';
import { ListTable, MoreButton, useSorted } from './list';
import { Status } from './page';

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
const FIXABLE_OPTIONS = [
  { value: 'true', label: 'A fixed version is known' },
  { value: 'false', label: 'No fix known' },
] as const;
/** The thresholds offered, and the URL's own when it is another. */
const epssOptions = (current: string | undefined) => {
  const options = EPSS_THRESHOLDS.map((t) => ({ value: t as string, label: `${percentText(Number(t))} or more` }));
  return current && !options.some((o) => Number(o.value) === Number(current))
    ? [{ value: current, label: `${percentText(Number(current))} or more` }, ...options]
    : options;
};

/** A labelled text input of the filter form: its value is applied with the form's Search button. */
function TextField(p: { id: string; label: string; value: string; onInput(v: string): void }) {
  return (
    <div class="field">
      <label for={p.id}>{p.label}</label>
      <input
        id={p.id}
        type="search"
        maxLength={512}
        autoComplete="off"
        spellcheck={false}
        value={p.value}
        onInput={(e) => p.onInput(e.currentTarget.value)}
      />
    </div>
  );
}

/**
 * The filters. A project's list offers its teams and modules as choices (`modules`); the organization's (`projects`:
 * the project choices) adds the project, the ecosystem, whether a fix is known, and the module, an exact package name
 * and an advisory (any alias) as text, applied with the search.
 */
export function AlertFiltersForm({
  f,
  teams,
  modules,
  projects,
  onChange,
}: {
  f: OrgAlertFilters;
  teams: string[];
  modules?: string[];
  projects?: SelectOption[];
  onChange(next: OrgAlertFilters): void;
}) {
  const texts = { q: f.q ?? '', module: f.module ?? '', package: f.package ?? '', advisory: f.advisory ?? '' };
  const [text, setText] = useState(texts);
  // the URL is the filters: Back or a link shows its values
  useEffect(() => setText(texts), [f.q, f.module, f.package, f.advisory]);
  const set = (patch: Partial<OrgAlertFilters>) => onChange({ ...f, ...patch });
  const typed = (k: keyof typeof texts) => (v: string) => setText((t) => ({ ...t, [k]: v }));
  const org = !!projects;
  return (
    <form
      class="filters"
      role="search"
      aria-label="Alert filters"
      onSubmit={(e) => {
        e.preventDefault();
        const value = (k: keyof typeof texts) => text[k].trim() || undefined;
        set(
          org
            ? { q: value('q'), module: value('module'), package: value('package'), advisory: value('advisory') }
            : { q: value('q') },
        );
      }}
    >
      {projects ? (
        <>
          <SelectField
            id="a-project"
            label="Project"
            any="Every project"
            value={f.project}
            options={projects}
            onChange={(project) => set({ project })}
          />
          <SelectField
            id="a-ecosystem"
            label="Ecosystem"
            any="Any"
            value={f.ecosystem}
            options={valueOptions(ECOSYSTEMS)}
            onChange={(ecosystem) => set({ ecosystem })}
          />
        </>
      ) : null}
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
      {modules ? (
        <SelectField
          id="a-module"
          label="Module"
          any="All modules"
          value={f.module}
          options={valueOptions(modules, f.module)}
          onChange={(module) => set({ module })}
        />
      ) : null}
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
      {org ? (
        <SelectField
          id="a-fixable"
          label="Fix"
          any="Any"
          value={f.fixable}
          options={FIXABLE_OPTIONS}
          onChange={(fixable) => set({ fixable })}
        />
      ) : null}
      <SelectField
        id="a-sort"
        label="Order"
        value={f.sort}
        options={ALERT_SORTS.map((s) => ({ value: s, label: SORT_LABELS[s] }))}
        onChange={(sort) => sort && set({ sort })}
      />
      {org ? (
        <>
          <TextField id="a-module" label="Module (path)" value={text.module} onInput={typed('module')} />
          <TextField id="a-package" label="Package (exact name)" value={text.package} onInput={typed('package')} />
          <TextField id="a-advisory" label="Advisory (any id)" value={text.advisory} onInput={typed('advisory')} />
        </>
      ) : null}
      <TextField id="a-q" label="Package or advisory (starts with)" value={text.q} onInput={typed('q')} />
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

/**
 * The list of an API query, read a page at a time: read again after a bulk decision (`reread`). `shown`: the key whose
 * rows are shown (just after the URL changes, the previous list is still there, not yet loading).
 */
export function useAlertPages(apiQuery: Record<string, string | undefined>) {
  const listQuery = JSON.stringify(apiQuery);
  const [decided, setDecided] = useState(0);
  const key = `${listQuery} ${decided}`;
  const [shown, setShown] = useState('');
  const pages = usePages<Alert>(key, async (cursor, signal) => {
    const p = await api.get<AlertListPage>('/alerts', { ...apiQuery, limit: 100, cursor }, signal);
    if (!signal.aborted) setShown(key);
    return { items: p.alerts, nextCursor: p.nextCursor };
  });
  return { apiQuery, listQuery, key, shown, pages, reread: () => setDecided((d) => d + 1) };
}
export type AlertPages = ReturnType<typeof useAlertPages>;

/** The Exploitation column's order: KEV first, then the highest EPSS score; neither known last. */
const exploitation = (a: Alert) => (a.kev || a.epss ? (a.kev ? 0 : 2) + (a.epss ? 1 - a.epss.score : 1) : null);
const time = (iso: string | null | undefined) => (iso ? Date.parse(iso) : null);

/**
 * The CSV of the list's query (every alert it selects, not only the rows read): fetched with the session and saved as
 * alerts.csv. A refusal is said in words; a file cut at the server's limit says so.
 */
export function CsvExport({ query }: { query: Record<string, string | undefined> }) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [note, setNote] = useState('');
  useEffect(() => {
    setError(null);
    setNote('');
  }, [JSON.stringify(query)]);
  return (
    <div class="exports" role="group" aria-label="Export these alerts">
      <button
        type="button"
        disabled={busy}
        onClick={async () => {
          setBusy(true);
          setError(null);
          setNote('');
          try {
            const headers = await downloadFile('/alerts/export.csv', query, 'alerts.csv');
            setNote(
              headers.get('X-Truncated') === 'true'
                ? 'alerts.csv holds the first 100,000 alerts of this list: narrow the filters to export the rest.'
                : 'alerts.csv holds every alert of these filters.',
            );
          } catch (e) {
            setError(`Could not download the CSV: ${errorText(e)}`);
          } finally {
            setBusy(false);
          }
        }}
      >
        Export CSV
      </button>
      <span class="muted" role="status">
        {busy ? 'Preparing alerts.csv…' : note}
      </span>
      {error ? (
        <p role="alert" class="error">
          {error}
        </p>
      ) : null}
    </div>
  );
}

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

/**
 * The list's count, its refusal, its emptiness in words, the selection and bulk decision, the rows and "More alerts".
 * `projects` (project id → slug): the organization's list, with a Project column after the advisory. `clean`: what
 * an empty list says without filters narrowing it.
 */
export function AlertList({
  list,
  filters,
  narrowed,
  caption,
  clean,
  projects,
  error,
}: {
  list: AlertPages;
  filters: AlertFilters;
  narrowed: boolean;
  caption: string;
  clean: ComponentChildren;
  projects?: ReadonlyMap<string, string>;
  /** Another read's refusal (the filters' choices), shown where the list's would be. */
  error?: unknown;
}) {
  const { url } = useLocation();
  const { pages, key, shown, listQuery } = list;
  const triage = canTriage(useMe().member?.role);
  const org = !!projects;
  const slug = (id: string) => projects?.get(id) ?? id;
  const { rows, sort } = useSorted<Alert>(pages.items, [
    ...(triage ? [null] : []),
    (a) => a.advisory,
    ...(org ? [(a: Alert) => slug(a.project)] : []),
    (a) => SEVERITIES.indexOf(a.severity),
    exploitation,
    (a) => a.package,
    (a) => a.fixedVersion,
    (a) => a.status,
    (a) => time(a.firstSeenAt),
    (a) => time(a.lastSeenAt),
    (a) => a.modules.join(' ') || null,
  ]);
  const columns = [...(triage ? ['Select'] : []), COLUMNS[0], ...(org ? ['Project'] : []), ...COLUMNS.slice(1)];

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
  // the rows shown are the URL's list (while other filters' first page loads, the previous rows stay, uncounted)
  const current = shown === key && pages.loaded && !pages.loading;
  const failed = pages.error ?? error;
  return (
    <>
      <p role="status" aria-live="polite" class="list-counts" data-ready-url={current ? url.split('#')[0] : undefined}>
        {shown === key && pages.loaded && (!pages.loading || pages.cursor)
          ? alertsCountText(pages.items.length, filters, !pages.next)
          : pages.loading
            ? 'Loading alerts…'
            : ''}
      </p>
      <Status error={failed ? errorText(failed) : undefined} />
      {current && !pages.items.length ? (
        narrowed ? (
          <p>No alert matches these filters.</p>
        ) : (
          <p class="clean">{clean}</p>
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
            list.reread();
          }}
          resetKey={listQuery}
        />
      ) : null}
      {rows.length ? (
        <ListTable caption={caption} columns={columns} sort={sort}>
          {rows.map((a) => (
            <tr key={a.id}>
              {triage ? (
                <td class="select-cell">
                  <input
                    type="checkbox"
                    aria-label={`Select ${a.advisory} in ${a.package}${org ? ` of ${slug(a.project)}` : ''}`}
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
              {org ? (
                <td class="cell-wrap">
                  <a href={paths.project(a.project)}>{slug(a.project)}</a>
                </td>
              ) : null}
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
    </>
  );
}
