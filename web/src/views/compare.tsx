// A scan against a baseline (GET /v1/scans/{scanId}/compare): the scan and its baseline (automatic by default, or
// one chosen among the earlier completed scans of the same project and ecosystem), the counts of each class, then the
// findings the change brought, those disclosed since the baseline, those it fixed and the unchanged ones, the
// suppressions its snapshot added, and its dependency changes. The baseline and the suppressed filter live in the
// URL. A list cut by the API (2,000 findings, 10,000 changes) says how many are not shown and reads on, 200 at a time.
// A scan still queued or running is followed live; the comparison comes when it completes.
import type { ComponentChildren } from 'preact';
import { useState } from 'preact/hooks';
import { useLocation, useRoute } from 'preact-iso';
import { api, ApiError } from '../api';
import {
  baselineCandidates,
  candidateLabel,
  compareApiQuery,
  compareQueryFromUrl,
  compareQueryToUrl,
  compareRefusal,
  countOf,
  DEPENDENCY_SECTIONS,
  FINDING_SECTIONS,
  moreText,
  refText,
  type CompareDependency,
  type CompareDependencyChange,
  type CompareFinding,
  type ComparePart,
  type ComparePartPage,
  type CompareQuery,
  type CompareResult,
  type FindingSection,
} from '../compare';
import { Counts, SeverityBadge, When } from '../components/bits';
import { errorText } from '../components/admin/common';
import { SelectField, SUPPRESSED_OPTIONS, type SelectOption } from '../components/fields';
import { ListTable } from '../components/list';
import { Page, Status } from '../components/page';
import { remember } from '../finding-cache';
import { useLoad } from '../hooks';
import { useLiveScan } from '../live-scan';
import { paths } from '../paths';
import type { Scan, ScanList } from '../types';

const PART_PAGE = 200;
/** The earlier scans offered as baselines: the newest ones, read a few pages at most. */
const MAX_CANDIDATES = 100;
const MAX_CANDIDATE_PAGES = 10;

const FINDING_COLUMNS = ['Advisory', 'Severity', 'Package', 'Installed version', 'Fixed version', 'Introduced by'];

/** What a failed comparison says: the compare refusal in words, else the API's refusal in words. */
function failureText(e: unknown): string {
  if (e instanceof ApiError) return compareRefusal(e.status, e.code, e.message) ?? errorText(e);
  return errorText(e);
}

/** The scans a baseline may be chosen from (baselineCandidates), read newest first until enough are found. */
async function candidatesOf(scan: Scan, signal: AbortSignal): Promise<{ scans: Scan[]; more: boolean }> {
  const read: Scan[] = [];
  let cursor: string | null | undefined;
  for (let i = 0; i < MAX_CANDIDATE_PAGES; i++) {
    const page = await api.get<ScanList>(
      '/scans',
      { project: scan.project, status: 'completed', limit: 200, cursor },
      signal,
    );
    read.push(...page.scans);
    cursor = page.nextCursor;
    if (!cursor || baselineCandidates(read, scan).length > MAX_CANDIDATES) break;
  }
  const all = baselineCandidates(read, scan);
  return { scans: all.slice(0, MAX_CANDIDATES), more: all.length > MAX_CANDIDATES || !!cursor };
}

/** The pages read on of the parts the whole answer cut, for one comparison (`key`). */
interface PartState {
  items: unknown[];
  next: string | null;
  loading: boolean;
  error?: unknown;
}

