// Triage of alerts (docs/triage.md): an alert's analysis in words (who decided what, when, until when; an expired one
// says so), the triage form (state, justification, responses, detail, expiry, the versions it covers when the alert
// has several, ticket URL) that checks the server's rules at each field before anything is sent and shows a refusal
// of the server at the field it names, and the two together for one alert (the alert and finding pages), with the
// analysis's removal. The bulk decision of the Alerts view uses the same form, without versions; the rule form of the
// triage rules page uses its fields (AnalysisFields), without versions or expiry. Only roles that triage see the form
// (roles.ts). Text only: every value from the API is a text node.
import type { ComponentChildren } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import { api, ApiError } from '../api';
import { canTriage } from '../roles';
import { useMe } from '../session';
import {
  ANALYSIS_STATES,
  analysisBody,
  analysisRefusal,
  characters,
  checkDraft,
  coverageText,
  deciderText,
  DETAIL_MAX,
  DETAIL_REQUIRED,
  draftOf,
  effectText,
  expiryDays,
  JUSTIFICATION_LABELS,
  JUSTIFICATIONS,
  RESPONSE_LABELS,
  RESPONSES,
  STATE_HINTS,
  STATE_LABELS,
  stateWords,
  ticketHref,
  TRIAGE_FIELDS,
  type TriageDraft,
  type TriageField,
  type TriageTarget,
} from '../triage';
import type { Alert, AnalysisInput } from '../types';
import { ConfirmButton, errorText, Outcome } from './admin/common';
import { When } from './bits';
import './triage.css';

/** An alert's analysis: a badge of its state, who decided and when, until when, then its fields and its effect. */
export function AnalysisSummary({ alert }: { alert: Alert }) {
  const x = alert.analysis;
  if (!x) return <p class="analysis-line">No analysis: nobody has decided on this alert yet.</p>;
  const href = ticketHref(x.ticketUrl);
  return (
    <div class="analysis">
      <p class="analysis-line">
        <span class={`analysis-badge state-${x.state}`}>{STATE_LABELS[x.state]}</span>
        {x.expired ? <span class="analysis-badge expired">expired</span> : null} by {deciderText(x.updatedBy)} on{' '}
        <When iso={x.updatedAt} />
        {x.expiresAt ? (
          <>
            , {x.expired ? 'expired' : 'until'} <When iso={x.expiresAt} />
          </>
        ) : (
          ', no expiry'
        )}
        {x.bulkId ? (
          <>
            {' '}
            (bulk decision <code>{x.bulkId}</code>)
          </>
        ) : null}
      </p>
      <dl class="facts">
        {x.justification ? (
          <>
            <dt>Justification</dt>
            <dd>{JUSTIFICATION_LABELS[x.justification]}</dd>
          </>
        ) : null}
        <dt>Response</dt>
        <dd>{x.response.length ? x.response.map((r) => RESPONSE_LABELS[r]).join(', ') : 'none'}</dd>
        <dt>Detail</dt>
        <dd class="analysis-detail">{x.detail ?? 'none'}</dd>
        <dt>Versions</dt>
        <dd>{coverageText(x)}</dd>
        <dt>Ticket</dt>
        <dd>
          {href ? (
            <a href={href} rel="noopener noreferrer" target="_blank">
              {href}
              <span class="visually-hidden"> (opens a new tab)</span>
            </a>
          ) : (
            (x.ticketUrl ?? 'none')
          )}
        </dd>
      </dl>
      <p class="muted">{effectText(alert)}</p>
    </div>
  );
}

/** The id of the control a field's error takes the focus to: a group's chosen (or first) choice, else its input. */
export function analysisControl(id: string, f: TriageField, draft: TriageDraft): string {
  return f === 'state'
    ? `${id}-state-${draft.state || ANALYSIS_STATES[0]}`
    : f === 'response'
      ? `${id}-response-${RESPONSES[0]}`
      : f === 'versions'
        ? `${id}-versions-${draft.versions ? 'only' : 'every'}`
        : `${id}-${f}`;
}

/** An input's error state: invalid and described by its message `<errorId>` (and by its own hint, kept). */
export function errorAria(errorId: string, text: string | undefined, hint?: string) {
  return text
    ? { 'aria-invalid': true as const, 'aria-describedby': [hint, errorId].filter(Boolean).join(' ') }
    : hint
      ? { 'aria-describedby': hint }
      : {};
}

