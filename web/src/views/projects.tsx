// The organization's projects (GET /v1/projects), each with its latest scan.
import { useState } from 'preact/hooks';
import { api } from '../api';
import { Counts, ScanStatusText, When } from '../components/bits';
import { Page, Status } from '../components/page';
import { useLoad } from '../hooks';
import { paths } from '../paths';
import type { Project } from '../types';

export default function Projects() {
  const [cursor, setCursor] = useState<string | undefined>();
  const [shown, setShown] = useState<Project[]>([]);
  const page = useLoad(async (signal) => {
    const p = await api.get<{ projects: Project[]; nextCursor: string | null }>('/projects', { cursor }, signal);
    setShown((s) => (cursor ? [...s, ...p.projects] : p.projects));
    return p;
  }, [cursor]);
  return (
    <Page title="Projects">
      <Status loading={page.loading && !shown.length} error={page.error} />
      {page.data && !shown.length ? <p>No project yet: upload a snapshot with the CI client to create one.</p> : null}
      {shown.length ? (
        <table class="grid">
          <caption class="visually-hidden">Projects and their latest scan</caption>
          <thead>
            <tr>
              <th scope="col">Project</th>
              <th scope="col">Latest scan</th>
              <th scope="col">Started</th>
              <th scope="col">Findings</th>
            </tr>
          </thead>
          <tbody>
            {shown.map((p) => (
              <tr key={p.id}>
                <th scope="row">
                  <a href={paths.project(p.id)}>{p.slug}</a>
                </th>
                <td>{p.latestScan ? <a href={paths.scan(p.latestScan.id)}><ScanStatusText status={p.latestScan.status} /> <span class="muted">({p.latestScan.ecosystem})</span></a> : <span class="muted">none</span>}</td>
                <td><When iso={p.latestScan?.startedAt} /></td>
                <td>{p.latestScan ? <Counts counts={p.latestScan.findings} /> : null}</td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
      {page.data?.nextCursor ? (
        <button type="button" onClick={() => setCursor(page.data!.nextCursor!)} disabled={page.loading}>
          More projects
        </button>
      ) : null}
    </Page>
  );
}
