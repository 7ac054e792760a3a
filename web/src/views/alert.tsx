// One project alert (GET /v1/alerts/{id}): the vulnerability (severity, CVSS vector, KEV and EPSS:
// components/intel.tsx), where and since when the project has it (first and last seen, with their scans), its package
// and versions, modules and teams, links to its advisory's page and to where its package is used across the
// organization; its analysis (triage: who decided what, when, until when), with the triage form and the analysis's
// removal for the roles that triage (components/triage-form.tsx); and its history (GET .../history) as a timeline,
// newest first: opened (by which scan and advisory generation), versions changed, fixed, reopened, merged, analysis
// changed, each with its scan. An id merged into an older alert answers that alert: the page says so.
import { useEffect, useMemo, useState } from 'preact/hooks';
import { useRoute } from 'preact-iso';
import { allPages, api, ApiError } from '../api';
import { eventWords } from '../alerts';
import { AdvisoryLinks, SeverityBadge, When } from '../components/bits';
import { AcrossProjects, CvssVector, EpssFact, KevFact } from '../components/intel';
import { errorText } from '../components/admin/common';
import { MoreButton } from '../components/list';
import { Page, Status } from '../components/page';
import { AlertTriage } from '../components/triage-form';
import { useLoad, usePages } from '../hooks';
import { paths } from '../paths';
import type { Alert, AlertEvent, AlertHistory, Project } from '../types';

function ScanLink({ id }: { id: string }) {
  return (
    <a href={paths.scan(id)}>
      <code>{id}</code>
    </a>
  );
}

function Event({ e, alertId }: { e: AlertEvent; alertId: string }) {
  const words = eventWords(e, alertId);
  const into = e.type === 'merged' ? ((e.details ?? {}) as { mergedInto?: unknown }).mergedInto : undefined;
  return (
    <li class={`event-${e.type}`}>
      <span class="event-title">{words.title}</span> · <When iso={e.at} />
      {words.detail ? <div>{words.detail}</div> : null}
      {e.scanId || e.generation !== undefined || typeof into === 'string' ? (
        <div class="muted">
          {e.scanId ? (
            <>
              Scan <ScanLink id={e.scanId} />
            </>
          ) : (
            'No scan recorded'
          )}
          {e.generation !== undefined ? (
            <>
              {' · '}
              {e.generation ? (
                <>
                  advisory generation <code>{e.generation}</code>
                </>
              ) : (
                'no advisory generation recorded'
              )}
            </>
          ) : null}
          {typeof into === 'string' && into !== alertId ? (
            <>
              {' · '}
              <a href={paths.alert(into)}>the alert it merged into</a>
            </>
          ) : null}
        </div>
      ) : null}
    </li>
  );
}

const list = (xs: string[], none: string) => (xs.length ? xs.join(', ') : <span class="muted">{none}</span>);