function useMoreParts(scanId: string, q: CompareQuery, key: string) {
  const [state, setState] = useState<{ key: string; parts: Partial<Record<ComparePart, PartState>> }>({
    key,
    parts: {},
  });
  const parts = state.key === key ? state.parts : {};
  const put = (part: ComparePart, change: (s: PartState | undefined) => PartState) =>
    setState((s) => {
      const current = s.key === key ? s.parts : {};
      return { key, parts: { ...current, [part]: change(current[part]) } };
    });
  return {
    of: (part: ComparePart) => parts[part],
    async more(part: ComparePart, cursor: string) {
      put(part, (s) => ({ items: s?.items ?? [], next: cursor, loading: true }));
      try {
        const page = await api.get<ComparePartPage>(`/scans/${encodeURIComponent(scanId)}/compare`, {
          ...compareApiQuery(q),
          part,
          cursor,
          limit: PART_PAGE,
        });
        if (part.startsWith('findings.')) remember(page.items as CompareFinding[]);
        put(part, (s) => ({ items: [...(s?.items ?? []), ...page.items], next: page.nextCursor, loading: false }));
      } catch (error) {
        put(part, (s) => ({ items: s?.items ?? [], next: cursor, loading: false, error }));
      }
    },
  };
}

type MoreParts = ReturnType<typeof useMoreParts>;

/** A part's items: the whole answer's, then the pages read on; and the cursor to read on from, if any. */
function partOf<T>(r: CompareResult, part: ComparePart, inline: T[], more: MoreParts) {
  const extra = more.of(part);
  return {
    items: extra ? [...inline, ...(extra.items as T[])] : inline,
    next: extra ? extra.next : r.parts[part].nextCursor,
    count: r.parts[part].count,
    loading: !!extra?.loading,
    error: extra?.error,
  };
}

/** Under a cut list: how many are not shown yet, and a button that reads on. */
function PartMore({
  part,
  shown,
  count,
  next,
  loading,
  error,
  noun,
  what,
  more,
}: {
  part: ComparePart;
  shown: number;
  count: number;
  next: string | null;
  loading: boolean;
  error?: unknown;
  noun: [string, string];
  what: string;
  more: MoreParts;
}) {
  if (!next && !error) return null;
  return (
    <div class="compare-more">
      {next ? <p class="notice">{moreText(shown, count, noun)}</p> : null}
      {error ? (
        <p role="alert" class="error">
          More could not be read: {errorText(error)}
        </p>
      ) : null}
      {next ? (
        <button type="button" disabled={loading} onClick={() => void more.more(part, next)}>
          Show {Math.min(PART_PAGE, Math.max(0, count - shown))} more {what}
        </button>
      ) : null}
    </div>
  );
}

function list(xs: string[], none: string) {
  return xs.length ? xs.join(', ') : <span class="muted">{none}</span>;
}

function FindingRow({ f, cls }: { f: CompareFinding; cls: FindingSection['cls'] }) {
  return (
    <tr>
      <th scope="row" class="cell-wrap">
        <a href={paths.finding(f.scanId, f.id)}>{f.cve}</a>
        {f.alertId ? (
          <div>
            <a href={paths.alert(f.alertId)}>
              Alert<span class="visually-hidden"> of {f.cve} in the project</span>
            </a>
          </div>
        ) : null}
        {f.suppressed ? (
          <div class="muted">suppressed{f.suppressionReason ? `: ${f.suppressionReason}` : ''}</div>
        ) : null}
      </th>
      <td>
        <SeverityBadge severity={f.severity} />
      </td>
      <td class="cell-wrap">{f.package}</td>
      <td class="cell-wrap">
        {f.installedVersion}
        {cls === 'unchanged' && f.versionsChanged && f.baselineVersions?.length ? (
          <div class="muted">was {f.baselineVersions.join(', ')}</div>
        ) : null}
      </td>
      <td class="cell-wrap">{f.fixedVersion ?? <span class="muted">no fix</span>}</td>
      <td class="cell-wrap">
        {list(f.modules, 'no module named')}
        {f.teams.length ? <div class="muted">{f.teams.map((t) => `team ${t}`).join(', ')}</div> : null}
      </td>
    </tr>
  );
}

