// One MCP server (GET /v1/mcp/servers/{id}, mcp:read): what it is (identity, names, transport, versions, clients,
// registry decision, usage), the hosts that configure it (host, client, config file, the name it has there, its
// version) and its issues (severity, code, message, tool, host, details such as advisory ids and the fixed version).
// Admins and owners allow or deny it: a registry entry for its identity (PUT /v1/mcp/registry/entries), keeping the
// versions and note of the entry it may already have; refusals are shown in the server's words.
import { useState } from 'preact/hooks';
import { useRoute } from 'preact-iso';
import { allPages, api } from '../../api';
import { SeverityBadge, When } from '../../components/bits';
import { errorText, Outcome, useOutcome } from '../../components/admin/common';
import { ListTable } from '../../components/list';
import {
  DecisionText,
  HostText,
  ISSUE_LABELS,
  MCP_REGISTRY_PATH,
  MCP_SERVERS_PATH,
  MCP_USAGE_PATH,
  McpNav,
  putRegistryEntry,
  sortIssues,
  usageText,
  useHostNames,
  versionsText,
} from '../../components/mcp/mcp';
import { Page, Status } from '../../components/page';
import { useLoad } from '../../hooks';
import { withQuery } from '../../paths';
import { isManager } from '../../roles';
import { useMe } from '../../session';
import type { McpDecision, McpIssue, McpPlacement, McpRegistryEntry, McpServerDetail, Severity } from '../../types';
import { SEVERITIES } from '../../types';

const DETAIL_LABELS: Record<string, string> = {
  ids: 'Advisories',
  fixedVersion: 'Fixed in',
  advisories: 'Advisories',
  aliases: 'Aliases',
};

/** An issue's details as text: arrays joined, objects as JSON text, never markup. */
function Details({ details }: { details?: Record<string, unknown> }) {
  const entries = Object.entries(details ?? {}).filter(([, v]) => v !== undefined && v !== null && v !== '');
  if (!entries.length) return <span class="muted">—</span>;
  const text = (v: unknown): string =>
    Array.isArray(v)
      ? v.map((x) => (typeof x === 'string' ? x : JSON.stringify(x))).join(', ')
      : typeof v === 'string'
        ? v
        : JSON.stringify(v);
  return (
    <ul class="mcp-issue-details">
      {entries.map(([k, v]) => (
        <li key={k}>
          {DETAIL_LABELS[k] ?? k}: {text(v)}
        </li>
      ))}
    </ul>
  );
}

/** The issues of the server (those of its placements, each with the host it was raised on), most severe first. */
const issuesOf = (s: McpServerDetail): McpIssue[] => sortIssues(s.issues);

