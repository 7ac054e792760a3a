// The MCP registry and the control level, one page.
// - Control level (GET /v1/mcp/control-level, every role): observe, warn or block, with what each means for the
//   decisions given to `pre` usage events. The owner changes it (PUT, owner only); the others read it.
// - Registry (GET /v1/mcp/registry, every role; its cursor in the URL): entries with identity, versions (or any),
//   decision, note, who changed it and when. Admins and owners add or update an entry (PUT upserts by identity:
//   identity, versions comma-separated, decision, note), edit one (the form takes its values) and remove one
//   (DELETE, with a confirmation). Members and auditors see the list read-only. Refusals are shown in the server's
//   words.
import { Fragment } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import { api } from '../../api';
import { When } from '../../components/bits';
import { ConfirmButton, errorText, Outcome, Pager, useOutcome, useUrlList } from '../../components/admin/common';
import { ListTable } from '../../components/list';
import {
  DecisionText,
  LEVELS,
  McpNav,
  parseVersions,
  putRegistryEntry,
  useMemberEmails,
  versionsText,
} from '../../components/mcp/mcp';
import { Page, Status } from '../../components/page';
import { useLoad } from '../../hooks';
import { isManager } from '../../roles';
import { useMe } from '../../session';
import type { McpControlLevel, McpControlLevelName, McpDecision, McpRegistryEntry, McpRegistryList } from '../../types';

function ControlLevel({ owner }: { owner: boolean }) {
  const current = useLoad((signal) => api.get<McpControlLevel>('/mcp/control-level', undefined, signal), []);
  const emails = useMemberEmails();
  const [chosen, setChosen] = useState<McpControlLevelName | null>(null);
  const [busy, setBusy] = useState(false);
  const { error, done, setError, setDone } = useOutcome();
  const level = current.data?.level;
  useEffect(() => {
    if (level) setChosen(level);
  }, [level]);
  const save = async (e: Event) => {
    e.preventDefault();
    if (!chosen) return;
    setBusy(true);
    setError(null);
    setDone(null);
    try {
      const r = await api.call<McpControlLevel>('PUT', '/mcp/control-level', { body: { level: chosen } });
      current.reload();
      setDone(`The control level is now ${LEVELS.find((l) => l.level === (r?.level ?? chosen))?.label.toLowerCase()}.`);
    } catch (err) {
      setError(`Could not change the control level: ${errorText(err)}`);
    } finally {
      setBusy(false);
    }
  };
  const info = LEVELS.find((l) => l.level === level);
  return (
    <section class="mcp-level" aria-labelledby="mcp-level-heading">
      <h2 id="mcp-level-heading">Control level</h2>
      <Status
        loading={current.loading && !current.data && !current.error}
        error={current.error ? `Could not read the control level: ${errorText(current.error)}` : undefined}
      />
      {info ? (
        <p id="mcp-level-now">
          Now: <strong>{info.label}</strong>. {info.means}
          {current.data?.updatedAt ? (
            <span class="muted">
              {' '}
              Changed <When iso={current.data.updatedAt} />
              {current.data.updatedBy ? ` by ${emails.get(current.data.updatedBy) ?? current.data.updatedBy}` : ''}.
            </span>
          ) : null}
        </p>
      ) : null}
      {owner && level ? (
        <form aria-label="Change the control level" onSubmit={save}>
          <fieldset>
            <legend>Level</legend>
            {LEVELS.map((l) => (
              <label key={l.level} class="check">
                <input
                  type="radio"
                  name="mcp-level"
                  value={l.level}
                  checked={chosen === l.level}
                  aria-describedby={`mcp-level-${l.level}-means`}
                  onChange={() => setChosen(l.level)}
                />
                <span>
                  <strong>{l.label}</strong> <span id={`mcp-level-${l.level}-means`}>{l.means}</span>
                </span>
              </label>
            ))}
          </fieldset>
          <button type="submit" class="primary" disabled={busy || chosen === level}>
            Change level
          </button>
        </form>
      ) : level ? (
        <>
          <dl>
            {LEVELS.filter((l) => l.level !== level).map((l) => (
              <Fragment key={l.level}>
                <dt>{l.label}</dt>
                <dd>{l.means}</dd>
              </Fragment>
            ))}
          </dl>
          <p class="muted">Only an owner changes the control level.</p>
        </>
      ) : null}
      <Outcome error={error} done={done} />
    </section>
  );
}

interface Draft {
  identity: string;
  versions: string;
  decision: McpDecision;
  note: string;
}
const EMPTY: Draft = { identity: '', versions: '', decision: 'allow', note: '' };

