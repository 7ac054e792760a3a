// Pieces shared by the MCP pages: their paths and tabs, a server's issues counted by severity, a
// registry decision in words, the registry upsert (used by the server page and the registry page), and the names of
// hosts and members read once for the ids the API returns. The pure rules are in logic.ts (re-exported here).
// Text only: server names, identities, tool names, descriptions, notes and hostnames are user-controlled, each a
// text node.
import { useMemo } from 'preact/hooks';
import { allPages, api } from '../../api';
import { Counts } from '../bits';
import { SubNav } from '../admin/fleet';
import { useLoad } from '../../hooks';
import { BASE } from '../../paths';
import type { Host, McpDecision, McpIssues, McpRegistryEntries, McpRegistryEntry, Member } from '../../types';
import { SEVERITIES } from '../../types';
import { DECISION_LABELS, ISSUE_LABELS, issueCounts } from './logic';
import './mcp.css';

export * from './logic';

export const MCP_SERVERS_PATH = `${BASE}/mcp/servers`;
export const MCP_REGISTRY_PATH = `${BASE}/mcp/registry`;
export const MCP_USAGE_PATH = `${BASE}/mcp/usage`;
export const mcpServerPath = (id: string) => `${MCP_SERVERS_PATH}/${encodeURIComponent(id)}`;

/** The three MCP pages, each its own URL; the current one marked. */
export function McpNav() {
  return (
    <SubNav
      label="MCP pages"
      links={[
        { href: MCP_SERVERS_PATH, text: 'Servers' },
        { href: MCP_REGISTRY_PATH, text: 'Registry and control level' },
        { href: MCP_USAGE_PATH, text: 'Usage log' },
      ]}
    />
  );
}

/** Issue counts by severity (or by code when the severities are not known). */
export function IssueSummary({ issues, label }: { issues: McpIssues | null | undefined; label: string }) {
  const { counts, byCode } = issueCounts(issues);
  if (counts) {
    if (!SEVERITIES.some((s) => counts[s])) return <span class="muted">none</span>;
    return (
      <span role="group" aria-label={label}>
        <Counts counts={counts} />
      </span>
    );
  }
  return (
    <ul class="chips" aria-label={label}>
      {byCode.map(([c, n]) => (
        <li key={c} class="chip">
          {ISSUE_LABELS[c] ?? c}: {n}
        </li>
      ))}
    </ul>
  );
}

/** A registry decision in words (none: unreviewed). */
export function DecisionText({ decision }: { decision: string | null | undefined }) {
  const d = decision ?? 'unreviewed';
  return (
    <span class={`decision decision-${d === 'allow' || d === 'deny' ? d : 'unreviewed'}`}>
      {DECISION_LABELS[d] ?? d}
    </span>
  );
}

/** Upserts one registry entry by identity (PUT /v1/mcp/registry/entries); → the entry as stored. */
export async function putRegistryEntry(entry: {
  identity: string;
  versions: string[] | null;
  decision: McpDecision;
  note: string | null;
}): Promise<McpRegistryEntry | undefined> {
  const body = {
    identity: entry.identity,
    decision: entry.decision,
    ...(entry.versions ? { versions: entry.versions } : {}),
    ...(entry.note ? { note: entry.note } : {}),
  };
  const r = await api.call<McpRegistryEntries>('PUT', '/mcp/registry/entries', { body: { entries: [body] } });
  return r?.entries?.find((e) => e.identity === entry.identity) ?? r?.entries?.[0];
}

/** Hostnames by host id (hosts:read: every role), for the ids the MCP payloads return. */
export function useHostNames() {
  const hosts = useLoad(() => allPages<Host>('/hosts', 'hosts'), []);
  const names = useMemo(() => new Map((hosts.data ?? []).map((h) => [h.id, h.hostname])), [hosts.data]);
  return { hosts: hosts.data ?? [], names, loading: hosts.loading };
}

/** A host by its hostname once known, else its id, else the hostname the upload reported. */
export function HostText({
  id,
  reported,
  names,
}: {
  id?: string | null;
  reported?: string | null;
  names: Map<string, string>;
}) {
  if (id) return <>{names.get(id) ?? id}</>;
  if (reported)
    return (
      <>
        {reported} <span class="muted">(reported)</span>
      </>
    );
  return <span class="muted">unknown</span>;
}

/** Member emails by member id and by user id (every role reads the members), for `updatedBy`. */
export function useMemberEmails() {
  const members = useLoad(() => allPages<Member>('/members', 'members').catch(() => []), []);
  return useMemo(
    () =>
      new Map(
        (members.data ?? []).flatMap((m) => [
          [m.id, m.email] as const,
          ...(m.userId ? [[m.userId, m.email] as const] : []),
        ]),
      ),
    [members.data],
  );
}
