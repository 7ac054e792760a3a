// Enrollment tokens of gateways (admins and owners): creation with a name and a lifetime (at most
// 7 days) (POST /v1/gateways/enrollment-tokens; the svc_gw_ token is shown once, to copy, with the gateway command
// that uses it), the list newest first with its status filter and cursor in the URL, revocation with a confirmation.
// A token enrolls one gateway, which then waits for approval on the gateways page.
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
import {
  expiresAtOf,
  expiryChoices,
  GATEWAYS_PATH,
  GatewaysNav,
  HowToUse,
  serverUrl,
} from '../../components/admin/fleet';
import { ListTable } from '../../components/list';
import { Page, Status } from '../../components/page';
import { isManager } from '../../roles';
import { useMe } from '../../session';
import type {
  Checked,
  EnrollmentToken,
  EnrollmentTokenCreated,
  EnrollmentTokenList,
  EnrollmentTokenStatus,
  ListsEvery,
} from '../../types';

const STATUSES = ['active', 'used', 'expired', 'revoked'] as const satisfies readonly EnrollmentTokenStatus[];
export type StatusesListed = Checked<ListsEvery<EnrollmentTokenStatus, typeof STATUSES>>;
const STATUS_LABELS: Record<string, string> = {
  active: 'Active',
  used: 'Used',
  expired: 'Expired',
  revoked: 'Revoked',
};
const EXPIRY = expiryChoices(7);

export default function EnrollmentTokens() {
  const me = useMe();
  const admin = isManager(me.member?.role);
  const { query } = useLocation();
  const status = oneOf(STATUSES, query.status);
  const { list, pager } = useUrlList<EnrollmentTokenList>('/gateways/enrollment-tokens', { status });

  const [name, setName] = useState('');
  const [expiry, setExpiry] = useState('1d');
  const [busy, setBusy] = useState(false);
  const [created, setCreated] = useState<{ token: string; name: string; expiresAt: string } | null>(null);
  const { error, done, setError, setDone, run } = useOutcome();
  const form = useFormError();

  const create = async (e: Event) => {
    e.preventDefault();
    setError(null);
    setDone(null);
    setCreated(null);
    form.clear();
    setBusy(true);
    try {
      const r = await api.post<EnrollmentTokenCreated>('/gateways/enrollment-tokens', {
        name: name.trim(),
        ...expiresAtOf(EXPIRY, expiry),
      });
      setCreated({ token: r.token, name: r.enrollmentToken.name, expiresAt: r.enrollmentToken.expiresAt });
      setName('');
      setExpiry('1d');
      list.reload();
    } catch (err) {
      form.fail(err);
    } finally {
      setBusy(false);
    }
  };
  const revoke = (t: EnrollmentToken) =>
    run(`Could not revoke the enrollment token ${t.name}`, async () => {
      await api.del(`/gateways/enrollment-tokens/${encodeURIComponent(t.id)}`);
      list.reload();
      return `The enrollment token ${t.name} was revoked: it enrolls no gateway.`;
    });

  const tokens = list.data?.enrollmentTokens ?? [];
  return (
    <Page title="Enrollment tokens">
      {admin ? <GatewaysNav /> : null}
      <p class="muted">
        An enrollment token lets one gateway enroll. The gateway then waits, pending, until an admin approves its
        network scope on the <a href={GATEWAYS_PATH}>gateways page</a>.
      </p>
      {admin ? (
        <form class="admin-form" aria-label="Create an enrollment token" onSubmit={create}>
          <div class="field">
            <label for="enroll-name">Name</label>
            <input
              id="enroll-name"
              type="text"
              required
              maxLength={200}
              autoComplete="off"
              value={name}
              onInput={(e) => setName(e.currentTarget.value)}
              {...form.input('name', 'enroll-name')}
            />
            {form.at('name', 'enroll-name')}
          </div>
          <div class="field">
            <label for="enroll-expiry">Valid for</label>
            <select id="enroll-expiry" value={expiry} onChange={(e) => setExpiry(e.currentTarget.value)}>
              {EXPIRY.map((c) => (
                <option key={c.value} value={c.value}>
                  {c.label}
                </option>
              ))}
            </select>
          </div>
          <button type="submit" class="primary" disabled={busy}>
            Create token
          </button>
        </form>
      ) : null}
      {created ? (
        <CopyOnce
          id="enrollment-token"
          label={`Enrollment token ${created.name}`}
          value={created.token}
          after={
            <>
              <HowToUse
                who="the gateway's user"
                command={`scanner gateway --server ${serverUrl()} --enrollment-token FILE --network-scope CIDR,...`}
              />
              <button type="button" onClick={() => setCreated(null)}>
                I have copied it
              </button>
            </>
          }
        >
          <p>
            <strong>Copy this token now: you will not see it again.</strong> It enrolls one gateway until{' '}
            <When iso={created.expiresAt} />.
          </p>
        </CopyOnce>
      ) : null}
      <Outcome
        error={
          error ?? (form.general(['name']) ? `Could not create the enrollment token: ${form.general(['name'])}` : null)
        }
        done={done}
      />
      <ListFilter
        form="Filter enrollment tokens"
        id="enroll-status-filter"
        label="Status"
        any="Every status"
        param="status"
        value={status}
        values={STATUSES}
        labels={STATUS_LABELS}
        query={pager.query}
      />
      <Status
        loading={list.loading && !list.data && !list.error}
        error={list.error ? errorText(list.error) : undefined}
      />
      {list.data && !tokens.length ? (
        <p>No enrollment token{status ? ` with the status ${STATUS_LABELS[status].toLowerCase()}` : ''}.</p>
      ) : null}
      {tokens.length ? (
        <ListTable
          caption="Enrollment tokens, newest first"
          columns={['Name', 'Status', 'Created', 'Expires', 'Actions']}
        >
          {tokens.map((t) => (
            <tr key={t.id}>
              <th scope="row" class="cell-wrap">
                {t.name}
              </th>
              <td>
                {STATUS_LABELS[t.status] ?? t.status}
                {t.status === 'used' && t.usedAt ? (
                  <div class="muted">
                    <When iso={t.usedAt} />
                  </div>
                ) : null}
                {t.status === 'revoked' && t.revokedAt ? (
                  <div class="muted">
                    <When iso={t.revokedAt} />
                  </div>
                ) : null}
              </td>
              <td>
                <When iso={t.createdAt} />
              </td>
              <td>
                <When iso={t.expiresAt} />
              </td>
              <td class="actions">
                {t.status === 'active' && admin ? (
                  <ConfirmButton
                    label="Revoke"
                    accessibleLabel={`Revoke the enrollment token ${t.name}`}
                    question={`Revoke the enrollment token ${t.name}? No gateway can enroll with it.`}
                    confirmLabel="Revoke"
                    onConfirm={() => revoke(t)}
                  />
                ) : null}
              </td>
            </tr>
          ))}
        </ListTable>
      ) : null}
      <Pager {...pager} label="Enrollment tokens" />
    </Page>
  );
}
