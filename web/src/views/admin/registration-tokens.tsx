// Registration tokens of hosts (admins and owners): creation with a name, a number of uses (1 to
// 10,000), a lifetime (at most 30 days) and labels given to every host it registers (POST
// /v1/hosts/registration-tokens; the svc_reg_ token is shown once, to copy, with the sidecar command that uses it);
// the list newest first with its status filter and cursor in the URL; revocation with a confirmation.
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
  HostsNav,
  HowToUse,
  LabelChips,
  parseLabelLines,
  serverUrl,
} from '../../components/admin/fleet';
import { ListTable } from '../../components/list';
import { Page, Status } from '../../components/page';
import { isManager } from '../../roles';
import { useMe } from '../../session';
import type {
  Checked,
  Labels,
  ListsEvery,
  RegistrationToken,
  RegistrationTokenCreated,
  RegistrationTokenList,
  RegistrationTokenStatus,
} from '../../types';

const STATUSES = ['active', 'exhausted', 'expired', 'revoked'] as const satisfies readonly RegistrationTokenStatus[];
export type StatusesListed = Checked<ListsEvery<RegistrationTokenStatus, typeof STATUSES>>;
const STATUS_LABELS: Record<string, string> = {
  active: 'Active',
  exhausted: 'Used up',
  expired: 'Expired',
  revoked: 'Revoked',
};
const MAX_USES = 10_000;
const EXPIRY = expiryChoices(30);

