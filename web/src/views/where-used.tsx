// Where a package is used across the organization (GET /v1/dependencies/usages): a search by package name, optionally
// one installed version and one ecosystem, whose values live in the URL (a reload, Back or a shared link shows the
// same results). Each result is a project whose latest scan of an ecosystem installs the package: the project (a
// link), the ecosystem, the package as the project names it, its version, direct or transitive, and the shortest path
// to it as text; read a page at a time ("More usages"). No result, and no search yet, are said in words.
import { useEffect, useState } from 'preact/hooks';
import { useLocation } from 'preact-iso';
import { api } from '../api';
import { errorText } from '../components/admin/common';
import { ListTable, MoreButton } from '../components/list';
import { Page, Status } from '../components/page';
import { usePages } from '../hooks';
import {
  ECOSYSTEMS,
  usageSearchFromQuery,
  usageSearchText,
  usageSearchToQuery,
  usagesCountText,
  type UsageSearch,
} from '../intel';
import { paths } from '../paths';
import type { DependencyUsage, DependencyUsageList } from '../types';
import '../components/intel.css';

function SearchForm({ s, onSearch }: { s: UsageSearch; onSearch(next: UsageSearch): void }) {
  const [name, setName] = useState(s.name ?? '');
  const [version, setVersion] = useState(s.version ?? '');
  const [ecosystem, setEcosystem] = useState<string>(s.ecosystem ?? '');
  // the URL is the search: Back or a link shows its values
  useEffect(() => {
    setName(s.name ?? '');
    setVersion(s.version ?? '');
    setEcosystem(s.ecosystem ?? '');
  }, [s.name, s.version, s.ecosystem]);
  return (
    <form
      class="filters"
      role="search"
      aria-label="Where a package is used"
      onSubmit={(e) => {
        e.preventDefault();
        onSearch(
          usageSearchFromQuery({ name, version, ecosystem }), // trimmed, and an unknown ecosystem dropped
        );
      }}
    >
      <div class="field">
        <label for="u-name">Package name</label>
        <input
          id="u-name"
          type="search"
          required
          maxLength={2000}
          autoComplete="off"
          spellcheck={false}
          aria-describedby="u-name-hint"
          value={name}
          onInput={(e) => setName(e.currentTarget.value)}
        />
      </div>
      <div class="field">
        <label for="u-version">Version (optional)</label>
        <input
          id="u-version"
          maxLength={2000}
          autoComplete="off"
          spellcheck={false}
          value={version}
          onInput={(e) => setVersion(e.currentTarget.value)}
        />
      </div>
      <div class="field">
        <label for="u-ecosystem">Ecosystem</label>
        <select id="u-ecosystem" value={ecosystem} onChange={(e) => setEcosystem(e.currentTarget.value)}>
          <option value="">Any</option>
          {ECOSYSTEMS.map((x) => (
            <option key={x} value={x}>
              {x}
            </option>
          ))}
        </select>
      </div>
      <button type="submit">Search</button>
      <p id="u-name-hint" class="muted search-hint">
        Names are compared as each ecosystem compares them: npm names in any case, PyPI names by PEP 503 (
        <code>zope_interface</code> is <code>zope.interface</code>), Maven as <code>group:artifact</code>. A version is
        matched exactly.
      </p>
    </form>
  );
}

export default function WhereUsed() {
  const { query, url, route } = useLocation();
  const search = usageSearchFromQuery(query);
  const key = JSON.stringify(search);
  // The search whose rows are shown: just after the URL changes, the previous rows are still there, not yet loading.
  const [shown, setShown] = useState('');
  const pages = usePages<DependencyUsage>(key, async (cursor, signal) => {
    const p: DependencyUsageList = search.name
      ? await api.get<DependencyUsageList>(
          '/dependencies/usages',
          { ...usageSearchToQuery(search), limit: 100, cursor },
          signal,
        )
      : { usages: [], nextCursor: null };
    if (!signal.aborted) setShown(key);
    return { items: p.usages, nextCursor: p.nextCursor };
  });
  const current = shown === key && pages.loaded && !pages.loading;
  const items = shown === key ? pages.items : [];
  const what = usageSearchText(search);

  return (
    <Page title={search.name ? `Where ${what} is used` : 'Where used'}>
      <SearchForm s={search} onSearch={(next) => route(paths.whereUsed(usageSearchToQuery(next)))} />
      {!search.name ? (
        <p>
          Search a package by its name to list every project whose latest scan installs it, with the version, whether it
          is a direct dependency, and the path that brings it in.
        </p>
      ) : (
        <>
          <p
            role="status"
            aria-live="polite"
            class="list-counts"
            data-ready-url={current ? url.split('#')[0] : undefined}
          >
            {current || (shown === key && pages.cursor)
              ? items.length
                ? usagesCountText(items, !pages.next)
                : ''
              : pages.loading
                ? 'Searching…'
                : ''}
          </p>
          <Status error={pages.error ? errorText(pages.error) : undefined} />
          {current && !items.length && !pages.error ? (
            <p>
              No project's latest scan installs <code>{what}</code>
              {search.version || search.ecosystem ? (
                <>
                  {' '}
                  (
                  <a href={paths.whereUsed({ name: search.name })}>
                    search {search.name} in every version and ecosystem
                  </a>
                  )
                </>
              ) : null}
              .
            </p>
          ) : null}
          {items.length ? (
            <ListTable
              caption={`Projects that install ${what}`}
              columns={['Project', 'Ecosystem', 'Package', 'Version', 'Relationship', 'Path']}
            >
              {items.map((u) => (
                <tr key={`${u.project} ${u.ecosystem} ${u.name} ${u.version}`}>
                  <th scope="row" class="cell-wrap">
                    <a href={paths.project(u.project)}>{u.projectSlug}</a>
                  </th>
                  <td>{u.ecosystem}</td>
                  <td class="cell-wrap">{u.name}</td>
                  <td class="cell-wrap">{u.version}</td>
                  <td>{u.direct ? 'direct' : 'transitive'}</td>
                  <td class="cell-wrap">{u.path.join(' → ')}</td>
                </tr>
              ))}
            </ListTable>
          ) : null}
          <MoreButton pages={pages} label="More usages" />
        </>
      )}
    </Page>
  );
}
