// A scan's findings: the introduced view by default, affected on a toggle, grouped by module or introducing
// dependency, filtered by module, team, severity (at least / exactly) and suppression, with the scope's counts.
// A finding that belongs to a project alert links to it (ArrowRight reaches that link from the row's own), says
// its alert's analysis and when the project first saw it. A finding in CISA's KEV catalog has a KEV badge, one with
// an EPSS score its figure (components/intel.tsx); each row ends with links to its advisory's page and to where its
// package is used across the organization (on a wide screen; a narrow one reaches them from the finding's page). Every filter lives in the URL. The first screen shows the
// first page only; later pages load as the list scrolls near its end. `performance.mark('findings:first-screen')` is
// set when the first rows are in the DOM. The roles that triage select findings of an alert (a checkbox at the end
// of each such row, reached with ArrowRight and toggled with Space; Shift+click or Shift+Space for a range of the
// rows loaded; one for every finding loaded) and decide on their alerts at once (POST /v1/alerts/analysis, each
// alert once however many of its findings are selected) with the triage form, as the Alerts view does; the outcome
// is said and the list read again from its first page. Other filters start with no selection. Findings without an
// alert (found on a branch only, for example) are triaged nowhere from here: the page says so. Below the list, the
// import of a VEX document into the scan's project's alerts (components/vex-import.tsx); one that changes alerts reads
// the list again.
import { useCallback, useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { useLocation, useRoute } from 'preact-iso';
import { allPages, api } from '../api';
import { Counts, ScanStatusText, SeverityBadge, When } from '../components/bits';
import { IntelBadges } from '../components/intel';
import { ScanExports } from '../components/exports';
import { Page, Status } from '../components/page';
import { BulkTriage } from '../components/bulk-triage';
import { VexImport } from '../components/vex-import';
import { VirtualList } from '../components/virtual-list';
import { remember } from '../finding-cache';
import { apiQuery, filtersFromQuery, filtersToQuery, type FindingFilters } from '../filters';
import { usageSearchOf, usageSearchToQuery } from '../intel';
import { useLoad, useMedia } from '../hooks';
import { useLiveScan } from '../live-scan';
import { paths, withQuery } from '../paths';
import { canTriage } from '../roles';
import { buildRows, findingRows, listCountText, type Row } from '../rows';
import { useMe } from '../session';
import { bulkResultText, selectRows, STATE_LABELS, SUPPRESSING_STATES } from '../triage';
import type { AnalysisInput, BulkAnalysisResult, Finding, FindingsPage, ScanModuleWithCounts } from '../types';
import { FiltersForm } from './findings-filters';

const FIRST_PAGE = 100;
const NEXT_PAGES = 200;
/** A row's height: one line, or two on a narrow screen (the identifier, then the package). */
const ROW = 36;
const ROW_NARROW = 52;

/** The finding a reader came back to (browser Back, or the finding page's link), to focus its row again. */
function returnedFinding(): string | undefined {
  const fromLink = /^#finding-(.+)$/.exec(location.hash)?.[1];
  if (fromLink) return decodeURIComponent(fromLink);
  const state = history.state as { returnFinding?: string } | null;
  return state?.returnFinding;
}

/** Remembers, in the list's own history entry, the finding opened from it (browser Back returns to its row). */
function rememberOpened(findingId: string): void {
  history.replaceState({ ...(history.state ?? {}), returnFinding: findingId }, '');
}

/** Whether the filters narrow the list (a list empty under them says so; an unfiltered one is clean). */
function narrowed(f: FindingFilters): boolean {
  return !!(f.module || f.team || f.severity || f.suppressed !== 'false');
}

interface ListState {
  key: string;
  findings: Finding[];
  nextCursor: string | null;
  counts: FindingsPage['counts'];
  pages: number;
  loading: boolean;
  error?: unknown;
}

/** How many findings the filtered list holds, when the counts tell it (they are taken before severity/suppression). */
function expectedTotal(f: FindingFilters, c: FindingsPage['counts']): number {
  if (!c) return -1;
  const sevs = (['critical', 'high', 'medium', 'low'] as const).filter(
    (s, i, all) => !f.severity || (f.severityMode === 'exact' ? s === f.severity : i <= all.indexOf(f.severity)),
  );
  const open = sevs.reduce((n, s) => n + c[s], 0);
  if (f.suppressed === 'false') return open;
  if (f.severity) return -1; // suppressed findings are not counted per severity
  return f.suppressed === 'true' ? c.suppressed : open + c.suppressed;
}

type FindingRow = Extract<Row, { kind: 'finding' }>;
const plural = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;

/**
 * The rows a bulk decision may select (those of a finding with an alert), in row order: their keys (a finding listed
 * under several groups is several rows), the findings they show, each finding once, and each finding's alert.
 */
function selectable(rows: Row[]) {
  const keys: string[] = [];
  const findingOf = new Map<string, string>();
  const alertOf = new Map<string, string>();
  let without = 0;
  for (const r of rows) {
    if (r.kind !== 'finding') continue;
    if (!r.finding.alertId) {
      without++;
      continue;
    }
    keys.push(r.key);
    findingOf.set(r.key, r.finding.id);
    alertOf.set(r.finding.id, r.finding.alertId);
  }
  return { keys, findingOf, alertOf, ids: [...alertOf.keys()], without };
}

export default function Findings() {
  const { params } = useRoute();
  const { query, path, url, route } = useLocation();
  const scanId = params.scanId;
  const filters = filtersFromQuery(query);
  const { scan, error: scanError } = useLiveScan(scanId);
  const completed = scan?.status === 'completed';
  // Tagged with the completed scan they belong to: on the render where the scan turns completed, the load of its
  // modules has not started yet (effects run after the render), and the empty list of the unfinished scan is no
  // answer (the page would say every team is unassigned, and call itself ready).
  const modules = useLoad<{ of: string | null; list: ScanModuleWithCounts[] }>(
    () =>
      completed
        ? allPages<ScanModuleWithCounts>(`/scans/${encodeURIComponent(scanId)}/modules`, 'modules').then((list) => ({
            of: scanId,
            list,
          }))
        : Promise.resolve({ of: null, list: [] }),
    [scanId, completed],
  );
  const moduleList = modules.data?.of === scanId ? modules.data.list : undefined;
  const teamOf = useMemo(() => {
    const m = new Map((moduleList ?? []).map((x) => [x.path, x.teamName ?? null]));
    return (p: string) => m.get(p);
  }, [moduleList]);

  const key = `${scanId} ${JSON.stringify(apiQuery(filters))}`;
  // The list as read: the filters' key, and after each bulk decision a new one (read again from its first page).
  const [decided, setDecided] = useState(0);
  const listKey = decided ? `${key} #${decided}` : key;
  const [list, setList] = useState<ListState>({
    key: '',
    findings: [],
    nextCursor: null,
    counts: null,
    pages: 0,
    loading: false,
  });
  const marked = useRef('');

  const load = useCallback(
    async (cursor: string | null, forKey: string) => {
      setList((s) => ({ ...s, loading: true }));
      try {
        const page = await api.get<FindingsPage>(`/scans/${encodeURIComponent(scanId)}/findings`, {
          ...apiQuery(filters),
          limit: cursor ? NEXT_PAGES : FIRST_PAGE,
          cursor,
        });
        remember(page.findings);
        if (!page.counts) return; // the scan is not completed: read again when it is
        setList((s) =>
          s.key !== forKey
            ? s
            : {
                key: forKey,
                findings: [...s.findings, ...page.findings],
                nextCursor: page.nextCursor,
                counts: page.counts,
                pages: s.pages + 1,
                loading: false,
              },
        );
      } catch (error) {
        setList((s) => (s.key !== forKey ? s : { ...s, loading: false, error }));
      }
    },
    [key],
  );

  // The first page is asked for at once, beside the scan's own read (not after it). A scan not completed yet answers
  // an empty list without counts, which is not shown; the list is read again when the scan completes.
  const requested = useRef('');
  useEffect(() => {
    if (scan && scan.status !== 'completed') {
      requested.current = '';
      return;
    }
    if (requested.current === listKey) return;
    requested.current = listKey;
    setList({ key: listKey, findings: [], nextCursor: null, counts: null, pages: 0, loading: true });
    void load(null, listKey);
  }, [listKey, scan?.status]);

  const rows = useMemo(() => buildRows(list.findings, filters, teamOf), [list.findings, key, filters.group, teamOf]);
  const narrow = useMedia('(max-width: 640px)');
  // The row to focus once it is loaded: the finding the reader came back to.
  const returning = useRef(returnedFinding());
  const [focusIndex, setFocusIndex] = useState<number | undefined>(undefined);
  useEffect(() => {
    const id = returning.current;
    if (!id || list.key !== listKey || list.loading) return;
    const at = rows.findIndex((r) => r.kind === 'finding' && r.finding.id === id);
    if (at >= 0 || !list.nextCursor) {
      returning.current = undefined;
      if (at >= 0) setFocusIndex(at);
    } else void load(list.nextCursor, listKey); // further down: read on until it is there
  }, [rows, list.loading]);
  /** For each row, the index of the group header above it (the pinned header). */
  const groupAt = useMemo(() => {
    const out: number[] = [];
    let g = -1;
    rows.forEach((r, i) => {
      if (r.kind === 'group') g = i;
      out.push(g);
    });
    return out;
  }, [rows]);
  const total = expectedTotal(filters, list.counts);
  const firstScreen = (rendered: number) => {
    if (marked.current === key) return;
    marked.current = key;
    performance.mark('findings:first-screen', {
      detail: { rows: rendered, pages: list.pages, findings: list.findings.length },
    });
  };
  useEffect(() => {
    if (list.key === listKey && !list.loading && list.pages === 1 && list.findings.length === 0) firstScreen(0);
  }, [list]);

  // The selection (findings, by id) and the row a Shift+click extends it from: other filters, or another grouping
  // (other rows), start afresh.
  const triage = canTriage(useMe().member?.role);
  const pick = useMemo(() => selectable(rows), [rows]);
  const [selected, setSelected] = useState<ReadonlySet<string>>(new Set());
  const [anchor, setAnchor] = useState<string | null>(null);
  const selectEvery = (on: boolean) => {
    setSelected(new Set(on ? pick.ids : []));
    setAnchor(null);
  };
  useEffect(() => selectEvery(false), [key, filters.group]);
  const chosen = pick.ids.filter((id) => selected.has(id));
  const n = chosen.length;
  // several findings may share an alert (its installed versions, in several modules): each alert is sent once
  const alertIds = [...new Set(chosen.map((id) => pick.alertOf.get(id)!))];
  const k = alertIds.length;
  /** A click (or Space) on a row's checkbox; with Shift, every selectable row from the row clicked before turns too. */
  const choose = (rowKey: string, on: boolean, shift: boolean) => {
    const range = selectRows(new Set(), pick.keys, rowKey, true, anchor, shift);
    setSelected((s) => {
      const next = new Set(s);
      for (const r of range) {
        const id = pick.findingOf.get(r)!;
        if (on) next.add(id);
        else next.delete(id);
      }
      return next;
    });
    setAnchor(rowKey);
  };
  const outcomeText = (r: BulkAnalysisResult, analysis: AnalysisInput) =>
    `${bulkResultText(r.alerts.length, analysis.state)} (bulk decision ${r.bulkId})` +
    (SUPPRESSING_STATES.includes(analysis.state)
      ? ' This scan keeps its findings and counts as it found them; their rows say the decision, and later scans suppress them.'
      : '');

  const setFilters = (next: FindingFilters) => route(withQuery(path, filtersToQuery(next)));
  // The finding page keeps every filter, so that its way back shows the same list.
  const detailQuery = withQuery('', filtersToQuery(filters));

  // While pages remain to be read, a group's count is of what is loaded: it says so.
  const groupText = (r: Extract<Row, { kind: 'group' }>) => (
    <span>
      {r.label}{' '}
      <span class="muted">
        · {r.count} {r.count === 1 ? 'finding' : 'findings'}
        {list.nextCursor ? ' loaded so far' : ''}
      </span>
    </span>
  );
  const renderRow = (r: Row) =>
    r.kind === 'group' ? (
      groupText(r)
    ) : (
      <>
        <SeverityBadge severity={r.finding.severity} />
        <a href={paths.finding(scanId, r.finding.id, detailQuery)} onClick={() => rememberOpened(r.finding.id)}>
          {r.finding.cve}
        </a>
        <IntelBadges kev={r.finding.kev} epss={r.finding.epss} />
        {r.finding.alertId ? (
          <span class="cell-alert">
            <a href={paths.alert(r.finding.alertId)}>
              Alert<span class="visually-hidden"> of {r.finding.cve} in the project</span>
            </a>
            {r.finding.analysis ? (
              <span class="analysis-state">
                {' '}
                · {STATE_LABELS[r.finding.analysis.state]}
                {r.finding.analysis.expired ? ' (expired)' : ''}
              </span>
            ) : null}
            {r.finding.firstSeenAt ? (
              <span class="muted first-seen">
                {' '}
                · first seen <time dateTime={r.finding.firstSeenAt}>{r.finding.firstSeenAt.slice(0, 10)}</time>
              </span>
            ) : null}
          </span>
        ) : null}
        <span class="cell-pkg">
          {r.finding.package}@{r.finding.installedVersion}
          {r.finding.fixedVersion ? (
            <span class="muted"> → fixed in {r.finding.fixedVersion}</span>
          ) : (
            <span class="muted"> · no fix</span>
          )}
        </span>
        <span class="cell-intro" title={r.via}>
          {r.via}
        </span>
        {r.finding.suppressed ? <span class="muted">suppressed</span> : null}
        {triage && r.finding.alertId ? selectBox(r) : null}
        {acrossLinks(r)}
      </>
    );
  // after the finding's own link and its alert's (ArrowRight reaches them in that order), the checkbox (drawn at the
  // row's right edge), then the links across projects
  const acrossLinks = (r: FindingRow) => (
    <span class="cell-links">
      <a href={paths.advisory(r.finding.cve)}>
        Advisory<span class="visually-hidden"> {r.finding.cve} in every project</span>
      </a>
      {' · '}
      <a
        href={paths.whereUsed(
          usageSearchToQuery(usageSearchOf(r.finding.package, r.finding.installedVersion, scan?.ecosystem)),
        )}
        // named whole (a hidden part would be read apart from "Where used")
        aria-label={`Where used: ${r.finding.package}@${r.finding.installedVersion}`}
      >
        Where used
      </a>
    </span>
  );
  // the finding's own link stays its first control (the list's Tab stop), ArrowRight reaches it
  const selectBox = (r: FindingRow) => (
    <span class="cell-select">
      <input
        type="checkbox"
        aria-label={`Select ${r.finding.cve} in ${r.finding.package}@${r.finding.installedVersion}`}
        checked={selected.has(r.finding.id)}
        // a click (or Space) with Shift turns every row from the previous one clicked the same way
        onClick={(e) => choose(r.key, e.currentTarget.checked, e.shiftKey)}
      />
    </span>
  );

  return (
    <Page
      title={scan ? `Findings of ${scan.target}` : 'Findings'}
      actions={completed ? <a href={paths.compare(scanId)}>Compare with baseline</a> : null}
    >
      <Status loading={!scan && !scanError} error={scanError} />
      {scan ? (
        <p class="scan-summary">
          <a href={paths.project(scan.project)}>Project</a> · scan <code>{scan.id}</code> ·{' '}
          <ScanStatusText status={scan.status} failureReason={scan.failureReason} /> · started{' '}
          <When iso={scan.startedAt} />
          {scan.status === 'completed' ? (
            <>
              {' '}
              · <Counts counts={scan.findings} suppressed={scan.suppressed} />
            </>
          ) : null}
        </p>
      ) : null}
      {completed ? <ScanExports scanId={scanId} /> : null}
      {scan?.status === 'completed' && scan.advisoryGeneration === null ? (
        <p class="notice" id="no-advisories">
          No advisories were imported on the service when this scan ran, so it could not find anything. An operator
          imports them with <code>npx scanner advisories import</code> or sets <code>ADVISORY_SOURCES</code>; then scan
          again.
        </p>
      ) : null}
      {scan && !completed && scan.status !== 'failed' ? (
        <p role="status">The scan is {scan.status}; its findings appear when it completes.</p>
      ) : null}
      {completed ? (
        <div
          class="findings"
          data-ready-url={
            list.key === listKey && !list.loading && !modules.loading && moduleList ? url.split('#')[0] : undefined
          }
        >
          <FiltersForm f={filters} modules={moduleList ?? []} onChange={setFilters} />
          <p role="status" aria-live="polite" class="list-counts">
            {list.counts ? (
              <>
                In this scope: <Counts counts={list.counts} suppressed={list.counts.suppressed} /> ·{' '}
                {listCountText(total >= 0 ? total : list.findings.length, findingRows(rows), filters, total >= 0)}
                {total >= 0 && list.nextCursor ? ` (${list.findings.length} loaded so far)` : ''}
              </>
            ) : list.loading ? (
              'Loading findings…'
            ) : null}
          </p>
          <Status error={list.error ?? modules.error} />
          {list.key === listKey && list.pages > 0 && list.findings.length === 0 ? (
            narrowed(filters) ? (
              <p>No finding matches these filters.</p>
            ) : (
              <p class="clean">
                No known vulnerability: none of this scan's packages matches an advisory (scanned{' '}
                <When iso={scan?.startedAt} />
                {scan?.advisoryGeneration ? ', against the advisories imported then' : ''}).
              </p>
            )
          ) : null}
          {triage ? (
            <BulkTriage
              total={pick.ids.length}
              selected={n}
              alertIds={alertIds}
              selectEveryLabel={`Select every finding shown (${pick.ids.length})`}
              countText={n ? `${n} selected (${plural(k, 'alert', 'alerts')})` : 'none selected'}
              toggleLabel={n ? `Triage the ${n} selected…` : 'Triage the selected findings…'}
              formLabel={`Triage the ${plural(n, 'selected finding', 'selected findings')}`}
              submitLabel={`Apply to ${plural(k, 'alert', 'alerts')}`}
              onSelectEvery={selectEvery}
              outcomeText={outcomeText}
              onDecided={() => {
                selectEvery(false);
                setFocusIndex(undefined); // the list read again takes no focus: the outcome does
                setDecided((d) => d + 1);
              }}
              resetKey={`${key} ${filters.group}`}
            >
              {pick.without ? (
                <p class="muted bulk-note">
                  {pick.ids.length
                    ? 'Findings that belong to no project alert (found on a branch only, for example) have no checkbox: they cannot be triaged from here.'
                    : 'These findings belong to no project alert (found on a branch only, for example): they cannot be triaged from here.'}
                </p>
              ) : null}
            </BulkTriage>
          ) : null}
          {rows.length ? (
            <VirtualList<Row>
              key={`${listKey} ${narrow}`}
              items={rows}
              rowHeight={narrow ? ROW_NARROW : ROW}
              label="Findings"
              setSize={filters.group === 'none' ? total : -1}
              itemKey={(r) => r.key}
              rowClass={(r) => (r.kind === 'group' ? 'group' : triage && pick.ids.length ? 'selectable' : '')}
              renderRow={renderRow}
              focusIndex={focusIndex}
              stickyLabel={(i) => {
                const g = groupAt[i];
                const head = g >= 0 ? rows[g] : undefined;
                return head?.kind === 'group' && g !== i ? groupText(head) : null;
              }}
              onFirstRows={firstScreen}
              onRangeEnd={(last) => {
                if (last >= rows.length - 30 && list.nextCursor && !list.loading && list.key === listKey)
                  void load(list.nextCursor, listKey);
              }}
            />
          ) : null}
        </div>
      ) : null}
      {scan ? (
        <VexImport
          projectId={scan.project}
          onImported={() => {
            setFocusIndex(undefined); // the list read again takes no focus: the import's report does
            setDecided((d) => d + 1);
          }}
        />
      ) : null}
    </Page>
  );
}
