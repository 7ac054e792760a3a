// Hosts: the list ordered by hostname (GET /v1/hosts, hosts:read: every role reads it) with its status
// filter, its repeatable label filters (`label=key=value`, all must match) and its cursor in the URL, so a reload or a
// shared link shows the same view; a malformed label filter is sent as typed and the server's 422 is shown as it words
// it. Admins and owners revoke a host (DELETE /v1/hosts/{id}, with a confirmation): its credential fails at once.
import { useMemo, useState } from 'preact/hooks';
import { useLocation } from 'preact-iso';
import { allPages, api } from '../../api';
import { When } from '../../components/bits';
import { ConfirmButton, errorText, limitOf, oneOf, Outcome, useOutcome } from '../../components/admin/common';
import { HOSTS_PATH, HostsNav, LabelChips, REGISTRATION_TOKENS_PATH } from '../../components/admin/fleet';
import { ListTable } from '../../components/list';
import { Page, Status } from '../../components/page';
import { useLoad } from '../../hooks';
import { isManager } from '../../roles';
import { useMe } from '../../session';
import type { Checked, Gateway, Host, HostList, HostStatus, ListsEvery } from '../../types';

const STATUSES = ['active', 'expired', 'revoked'] as const satisfies readonly HostStatus[];
export type StatusesListed = Checked<ListsEvery<HostStatus, typeof STATUSES>>;
const STATUS_LABELS: Record<string, string> = { active: 'Active', expired: 'Expired', revoked: 'Revoked' };

interface HostFilters {
  status?: string;
  labels: string[];
  limit?: number;
  cursor?: string;
}

/** The query of the list: status, every label filter in its order, page size, cursor (repeated `label`, so not withQuery). */
function queryOf(f: HostFilters): string {
  const qs = new URLSearchParams();
  if (f.status) qs.set('status', f.status);
  for (const l of f.labels) qs.append('label', l);
  if (f.limit) qs.set('limit', String(f.limit));
  if (f.cursor) qs.set('cursor', f.cursor);
  return qs.toString();
}

const hrefOf = (f: HostFilters) => {
  const q = queryOf(f);
  return q ? `${HOSTS_PATH}?${q}` : HOSTS_PATH;
};

/** The gateway a host heartbeats through: its name once the names are read (its id if it is not among them). */
function GatewayOf({ id, name, loading }: { id?: string; name?: string; loading: boolean }) {
  if (name) return <>through the gateway {name}</>;
  if (loading || !id) return <>through a gateway</>;
  return <>through the gateway {id}</>;
}