function Section({
  id,
  title,
  count,
  about,
  children,
}: {
  id: string;
  title: string;
  count?: number;
  about?: string;
  children: ComponentChildren;
}) {
  return (
    <section class="compare-section" aria-labelledby={id}>
      <h2 id={id}>
        {title}
        {count !== undefined ? <span class="muted"> ({count.toLocaleString('en-US')})</span> : null}
      </h2>
      {about ? <p class="muted">{about}</p> : null}
      {children}
    </section>
  );
}

function FindingsSection({
  s,
  r,
  more,
  filtered,
}: {
  s: FindingSection;
  r: CompareResult;
  more: MoreParts;
  filtered: boolean;
}) {
  const p = partOf(r, s.part, r.findings[s.cls], more);
  return (
    <Section id={`compare-${s.cls}`} title={s.title} count={p.count} about={s.about}>
      {p.items.length ? (
        <ListTable caption={s.title} columns={FINDING_COLUMNS}>
          {p.items.map((f) => (
            <FindingRow key={`${f.scanId} ${f.id}`} f={f} cls={s.cls} />
          ))}
        </ListTable>
      ) : (
        <p class="compare-empty">{filtered ? 'No finding here matches the suppressed filter.' : s.none}</p>
      )}
      <PartMore
        part={s.part}
        shown={p.items.length}
        count={p.count}
        next={p.next}
        loading={p.loading}
        error={p.error}
        noun={['finding', 'findings']}
        what={`${s.short} findings`}
        more={more}
      />
    </Section>
  );
}

function DependencyTables({ r, more }: { r: CompareResult; more: MoreParts }) {
  return (
    <>
      {DEPENDENCY_SECTIONS.map((d) => {
        const p =
          d.kind === 'changed'
            ? partOf<CompareDependencyChange>(r, d.part, r.dependencies.changed, more)
            : partOf<CompareDependency>(r, d.part, r.dependencies[d.kind], more);
        const hid = `compare-dependencies-${d.kind}`;
        return (
          <section key={d.kind} class="compare-subsection" aria-labelledby={hid}>
            <h3 id={hid}>
              {d.title}
              <span class="muted"> ({p.count.toLocaleString('en-US')})</span>
            </h3>
            {!p.items.length ? (
              <p class="compare-empty">{d.none}</p>
            ) : d.kind === 'changed' ? (
              <ListTable caption={d.title} columns={['Package', 'From', 'To']}>
                {(p.items as CompareDependencyChange[]).map((c) => (
                  <tr key={c.name}>
                    <th scope="row" class="cell-wrap">
                      {c.name}
                    </th>
                    <td class="cell-wrap">{list(c.from, 'none')}</td>
                    <td class="cell-wrap">{list(c.to, 'none')}</td>
                  </tr>
                ))}
              </ListTable>
            ) : (
              <ListTable caption={d.title} columns={['Package', 'Version']}>
                {(p.items as CompareDependency[]).map((x) => (
                  <tr key={`${x.name}@${x.version}`}>
                    <th scope="row" class="cell-wrap">
                      {x.name}
                    </th>
                    <td class="cell-wrap">{x.version}</td>
                  </tr>
                ))}
              </ListTable>
            )}
            <PartMore
              part={d.part}
              shown={p.items.length}
              count={p.count}
              next={p.next}
              loading={p.loading}
              error={p.error}
              noun={['package', 'packages']}
              what={d.title.toLowerCase()}
              more={more}
            />
          </section>
        );
      })}
    </>
  );
}

function Summary({ r }: { r: CompareResult }) {
  const deps = (p: ComparePart) => r.parts[p].count.toLocaleString('en-US');
  return (
    <Section id="compare-summary" title="Summary">
      <ListTable
        caption="Summary: unsuppressed findings of each class by severity, and the other changes"
        columns={['Section', 'Count']}
      >
        {FINDING_SECTIONS.map((s) => (
          <tr key={s.cls}>
            <th scope="row">{s.title}</th>
            <td>
              <span class="compare-total">{countOf(r.counts[s.cls])}</span> <Counts counts={r.counts[s.cls]} />
            </td>
          </tr>
        ))}
        <tr>
          <th scope="row">Suppressions added</th>
          <td>{r.suppressionsAdded.length}</td>
        </tr>
        <tr>
          <th scope="row">Dependency changes</th>
          <td>
            {deps('dependencies.added')} added · {deps('dependencies.removed')} removed · {deps('dependencies.changed')}{' '}
            changed
          </td>
        </tr>
      </ListTable>
    </Section>
  );
}

