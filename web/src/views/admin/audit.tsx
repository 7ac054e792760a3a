// The audit trail (GET /v1/audit-events, owners and admins): newest first, a page at a time with the cursor in the
// URL; each event's type, actor, target and time as text.
import { When } from '../../components/bits';
import { errorText, Pager, useUrlList } from '../../components/admin/common';
import { ListTable } from '../../components/list';
import { Page, Status } from '../../components/page';
import type { AuditEvent, AuditEventList } from '../../types';

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
};

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
function targetDetails(t: AuditEvent['target']): string[] {
  const out: string[] = [];
  if (t.from !== undefined || t.to !== undefined) out.push(`${value(t.from)} → ${value(t.to)}`);
  for (const [k, v] of Object.entries(t)) {
    if (k === 'kind' || k === 'id' || k === 'from' || k === 'to') continue;
    out.push(`${k}: ${value(v)}`);
  }
  return out;
}

export default function Audit() {
  const { list, pager } = useUrlList<AuditEventList>('/audit-events', {});
  const events = list.data?.auditEvents ?? [];
  return (
    <Page title="Audit trail">
      <Status loading={list.loading && !list.data} error={list.error ? errorText(list.error) : undefined} />
      {list.data && !events.length ? <p>No event yet.</p> : null}
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
                  {e.target.kind} <code>{e.target.id}</code>
                </div>
                {targetDetails(e.target).map((d, i) => (
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
