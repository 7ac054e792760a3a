// The audit trail (GET /v1/audit-events, owners and admins): newest first, a page at a time with the cursor in the
// URL, filtered by event type and by actor (both in the URL); each event's type, actor, target and time as text,
// with projects and API keys by name rather than id.
import { useMemo, useState } from 'preact/hooks';
import { useLocation } from 'preact-iso';
import { allPages } from '../../api';
import { When } from '../../components/bits';
import { errorText, ListFilter, Pager, useUrlList } from '../../components/admin/common';
import { ListTable } from '../../components/list';
import { Page, Status } from '../../components/page';
import { useLoad } from '../../hooks';
import { withQuery } from '../../paths';
import type { ApiKey, AuditEvent, AuditEventList, Project } from '../../types';

const TYPES: Record<string, string> = {
  'api_key.created': 'API key created',
  'api_key.revoked': 'API key revoked',
  'member.role_changed': 'Role changed',
  'member.removed': 'Member removed',
  'invitation.created': 'Invitation sent',
  'invitation.accepted': 'Invitation accepted',
  'invitation.revoked': 'Invitation revoked',
  'webhook.created': 'Webhook created',
  'webhook.deleted': 'Webhook deleted',
  'session.created': 'Signed in',
  'session.revoked': 'Signed out',
  'registration_token.created': 'Registration token created',
  'registration_token.revoked': 'Registration token revoked',
  'host.registered': 'Host registered',
  'host.reattested': 'Host re-attested',
  'host.revoked': 'Host revoked',
  'enrollment_token.created': 'Enrollment token created',
  'enrollment_token.revoked': 'Enrollment token revoked',
  'gateway.enrolled': 'Gateway enrolled',
  'gateway.approved': 'Gateway approved',
  'gateway.revoked': 'Gateway revoked',
  'mcp_registry.entries_upserted': 'MCP registry entries saved',
  'mcp_registry.entry_deleted': 'MCP registry entry removed',
  'mcp_control_level.changed': 'MCP control level changed',
  'project.default_branch_changed': 'Default branch changed',
};
const TYPE_VALUES = Object.keys(TYPES);

/** Names for the ids an event carries: projects by slug, API keys by name. */
interface Names {
  project(id: string): string;
  key(id: string): string | undefined;
}

function actorText(a: AuditEvent['actor']): string {
  if (a.email) return a.email;
  if (a.memberId) return `API key of member ${a.memberId}`;
  return 'unknown';
}

function value(v: unknown): string {
  if (v === null || v === undefined) return '—';
  if (Array.isArray(v)) return v.map(value).join(', ');
  if (typeof v === 'object') return JSON.stringify(v);
  return String(v);
}

/** The target's details, as "label: value" texts (names and emails are user-controlled: text nodes only). */
function targetDetails(t: AuditEvent['target'], names: Names): string[] {
  const out: string[] = [];
  if (t.from !== undefined || t.to !== undefined) out.push(`${value(t.from)} → ${value(t.to)}`);
  for (const [k, v] of Object.entries(t)) {
    if (k === 'kind' || k === 'id' || k === 'from' || k === 'to' || k === 'name') continue;
    if (k === 'projects' && Array.isArray(v))
      out.push(`projects: ${v.map((id) => names.project(String(id))).join(', ')}`);
    else out.push(`${k}: ${value(v)}`);
  }
  return out;
}

/** What the event acted on: its kind and name when known (an API key's, a project's), else its id. */
function targetName(t: AuditEvent['target'], names: Names): string | undefined {
  if (typeof t.name === 'string') return t.name;
  if (t.kind === 'api_key') return names.key(t.id);
  if (t.kind === 'project') return names.project(t.id);
  return undefined;
}

/** The actor filter: an email address, into the URL on submit. */
function ActorFilter({ value, query }: { value: string | undefined; query: Record<string, string | undefined> }) {
  const { path, route } = useLocation();
  const [text, setText] = useState(value ?? '');
  return (
    <form
      class="toolbar"
      role="search"
      aria-label="Filter the audit trail by actor"
      onSubmit={(e) => {
        e.preventDefault();
        route(withQuery(path, { ...query, actor: text.trim() || undefined }));
      }}
    >
      <div class="field">
        <label for="audit-actor">Actor (email)</label>
        <input
          id="audit-actor"
          type="email"
          value={text}
          autoComplete="off"
          onInput={(e) => setText(e.currentTarget.value)}
        />
      </div>
      <button type="submit">Filter</button>
      {value ? (
        <a href={withQuery(path, { ...query, actor: undefined })}>
          Every actor<span class="visually-hidden"> (clear the actor filter)</span>
        </a>
      ) : null}
    </form>
  );
}

export default function Audit() {
  const { query } = useLocation();
  const type = query.type || undefined; // an unknown one is the server's to refuse, in words
  const actor = query.actor || undefined;
  const { list, pager } = useUrlList<AuditEventList>('/audit-events', { type, actor });
  const projects = useLoad(() => allPages<Project>('/projects', 'projects'), []);
  const keys = useLoad(() => allPages<ApiKey>('/api-keys', 'apiKeys'), []);
  const names = useMemo<Names>(() => {
    const slug = new Map((projects.data ?? []).map((p) => [p.id, p.slug]));
    const key = new Map((keys.data ?? []).map((k) => [k.id, k.name]));
    return { project: (id) => slug.get(id) ?? id, key: (id) => key.get(id) };
  }, [projects.data, keys.data]);
  const events = list.data?.auditEvents ?? [];
  const filtered = !!(type || actor);
  return (
    <Page title="Audit trail">
      <div class="toolbar">
        <ListFilter
          form="Filter the audit trail by event"
          id="audit-type"
          label="Event"
          any="Every event"
          param="type"
          value={type}
          values={TYPE_VALUES}
          labels={TYPES}
          query={pager.query}
        />
        <ActorFilter key={actor ?? ''} value={actor} query={pager.query} />
      </div>
      <Status loading={list.loading && !list.data} error={list.error ? errorText(list.error) : undefined} />
      {list.data && !events.length ? <p>{filtered ? 'No event matches these filters.' : 'No event yet.'}</p> : null}
      {events.length ? (
        <ListTable caption="Audit events, newest first" columns={['Time', 'Event', 'Actor', 'Target']}>
          {events.map((e) => (
            <tr key={e.id}>
              <td>
                <When iso={e.at} />
              </td>
              <th scope="row">
                {TYPES[e.type] ?? e.type} <span class="muted">({e.type})</span>
              </th>
              <td class="cell-wrap">{actorText(e.actor)}</td>
              <td class="cell-wrap">
                <div>
                  {e.target.kind.replace(/_/g, ' ')} {targetName(e.target, names) ?? ''}{' '}
                  <code class="muted">{e.target.id}</code>
                </div>
                {targetDetails(e.target, names).map((d, i) => (
                  <div key={i} class="muted">
                    {d}
                  </div>
                ))}
              </td>
            </tr>
          ))}
        </ListTable>
      ) : null}
      <Pager {...pager} label="Audit trail" />
    </Page>
  );
}
