// MCP servers: the organization's inventory (GET /v1/mcp/servers, mcp:read: every role reads it),
// ordered by identity, with its decision, issue and host filters and its cursor in the URL, so a reload or a shared
// link shows the same view; a filter the server refuses is shown in its words. Each server: identity (a link to its
// page), names, transport, versions, how many hosts configure it, clients, registry decision, issues by severity
// and usage counts.
import { useLocation } from 'preact-iso';
import { When } from '../../components/bits';
import { errorText, oneOf, Pager, useUrlList } from '../../components/admin/common';
import { ListTable } from '../../components/list';
import {
  DECISION_LABELS,
  DECISIONS,
  DecisionText,
  ISSUE_CODES,
  IssueSummary,
  McpNav,
  mcpServerPath,
  usageText,
  useHostNames,
} from '../../components/mcp/mcp';
import { Page, Status } from '../../components/page';
import { withQuery } from '../../paths';
import type { McpServerList } from '../../types';

export default function McpServers() {
  const { path, query, route } = useLocation();
  const decision = oneOf(DECISIONS, query.decision);
  // issue codes and host ids are sent as given: the server says what it refuses
  const issue = query.issue || undefined;
  const hostId = query.hostId || undefined;
  const { list, pager } = useUrlList<McpServerList>('/mcp/servers', { decision, issue, hostId });
  const { hosts } = useHostNames();
  const filters = pager.query;
  const set = (param: string, value: string) => route(withQuery(path, { ...filters, [param]: value || undefined }));
  const servers = list.data?.servers ?? [];
  const filtered = decision || issue || hostId;
  const knownIssue = !issue || ISSUE_CODES.some((c) => c.code === issue);
  const knownHost = !hostId || hosts.some((h) => h.id === hostId);
  return (
    <Page title="MCP servers">
      <McpNav />
      <form class="toolbar" role="search" aria-label="Filter MCP servers" onSubmit={(e) => e.preventDefault()}>
        <div class="field">
          <label for="mcp-decision-filter">Registry decision</label>
          <select
            id="mcp-decision-filter"
            value={decision ?? ''}
            onChange={(e) => set('decision', e.currentTarget.value)}
          >
            <option value="">Every decision</option>
            {DECISIONS.map((d) => (
              <option key={d} value={d}>
                {DECISION_LABELS[d]}
              </option>
            ))}
          </select>
        </div>
        <div class="field">
          <label for="mcp-issue-filter">Issue</label>
          <select id="mcp-issue-filter" value={issue ?? ''} onChange={(e) => set('issue', e.currentTarget.value)}>
            <option value="">Any or none</option>
            {ISSUE_CODES.map((c) => (
              <option key={c.code} value={c.code}>
                {c.label}
              </option>
            ))}
            {knownIssue ? null : <option value={issue}>{issue}</option>}
          </select>
        </div>
        <div class="field">
          <label for="mcp-host-filter">Host</label>
          <select id="mcp-host-filter" value={hostId ?? ''} onChange={(e) => set('hostId', e.currentTarget.value)}>
            <option value="">Every host</option>
            {hosts.map((h) => (
              <option key={h.id} value={h.id}>
                {h.hostname}
              </option>
            ))}
            {knownHost ? null : <option value={hostId}>{hostId}</option>}
          </select>
        </div>
      </form>
      <Status
        loading={list.loading && !list.data && !list.error}
        error={list.error ? `Could not list the MCP servers: ${errorText(list.error)}` : undefined}
      />
      {list.data && !servers.length && !list.error ? (
        <p>
          {filtered
            ? 'No MCP server matches these filters.'
            : 'No MCP server yet: run scanner mcp scan on a machine to report its configured servers.'}
        </p>
      ) : null}
      {servers.length && !list.error ? (
        <ListTable
          caption="MCP servers, by identity"
          columns={[
            'Identity',
            'Names',
            'Transport',
            'Versions',
            'Hosts',
            'Clients',
            'Registry',
            'Issues',
            'Usage',
            'Last seen',
          ]}
        >
          {servers.map((s) => (
            <tr key={s.id}>
              <th scope="row" class="mcp-identity">
                <a href={mcpServerPath(s.id)}>{s.identity}</a>
              </th>
              <td>
                <ul class="mcp-names" aria-label={`Names of ${s.identity}`}>
                  {s.names.map((n, i) => (
                    <li key={`${i}-${n}`}>{n}</li>
                  ))}
                </ul>
              </td>
              <td>{s.transport}</td>
              <td class="cell-wrap">{s.versions.length ? s.versions.join(', ') : <span class="muted">none</span>}</td>
              <td>{s.hosts}</td>
              <td class="cell-wrap">{s.clients.length ? s.clients.join(', ') : <span class="muted">none</span>}</td>
              <td>
                <DecisionText decision={s.registry?.decision} />
              </td>
              <td>
                <IssueSummary issues={s.issues} label={`Issues of ${s.identity}`} />
              </td>
              <td>
                {usageText(s.usage)}
                {s.usage.lastCalledAt ? (
                  <div class="muted">
                    last <When iso={s.usage.lastCalledAt} />
                  </div>
                ) : null}
              </td>
              <td>
                <When iso={s.lastSeenAt} />
              </td>
            </tr>
          ))}
        </ListTable>
      ) : null}
      <Pager {...pager} label="MCP servers" />
    </Page>
  );
}
