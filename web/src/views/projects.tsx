// The organization's projects (GET /v1/projects), each with its latest scan.
import { api } from '../api';
import { Counts, ScanStatusText, When } from '../components/bits';
import { ListTable, MoreButton, severityRank, useSorted } from '../components/list';
import { Page, Status } from '../components/page';
import { usePages } from '../hooks';
import { paths } from '../paths';
import type { Project, ProjectList } from '../types';

const time = (iso: string | null | undefined) => (iso ? Date.parse(iso) : null);

export default function Projects() {
  const pages = usePages('', async (cursor, signal) => {
    const p = await api.get<ProjectList>('/projects', { cursor }, signal);
    return { items: p.projects, nextCursor: p.nextCursor };
  });
  const { rows: shown, sort } = useSorted<Project>(pages.items, [
    (p) => p.slug,
    (p) => p.latestScan?.status ?? null,
    (p) => time(p.latestScan?.startedAt),
    (p) => severityRank(p.latestScan?.findings),
  ]);
  return (
    <Page title="Projects">
      <Status loading={pages.loading && !shown.length} error={pages.error} />
      {pages.loaded && !shown.length ? (
        <p>No project yet: upload a snapshot with the CI client to create one.</p>
      ) : null}
      {shown.length ? (
        <ListTable
          caption="Projects and their latest scan"
          columns={['Project', 'Latest scan', 'Started', 'Findings']}
          sort={sort}
        >
          {shown.map((p) => (
            <tr key={p.id}>
              <th scope="row">
                <a href={paths.project(p.id)}>{p.slug}</a>
              </th>
              <td>
                {p.latestScan ? (
                  <a href={paths.scan(p.latestScan.id)}>
                    <ScanStatusText status={p.latestScan.status} />{' '}
                    <span class="muted">({p.latestScan.ecosystem})</span>
                  </a>
                ) : (
                  <span class="muted">none</span>
                )}
              </td>
              <td>
                <When iso={p.latestScan?.startedAt} />
              </td>
              <td>{p.latestScan ? <Counts counts={p.latestScan.findings} /> : null}</td>
            </tr>
          ))}
        </ListTable>
      ) : null}
      <MoreButton pages={pages} label="More projects" />
    </Page>
  );
}