export default function RegistrationTokens() {
  const me = useMe();
  const admin = isManager(me.member?.role);
  const { query } = useLocation();
  const status = oneOf(STATUSES, query.status);
  const { list, pager } = useUrlList<RegistrationTokenList>('/hosts/registration-tokens', { status });

  const [name, setName] = useState('');
  const [uses, setUses] = useState('1');
  const [expiry, setExpiry] = useState('1d');
  const [labelText, setLabelText] = useState('');
  const [busy, setBusy] = useState(false);
  const [created, setCreated] = useState<{
    token: string;
    name: string;
    uses: number;
    expiresAt: string;
    labels: Labels;
  } | null>(null);
  const { error, done, setError, setDone, run } = useOutcome();
  const form = useFormError();

  const create = async (e: Event) => {
    e.preventDefault();
    setError(null);
    setDone(null);
    setCreated(null);
    form.clear();
    const n = Number(uses);
    if (uses.trim() === '' || !Number.isInteger(n) || n < 1 || n > MAX_USES)
      return form.set('uses', 'The uses must be a whole number from 1 to 10,000.');
    const parsed = parseLabelLines(labelText);
    if ('error' in parsed) return form.set('labels', parsed.error);
    setBusy(true);
    try {
      const body = {
        name: name.trim(),
        uses: n,
        ...expiresAtOf(EXPIRY, expiry),
        ...(Object.keys(parsed.labels).length ? { labels: parsed.labels } : {}),
      };
      const r = await api.post<RegistrationTokenCreated>('/hosts/registration-tokens', body);
      const t = r.registrationToken;
      setCreated({
        token: r.token,
        name: t.name,
        uses: t.uses ?? t.usesLeft,
        expiresAt: t.expiresAt,
        labels: t.labels,
      });
      setName('');
      setUses('1');
      setExpiry('1d');
      setLabelText('');
      list.reload();
    } catch (err) {
      form.fail(err);
    } finally {
      setBusy(false);
    }
  };
  const revoke = (t: RegistrationToken) =>
    run(`Could not revoke the registration token ${t.name}`, async () => {
      await api.del(`/hosts/registration-tokens/${encodeURIComponent(t.id)}`);
      list.reload();
      return `The registration token ${t.name} was revoked: it registers no more hosts. Hosts it registered keep working.`;
    });

  const tokens = list.data?.registrationTokens ?? [];
  return (
    <Page title="Registration tokens">
      {admin ? <HostsNav /> : null}
      <p class="muted">
        A registration token lets the sidecar register machines as hosts. Each registration takes one of its uses.
      </p>
      {admin ? (
        <form class="admin-form" aria-label="Create a registration token" onSubmit={create}>
          <div class="field">
            <label for="reg-name">Name</label>
            <input
              id="reg-name"
              type="text"
              required
              maxLength={200}
              autoComplete="off"
              value={name}
              onInput={(e) => setName(e.currentTarget.value)}
              {...form.input('name', 'reg-name')}
            />
            {form.at('name', 'reg-name')}
          </div>
          <div class="field">
            <label for="reg-uses">Uses (hosts it can register)</label>
            <input
              id="reg-uses"
              type="number"
              required
              min={1}
              max={MAX_USES}
              step={1}
              value={uses}
              onInput={(e) => setUses(e.currentTarget.value)}
              {...form.input('uses', 'reg-uses')}
            />
            {form.at('uses', 'reg-uses')}
          </div>
          <div class="field">
            <label for="reg-expiry">Valid for</label>
            <select id="reg-expiry" value={expiry} onChange={(e) => setExpiry(e.currentTarget.value)}>
              {EXPIRY.map((c) => (
                <option key={c.value} value={c.value}>
                  {c.label}
                </option>
              ))}
            </select>
          </div>
          <div class="field">
            <label for="reg-labels">Labels (optional, one key=value a line)</label>
            <textarea
              id="reg-labels"
              rows={3}
              cols={28}
              spellcheck={false}
              value={labelText}
              onInput={(e) => setLabelText(e.currentTarget.value)}
              {...form.input('labels', 'reg-labels', 'reg-labels-hint')}
            />
            {form.at('labels', 'reg-labels')}
          </div>
          <button type="submit" class="primary" disabled={busy}>
            Create token
          </button>
          <p id="reg-labels-hint" class="hint muted">
            Every host it registers gets these labels; they win over the labels the host sends.
          </p>
        </form>
      ) : null}
      {created ? (
        <CopyOnce
          id="registration-token"
          label={`Registration token ${created.name}`}
          value={created.token}
          after={
            <>
              <HowToUse
                who="the sidecar's user"
                command={`scanner sidecar --server ${serverUrl()} --registration-token FILE`}
              />
              <button type="button" onClick={() => setCreated(null)}>
                I have copied it
              </button>
            </>
          }
        >
          <p>
            <strong>Copy this token now: you will not see it again.</strong> It registers up to{' '}
            {created.uses === 1 ? 'one host' : `${created.uses} hosts`} until <When iso={created.expiresAt} />
            {Object.keys(created.labels).length ? ', with the labels below.' : '.'}
          </p>
          {Object.keys(created.labels).length ? (
            <LabelChips labels={created.labels} label={`Labels of the registration token ${created.name}`} />
          ) : null}
        </CopyOnce>
      ) : null}
      <Outcome
        error={
          error ??
          (form.general(['name', 'uses', 'labels'])
            ? `Could not create the registration token: ${form.general(['name', 'uses', 'labels'])}`
            : null)
        }
        done={done}
      />
      <ListFilter
        form="Filter registration tokens"
        id="reg-status-filter"
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
        <p>No registration token{status ? ` with the status ${STATUS_LABELS[status].toLowerCase()}` : ''}.</p>
      ) : null}
      {tokens.length ? (
        <ListTable
          caption="Registration tokens, newest first"
          columns={['Name', 'Status', 'Uses left', 'Labels', 'Created', 'Expires', 'Actions']}
        >
          {tokens.map((t) => (
            <tr key={t.id}>
              <th scope="row" class="cell-wrap">
                {t.name}
              </th>
              <td>
                {STATUS_LABELS[t.status] ?? t.status}
                {t.status === 'revoked' && t.revokedAt ? (
                  <div class="muted">
                    <When iso={t.revokedAt} />
                  </div>
                ) : null}
              </td>
              <td>
                {t.usesLeft}
                {t.uses !== undefined ? ` of ${t.uses}` : ''}
              </td>
              <td>
                <LabelChips labels={t.labels} label={`Labels of the registration token ${t.name}`} />
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
                    accessibleLabel={`Revoke the registration token ${t.name}`}
                    question={`Revoke the registration token ${t.name}? It registers no more hosts.`}
                    confirmLabel="Revoke"
                    onConfirm={() => revoke(t)}
                  />
                ) : null}
              </td>
            </tr>
          ))}
        </ListTable>
      ) : null}
      <Pager {...pager} label="Registration tokens" />
    </Page>
  );
}
