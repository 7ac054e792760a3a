// Invitations: invite by email and role (POST /v1/invitations; the invite link is shown once, to copy), the list
// newest first with its status filter and cursor in the URL (GET /v1/invitations), revocation of pending ones.
// Inviting as admin or owner is owner-only: admins are offered member and auditor, and the server decides anyway.
import { useState } from 'preact/hooks';
import { useLocation } from 'preact-iso';
import { api } from '../../api';
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
import { ListTable, useSorted } from '../../components/list';
import { Page, Status } from '../../components/page';
import { invitableRoles, ROLE_LABELS } from '../../roles';
import { useMe } from '../../session';
import type { Checked, Invitation, InvitationCreated, InvitationList, ListsEvery } from '../../types';

const STATUSES = ['pending', 'accepted', 'revoked', 'expired'] as const satisfies readonly Invitation['status'][];
export type StatusesListed = Checked<ListsEvery<Invitation['status'], typeof STATUSES>>;
const STATUS_LABELS: Record<string, string> = {
  pending: 'Pending',
  accepted: 'Accepted',
  revoked: 'Revoked',
  expired: 'Expired',
};

const NONE: Invitation[] = [];
const time = (iso: string | null | undefined) => (iso ? Date.parse(iso) : null);

export default function Invitations() {
  const me = useMe();
  const { query } = useLocation();
  const status = oneOf(STATUSES, query.status);
  const { list, pager } = useUrlList<InvitationList>('/invitations', { status });
  const owner = me.member?.role === 'owner';
  const roles = invitableRoles(me.member?.role);
  const [email, setEmail] = useState('');
  const [role, setRole] = useState('member');
  const [busy, setBusy] = useState(false);
  const [created, setCreated] = useState<{ email: string; role: string; inviteUrl: string } | null>(null);
  const { error, done, setError, setDone, run } = useOutcome();
  const form = useFormError();

  const invite = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    setError(null);
    setDone(null);
    setCreated(null);
    form.clear();
    try {
      const r = await api.post<InvitationCreated>('/invitations', { email: email.trim(), role });
      setCreated({ email: r.invitation.email, role: r.invitation.role, inviteUrl: r.inviteUrl });
      setEmail('');
      list.reload();
    } catch (err) {
      form.fail(err);
    } finally {
      setBusy(false);
    }
  };
  const revoke = (i: Invitation) =>
    run(`Could not revoke the invitation of ${i.email}`, async () => {
      await api.del(`/invitations/${encodeURIComponent(i.id)}`);
      list.reload();
      return `The invitation of ${i.email} was revoked.`;
    });

  const { rows: invitations, sort } = useSorted<Invitation>(list.data?.invitations ?? NONE, [
    (i) => i.email,
    (i) => i.role,
    (i) => i.status,
    (i) => time(i.createdAt),
    (i) => time(i.expiresAt),
    null,
  ]);
  return (
    <Page title="Invitations">
      <form class="admin-form" aria-label="Invite someone" onSubmit={invite}>
        <div class="field">
          <label for="invite-email">Email address</label>
          <input
            id="invite-email"
            type="email"
            required
            autoComplete="off"
            value={email}
            onInput={(e) => setEmail(e.currentTarget.value)}
            {...form.input('email', 'invite-email')}
          />
          {form.at('email', 'invite-email')}
        </div>
        <div class="field">
          <label for="invite-role">Role</label>
          <select id="invite-role" value={role} onChange={(e) => setRole(e.currentTarget.value)}>
            {roles.map((r) => (
              <option key={r} value={r}>
                {ROLE_LABELS[r]}
              </option>
            ))}
          </select>
        </div>
        <button type="submit" class="primary" disabled={busy}>
          Invite
        </button>
        {!owner ? <p class="hint muted">Only owners invite admins and owners.</p> : null}
      </form>
      {created ? (
        <CopyOnce id="invite-url" label={`Invitation link for ${created.email}`} value={created.inviteUrl}>
          <p>
            <strong>Send this link to {created.email}</strong> ({ROLE_LABELS[created.role] ?? created.role}). It is
            shown only now and works once, for 7 days, for that email address.
          </p>
        </CopyOnce>
      ) : null}
      <Outcome
        error={
          error ?? (form.general(['email']) ? `Could not invite ${email.trim()}: ${form.general(['email'])}` : null)
        }
        done={done}
      />
      <ListFilter
        form="Filter invitations"
        id="invitation-status-filter"
        label="Status"
        any="Every status"
        param="status"
        value={status}
        values={STATUSES}
        labels={STATUS_LABELS}
        query={pager.query}
      />
      <Status loading={list.loading && !list.data} error={list.error ? errorText(list.error) : undefined} />
      {list.data && !invitations.length ? (
        <p>No invitation{status ? ` with the status ${STATUS_LABELS[status].toLowerCase()}` : ''}.</p>
      ) : null}
      {invitations.length ? (
        <ListTable
          caption="Invitations, newest first"
          columns={['Email', 'Role', 'Status', 'Sent', 'Expires', 'Actions']}
          sort={sort}
        >
          {invitations.map((i) => (
            <tr key={i.id}>
              <th scope="row" class="cell-wrap">
                {i.email}
              </th>
              <td>{ROLE_LABELS[i.role] ?? i.role}</td>
              <td>
                {STATUS_LABELS[i.status] ?? i.status}
                {i.status === 'accepted' && i.acceptedAt ? (
                  <div class="muted">
                    <When iso={i.acceptedAt} />
                  </div>
                ) : null}
                {i.status === 'revoked' && i.revokedAt ? (
                  <div class="muted">
                    <When iso={i.revokedAt} />
                  </div>
                ) : null}
              </td>
              <td>
                <When iso={i.createdAt} />
              </td>
              <td>
                <When iso={i.expiresAt} />
              </td>
              <td class="actions">
                {i.status === 'pending' ? (
                  <ConfirmButton
                    label="Revoke"
                    accessibleLabel={`Revoke the invitation of ${i.email}`}
                    question={`Revoke the invitation of ${i.email}?`}
                    confirmLabel="Revoke"
                    onConfirm={() => revoke(i)}
                  />
                ) : null}
              </td>
            </tr>
          ))}
        </ListTable>
      ) : null}
      <Pager {...pager} label="Invitations" />
    </Page>
  );
}
