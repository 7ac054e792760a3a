// Gateways: the list ordered by name (GET /v1/gateways, gateways:read: every role reads it) with its
// status filter and cursor in the URL. Pending gateways come first in words: a notice counts them (with a link to
// them), their row shows the scope they asked for. Admins and owners approve a pending gateway (POST
// /v1/gateways/{id}/approval) with a form holding the requested CIDRs, editable to narrow them (the server refuses a
// CIDR outside the request with a 422, shown as it words it), and revoke a gateway (DELETE, with a confirmation).
import { Fragment } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
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
import { ENROLLMENT_TOKENS_PATH, GATEWAYS_PATH, GatewaysNav } from '../../components/admin/fleet';
import { ListTable } from '../../components/list';
import { Page, Status } from '../../components/page';
import { useLoad } from '../../hooks';
import { withQuery } from '../../paths';
import { isManager } from '../../roles';
import { useMe } from '../../session';
import type { Checked, Gateway, GatewayList, GatewayStatus, ListsEvery } from '../../types';

const STATUSES = ['pending', 'active', 'expired', 'revoked'] as const satisfies readonly GatewayStatus[];
export type StatusesListed = Checked<ListsEvery<GatewayStatus, typeof STATUSES>>;
const STATUS_LABELS: Record<string, string> = {
  pending: 'Pending approval',
  active: 'Active',
  expired: 'Expired',
  revoked: 'Revoked',
};

/** CIDRs typed one a line (commas and spaces separate too); the server checks each. */
const cidrsOf = (text: string): string[] => text.split(/[\s,]+/).filter(Boolean);

function Scope({ cidrs, label }: { cidrs: string[]; label: string }) {
  if (!cidrs.length) return <span class="muted">none</span>;
  return (
    <ul class="scope" aria-label={label}>
      {cidrs.map((c, i) => (
        <li key={`${i}-${c}`}>{c}</li>
      ))}
    </ul>
  );
}

/** The approval form of a pending gateway, in a row under its own: the requested CIDRs, editable, then Approve. */
function ApproveForm({
  gateway,
  columns,
  onApproved,
  onCancel,
}: {
  gateway: Gateway;
  columns: number;
  onApproved: (g: Gateway) => void;
  onCancel: () => void;
}) {
  const requested = gateway.requestedScope ?? gateway.networkScope;
  const [text, setText] = useState(requested.join('\n'));
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const area = useRef<HTMLTextAreaElement>(null);
  useEffect(() => area.current?.focus(), []);
  const id = `approve-scope-${gateway.id}`;
  const submit = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    setError(null);
    try {
      const approved = await api.post<Gateway>(`/gateways/${encodeURIComponent(gateway.id)}/approval`, {
        networkScope: cidrsOf(text),
      });
      onApproved(approved);
    } catch (err) {
      setError(`Could not approve the gateway ${gateway.name}: ${errorText(err)}`);
      area.current?.focus();
    } finally {
      setBusy(false);
    }
  };
  return (
    <tr class="approve-row">
      <td colSpan={columns}>
        <form
          class="approve-form"
          aria-label={`Approve the gateway ${gateway.name}`}
          onSubmit={submit}
          onKeyDown={(e) => e.key === 'Escape' && !busy && onCancel()}
        >
          <div class="field">
            <label for={id}>Network scope to approve (one CIDR a line)</label>
            <textarea
              id={id}
              ref={area}
              rows={Math.min(8, Math.max(2, requested.length + 1))}
              cols={34}
              spellcheck={false}
              aria-describedby={`${id}-hint`}
              value={text}
              onInput={(e) => setText(e.currentTarget.value)}
            />
          </div>
          <button type="submit" class="primary" disabled={busy}>
            Approve
          </button>
          <button type="button" disabled={busy} onClick={onCancel}>
            Cancel
          </button>
          <p id={`${id}-hint`} class="hint muted">
            It asked for {requested.join(', ')}. Each CIDR approved must lie within one of those: remove or narrow them
            to give it less.
          </p>
          {error ? (
            <p role="alert" class="error hint">
              {error}
            </p>
          ) : null}
        </form>
      </td>
    </tr>
  );
}

