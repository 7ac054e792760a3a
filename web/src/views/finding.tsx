// One finding: advisory id and aliases, summary, CVSS vector, KEV and EPSS (components/intel.tsx), versions,
// suppression (and where it comes from), links to its advisory's page and to where its package is used across the
// organization, the project alert it belongs to (and when the project first saw it) with that alert's analysis and,
// for the roles that triage, the triage form (components/triage-form.tsx), its representative path, and its
// attributions in the chosen view with their paths and origins, as text and as a small SVG graph.
import { useEffect, useState } from 'preact/hooks';
import { useLocation, useRoute } from 'preact-iso';
import { api } from '../api';
import { errorText } from '../components/admin/common';
import { AdvisoryLinks, SeverityBadge, When } from '../components/bits';
import { AcrossProjects, CvssVector, EpssFact, KevFact } from '../components/intel';
import { Page, Status } from '../components/page';
import { ListTable } from '../components/list';
import { PathGraph } from '../components/path-graph';
import { AlertTriage } from '../components/triage-form';
import { recall, remember } from '../finding-cache';
import { useLoad } from '../hooks';
import { filtersFromQuery, filtersToQuery } from '../filters';
import { paths, withQuery } from '../paths';
import type { Alert, AttributionList, AttributionPath, Finding, FindingsPage, Scan } from '../types';

const MAX_PATHS = 20;

/** The finding by id: from what the list showed, else by reading the list (there is no single-finding read). */
async function findingById(scanId: string, id: string, signal: AbortSignal): Promise<Finding> {
  const known = recall(id);
  if (known) return known;
  let cursor: string | null = null;
  for (let i = 0; i < 100; i++) {
    const page: FindingsPage = await api.get<FindingsPage>(
      `/scans/${encodeURIComponent(scanId)}/findings`,
      { suppressed: 'all', details: 'summary', limit: 200, cursor },
      signal,
    );
    remember(page.findings);
    const f = page.findings.find((x) => x.id === id);
    if (f) return f;
    cursor = page.nextCursor;
    if (!cursor) break;
  }
  throw new Error(`finding ${id} is not in this scan`);
}