/** A field's message under its input (none without one). */
export function FieldError({ id, text }: { id: string; text: string | undefined }) {
  return text ? (
    <p id={id} class="field-error">
      {text}
    </p>
  ) : null;
}

/**
 * An analysis's fields (the triage form's, and the rule form's on the rules page): those of `fields` (the
 * justification shows for `not_affected` only), each control `<id>-<field>`, each with the error `errorOf` gives it.
 * `set` changes the draft and marks the field changed. `installed`: the versions the alert has (null: none offered).
 */
export function AnalysisFields({
  id,
  draft,
  fields,
  installed,
  errorOf,
  set,
}: {
  id: string;
  draft: TriageDraft;
  fields: readonly TriageField[];
  installed: readonly string[] | null;
  errorOf(f: TriageField): string | undefined;
  set(field: TriageField, patch: Partial<TriageDraft>): void;
}) {
  const aria = (f: TriageField, hint?: string) => errorAria(`${id}-${f}-error`, errorOf(f), hint);
  const error = (f: TriageField) => <FieldError id={`${id}-${f}-error`} text={errorOf(f)} />;
  const needsDetail = !!draft.state && DETAIL_REQUIRED.includes(draft.state);
  const days = expiryDays();
  const several = fields.includes('versions') && !!installed && installed.length > 1;
  return (
    <>
      <fieldset id={`${id}-state`} role="radiogroup" aria-required="true" class="triage-states" {...aria('state')}>
        <legend>State</legend>
        {ANALYSIS_STATES.map((s) => (
          <label key={s} class="check">
            <input
              type="radio"
              id={`${id}-state-${s}`}
              name={`${id}-state`}
              value={s}
              checked={draft.state === s}
              onChange={() => set('state', { state: s })}
            />
            <span>
              {STATE_LABELS[s]} <span class="muted">({STATE_HINTS[s]})</span>
            </span>
          </label>
        ))}
        {error('state')}
      </fieldset>
      {draft.state === 'not_affected' && fields.includes('justification') ? (
        <div class="field">
          <label for={`${id}-justification`}>Justification</label>
          <select
            id={`${id}-justification`}
            aria-required="true"
            value={draft.justification}
            onChange={(e) =>
              set('justification', { justification: e.currentTarget.value as TriageDraft['justification'] })
            }
            {...aria('justification')}
          >
            <option value="">Choose one…</option>
            {JUSTIFICATIONS.map((j) => (
              <option key={j} value={j}>
                {JUSTIFICATION_LABELS[j]}
              </option>
            ))}
          </select>
          {error('justification')}
        </div>
      ) : null}
      <fieldset id={`${id}-response`} {...aria('response')}>
        <legend>Response (optional)</legend>
        {RESPONSES.map((r) => (
          <label key={r} class="check">
            <input
              type="checkbox"
              id={`${id}-response-${r}`}
              value={r}
              checked={draft.response.includes(r)}
              onChange={(e) =>
                set('response', {
                  response: e.currentTarget.checked
                    ? [...draft.response.filter((x) => x !== r), r]
                    : draft.response.filter((x) => x !== r),
                })
              }
            />
            {RESPONSE_LABELS[r]}
          </label>
        ))}
        {error('response')}
      </fieldset>
      <div class="field triage-detail">
        <label for={`${id}-detail`}>Detail {needsDetail ? '(required)' : '(optional)'}</label>
        <textarea
          id={`${id}-detail`}
          rows={4}
          aria-required={needsDetail}
          value={draft.detail}
          onInput={(e) => set('detail', { detail: e.currentTarget.value })}
          {...aria('detail', `${id}-detail-count`)}
        />
        <span id={`${id}-detail-count`} class="muted">
          {characters(draft.detail.trim()).toLocaleString('en')} of {DETAIL_MAX.toLocaleString('en')} characters
        </span>
        {error('detail')}
      </div>
      {fields.includes('expiresAt') ? (
        <div class="field">
          <label for={`${id}-expiresAt`}>Expires on (optional)</label>
          <input
            id={`${id}-expiresAt`}
            type="date"
            min={days.min}
            max={days.max}
            value={draft.expiresOn}
            onInput={(e) => set('expiresAt', { expiresOn: e.currentTarget.value })}
            {...aria('expiresAt', `${id}-expiresAt-hint`)}
          />
          <span id={`${id}-expiresAt-hint`} class="muted">
            holds through that day (UTC), at most a year ahead
          </span>
          {error('expiresAt')}
        </div>
      ) : null}
      {several && installed ? (
        <fieldset id={`${id}-versions`} {...aria('versions')}>
          <legend>Versions covered</legend>
          <label class="check">
            <input
              type="radio"
              id={`${id}-versions-every`}
              name={`${id}-versions`}
              checked={draft.versions === null}
              onChange={() => set('versions', { versions: null })}
            />
            Every installed version, now and later
          </label>
          <label class="check">
            <input
              type="radio"
              id={`${id}-versions-only`}
              name={`${id}-versions`}
              checked={draft.versions !== null}
              onChange={() => set('versions', { versions: [...installed] })}
            />
            Only the versions chosen
          </label>
          {draft.versions
            ? installed.map((v) => (
                <label key={v} class="check">
                  <input
                    type="checkbox"
                    checked={draft.versions!.includes(v)}
                    onChange={(e) =>
                      set('versions', {
                        versions: e.currentTarget.checked
                          ? [...draft.versions!.filter((x) => x !== v), v]
                          : draft.versions!.filter((x) => x !== v),
                      })
                    }
                  />
                  <span class="visually-hidden">Version </span>
                  {v}
                </label>
              ))
            : null}
          {error('versions')}
        </fieldset>
      ) : null}
      <div class="field">
        <label for={`${id}-ticketUrl`}>Ticket URL (optional)</label>
        <input
          id={`${id}-ticketUrl`}
          type="url"
          inputMode="url"
          autoComplete="off"
          spellcheck={false}
          placeholder="https://"
          value={draft.ticketUrl}
          onInput={(e) => set('ticketUrl', { ticketUrl: e.currentTarget.value })}
          {...aria('ticketUrl')}
        />
        {error('ticketUrl')}
      </div>
    </>
  );
}