export default function Hosts() {
  const me = useMe();
  const admin = isManager(me.member?.role);
  const { url, query, route } = useLocation();
  const params = new URL(url, window.location.origin).searchParams;
  const status = oneOf(STATUSES, params.get('status') ?? undefined);
  const labels = params.getAll('label').filter((l) => l !== '');
  const cursor = params.get('cursor') || undefined;
  const limit = limitOf(query);
  const listQuery = queryOf({ status, labels, limit, cursor });
  const list = useLoad(
    (signal) => api.get<HostList>(`/hosts${listQuery ? `?${listQuery}` : ''}`, undefined, signal),
    [listQuery],
  );
  const hosts = list.data?.hosts ?? [];

  // the names of the gateways hosts heartbeat through (ids otherwise)
  const gatewayIds = [...new Set(hosts.map((h) => h.gatewayId).filter((g): g is string => !!g))].sort();
  const gateways = useLoad(
    () => (gatewayIds.length ? allPages<Gateway>('/gateways', 'gateways') : Promise.resolve([] as Gateway[])),
    [gatewayIds.join(' ')],
  );
  const gatewayName = useMemo(() => new Map((gateways.data ?? []).map((g) => [g.id, g.name])), [gateways.data]);

  const [draft, setDraft] = useState('');
  const { error, done, run } = useOutcome();
  const filters = { status, labels, limit };
  const addLabel = (e: Event) => {
    e.preventDefault();
    const l = draft.trim();
    if (!l) return;
    setDraft('');
    if (!labels.includes(l)) route(hrefOf({ ...filters, labels: [...labels, l] }));
  };
  const revoke = (h: Host) =>
    run(`Could not revoke the host ${h.hostname}`, async () => {
      await api.del(`/hosts/${encodeURIComponent(h.id)}`);
      list.reload();
      return `The host ${h.hostname} was revoked: its credential stops working now.`;
    });

  const filtered = status || labels.length;
  return (
    <Page title="Hosts">
      {admin ? <HostsNav /> : null}
      <form class="toolbar" role="search" aria-label="Filter hosts" onSubmit={addLabel}>
        <div class="field">
          <label for="host-status-filter">Status</label>
          <select
            id="host-status-filter"
            value={status ?? ''}
            onChange={(e) => route(hrefOf({ ...filters, status: e.currentTarget.value || undefined }))}
          >
            <option value="">Every status</option>
            {STATUSES.map((s) => (
              <option key={s} value={s}>
                {STATUS_LABELS[s]}
              </option>
            ))}
          </select>
        </div>
        <div class="field">
          <label for="host-label-filter">Label (key=value)</label>
          <input
            id="host-label-filter"
            type="text"
            autoComplete="off"
            spellcheck={false}
            placeholder="env=prod"
            value={draft}
            onInput={(e) => setDraft(e.currentTarget.value)}
          />
        </div>
        <button type="submit">Add label filter</button>
      </form>
      {labels.length ? (
        <div class="toolbar">
          <span id="host-label-filters">Hosts with every label:</span>
          <ul class="chips" aria-labelledby="host-label-filters">
            {labels.map((l) => (
              <li key={l} class="chip chip-remove">
                <span>{l}</span>
                <button
                  type="button"
                  aria-label={`Remove the label filter ${l}`}
                  onClick={() => route(hrefOf({ ...filters, labels: labels.filter((x) => x !== l) }))}
                >
                  ×
                </button>
              </li>
            ))}
          </ul>
        </div>
      ) : null}
      <Outcome error={error} done={done} />
      <Status
        loading={list.loading && !list.data && !list.error}
        error={list.error ? `Could not list the hosts: ${errorText(list.error)}` : undefined}
      />
      {list.data && !hosts.length ? (
        <p>
          {filtered ? 'No host matches these filters.' : 'No host yet.'}
          {!filtered && admin ? (
            <>
              {' '}
              Create a <a href={REGISTRATION_TOKENS_PATH}>registration token</a>, then run the sidecar on a machine with
              it.
            </>
          ) : null}
        </p>
      ) : null}
      {hosts.length && !list.error ? (
        <ListTable
          caption="Hosts, by hostname"
          columns={[
            'Hostname',
            'Status',
            'Labels',
            'Connectivity',
            'Last heartbeat',
            'Agent',
            ...(admin ? ['Actions'] : []),
          ]}
        >
          {hosts.map((h) => (
            <tr key={h.id}>
              <th scope="row" class="cell-wrap">
                {h.hostname}
              </th>
              <td>{STATUS_LABELS[h.status] ?? h.status}</td>
              <td>
                <LabelChips labels={h.labels} label={`Labels of ${h.hostname}`} />
              </td>
              <td class="cell-wrap">
                {h.connectivity === 'gateway' ? (
                  <GatewayOf
                    id={h.gatewayId}
                    name={h.gatewayId ? gatewayName.get(h.gatewayId) : undefined}
                    loading={gateways.loading}
                  />
                ) : h.connectivity === 'direct' ? (
                  'direct'
                ) : (
                  <span class="muted">not said</span>
                )}
              </td>
              <td>
                <When iso={h.lastHeartbeatAt} />
              </td>
              <td class="cell-wrap">
                {h.agentVersion ?? <span class="muted">unknown</span>}
                {h.os || h.arch ? <div class="muted">{[h.os, h.arch].filter(Boolean).join(' / ')}</div> : null}
              </td>
              {admin ? (
                <td class="actions">
                  {h.status !== 'revoked' ? (
                    <ConfirmButton
                      label="Revoke"
                      accessibleLabel={`Revoke the host ${h.hostname}`}
                      question={`Revoke the host ${h.hostname}? Its credential stops working at once; the machine can only register again as a new host.`}
                      confirmLabel="Revoke"
                      onConfirm={() => revoke(h)}
                    />
                  ) : null}
                </td>
              ) : null}
            </tr>
          ))}
        </ListTable>
      ) : null}
      {cursor || list.data?.nextCursor ? (
        <nav class="pager" aria-label="Hosts pages">
          {cursor ? <a href={hrefOf(filters)}>First page</a> : null}
          {list.data?.nextCursor ? <a href={hrefOf({ ...filters, cursor: list.data.nextCursor })}>Next page</a> : null}
        </nav>
      ) : null}
    </Page>
  );
}
