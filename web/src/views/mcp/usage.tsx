// The MCP usage log (GET /v1/mcp/usage-events, mcp:read: every role), newest first, read a page at a time ("Load
// more events"). Its filters live in the URL (server, host, tool, since, until), so a reload or a shared link shows
// the same view; the server checks them and a refusal is shown in its words. Each event: when it happened, the host,
// the client, the server, the tool, the phase (pre: asked before the call; post: reported after), the outcome and
// the decision given to a pre event. Raw tool arguments are never accepted by the API, so none is shown.
import { useEffect, useMemo, useState } from 'preact/hooks';
import { useLocation } from 'preact-iso';
import { allPages, api } from '../../api';
import { When } from '../../components/bits';
import { errorText } from '../../components/admin/common';
import { ListTable, MoreButton } from '../../components/list';
import { HostText, MCP_USAGE_PATH, McpNav, mcpServerPath, useHostNames } from '../../components/mcp/mcp';
import { Page, Status } from '../../components/page';
import { useLoad, usePages } from '../../hooks';
import { withQuery } from '../../paths';
import type { McpServer, McpUsageEvent, McpUsageList } from '../../types';

const PARAMS = ['serverId', 'hostId', 'tool', 'since', 'until'] as const;
type Filters = Partial<Record<(typeof PARAMS)[number], string>>;

const OUTCOME_LABELS: Record<string, string> = { ok: 'ok', error: 'error', blocked: 'blocked' };
const PHASE_LABELS: Record<string, string> = { pre: 'pre (before the call)', post: 'post (after the call)' };

function Decision({ e }: { e: McpUsageEvent }) {
  const d = e.decision;
  if (!d) return <span class="muted">—</span>;
  return (
    <>
      <span class={`decision-${d.decision}`}>{d.decision}</span>
      {d.reason ? <div class="muted cell-wrap">{d.reason}</div> : null}
    </>
  );
}