/**
 * The triage form. `target`: the alert's installed versions (null: a bulk decision, no versions) and the analysis it
 * changes (its values fill the form, again each time it changes). A field's error shows once the field has changed
 * or a submit was tried; a submit with errors sends nothing and takes the focus to the first field in error.
 * `onSubmit` sends the body and throws the API's refusal, shown at the field it names (or under the form).
 */
export function TriageForm({
  id,
  label,
  target,
  submitLabel,
  autoFocus,
  onSubmit,
  children,
}: {
  id: string;
  label: string;
  target: TriageTarget;
  submitLabel: string;
  autoFocus?: boolean;
  onSubmit(body: AnalysisInput): Promise<void>;
  children?: ComponentChildren;
}) {
  const installed = target.installedVersions;
  const [draft, setDraft] = useState<TriageDraft>(() => draftOf(target.previous, installed));
  const [shown, setShown] = useState<ReadonlySet<TriageField>>(new Set());
  const [server, setServer] = useState<{ field?: TriageField; text: string } | null>(null);
  const [busy, setBusy] = useState(false);
  const [focus, setFocus] = useState<{ field: TriageField } | null>(null);
  /** A submit was refused here (errors in the form): the form says how many fields need a change until one succeeds. */
  const [tried, setTried] = useState(false);
  const stamp = target.previous?.updatedAt ?? '';
  useEffect(() => {
    setDraft(draftOf(target.previous, installed));
    setShown(new Set());
    setServer(null);
    setTried(false);
  }, [stamp]);
  const errors = checkDraft(draft, target);
  // the fields on show: a justification for not_affected only, versions when the alert has several
  const several = !!installed && installed.length > 1;
  const fields = TRIAGE_FIELDS.filter(
    (f) => (f !== 'justification' || draft.state === 'not_affected') && (f !== 'versions' || several),
  );
  const errorOf = (f: TriageField) =>
    (shown.has(f) ? errors[f] : undefined) ?? (server?.field === f ? server.text : undefined);
  /** A refusal of the server that names no field on show: said under the form. */
  const general = server && !fields.includes(server.field!) ? server.text : null;
  useEffect(() => {
    if (focus) document.getElementById(analysisControl(id, focus.field, draft))?.focus();
  }, [focus]);
  useEffect(() => {
    if (autoFocus) setFocus({ field: 'state' });
  }, []);

  const set = (field: TriageField, patch: Partial<TriageDraft>) => {
    setDraft((d) => ({ ...d, ...patch }));
    setShown((s) => new Set(s).add(field));
    setServer((x) => (x?.field === field ? null : x));
  };
  const wrong = fields.filter((f) => errors[f]);

  const submit = async (e: Event) => {
    e.preventDefault();
    if (busy) return;
    setServer(null);
    setShown(new Set(TRIAGE_FIELDS));
    setTried(true);
    if (wrong.length) return setFocus({ field: wrong[0] });
    setBusy(true);
    try {
      await onSubmit(analysisBody(draft, target));
      setShown(new Set());
      setTried(false);
    } catch (err) {
      const r =
        err instanceof ApiError && err.status !== 429
          ? analysisRefusal(err.status, err.code, err.message)
          : { text: errorText(err) };
      setServer(r);
      if (r.field && fields.includes(r.field)) setFocus({ field: r.field });
    } finally {
      setBusy(false);
    }
  };

  const shownErrors = tried ? fields.filter((f) => errorOf(f)).length : 0;
  return (
    <form id={id} class="triage-form" aria-label={label} noValidate onSubmit={submit}>
      <AnalysisFields id={id} draft={draft} fields={fields} installed={installed} errorOf={errorOf} set={set} />
      <div class="actions">
        {/* not disabled while busy: a disabled button would lose the focus of a keyboard user */}
        <button type="submit" class="primary" aria-disabled={busy || undefined}>
          {submitLabel}
        </button>
        {children}
      </div>
      <Outcome
        error={general}
        done={shownErrors ? `${shownErrors === 1 ? 'One field needs' : `${shownErrors} fields need`} a change.` : null}
      />
    </form>
  );
}