export default function FindingView() {
  const { params } = useRoute();
  const { query } = useLocation();
  const { scanId, findingId } = params;
  const view = query.attribution === 'affected' ? 'affected' : 'introduced';
  const scope = { attribution: view, module: query.module, team: query.team };
  const finding = useLoad((signal) => findingById(scanId, findingId, signal), [scanId, findingId]);
  const attributions = useLoad(
    async (signal) => {
      const base = `/scans/${encodeURIComponent(scanId)}/findings/${encodeURIComponent(findingId)}/attributions`;
      const page = await api.get<AttributionList>(base, { ...scope, limit: 200 }, signal);
      const detailed = await Promise.all(
        page.attributions
          .slice(0, MAX_PATHS)
          .map((a) => api.get<AttributionPath>(`${base}/${encodeURIComponent(a.id)}/path`, undefined, signal)),
      );
      return { items: page.attributions, more: page.nextCursor !== null, paths: detailed };
    },
    [scanId, findingId, view, query.module, query.team],
  );
  // the scan's ecosystem, for the where-used link (a finding does not carry it)
  const scan = useLoad((signal) => api.get<Scan>(`/scans/${encodeURIComponent(scanId)}`, undefined, signal), [scanId]);
  const [selected, setSelected] = useState(0);
  const f = finding.data;
  // The finding's alert, for its analysis (none without an alert), and as a triage change left it.
  const alertId = f?.alertId ?? null;
  const alert = useLoad(
    (signal) =>
      alertId ? api.get<Alert>(`/alerts/${encodeURIComponent(alertId)}`, undefined, signal) : Promise.resolve(null),
    [alertId],
  );
  const [changed, setChanged] = useState<Alert | null>(null);
  useEffect(() => setChanged(null), [alertId]);
  const projectAlert = changed ?? alert.data;
  // Back to the list as it was left: every filter, and the row of this finding focused again.
  const back = `${withQuery(paths.scan(scanId), filtersToQuery(filtersFromQuery(query)))}#finding-${encodeURIComponent(findingId)}`;
  const chosen = attributions.data?.paths[selected];
  const vulnerable = f ? `${f.package}@${f.installedVersion}` : '';
  const graphPaths = chosen ? [chosen.path, ...chosen.origins.map((o) => o.path)] : f ? [f.path] : [];

  return (
    <Page title={f ? `${f.cve} in ${f.package}` : 'Finding'}>
      <p>
        <a href={back}>Back to the findings</a>
      </p>
      <Status loading={finding.loading} error={finding.error} />
      {f ? (
        <>
          <dl class="facts">
            <dt>Severity</dt>
            <dd>
              <SeverityBadge severity={f.severity} />
            </dd>
            <dt>CVSS</dt>
            <dd>{f.cvss ? <CvssVector cvss={f.cvss} /> : <span class="muted">no CVSS vector in the advisory</span>}</dd>
            <dt>Known exploited</dt>
            <dd>
              <KevFact kev={f.kev} />
            </dd>
            <dt>EPSS</dt>
            <dd>
              <EpssFact epss={f.epss} />
            </dd>
            <dt>Advisory</dt>
            <dd>
              <AdvisoryLinks id={f.cve} />
            </dd>
            <dt>Aliases</dt>
            <dd>
              {(f.aliases ?? []).filter((a) => a !== f.cve).length
                ? (f.aliases ?? [])
                    .filter((a) => a !== f.cve)
                    .map((a, i) => (
                      <span key={a}>
                        {i ? ', ' : ''}
                        <AdvisoryLinks id={a} />
                      </span>
                    ))
                : 'none'}
            </dd>
            <dt>Summary</dt>
            <dd>{f.summary || 'none'}</dd>
            <dt>Package</dt>
            <dd>
              {f.package}@{f.installedVersion}
            </dd>
            <dt>Fixed version</dt>
            <dd>{f.fixedVersion ?? 'no fixed release'}</dd>
            <dt>Published</dt>
            <dd>
              <When iso={f.publishedAt} />
            </dd>
            <dt>Across projects</dt>
            <dd>
              <AcrossProjects
                advisory={f.cve}
                pkg={f.package}
                version={f.installedVersion}
                ecosystem={scan.data?.ecosystem}
              />
            </dd>
            <dt>Suppressed</dt>
            <dd>
              {!f.suppressed
                ? 'no'
                : f.suppressionSource === 'analysis'
                  ? `yes, by its alert's analysis: ${f.suppressionReason ?? ''}`
                  : f.suppressionSource === 'rule'
                    ? `yes, by a triage rule: ${f.suppressionReason ?? ''}`
                    : `yes: ${f.suppressionReason ?? ''}`}
            </dd>
            <dt>Project alert</dt>
            <dd>
              {f.alertId ? (
                <>
                  <a href={paths.alert(f.alertId)}>
                    Alert<span class="visually-hidden"> of {f.cve} in this project</span>
                  </a>{' '}
                  · first seen <When iso={f.firstSeenAt} />
                </>
              ) : (
                <span class="muted">
                  none: no tracked scan of the project has had it (or this scan predates alerts)
                </span>
              )}
            </dd>
          </dl>
          {alertId ? (
            <>
              <Status error={alert.error ? errorText(alert.error) : undefined} />
              {projectAlert ? (
                <>
                  <AlertTriage alert={projectAlert} onChange={setChanged} />
                  <p class="muted">
                    A decision is the project alert's: the findings of scans processed after it follow it, while this
                    scan's findings stay as they were read.
                  </p>
                </>
              ) : null}
            </>
          ) : null}
          <h2>Representative path</h2>
          <ol class="path" aria-label="Representative path">
            {f.path.map((p, i) => (
              <li key={i}>{p}</li>
            ))}
          </ol>
          <h2>Attributions ({view} view)</h2>
          <Status loading={attributions.loading} error={attributions.error} />
          {attributions.data && !attributions.data.items.length ? (
            <p>No module attribution (a v1 scan, or none in this scope).</p>
          ) : null}
          {attributions.data?.items.length ? (
            <>
              <ListTable
                caption="Attributions of this finding"
                columns={['Module', 'Context', 'Relationship', 'Origins (module via dependency)', 'Graph']}
              >
                {attributions.data.items.map((a, i) => (
                  <tr key={a.id}>
                    <th scope="row">{a.module}</th>
                    <td>{a.context}</td>
                    <td>{a.relationship}</td>
                    <td>{a.origins.map((o) => `${o.module} via ${o.dependency}`).join('; ')}</td>
                    <td>
                      {i < MAX_PATHS ? (
                        <button type="button" aria-pressed={i === selected} onClick={() => setSelected(i)}>
                          Show
                          <span class="visually-hidden">
                            {' '}
                            the graph of {a.module} ({a.context})
                          </span>
                        </button>
                      ) : null}
                    </td>
                  </tr>
                ))}
              </ListTable>
              {attributions.data.more ? (
                <p class="muted">More attributions exist; narrow the scope with a module or team filter.</p>
              ) : null}
            </>
          ) : null}
          {chosen ? (
            <>
              <h2>Path and origins of {attributions.data!.items[selected].module}</h2>
              <p>Path: {chosen.path.join(' → ')}</p>
              <ul aria-label="Origins">
                {chosen.origins.map((o, i) => (
                  <li key={i}>
                    {o.module} declares {o.dependency}: {o.path.join(' → ')}
                  </li>
                ))}
              </ul>
            </>
          ) : null}
          <PathGraph paths={graphPaths} vulnerable={vulnerable} title={`Dependency graph of ${vulnerable}`} />
        </>
      ) : null}
    </Page>
  );
}