export default function McpUsage() {
  const { query, route } = useLocation();
  const filters: Filters = {};
  for (const p of PARAMS) if (query[p]) filters[p] = query[p];
  const key = JSON.stringify(filters);
  const [draft, setDraft] = useState<Filters>(filters);
  useEffect(() => setDraft(filters), [key]);
  const events = usePages<McpUsageEvent>(key, async (cursor, signal) => {
    const r = await api.get<McpUsageList>('/mcp/usage-events', { ...filters, cursor }, signal);
    return { items: r.events, nextCursor: r.nextCursor };
  });
  const { hosts, names } = useHostNames();
  const servers = useLoad(() => allPages<McpServer>('/mcp/servers', 'servers'), []);
  const serverById = useMemo(() => new Map((servers.data ?? []).map((s) => [s.id, s])), [servers.data]);

  const apply = (f: Filters) => {
    const clean: Record<string, string | undefined> = {};
    for (const p of PARAMS) clean[p] = f[p]?.trim() || undefined;
    route(withQuery(MCP_USAGE_PATH, clean));
  };
  const choose = (p: 'serverId' | 'hostId', v: string) => apply({ ...draft, [p]: v });
  const filtered = Object.keys(filters).length > 0;
  const serverLabel = (s: McpServer) => `${s.names[0] ?? s.identity} (${s.identity})`;

  return (
    <Page title="MCP usage">
      <McpNav />
      <form
        class="toolbar"
        role="search"
        aria-label="Filter MCP usage events"
        onSubmit={(e) => {
          e.preventDefault();
          apply(draft);
        }}
      >
        <div class="field">
          <label for="mcp-usage-server">Server</label>
          <select
            id="mcp-usage-server"
            value={draft.serverId ?? ''}
            onChange={(e) => choose('serverId', e.currentTarget.value)}
          >
            <option value="">Every server</option>
            {(servers.data ?? []).map((s) => (
              <option key={s.id} value={s.id}>
                {serverLabel(s)}
              </option>
            ))}
            {draft.serverId && !serverById.has(draft.serverId) ? (
              <option value={draft.serverId}>{draft.serverId}</option>
            ) : null}
          </select>
        </div>
        <div class="field">
          <label for="mcp-usage-host">Host</label>
          <select
            id="mcp-usage-host"
            value={draft.hostId ?? ''}
            onChange={(e) => choose('hostId', e.currentTarget.value)}
          >
            <option value="">Every host</option>
            {hosts.map((h) => (
              <option key={h.id} value={h.id}>
                {h.hostname}
              </option>
            ))}
            {draft.hostId && !names.has(draft.hostId) ? <option value={draft.hostId}>{draft.hostId}</option> : null}
          </select>
        </div>
        <div class="field">
          <label for="mcp-usage-tool">Tool</label>
          <input
            id="mcp-usage-tool"
            type="text"
            autoComplete="off"
            spellcheck={false}
            value={draft.tool ?? ''}
            onInput={(e) => setDraft({ ...draft, tool: e.currentTarget.value })}
          />
        </div>
        <div class="field">
          <label for="mcp-usage-since">Since (UTC, ISO 8601)</label>
          <input
            id="mcp-usage-since"
            type="text"
            autoComplete="off"
            spellcheck={false}
            placeholder="2026-01-31T09:00:00Z"
            value={draft.since ?? ''}
            onInput={(e) => setDraft({ ...draft, since: e.currentTarget.value })}
          />
        </div>
        <div class="field">
          <label for="mcp-usage-until">Until (UTC, ISO 8601)</label>
          <input
            id="mcp-usage-until"
            type="text"
            autoComplete="off"
            spellcheck={false}
            placeholder="2026-01-31T18:00:00Z"
            value={draft.until ?? ''}
            onInput={(e) => setDraft({ ...draft, until: e.currentTarget.value })}
          />
        </div>
        <button type="submit">Apply filters</button>
        {filtered ? <a href={MCP_USAGE_PATH}>Clear filters</a> : null}
      </form>
      <Status
        loading={events.loading && !events.loaded && !events.error}
        error={events.error ? `Could not list the usage events: ${errorText(events.error)}` : undefined}
      />
      {events.loaded && !events.items.length && !events.error ? (
        <p>{filtered ? 'No usage event matches these filters.' : 'No usage event yet.'}</p>
      ) : null}
      {events.items.length && !(events.error && !events.cursor) ? (
        <ListTable
          caption="MCP usage events, newest first"
          columns={['Time', 'Host', 'Client', 'Server', 'Tool', 'Phase', 'Outcome', 'Decision']}
        >
          {events.items.map((e) => {
            const serverId = e.serverId;
            const known = serverId ? serverById.get(serverId) : undefined;
            const name = e.serverName ?? known?.names[0] ?? null;
            const identity = e.identity ?? known?.identity ?? null;
            return (
              <tr key={e.id}>
                <th scope="row">
                  <When iso={e.occurredAt} />
                </th>
                <td class="cell-wrap">
                  <HostText id={e.hostId} reported={e.reportedHostname} names={names} />
                </td>
                <td>{e.client}</td>
                <td class="cell-wrap">
                  {serverId ? (
                    <a href={mcpServerPath(serverId)}>{name ?? identity ?? serverId}</a>
                  ) : (
                    (name ?? <span class="muted">unknown</span>)
                  )}
                  {identity && name ? <div class="muted mcp-identity">{identity}</div> : null}
                </td>
                <td class="cell-wrap">{e.tool}</td>
                <td>{PHASE_LABELS[e.phase] ?? e.phase}</td>
                <td>{e.outcome ? (OUTCOME_LABELS[e.outcome] ?? e.outcome) : <span class="muted">—</span>}</td>
                <td>
                  <Decision e={e} />
                </td>
              </tr>
            );
          })}
        </ListTable>
      ) : null}
      <MoreButton pages={events} label="Load more events" />
    </Page>
  );
}