export default function McpRegistry() {
  const me = useMe();
  const role = me.member?.role;
  const admin = isManager(role);
  const { list, pager } = useUrlList<McpRegistryList>('/mcp/registry', {});
  const emails = useMemberEmails();
  const [draft, setDraft] = useState<Draft>(EMPTY);
  const [editing, setEditing] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const { error, done, setError, setDone, run } = useOutcome();
  const identityRef = useRef<HTMLInputElement>(null);

  const save = async (e: Event) => {
    e.preventDefault();
    setError(null);
    setDone(null);
    setBusy(true);
    try {
      const identity = draft.identity.trim();
      const versions = parseVersions(draft.versions);
      const stored = await putRegistryEntry({
        identity,
        versions,
        decision: draft.decision,
        note: draft.note.trim() || null,
      });
      setDraft(EMPTY);
      setEditing(null);
      list.reload();
      setDone(
        `${stored?.identity ?? identity} is ${(stored?.decision ?? draft.decision) === 'allow' ? 'allowed' : 'denied'} (${versionsText(stored ? stored.versions : versions)} version${(stored ? stored.versions : versions)?.length === 1 ? '' : 's'}).`,
      );
    } catch (err) {
      setError(`Could not save the entry: ${errorText(err)}`);
      identityRef.current?.focus();
    } finally {
      setBusy(false);
    }
  };
  const edit = (en: McpRegistryEntry) => {
    setError(null);
    setDone(null);
    setEditing(en.id);
    setDraft({
      identity: en.identity,
      versions: (en.versions ?? []).join(', '),
      decision: en.decision,
      note: en.note ?? '',
    });
    identityRef.current?.focus();
  };
  const remove = (en: McpRegistryEntry) =>
    run(`Could not remove the entry of ${en.identity}`, async () => {
      await api.del(`/mcp/registry/entries/${encodeURIComponent(en.id)}`);
      if (editing === en.id) {
        setEditing(null);
        setDraft(EMPTY);
      }
      list.reload();
      return `The entry of ${en.identity} was removed: the server is unreviewed unless another entry matches.`;
    });

  const entries = list.data?.entries ?? [];
  return (
    <Page title="MCP registry">
      <McpNav />
      <ControlLevel owner={role === 'owner'} />
      <h2>Registry</h2>
      <p class="muted">
        An entry allows or denies the servers of one identity, for the versions it lists or any version. A server no
        entry allows is unreviewed.
        {admin ? '' : ' Admins and owners change the entries.'}
      </p>
      {admin ? (
        <form
          class="admin-form"
          aria-label="Add or update a registry entry"
          onSubmit={save}
          onKeyDown={(e) => e.key === 'Escape' && editing && !busy && (setEditing(null), setDraft(EMPTY))}
        >
          <div class="field">
            <label for="mcp-entry-identity">Identity</label>
            <input
              id="mcp-entry-identity"
              ref={identityRef}
              class="wide"
              type="text"
              required
              autoComplete="off"
              spellcheck={false}
              placeholder="pkg:npm/%40scope/server"
              value={draft.identity}
              onInput={(e) => setDraft({ ...draft, identity: e.currentTarget.value })}
            />
          </div>
          <div class="field">
            <label for="mcp-entry-versions">Versions (comma-separated; empty: any)</label>
            <input
              id="mcp-entry-versions"
              type="text"
              autoComplete="off"
              spellcheck={false}
              placeholder="1.2.0, 1.3.0"
              value={draft.versions}
              onInput={(e) => setDraft({ ...draft, versions: e.currentTarget.value })}
            />
          </div>
          <div class="field">
            <label for="mcp-entry-decision">Decision</label>
            <select
              id="mcp-entry-decision"
              value={draft.decision}
              onChange={(e) => setDraft({ ...draft, decision: e.currentTarget.value as McpDecision })}
            >
              <option value="allow">Allow</option>
              <option value="deny">Deny</option>
            </select>
          </div>
          <div class="field">
            <label for="mcp-entry-note">Note (optional)</label>
            <textarea
              id="mcp-entry-note"
              class="mcp-note"
              rows={2}
              value={draft.note}
              onInput={(e) => setDraft({ ...draft, note: e.currentTarget.value })}
            />
          </div>
          <button type="submit" class="primary" disabled={busy}>
            {editing ? 'Update entry' : 'Save entry'}
          </button>
          {editing ? (
            <button
              type="button"
              disabled={busy}
              onClick={() => {
                setEditing(null);
                setDraft(EMPTY);
              }}
            >
              Cancel
            </button>
          ) : null}
          <p class="hint muted">Saving an identity that has an entry replaces that entry.</p>
        </form>
      ) : null}
      <Outcome error={error} done={done} />
      <Status
        loading={list.loading && !list.data && !list.error}
        error={list.error ? `Could not list the registry: ${errorText(list.error)}` : undefined}
      />
      {list.data && !entries.length ? <p>No registry entry yet: every server is unreviewed.</p> : null}
      {entries.length ? (
        <ListTable
          caption="Registry entries, by identity"
          columns={['Identity', 'Versions', 'Decision', 'Note', 'Updated by', 'Updated', ...(admin ? ['Actions'] : [])]}
        >
          {entries.map((en) => (
            <tr key={en.id}>
              <th scope="row" class="mcp-identity">
                {en.identity}
              </th>
              <td class="cell-wrap">{versionsText(en.versions)}</td>
              <td>
                <DecisionText decision={en.decision} />
              </td>
              <td class="cell-wrap">{en.note ?? <span class="muted">—</span>}</td>
              <td class="cell-wrap">
                {en.updatedBy ? (emails.get(en.updatedBy) ?? en.updatedBy) : <span class="muted">—</span>}
              </td>
              <td>
                <When iso={en.updatedAt} />
              </td>
              {admin ? (
                <td class="actions">
                  <button type="button" aria-label={`Edit the entry of ${en.identity}`} onClick={() => edit(en)}>
                    Edit
                  </button>
                  <ConfirmButton
                    label="Remove"
                    accessibleLabel={`Remove the entry of ${en.identity}`}
                    question={`Remove the entry of ${en.identity}?`}
                    confirmLabel="Remove"
                    onConfirm={() => remove(en)}
                  />
                </td>
              ) : null}
            </tr>
          ))}
        </ListTable>
      ) : null}
      <Pager {...pager} label="Registry entries" />
    </Page>
  );
}
