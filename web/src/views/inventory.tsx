// A project's dependency inventory (GET /v1/dependencies): the union per ecosystem of its latest completed scans.
// Filters (ecosystem, name, direct) live in the URL.
import { useState } from 'preact/hooks';
import { useLocation, useRoute } from 'preact-iso';
import { api } from '../api';
import { Page, Status } from '../components/page';
import { useLoad } from '../hooks';
import { paths, withQuery } from '../paths';
import type { Dependency } from '../types';

const ECOSYSTEMS = ['gradle', 'python', 'javascript', 'typescript'];

export default function Inventory() {
  const { params } = useRoute();
  const { query, path, route } = useLocation();
  const projectId = params.projectId;
  const filters = { ecosystem: ECOSYSTEMS.includes(query.ecosystem) ? query.ecosystem : undefined, name: query.name || undefined, direct: query.direct === 'true' || query.direct === 'false' ? query.direct : undefined };
  const key = JSON.stringify([projectId, filters]);
  const [more, setMore] = useState<{ key: string; items: Dependency[] }>({ key: '', items: [] });
  const first = useLoad((signal) => api.get<{ dependencies: Dependency[]; nextCursor: string | null }>('/dependencies', { project: projectId, ...filters, limit: 100 }, signal), [key]);
  const [cursor, setCursor] = useState<{ key: string; next: string | null } | null>(null);
  const next = cursor?.key === key ? cursor.next : first.data?.nextCursor ?? null;
  const items = [...(first.data?.dependencies ?? []), ...(more.key === key ? more.items : [])];
  const [name, setName] = useState(filters.name ?? '');
  const set = (patch: Record<string, string | undefined>) => route(withQuery(path, { ...filters, ...patch }));

  const loadMore = async () => {
    if (!next) return;
    const p = await api.get<{ dependencies: Dependency[]; nextCursor: string | null }>('/dependencies', { project: projectId, ...filters, limit: 100, cursor: next });
    setMore((m) => ({ key, items: [...(m.key === key ? m.items : []), ...p.dependencies] }));
    setCursor({ key, next: p.nextCursor });
  };

  return (
    <Page title="Dependency inventory" actions={<a href={paths.project(projectId)}>Back to the project</a>}>
      <form class="filters" aria-label="Inventory filters" onSubmit={(e) => { e.preventDefault(); set({ name: name.trim() || undefined }); }}>
        <div class="field">
          <label for="i-eco">Ecosystem</label>
          <select id="i-eco" value={filters.ecosystem ?? ''} onChange={(e) => set({ ecosystem: e.currentTarget.value || undefined })}>
            <option value="">All</option>
            {ECOSYSTEMS.map((x) => <option key={x} value={x}>{x}</option>)}
          </select>
        </div>
        <div class="field">
          <label for="i-direct">Relationship</label>
          <select id="i-direct" value={filters.direct ?? ''} onChange={(e) => set({ direct: e.currentTarget.value || undefined })}>
            <option value="">Direct and transitive</option>
            <option value="true">Direct only</option>
            <option value="false">Transitive only</option>
          </select>
        </div>
        <div class="field">
          <label for="i-name">Package name (exact)</label>
          <input id="i-name" value={name} onInput={(e) => setName(e.currentTarget.value)} />
        </div>
        <button type="submit">Filter</button>
      </form>
      <Status loading={first.loading} error={first.error} />
      {first.data && !items.length ? <p>No dependency: no completed scan yet, or none matches.</p> : null}
      {items.length ? (
        <table class="grid">
          <caption class="visually-hidden">Dependencies, by name</caption>
          <thead>
            <tr>
              <th scope="col">Package</th>
              <th scope="col">Version</th>
              <th scope="col">Ecosystem</th>
              <th scope="col">Direct</th>
              <th scope="col">Path</th>
            </tr>
          </thead>
          <tbody>
            {items.map((d) => (
              <tr key={d.id}>
                <th scope="row">{d.name}</th>
                <td>{d.version}</td>
                <td>{d.ecosystem}</td>
                <td>{d.direct ? 'direct' : 'transitive'}</td>
                <td>{d.path.join(' → ')}</td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
      {next ? <button type="button" onClick={loadMore}>More dependencies</button> : null}
    </Page>
  );
}