/**
 * One alert's analysis (the alert and finding pages): the summary, then, for a role that triages, the form and the
 * analysis's removal. `onChange` gets the alert as it reads after a change.
 */
export function AlertTriage({
  alert,
  onChange,
  id = 'triage',
}: {
  alert: Alert;
  onChange(next: Alert): void;
  id?: string;
}) {
  const me = useMe();
  const heading = useRef<HTMLHeadingElement>(null);
  const [outcome, setOutcome] = useState<{ error?: string; done?: string }>({});
  const path = `/alerts/${encodeURIComponent(alert.id)}`;
  const save = async (body: AnalysisInput) => {
    setOutcome({});
    const next = await api.put<Alert>(`${path}/analysis`, body);
    onChange(next);
    setOutcome({
      done: `Saved: the alert is ${stateWords(body.state)}${next.suppressionSource === 'analysis' ? ' and suppressed' : ''}.`,
    });
  };
  const remove = async () => {
    setOutcome({});
    try {
      await api.del(`${path}/analysis`);
      const next = await api.get<Alert>(path);
      // the Remove button goes with the analysis: the focus goes to the section's heading
      heading.current?.focus();
      onChange(next);
      setOutcome({ done: 'The analysis was removed (the history keeps it).' });
    } catch (e) {
      setOutcome({ error: `Could not remove the analysis: ${errorText(e)}` });
    }
  };
  return (
    <section class="triage" aria-labelledby={`${id}-title`}>
      <h2 id={`${id}-title`} tabIndex={-1} ref={heading}>
        Analysis
      </h2>
      <AnalysisSummary alert={alert} />
      {canTriage(me.member?.role) ? (
        <TriageForm
          id={id}
          label="Triage this alert"
          target={{ installedVersions: alert.installedVersions, previous: alert.analysis }}
          submitLabel="Save the analysis"
          onSubmit={save}
        >
          {alert.analysis ? (
            <ConfirmButton
              label="Remove the analysis"
              accessibleLabel="Remove the analysis"
              question="Remove this analysis?"
              confirmLabel="Remove"
              onConfirm={remove}
            />
          ) : null}
        </TriageForm>
      ) : (
        <p class="muted">Owners, admins and members decide on alerts; your role reads their analyses.</p>
      )}
      <Outcome error={outcome.error} done={outcome.done} />
    </section>
  );
}
