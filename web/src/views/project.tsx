// A project's scans (GET /v1/scans?project=), newest first: status, counts, failure reasons, and the alerts each scan
// opened; scans still queued or running are followed live with ?wait= until they finish. Above them, the project's
// alerts in a line (open, fixed, suppressed), each a link to its Alerts view. Below them, the VEX documents (CycloneDX
// and OpenVEX) of the project's latest completed tracked scan as downloads, and for the roles that triage the import
// of a VEX document into the project's alerts (components/vex-import.tsx).
import { useEffect, useMemo, useState } from 'preact/hooks';
import { useRoute } from 'preact-iso';
import { allPages, api } from '../api';
import { alertSummary, openedByScan, openedText } from '../alerts';
import { Counts, ScanStatusText, When } from '../components/bits';
import { ScanExports } from '../components/exports';
import { ListTable, MoreButton } from '../components/list';
import { Page, Status } from '../components/page';
import { useLoad, usePages } from '../hooks';
import { followScan } from '../live-scan';
import { paths } from '../paths';
import type { Alert, Project, Scan, ScanList } from '../types';
import { isManager } from '../roles';
import { useMe } from '../session';
import { errorText, useFormError } from '../components/admin/common';
import { VexImport } from '../components/vex-import';

/** The branch a ref names, without the prefixes CI systems put before it (as the server reads it). */
function branchOf(ref: string): string {
  return ref
    .trim()
    .replace(/^refs\/heads\//, '')
    .replace(/^refs\/remotes\/[^/]+\//, '')
    .replace(/^origin\//, '');
}

/**
 * Whether a scan is tracked (its findings move the project's alerts): its ref is absent or names the default branch
 * (`main`, `refs/heads/main` and `origin/main` alike), as the server decides (the Project schema's defaultBranch).
 */
function isTracked(ref: string | null | undefined, defaultBranch: string): boolean {
  if (ref === null || ref === undefined || ref.trim() === '') return true;
  return branchOf(ref) === branchOf(defaultBranch);
}

/** The most pages of completed scans read to find the latest tracked one (branch scans may come before it). */
const TRACKED_PAGES = 10;

/**
 * The VEX documents of the project's latest completed tracked scan, as downloads (ScanExports), naming that scan;
 * `latest`: that scan (null: none yet).
 */
function VexExports({
  latest,
  branch,
}: {
  latest: { data?: Scan | null; error?: unknown; loading: boolean };
  branch: string;
}) {
  return (
    <section class="vex-exports" aria-labelledby="vex-exports-title">
      <h2 id="vex-exports-title">Export VEX</h2>
      {latest.error ? (
        <p class="muted">The latest scan could not be read: {errorText(latest.error)}</p>
      ) : latest.data ? (
        <>
          <p>
            The triage analyses of this project's alerts, as VEX documents of{' '}
            <a href={paths.scan(latest.data.id)}>
              its latest completed scan of <code>{branch}</code>
            </a>{' '}
            (<code>{latest.data.id}</code>, finished <When iso={latest.data.finishedAt} />
            ).
          </p>
          <ScanExports scanId={latest.data.id} vex label={`Download the VEX of scan ${latest.data.id}`} />
        </>
      ) : latest.loading ? null : (
        <p class="muted">
          No completed scan of <code>{branch}</code> yet: there is no VEX document to export.
        </p>
      )}
    </section>
  );
}

/**
 * The project's default branch (the branch whose scans are tracked), and for owners and admins a form to change it
 * (PATCH /v1/projects/{id}): the refusal at the field, in words; the change said in a polite status.
 */
function DefaultBranch({ project, onChanged }: { project: Project; onChanged(p: Project): void }) {
  const me = useMe();
  const [value, setValue] = useState(project.defaultBranch ?? 'main');
  const [busy, setBusy] = useState(false);
  const [done, setDone] = useState<string | null>(null);
  const form = useFormError();
  if (!isManager(me.member?.role))
    return (
      <p class="muted">
        Default branch: <code>{project.defaultBranch ?? 'main'}</code> (its scans are the tracked ones).
      </p>
    );
  return (
    <form
      class="toolbar"
      aria-label="Set the default branch"
      onSubmit={async (e) => {
        e.preventDefault();
        form.clear();
        setDone(null);
        setBusy(true);
        try {
          const p = await api.patch<Project>(`/projects/${encodeURIComponent(project.id)}`, {
            defaultBranch: value.trim(),
          });
          setValue(p.defaultBranch ?? 'main');
          setDone(`The default branch is now ${p.defaultBranch}: its scans are tracked from the next one.`);
          onChanged(p);
        } catch (err) {
          form.fail(err);
        } finally {
          setBusy(false);
        }
      }}
    >
      <div class="field">
        <label for="default-branch">Default branch</label>
        <input
          id="default-branch"
          type="text"
          required
          maxLength={255}
          autoComplete="off"
          spellcheck={false}
          value={value}
          onInput={(e) => setValue(e.currentTarget.value)}
          {...form.input('defaultBranch', 'default-branch', 'default-branch-hint')}
        />
        {form.at('defaultBranch', 'default-branch')}
      </div>
      <button type="submit" disabled={busy || value.trim() === (project.defaultBranch ?? 'main')}>
        Save
      </button>
      <p id="default-branch-hint" class="muted hint">
        Scans whose ref is this branch (or that give no ref) are the tracked ones.
      </p>
      <p role="status" class="muted">
        {done ?? (form.general(['defaultBranch']) ? `Could not save: ${form.general(['defaultBranch'])}` : '')}
      </p>
    </form>
  );
}

/** The project's alerts in one line: open, fixed and suppressed, each a link to the Alerts view filtered so. */
function AlertsLine({ projectId, alerts }: { projectId: string; alerts: { data?: Alert[]; error?: unknown } }) {
  if (alerts.error) return <p class="alert-summary muted">The alerts could not be read: {errorText(alerts.error)}</p>;
  if (!alerts.data) return null;
  const c = alertSummary(alerts.data);
  return (
    <p class="alert-summary">
      Alerts of the default branch: <a href={paths.alerts(projectId)}>{c.open} open</a> ·{' '}
      <a href={paths.alerts(projectId, { status: 'fixed' })}>{c.fixed} fixed</a>
      {c.suppressed ? (
        <>
          {' '}
          · <a href={paths.alerts(projectId, { status: 'all', suppressed: 'true' })}>{c.suppressed} suppressed</a>
        </>
      ) : null}
    </p>
  );
}

export default function ProjectView() {
  const { params } = useRoute();
  const projectId = params.projectId;
  const project = useLoad(
    async () =>
      (await allPages<Project>('/projects', 'projects')).find((p) => p.id === projectId || p.slug === projectId),
    [projectId],
  );
  const pages = usePages(projectId, async (cursor, signal) => {
    const p = await api.get<ScanList>('/scans', { project: projectId, limit: 50, cursor }, signal);
    return { items: p.scans, nextCursor: p.nextCursor };
  });
  const scans = pages.items;
  // What each scan opened and fixed comes from the project's alerts, every status and suppressed ones too, in one
  // list read (alerts.ts, openedByScan): an alert names the scan that first saw it, and a fixed one the scan that
  // fixed it.
  const alerts = useLoad(
    () => allPages<Alert>('/alerts', 'alerts', { project: projectId, status: 'all', suppressed: 'all' }),
    [projectId],
  );
  const opened = useMemo(() => openedByScan(alerts.data ?? [], scans), [alerts.data, scans]);
  const liveIds = scans
    .filter((s) => s.status === 'queued' || s.status === 'running')
    .map((s) => s.id)
    .join(',');
  useEffect(() => {
    if (!liveIds) return;
    const ctl = new AbortController();
    for (const id of liveIds.split(',')) {
      followScan(id, ctl.signal, (next) => pages.update((all) => all.map((s) => (s.id === next.id ? next : s)))).catch(
        () => undefined,
      );
    }
    return () => ctl.abort();
  }, [liveIds]);

  // The scan whose VEX the page exports: the newest completed tracked scan, read again when a scan of the list
  // completes (the newest completed one read so far changes) or the default branch does.
  const branch = project.data?.defaultBranch ?? 'main';
  const newestCompleted = scans.find((s) => s.status === 'completed')?.id ?? '';
  const latest = useLoad(
    async (signal) => {
      let cursor: string | undefined;
      for (let i = 0; i < TRACKED_PAGES; i++) {
        const p = await api.get<ScanList>('/scans', { project: projectId, status: 'completed', cursor }, signal);
        const found = p.scans.find((s) => isTracked(s.metadata?.ref, branch));
        if (found) return found;
        if (!p.nextCursor) break;
        cursor = p.nextCursor;
      }
      return null;
    },
    [projectId, branch, newestCompleted],
  );

  const name = project.data?.slug ?? projectId;
  // A project that is not there (or not reachable with this session) offers nothing of its own.
  const missing = !project.loading && !project.error && !project.data;
  if (missing)
    return (
      <Page title="Project not found">
        <p role="alert">
          No project <code>{projectId}</code> in this organization. <a href={paths.projects()}>See every project</a>.
        </p>
      </Page>
    );
  return (
    <Page
      title={`Project ${name}`}
      actions={
        project.data ? (
          <>
            <a href={paths.alerts(projectId)}>Alerts</a>
            <a href={paths.inventory(projectId)}>Dependency inventory</a>
          </>
        ) : null
      }
    >
      {project.data ? <DefaultBranch project={project.data} onChanged={() => project.reload()} /> : null}
      {project.data ? <AlertsLine projectId={projectId} alerts={alerts} /> : null}
      <Status loading={pages.loading && !scans.length} error={pages.error ?? project.error} />
      {pages.loaded && !scans.length ? <p>No scan of this project yet.</p> : null}
      {scans.length ? (
        <ListTable
          caption={`Scans of ${name}, newest first`}
          columns={['Scan', 'Status', 'Ecosystem', 'Started', 'Finished', 'Findings', 'Alerts']}
        >
          {scans.map((s) => (
            <tr key={s.id}>
              <th scope="row">
                <a href={paths.scan(s.id)}>{s.id}</a>
                {s.metadata?.ref ? (
                  <div class="muted">
                    {s.metadata.ref}
                    {s.metadata.commit ? ` @ ${s.metadata.commit.slice(0, 12)}` : ''}
                  </div>
                ) : null}
              </th>
              <td aria-live="polite">
                <ScanStatusText status={s.status} failureReason={s.failureReason} />
              </td>
              <td>{s.ecosystem}</td>
              <td>
                <When iso={s.startedAt} />
              </td>
              <td>
                <When iso={s.finishedAt} />
              </td>
              <td>
                {s.status === 'completed' ? (
                  <>
                    <Counts counts={s.findings} suppressed={s.suppressed} />
                    <div>
                      <a href={paths.compare(s.id)}>
                        Compare<span class="visually-hidden"> this scan</span> with its baseline
                      </a>
                    </div>
                  </>
                ) : (
                  <span class="muted">—</span>
                )}
              </td>
              <td>
                {s.status === 'completed' && alerts.data ? openedText(opened.get(s.id)) : <span class="muted">—</span>}
              </td>
            </tr>
          ))}
        </ListTable>
      ) : null}
      <MoreButton pages={pages} label="Older scans" />
      {project.data ? <VexExports latest={latest} branch={branch} /> : null}
      {project.data ? <VexImport projectId={project.data.id} onImported={() => alerts.reload()} /> : null}
    </Page>
  );
}