export default function Gateways() {
  const me = useMe();
  const admin = isManager(me.member?.role);
  const { query } = useLocation();
  const status = oneOf(STATUSES, query.status);
  const { list, pager } = useUrlList<GatewayList>('/gateways', { status });
  // how many wait for approval (up to a page of 200), unless the list shows only those
  const pending = useLoad(
    (signal) =>
      status === 'pending'
        ? Promise.resolve(null)
        : api.get<GatewayList>('/gateways', { status: 'pending', limit: 200 }, signal),
    [status, list.data],
  );
  const [approving, setApproving] = useState<string | null>(null);
  const returnFocus = useRef<string | null>(null);
  useEffect(() => {
    if (approving || !returnFocus.current) return;
    document.getElementById(returnFocus.current)?.focus();
    returnFocus.current = null;
  }, [approving]);
  const { error, done, setError, setDone, run } = useOutcome();

  const revoke = (g: Gateway) =>
    run(`Could not revoke the gateway ${g.name}`, async () => {
      await api.del(`/gateways/${encodeURIComponent(g.id)}`);
      if (approving === g.id) setApproving(null);
      list.reload();
      return `The gateway ${g.name} was revoked: its credential stops working now.`;
    });
  const open = (g: Gateway) => {
    setError(null);
    setDone(null);
    setApproving(g.id);
  };
  const close = (g: Gateway) => {
    returnFocus.current = `approve-${g.id}`;
    setApproving(null);
  };

  const gateways = list.data?.gateways ?? [];
  const waiting = pending.data?.gateways.length ?? 0;
  const columns = [
    'Name',
    'Status',
    'Network scope',
    'Version',
    'Last seen',
    'Enrolled',
    ...(admin ? ['Actions'] : []),
  ];
  return (
    <Page title="Gateways">
      {admin ? <GatewaysNav /> : null}
      {waiting ? (
        <p class="notice">
          {waiting === 1
            ? 'One gateway waits'
            : `${waiting}${pending.data?.nextCursor ? ' or more' : ''} gateways wait`}{' '}
          for approval{admin ? '' : ' by an admin'}.{' '}
          <a href={withQuery(GATEWAYS_PATH, { status: 'pending' })}>Show the pending gateways</a>
        </p>
      ) : null}
      <Outcome error={error} done={done} />
      <ListFilter
        form="Filter gateways"
        id="gateway-status-filter"
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
      {list.data && !gateways.length ? (
        <p>
          {status ? `No gateway with the status ${STATUS_LABELS[status].toLowerCase()}.` : 'No gateway yet.'}
          {!status && admin ? (
            <>
              {' '}
              Create an <a href={ENROLLMENT_TOKENS_PATH}>enrollment token</a>, then run the gateway with it.
            </>
          ) : null}
        </p>
      ) : null}
      {gateways.length ? (
        <ListTable caption="Gateways, by name" columns={columns}>
          {gateways.map((g) => {
            const requested = g.requestedScope ?? g.networkScope;
            const narrowed = !!g.approvedAt && requested.join(' ') !== g.networkScope.join(' ');
            return (
              <Fragment key={g.id}>
                <tr>
                  <th scope="row" class="cell-wrap">
                    {g.name}
                  </th>
                  <td>{STATUS_LABELS[g.status] ?? g.status}</td>
                  <td class="cell-wrap">
                    {g.approvedAt ? (
                      <>
                        <Scope cidrs={g.networkScope} label={`Approved scope of ${g.name}`} />
                        {narrowed ? (
                          <div class="muted">
                            requested: <span>{requested.join(', ')}</span>
                          </div>
                        ) : null}
                      </>
                    ) : (
                      <>
                        <span class="muted">requested:</span>
                        <Scope cidrs={requested} label={`Requested scope of ${g.name}`} />
                      </>
                    )}
                  </td>
                  <td class="cell-wrap">{g.version ?? <span class="muted">unknown</span>}</td>
                  <td>
                    <When iso={g.lastSeenAt} />
                  </td>
                  <td>
                    <When iso={g.enrolledAt} />
                  </td>
                  {admin ? (
                    <td class="actions">
                      {g.status === 'pending' && approving !== g.id ? (
                        <button
                          type="button"
                          id={`approve-${g.id}`}
                          aria-label={`Approve the gateway ${g.name}`}
                          onClick={() => open(g)}
                        >
                          Approve…
                        </button>
                      ) : null}
                      {g.status !== 'revoked' ? (
                        <ConfirmButton
                          label="Revoke"
                          accessibleLabel={`Revoke the gateway ${g.name}`}
                          question={`Revoke the gateway ${g.name}? Its credential stops working at once.`}
                          confirmLabel="Revoke"
                          onConfirm={() => revoke(g)}
                        />
                      ) : null}
                    </td>
                  ) : null}
                </tr>
                {admin && approving === g.id && g.status === 'pending' ? (
                  <ApproveForm
                    gateway={g}
                    columns={columns.length}
                    onCancel={() => close(g)}
                    onApproved={(a) => {
                      setApproving(null);
                      setDone(`The gateway ${a.name} was approved for ${a.networkScope.join(', ')}.`);
                      list.reload();
                    }}
                  />
                ) : null}
              </Fragment>
            );
          })}
        </ListTable>
      ) : null}
      <Pager {...pager} label="Gateways" />
    </Page>
  );
}
