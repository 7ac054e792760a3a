// API keys: the list newest first with its status filter and cursor in the URL (GET /v1/api-keys), creation with a
// name, scopes (checkboxes) and all projects or chosen ones (POST /v1/api-keys; the secret is shown once, to copy),
// revocation with a confirmation (DELETE /v1/api-keys/{id}). A project-restricted key cannot hold the org-wide
// scopes: the server answers 422 invalid_scope, shown as it says it.
import { useMemo, useState } from 'preact/hooks';
import { useLocation } from 'preact-iso';
import { allPages, api } from '../../api';
import { When } from '../../components/bits';
import {
  ConfirmButton,
  CopyOnce,
  errorText,
  ListFilter,
  oneOf,
  Outcome,
  Pager,
  useFormError,
  useOutcome,
  useUrlList,
} from '../../components/admin/common';
import { firstExpiryDay } from '../../errors';
import { ListTable, useSorted } from '../../components/list';
import { Page, Status } from '../../components/page';
import { useLoad } from '../../hooks';
import { isOrgWide, SCOPES as SCOPE_NAMES } from '../../scopes';
import type { ApiKey, ApiKeyCreated, ApiKeyList, Checked, ListsEvery, Project, Scope } from '../../types';

/** What each scope allows (a scope the server adds needs its words here: the type says so). */
const SCOPE_LABELS: Record<Scope, string> = {
  'sca:upload': 'upload dependency snapshots',
  'scans:read': 'read scans and projects',
  'findings:read': 'read findings',
  'findings:triage': 'triage alerts (analyses)',
  'deps:read': 'read the dependency inventory',
  'hosts:read': 'read hosts',
  'gateways:read': 'read gateways',
  'mcp:upload': 'upload MCP scans',
  'mcp:read': 'read MCP scans',
};
/** The scopes a key may hold: the server's list (../../scopes.ts, checked against the API's), in its order, with what each allows. */
const SCOPES: { scope: Scope; label: string; orgWide: boolean }[] = SCOPE_NAMES.map((scope) => ({
  scope,
  label: SCOPE_LABELS[scope],
  orgWide: isOrgWide(scope),
}));
/** The three scopes `scanner scan` needs: upload, then read the scan and its findings. */
const CI_PRESET: Scope[] = ['sca:upload', 'scans:read', 'findings:read'];
/** The form's fields, as the API names them in its refusals. */
const FIELDS = ['name', 'scopes', 'projects', 'expiresAt'] as const;
const STATUSES = ['active', 'expired', 'revoked'] as const satisfies readonly ApiKey['status'][];
export type StatusesListed = Checked<ListsEvery<ApiKey['status'], typeof STATUSES>>;
const STATUS_LABELS: Record<string, string> = { active: 'Active', expired: 'Expired', revoked: 'Revoked' };

const NONE: ApiKey[] = [];
const time = (iso: string | null | undefined) => (iso ? Date.parse(iso) : null);

