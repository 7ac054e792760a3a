// A project's dependency inventory (GET /v1/dependencies): the union per ecosystem of its latest completed scans.
// Filters (ecosystem, name, direct) live in the URL.
import { useState } from 'preact/hooks';
import { useLocation, useRoute } from 'preact-iso';
import { api } from '../api';
import { ListTable, MoreButton } from '../components/list';
import { Page, Status } from '../components/page';
import { usePages } from '../hooks';
import { paths, withQuery } from '../paths';
import type { Checked, DependencyList, Ecosystem, ListsEvery } from '../types';

const ECOSYSTEMS = ['gradle', 'python', 'javascript', 'typescript'] as const satisfies readonly Ecosystem[];
export type EcosystemsListed = Checked<ListsEvery<Ecosystem, typeof ECOSYSTEMS>>;

export default function Inventory() {
  const { params } = useRoute();
  const { query, path, route } = useLocation();
  const projectId = params.projectId;
  const filters = {
    ecosystem: (ECOSYSTEMS as readonly string[]).includes(query.ecosystem) ? query.ecosystem : undefined,
    name: query.name || undefined,
    direct: query.direct === 'true' || query.direct === 'false' ? query.direct : undefined,
  };
  const key = JSON.stringify([projectId, filters]);
  const pages = usePages(key, async (cursor, signal) => {
    const p = await api.get<DependencyList>(
      '/dependencies',
      { project: projectId, ...filters, limit: 100, cursor },
      signal,
    );
    return { items: p.dependencies, nextCursor: p.nextCursor };
  });
  const items = pages.items;
  const [name, setName] = useState(filters.name ?? '');
  const set = (patch: Record<string, string | undefined>) => route(withQuery(path, { ...filters, ...patch }));

  return (
    <Page title="Dependency inventory" actions={<a href={paths.project(projectId)}>Back to the project</a>}>
      <form
        class="filters"
        aria-label="Inventory filters"
        onSubmit={(e) => {
          e.preventDefault();
          set({ name: name.trim() || undefined });
        }}
      >
        <div class="field">
          <label for="i-eco">Ecosystem</label>
          <select
            id="i-eco"
            value={filters.ecosystem ?? ''}
            onChange={(e) => set({ ecosystem: e.currentTarget.value || undefined })}
          >
            <option value="">All</option>
            {ECOSYSTEMS.map((x) => (
              <option key={x} value={x}>
                {x}
              </option>
            ))}
          </select>
        </div>
        <div class="field">
          <label for="i-direct">Relationship</label>
          <select
            id="i-direct"
            value={filters.direct ?? ''}
            onChange={(e) => set({ direct: e.currentTarget.value || undefined })}
          >
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
      <Status loading={pages.loading && !pages.cursor} error={pages.error} />
      {pages.loaded && !items.length ? <p>No dependency: no completed scan yet, or none matches.</p> : null}
      {items.length ? (
        <ListTable caption="Dependencies, by name" columns={['Package', 'Version', 'Ecosystem', 'Direct', 'Path']}>
          {items.map((d) => (
            <tr key={d.id}>
              <th scope="row">{d.name}</th>
              <td>{d.version}</td>
              <td>{d.ecosystem}</td>
              <td>{d.direct ? 'direct' : 'transitive'}</td>
              <td>{d.path.join(' → ')}</td>
            </tr>
          ))}
        </ListTable>
      ) : null}
      <MoreButton pages={pages} label="More dependencies" />
    </Page>
  );
}
