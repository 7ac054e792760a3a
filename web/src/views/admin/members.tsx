// Members (GET /v1/members: owners first, then by email; paginated, the role filter and the cursor in the URL).
// Owners and admins change roles and remove members; the server enforces who may assign what (promoting to admin
// and changing an owner are owner-only, the last owner stays) and its refusal is shown as it says it. Anyone may
// leave (DELETE of their own member id).
import { useState } from 'preact/hooks';
import { useLocation } from 'preact-iso';
import { api } from '../../api';
import { When } from '../../components/bits';
import {
  ConfirmButton,
  errorText,
  ListFilter,
  oneOf,
  Outcome,
  Pager,
  useOutcome,
  useUrlList,
} from '../../components/admin/common';
import { ListTable, useSorted } from '../../components/list';
import { Page, Status } from '../../components/page';
import { paths } from '../../paths';
import { ASSIGNABLE_ROLES, isManager, ROLE_LABELS, ROLES } from '../../roles';
import { useMe, useSession } from '../../session';
import type { Member, MemberList } from '../../types';

const NONE: Member[] = [];
const time = (iso: string | null | undefined) => (iso ? Date.parse(iso) : null);

export default function Members() {
  const me = useMe();
  const { refresh } = useSession();
  const { query, route } = useLocation();
  const role = oneOf(ROLES, query.role);
  const { list, pager } = useUrlList<MemberList>('/members', { role });
  const { error, done, setError, setDone, run } = useOutcome();
  const [busyId, setBusyId] = useState<string | null>(null);
  const manager = isManager(me.member?.role);

  const changeRole = async (m: Member, to: string, select: HTMLSelectElement) => {
    setError(null);
    setDone(null);
    setBusyId(m.id);
    try {
      await api.patch<Member>(`/members/${encodeURIComponent(m.id)}`, { role: to });
      setDone(`${m.email} is now ${ROLE_LABELS[to] ?? to}.`);
      if (m.id === me.member?.id) await refresh();
      list.reload();
    } catch (e) {
      select.value = m.role; // the change did not happen
      setError(`Could not change the role of ${m.email}: ${errorText(e)}`);
    } finally {
      setBusyId(null);
    }
  };
  const remove = (m: Member) => {
    const leaving = m.id === me.member?.id;
    return run(leaving ? 'Could not leave the organization' : `Could not remove ${m.email}`, async () => {
      await api.del(`/members/${encodeURIComponent(m.id)}`);
      if (leaving) {
        await refresh();
        route(paths.home());
        return null;
      }
      list.reload();
      return `${m.email} was removed from the organization.`;
    });
  };

  const { rows: members, sort } = useSorted<Member>(list.data?.members ?? NONE, [
    (m) => m.email,
    (m) => ROLES.indexOf(m.role as (typeof ROLES)[number]),
    (m) => time(m.joinedAt),
    null,
  ]);
  return (
    <Page title="Members">
      <ListFilter
        form="Filter members"
        id="member-role-filter"
        label="Role"
        any="Every role"
        param="role"
        value={role}
        values={ROLES}
        labels={ROLE_LABELS}
        query={pager.query}
      />
      <Outcome error={error} done={done} />
      <Status loading={list.loading && !list.data} error={list.error ? errorText(list.error) : undefined} />
      {list.data && !members.length ? <p>No member{role ? ` with the role ${ROLE_LABELS[role]}` : ''}.</p> : null}
      {members.length ? (
        <ListTable
          caption="Members of the organization, owners first"
          columns={['Email', 'Role', 'Joined', 'Actions']}
          sort={sort}
        >
          {members.map((m) => {
            const self = m.id === me.member?.id;
            return (
              <tr key={m.id}>
                <th scope="row" class="cell-wrap">
                  {m.email}
                  {self ? <span class="muted"> (you)</span> : null}
                </th>
                <td>
                  {manager ? (
                    <select
                      aria-label={`Role of ${m.email}`}
                      value={m.role}
                      disabled={busyId === m.id}
                      onChange={(e) => {
                        const to = e.currentTarget.value;
                        if (to !== m.role) void changeRole(m, to, e.currentTarget);
                      }}
                    >
                      {m.role === 'owner' ? <option value="owner">{ROLE_LABELS.owner}</option> : null}
                      {ASSIGNABLE_ROLES.map((r) => (
                        <option key={r} value={r}>
                          {ROLE_LABELS[r]}
                        </option>
                      ))}
                    </select>
                  ) : (
                    (ROLE_LABELS[m.role] ?? m.role)
                  )}
                </td>
                <td>
                  <When iso={m.joinedAt} />
                </td>
                <td class="actions">
                  {self ? (
                    <ConfirmButton
                      label="Leave"
                      accessibleLabel="Leave the organization"
                      question="Leave the organization?"
                      confirmLabel="Leave"
                      onConfirm={() => remove(m)}
                    />
                  ) : manager ? (
                    <ConfirmButton
                      label="Remove"
                      accessibleLabel={`Remove ${m.email}`}
                      question={`Remove ${m.email}?`}
                      confirmLabel="Remove"
                      onConfirm={() => remove(m)}
                    />
                  ) : null}
                </td>
              </tr>
            );
          })}
        </ListTable>
      ) : null}
      <Pager {...pager} label="Members" />
      {manager ? (
        <p class="muted">
          Owners may promote to admin and change owners; the organization keeps at least one owner. New owners are
          invited: <a href={paths.invitations()}>Invitations</a>.
        </p>
      ) : null}
    </Page>
  );
}