function ScanLink({ id }: { id: string }) {
  return (
    <a href={paths.scan(id)}>
      <code>{id}</code>
    </a>
  );
}

export default function CompareView() {
  const { params } = useRoute();
  const { query, url, route } = useLocation();
  const scanId = params.scanId;
  const q = compareQueryFromUrl(query);
  const { scan, error: scanError } = useLiveScan(scanId);
  // Asked for at once beside the scan's read; not while the scan is known to be queued or running (it is asked again
  // when the scan completes).
  const ready = !scan || scan.status === 'completed';
  const key = `${scanId} ${JSON.stringify(compareApiQuery(q))}`;
  const result = useLoad(
    async (signal) => {
      if (!ready) return undefined;
      const r = await api.get<CompareResult>(
        `/scans/${encodeURIComponent(scanId)}/compare`,
        compareApiQuery(q),
        signal,
      );
      remember([...r.findings.added, ...r.findings.disclosed, ...r.findings.removed, ...r.findings.unchanged]);
      return { key, r };
    },
    [key, ready],
  );
  const candidates = useLoad(
    (signal) => (scan ? candidatesOf(scan, signal) : Promise.resolve(undefined)),
    [scan?.id, scan?.project],
  );
  const more = useMoreParts(scanId, q, key);
  const current = result.data?.key === key && !result.loading ? result.data.r : undefined;
  // the answer shown: the URL's, or (while another baseline's loads) the previous one
  const r = result.data?.r;
  const setQuery = (next: CompareQuery) => route(paths.compare(scanId, compareQueryToUrl(next)));

  if (scanError instanceof ApiError && scanError.status === 404)
    return (
      <Page title="Scan not found">
        <p role="alert">
          No scan <code>{scanId}</code> in this organization (or not within your reach).{' '}
          <a href={paths.projects()}>See every project</a>.
        </p>
      </Page>
    );

  const options: SelectOption[] = [
    { value: 'auto', label: 'Automatic: the default branch’s scan before this one' },
    ...(candidates.data?.scans ?? []).map((s) => ({ value: s.id, label: candidateLabel(s) })),
  ];
  if (q.baseline && !options.some((o) => o.value === q.baseline))
    options.push({ value: q.baseline, label: q.baseline });
  const refused = result.error ? failureText(result.error) : undefined;

  return (
    <Page
      title={scan ? `Compare ${scan.target} with its baseline` : 'Compare with the baseline'}
      actions={
        <>
          <a href={paths.scan(scanId)}>Findings of this scan</a>
          {scan ? <a href={paths.project(scan.project)}>Project</a> : null}
        </>
      }
    >
      <Status loading={!scan && !scanError} error={scanError ? errorText(scanError) : undefined} />
      <dl class="facts compare-head">
        <dt>Scan</dt>
        <dd>
          <ScanLink id={scanId} />
          {scan ? (
            <>
              {' '}
              · {refText(scan.metadata?.ref, scan.metadata?.commit)} · {scan.ecosystem} · started{' '}
              <When iso={scan.startedAt} />
            </>
          ) : null}
        </dd>
        <dt>Baseline</dt>
        <dd id="compare-baseline">
          {r?.baseline ? (
            <>
              <ScanLink id={r.baseline.id} /> · {refText(r.baseline.ref, r.baseline.commit)} · started{' '}
              <When iso={r.baseline.startedAt} />
              {q.baseline ? ' · chosen' : ' · chosen automatically'}
            </>
          ) : r ? (
            'none'
          ) : (
            <span class="muted">—</span>
          )}
        </dd>
      </dl>
      {r && !r.baseline ? (
        <p class="notice" id="no-baseline">
          No baseline: this project has no completed scan of its default branch before this one, so every finding counts
          as new.
        </p>
      ) : null}
      {scan && scan.status !== 'completed' ? (
        <p role="status" class={scan.status === 'failed' ? 'error' : undefined}>
          {scan.status === 'failed'
            ? 'This scan failed: it has no findings to compare.'
            : `This scan is ${scan.status}: the comparison appears when it completes.`}
        </p>
      ) : null}
      <form class="filters" aria-label="Comparison options" onSubmit={(e) => e.preventDefault()}>
        <SelectField
          id="c-baseline"
          label="Baseline"
          value={q.baseline ?? 'auto'}
          options={options}
          onChange={(v) => setQuery({ ...q, baseline: v && v !== 'auto' ? v : undefined })}
        />
        <SelectField
          id="c-suppressed"
          label="Suppressed findings"
          value={q.suppressed}
          options={SUPPRESSED_OPTIONS}
          onChange={(suppressed) => suppressed && setQuery({ ...q, suppressed })}
        />
        <p class="muted compare-hint" id="c-baseline-hint">
          {candidates.error
            ? `The earlier scans could not be read: ${errorText(candidates.error)}`
            : candidates.data
              ? candidates.data.scans.length
                ? `Earlier completed ${scan?.ecosystem ?? ''} scans of this project, newest first${candidates.data.more ? ` (the newest ${candidates.data.scans.length})` : ''}.`
                : 'No earlier completed scan of this project and ecosystem to choose.'
              : 'Reading the earlier scans…'}
        </p>
      </form>
      <p role="status" aria-live="polite" class="list-counts" data-ready-url={current ? url.split('#')[0] : undefined}>
        {current
          ? `Compared with ${current.baseline ? `baseline ${current.baseline.id}` : 'no baseline'}: ${countOf(current.counts.added)} new, ${countOf(current.counts.disclosed)} disclosed, ${countOf(current.counts.removed)} fixed, ${countOf(current.counts.unchanged)} unchanged.`
          : result.loading && ready
            ? 'Comparing…'
            : ''}
      </p>
      {refused ? (
        <p role="alert" class="error">
          {refused}
        </p>
      ) : null}
      {r && !result.error ? (
        <div class={`compare${current ? '' : ' compare-stale'}`} aria-busy={current ? undefined : 'true'}>
          <Summary r={r} />
          {FINDING_SECTIONS.map((s) => (
            <FindingsSection key={s.cls} s={s} r={r} more={more} filtered={q.suppressed !== 'false'} />
          ))}
          <Section
            id="compare-suppressions"
            title="Suppressions added"
            count={r.suppressionsAdded.length}
            about="Suppressions in this scan’s snapshot that the baseline’s did not carry: a change that silences findings shows here."
          >
            {r.suppressionsAdded.length ? (
              <ListTable caption="Suppressions added" columns={['Advisory', 'Package', 'Reason', 'Expires']}>
                {r.suppressionsAdded.map((s, i) => (
                  <tr key={`${s.cve} ${s.package ?? ''} ${s.expires ?? ''} ${i}`}>
                    <th scope="row" class="cell-wrap">
                      {s.cve}
                    </th>
                    <td class="cell-wrap">{s.package ?? <span class="muted">any package</span>}</td>
                    <td class="cell-wrap">{s.reason}</td>
                    <td>{s.expires ?? <span class="muted">never</span>}</td>
                  </tr>
                ))}
              </ListTable>
            ) : (
              <p class="compare-empty">No suppression added.</p>
            )}
          </Section>
          <Section id="compare-dependencies" title="Dependency changes">
            <DependencyTables r={r} more={more} />
          </Section>
        </div>
      ) : null}
    </Page>
  );
}