export default function ApiKeys() {
  const { query } = useLocation();
  const status = oneOf(STATUSES, query.status);
  const { list, pager } = useUrlList<ApiKeyList>('/api-keys', { status });
  const projects = useLoad(() => allPages<Project>('/projects', 'projects'), []);
  const slugOf = useMemo(() => new Map((projects.data ?? []).map((p) => [p.id, p.slug])), [projects.data]);

  const [name, setName] = useState('');
  const [scopes, setScopes] = useState<string[]>([]);
  const [reach, setReach] = useState<'all' | 'chosen'>('all');
  const [chosen, setChosen] = useState<string[]>([]);
  const [expires, setExpires] = useState('');
  const [busy, setBusy] = useState(false);
  const [created, setCreated] = useState<{ id: string; name: string; secret: string } | null>(null);
  const { error, done, setError, setDone, run } = useOutcome();
  const form = useFormError();
  const toggle = (list: string[], v: string, on: boolean) =>
    on ? [...list.filter((x) => x !== v), v] : list.filter((x) => x !== v);

  const create = async (e: Event) => {
    e.preventDefault();
    setError(null);
    setDone(null);
    setCreated(null);
    form.clear();
    if (!scopes.length) return form.set('scopes', 'Choose at least one scope.');
    if (reach === 'chosen' && !chosen.length)
      return form.set('projects', 'Choose at least one project, or give the key every project.');
    setBusy(true);
    try {
      const body = {
        name: name.trim(),
        scopes,
        projects: reach === 'all' ? 'all' : chosen,
        ...(expires ? { expiresAt: new Date(`${expires}T23:59:59Z`).toISOString() } : {}),
      };
      const r = await api.post<ApiKeyCreated>('/api-keys', body);
      setCreated({ id: r.apiKey.id, name: r.apiKey.name, secret: r.secret });
      setName('');
      setScopes([]);
      setChosen([]);
      setReach('all');
      setExpires('');
      list.reload();
    } catch (err) {
      form.fail(err);
    } finally {
      setBusy(false);
    }
  };
  const revoke = (k: ApiKey) =>
    run(`Could not revoke the key ${k.name}`, async () => {
      await api.del(`/api-keys/${encodeURIComponent(k.id)}`);
      // a secret still on screen stops being shown once its key is revoked
      setCreated((c) => (c?.id === k.id ? null : c));
      list.reload();
      return `The key ${k.name} was revoked: it stops working now.`;
    });

  const { rows: keys, sort } = useSorted<ApiKey>(list.data?.apiKeys ?? NONE, [
    (k) => k.name,
    null,
    null,
    null,
    (k) => k.status,
    (k) => time(k.createdAt),
    (k) => time(k.lastUsedAt),
    null,
  ]);
  const orgWideChosen = reach === 'chosen' && scopes.some((s) => SCOPES.find((x) => x.scope === s)?.orgWide);
  return (
    <Page title="API keys">
      <form class="admin-form" aria-label="Create an API key" onSubmit={create}>
        <div class="field">
          <label for="key-name">Name</label>
          <input
            id="key-name"
            type="text"
            required
            maxLength={200}
            autoComplete="off"
            value={name}
            onInput={(e) => setName(e.currentTarget.value)}
            {...form.input('name', 'key-name')}
          />
          {form.at('name', 'key-name')}
        </div>
        <fieldset id="key-scopes" {...form.input('scopes', 'key-scopes')}>
          <legend>Scopes</legend>
          <p class="preset">
            <button type="button" onClick={() => setScopes([...CI_PRESET])}>
              CI upload preset
            </button>{' '}
            <span class="muted">
              the three scopes <code>scanner scan</code> needs: {CI_PRESET.join(', ')}
            </span>
          </p>
          {SCOPES.map((s) => (
            <label key={s.scope} class="check">
              <input
                type="checkbox"
                name="scope"
                value={s.scope}
                checked={scopes.includes(s.scope)}
                onChange={(e) => setScopes(toggle(scopes, s.scope, e.currentTarget.checked))}
              />
              <span>
                {s.scope}{' '}
                <span class="muted">
                  ({s.label}
                  {s.orgWide ? ', organization-wide' : ''})
                </span>
              </span>
            </label>
          ))}
          {form.at('scopes', 'key-scopes')}
        </fieldset>
        <fieldset id="key-projects" {...form.input('projects', 'key-projects')}>
          <legend>Projects</legend>
          <label class="check">
            <input type="radio" name="reach" value="all" checked={reach === 'all'} onChange={() => setReach('all')} />
            All projects
          </label>
          <label class="check">
            <input
              type="radio"
              name="reach"
              value="chosen"
              checked={reach === 'chosen'}
              onChange={() => setReach('chosen')}
            />
            Chosen projects
          </label>
          {form.at('projects', 'key-projects')}
        </fieldset>
        {reach === 'chosen' ? (
          <fieldset>
            <legend>Chosen projects</legend>
            {projects.error ? <span class="error">{errorText(projects.error)}</span> : null}
            {projects.data && !projects.data.length ? <span class="muted">No project yet.</span> : null}
            {(projects.data ?? []).map((p) => (
              <label key={p.id} class="check">
                <input
                  type="checkbox"
                  name="project"
                  value={p.id}
                  checked={chosen.includes(p.id)}
                  onChange={(e) => setChosen(toggle(chosen, p.id, e.currentTarget.checked))}
                />
                {p.slug}
              </label>
            ))}
          </fieldset>
        ) : null}
        <div class="field">
          <label for="key-expires">Expires on (optional)</label>
          <input
            id="key-expires"
            type="date"
            min={firstExpiryDay()}
            value={expires}
            onInput={(e) => setExpires(e.currentTarget.value)}
            {...form.input('expiresAt', 'key-expires')}
          />
          {form.at('expiresAt', 'key-expires')}
        </div>
        <button type="submit" class="primary" disabled={busy}>
          Create key
        </button>
        {orgWideChosen ? (
          <p class="hint muted">
            A key restricted to chosen projects cannot hold organization-wide scopes (hosts, gateways, MCP).
          </p>
        ) : null}
      </form>
      {created ? (
        <CopyOnce
          id="key-secret"
          label={`Secret of the key ${created.name}`}
          value={created.secret}
          after={
            <button type="button" onClick={() => setCreated(null)}>
              I have copied it
            </button>
          }
        >
          <p>
            <strong>Copy this secret now: you will not see it again.</strong> Only its prefix is kept in the list.
          </p>
        </CopyOnce>
      ) : null}
      <Outcome
        error={error ?? (form.general(FIELDS) ? `Could not create the key: ${form.general(FIELDS)}` : null)}
        done={done}
      />
      <ListFilter
        form="Filter API keys"
        id="key-status-filter"
        label="Status"
        any="Every status"
        param="status"
        value={status}
        values={STATUSES}
        labels={STATUS_LABELS}
        query={pager.query}
      />
      <Status loading={list.loading && !list.data} error={list.error ? errorText(list.error) : undefined} />
      {list.data && !keys.length ? (
        <p>No API key{status ? ` with the status ${STATUS_LABELS[status].toLowerCase()}` : ''}.</p>
      ) : null}
      {keys.length ? (
        <ListTable
          caption="API keys, newest first"
          columns={['Name', 'Prefix', 'Scopes', 'Projects', 'Status', 'Created', 'Last used', 'Actions']}
          sort={sort}
        >
          {keys.map((k) => (
            <tr key={k.id}>
              <th scope="row" class="cell-wrap">
                {k.name}
              </th>
              <td>
                <code>{k.prefix}…</code>
              </td>
              <td>{k.scopes.join(', ')}</td>
              <td class="cell-wrap">
                {k.projects === 'all' ? 'all projects' : k.projects.map((id) => slugOf.get(id) ?? id).join(', ')}
              </td>
              <td>
                {STATUS_LABELS[k.status] ?? k.status}
                {k.status === 'revoked' ? (
                  <div class="muted">
                    <When iso={k.revokedAt} />
                  </div>
                ) : k.expiresAt ? (
                  <div class="muted">
                    until <When iso={k.expiresAt} />
                  </div>
                ) : null}
              </td>
              <td>
                <When iso={k.createdAt} />
              </td>
              <td>{k.lastUsedAt ? <When iso={k.lastUsedAt} /> : <span class="muted">never</span>}</td>
              <td class="actions">
                {k.status === 'active' ? (
                  <ConfirmButton
                    label="Revoke"
                    accessibleLabel={`Revoke the key ${k.name}`}
                    question={`Revoke the key ${k.name}? It stops working at once.`}
                    confirmLabel="Revoke"
                    onConfirm={() => revoke(k)}
                  />
                ) : null}
              </td>
            </tr>
          ))}
        </ListTable>
      ) : null}
      <Pager {...pager} label="API keys" />
    </Page>
  );
}