export default function AlertView() {
  const { params } = useRoute();
  const alertId = params.alertId;
  const alert = useLoad(
    (signal) => api.get<Alert>(`/alerts/${encodeURIComponent(alertId)}`, undefined, signal),
    [alertId],
  );
  // The alert as a triage change left it (the answer of PUT), and how many changes were made here: the history is
  // read again after each.
  const [changed, setChanged] = useState<{ alert: Alert; n: number } | null>(null);
  useEffect(() => setChanged(null), [alertId]);
  const history = usePages(`${alertId} ${changed?.n ?? 0}`, async (cursor, signal) => {
    const p = await api.get<AlertHistory>(
      `/alerts/${encodeURIComponent(alertId)}/history`,
      { limit: 50, cursor },
      signal,
    );
    return { items: p.events, nextCursor: p.nextCursor };
  });
  const projects = useLoad(() => allPages<Project>('/projects', 'projects'), []);
  const a = changed?.alert ?? alert.data;
  const project = useMemo(() => projects.data?.find((p) => p.id === a?.project), [projects.data, a?.project]);

  if (alert.error instanceof ApiError && alert.error.status === 404)
    return (
      <Page title="Alert not found">
        <p role="alert">
          No alert <code>{alertId}</code> in this organization (or not within your reach).{' '}
          <a href={paths.projects()}>See every project</a>.
        </p>
      </Page>
    );
  return (
    <Page
      title={a ? `${a.advisory} in ${a.package}` : 'Alert'}
      actions={a ? <a href={paths.alerts(a.project)}>Alerts of the project</a> : null}
    >
      <Status loading={alert.loading && !a} error={alert.error ? errorText(alert.error) : undefined} />
      {a && a.id !== alertId ? (
        <p class="notice" role="note">
          Alert <code>{alertId}</code> was merged into this one, <code>{a.id}</code>: their advisories turned out to be
          one vulnerability, and the older alert carries on. Its history is part of this one's.
        </p>
      ) : null}
      {a ? (
        <dl class="facts">
          <dt>Project</dt>
          <dd>
            <a href={paths.project(a.project)}>{project?.slug ?? a.project}</a>{' '}
            <span class="muted">({a.ecosystem})</span>
          </dd>
          <dt>Status</dt>
          <dd>
            {a.status === 'fixed' ? (
              <>
                fixed <When iso={a.fixedAt} />: the latest tracked scan no longer has it
              </>
            ) : a.status === 'open' ? (
              'open: the latest tracked scan has it'
            ) : (
              a.status
            )}
            {a.suppressed ? (
              <div class="muted">
                {a.suppressionSource === 'analysis'
                  ? 'suppressed by its analysis (below)'
                  : a.suppressionSource === 'rule'
                    ? 'suppressed by a triage rule'
                    : "suppressed: every finding of it is suppressed by the snapshot's suppressions"}
              </div>
            ) : null}
          </dd>
          <dt>Severity</dt>
          <dd>
            <SeverityBadge severity={a.severity} />
          </dd>
          <dt>CVSS</dt>
          <dd>{a.cvss ? <CvssVector cvss={a.cvss} /> : <span class="muted">no CVSS vector in the advisory</span>}</dd>
          <dt>Known exploited</dt>
          <dd>
            <KevFact kev={a.kev} />
          </dd>
          <dt>EPSS</dt>
          <dd>
            <EpssFact epss={a.epss} />
          </dd>
          <dt>Advisory</dt>
          <dd>
            <AdvisoryLinks id={a.advisory} />
          </dd>
          <dt>Aliases</dt>
          <dd>
            {a.aliases.filter((x) => x !== a.advisory).length
              ? a.aliases
                  .filter((x) => x !== a.advisory)
                  .map((x, i) => (
                    <span key={x}>
                      {i ? ', ' : ''}
                      <AdvisoryLinks id={x} />
                    </span>
                  ))
              : 'none'}
          </dd>
          <dt>Summary</dt>
          <dd>{a.summary || 'none'}</dd>
          <dt>Package</dt>
          <dd>{a.package}</dd>
          <dt>Installed versions</dt>
          <dd>{list(a.installedVersions, 'none recorded')}</dd>
          <dt>Fixed version</dt>
          <dd>{a.fixedVersion ?? 'no fixed release'}</dd>
          <dt>Published</dt>
          <dd>
            <When iso={a.publishedAt} />
          </dd>
          <dt>First seen</dt>
          <dd>
            <When iso={a.firstSeenAt} /> in scan <ScanLink id={a.firstSeenScanId} />
          </dd>
          <dt>Last seen</dt>
          <dd>
            <When iso={a.lastSeenAt} /> in scan <ScanLink id={a.lastSeenScanId} />
          </dd>
          <dt>Modules</dt>
          <dd class="cell-wrap">{list(a.modules, 'none (no module attribution)')}</dd>
          <dt>Teams</dt>
          <dd class="cell-wrap">{list(a.teams, 'none')}</dd>
          <dt>Across projects</dt>
          <dd>
            <AcrossProjects
              advisory={a.advisory}
              pkg={a.package}
              // one installed version: where that version is used; several: where the package is
              version={a.installedVersions.length === 1 ? a.installedVersions[0] : undefined}
              ecosystem={a.ecosystem}
            />
          </dd>
        </dl>
      ) : null}
      {a ? (
        <AlertTriage alert={a} onChange={(next) => setChanged((c) => ({ alert: next, n: (c?.n ?? 0) + 1 }))} />
      ) : null}
      <h2 id="alert-history">History</h2>
      <Status
        loading={history.loading && !history.items.length}
        error={
          history.error && !(history.error instanceof ApiError && history.error.status === 404)
            ? errorText(history.error)
            : undefined
        }
      />
      {history.items.length ? (
        <ol class="timeline" aria-labelledby="alert-history" aria-describedby="alert-history-order">
          {history.items.map((e, i) => (
            <Event key={`${e.type} ${e.at} ${e.alertId} ${i}`} e={e} alertId={a?.id ?? alertId} />
          ))}
        </ol>
      ) : null}
      {history.items.length ? (
        <p id="alert-history-order" class="muted">
          Newest first; each change was made by the tracked scan named (or by its snapshot matched against newer
          advisories).
        </p>
      ) : null}
      <MoreButton pages={history} label="Older events" />
    </Page>
  );
}