export default function McpServerPage() {
  const { params } = useRoute();
  const id = params.id;
  const me = useMe();
  const admin = isManager(me.member?.role);
  const server = useLoad(
    (signal) => api.get<McpServerDetail>(`/mcp/servers/${encodeURIComponent(id)}`, undefined, signal),
    [id],
  );
  const s = server.data;
  // its registry entry (versions, note), kept when an admin allows or denies from here
  const registry = useLoad(
    () =>
      admin && s ? allPages<McpRegistryEntry>('/mcp/registry', 'entries') : Promise.resolve([] as McpRegistryEntry[]),
    [admin, s?.identity],
  );
  const entry = s ? (registry.data ?? []).find((e) => e.identity === s.identity) : undefined;
  const { names } = useHostNames();
  const { error, done, run } = useOutcome();
  const [busy, setBusy] = useState(false);

  const decide = (decision: McpDecision) =>
    run(`Could not ${decision} ${s!.identity}`, async () => {
      setBusy(true);
      try {
        await putRegistryEntry({
          identity: s!.identity,
          decision,
          versions: entry?.versions ?? null,
          note: entry?.note ?? null,
        });
      } finally {
        setBusy(false);
      }
      server.reload();
      registry.reload();
      return `${s!.identity} is now ${decision === 'allow' ? 'allowed' : 'denied'} by the registry (${versionsText(entry?.versions)} version${entry?.versions?.length === 1 ? '' : 's'}).`;
    });

  const title = s ? `MCP server ${s.names[0] ?? s.identity}` : 'MCP server';
  const issues = s ? issuesOf(s) : [];
  const hostIssues = (h: McpPlacement) => (h.issues ?? []).length;
  const severityCount = (sev: Severity) => issues.filter((i) => i.severity === sev).length;
  const decision = s?.registry?.decision ?? 'unreviewed';
  return (
    <Page title={title}>
      <McpNav />
      <p>
        <a href={MCP_SERVERS_PATH}>All MCP servers</a>
      </p>
      <Status
        loading={server.loading && !s && !server.error}
        error={server.error ? `Could not read the MCP server: ${errorText(server.error)}` : undefined}
      />
      {s && !server.error ? (
        <>
          <dl class="facts">
            <dt>Identity</dt>
            <dd class="mcp-identity">{s.identity}</dd>
            <dt>Names</dt>
            <dd>{s.names.join(', ')}</dd>
            <dt>Transport</dt>
            <dd>{s.transport}</dd>
            <dt>Versions</dt>
            <dd>{s.versions.length ? s.versions.join(', ') : <span class="muted">none</span>}</dd>
            <dt>Clients</dt>
            <dd>{s.clients.length ? s.clients.join(', ') : <span class="muted">none</span>}</dd>
            <dt>First seen</dt>
            <dd>
              <When iso={s.firstSeenAt} />
            </dd>
            <dt>Last seen</dt>
            <dd>
              <When iso={s.lastSeenAt} />
            </dd>
            <dt>Registry</dt>
            <dd>
              <DecisionText decision={decision} />
              {entry ? (
                <span class="muted">
                  {' '}
                  ({versionsText(entry.versions)} version{entry.versions?.length === 1 ? '' : 's'})
                </span>
              ) : null}
            </dd>
            <dt>Usage</dt>
            <dd>
              {usageText(s.usage)}
              {s.usage.lastCalledAt ? (
                <>
                  , last <When iso={s.usage.lastCalledAt} />
                </>
              ) : null}{' '}
              <a href={withQuery(MCP_USAGE_PATH, { serverId: s.id })}>Usage log of this server</a>
            </dd>
          </dl>
          {admin ? (
            <div class="actions" role="group" aria-label="Registry decision">
              <button
                type="button"
                class="primary"
                disabled={busy || decision === 'allow'}
                onClick={() => decide('allow')}
              >
                Allow
              </button>
              <button
                type="button"
                class="danger"
                disabled={busy || decision === 'deny'}
                onClick={() => decide('deny')}
              >
                Deny
              </button>
              <span class="muted">
                An entry for this identity in the <a href={MCP_REGISTRY_PATH}>registry</a>.
              </span>
            </div>
          ) : null}
          <Outcome error={error} done={done} />

          <section class="mcp-section" aria-labelledby="mcp-hosts-heading">
            <h2 id="mcp-hosts-heading">Hosts</h2>
            {s.hosts.length ? (
              <ListTable
                caption="Where this server is configured"
                columns={['Host', 'Client', 'Configuration file', 'Name there', 'Version', 'Seen', 'Issues']}
              >
                {s.hosts.map((h, i) => (
                  <tr key={`${h.hostId ?? h.reportedHostname}-${h.client}-${h.configPath}-${h.name}-${i}`}>
                    <th scope="row" class="cell-wrap">
                      <HostText id={h.hostId} reported={h.reportedHostname} names={names} />
                    </th>
                    <td>{h.client ?? <span class="muted">—</span>}</td>
                    <td class="cell-wrap">{h.configPath ?? <span class="muted">—</span>}</td>
                    <td class="cell-wrap">{h.name ?? <span class="muted">—</span>}</td>
                    <td class="cell-wrap">{h.version ?? <span class="muted">none</span>}</td>
                    <td>
                      <When iso={h.seenAt} />
                    </td>
                    <td>{h.issues ? hostIssues(h) : <span class="muted">—</span>}</td>
                  </tr>
                ))}
              </ListTable>
            ) : (
              <p>No host configures it now.</p>
            )}
          </section>

          <section class="mcp-section" aria-labelledby="mcp-issues-heading">
            <h2 id="mcp-issues-heading">Issues</h2>
            {issues.length ? (
              <>
                <p class="muted">{SEVERITIES.map((sev) => `${severityCount(sev)} ${sev}`).join(', ')}</p>
                <ListTable
                  caption="Issues, most severe first"
                  columns={['Severity', 'Issue', 'Message', 'Tool', 'Host', 'Details']}
                >
                  {issues.map((i, n) => (
                    <tr key={`${i.code}-${i.tool ?? ''}-${n}`}>
                      <td>
                        <SeverityBadge severity={i.severity} />
                      </td>
                      <th scope="row">
                        {ISSUE_LABELS[i.code] ?? i.code}
                        <div class="muted">
                          <code>{i.code}</code>
                        </div>
                      </th>
                      <td class="cell-wrap">{i.message}</td>
                      <td class="cell-wrap">{i.tool ?? <span class="muted">—</span>}</td>
                      <td class="cell-wrap">
                        <HostText id={i.hostId} reported={i.reportedHostname} names={names} />
                      </td>
                      <td>
                        <Details details={i.details} />
                      </td>
                    </tr>
                  ))}
                </ListTable>
              </>
            ) : (
              <p>No issue.</p>
            )}
          </section>
        </>
      ) : null}
    </Page>
  );
}
