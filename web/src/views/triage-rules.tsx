// Triage rules (GET /v1/triage-rules, docs/triage.md#rules): the organization's rules oldest first (the precedence
// among them), each with its mode, its conditions and analysis in words, its expiry and who created it; the preview of
// a rule (GET .../matches, the rule in the URL as `?preview=`): the open alerts it matches now and whether enforcing
// it would change each, and why, a page at a time with the count. Every role reads. Owners and admins create and edit
// a rule (the rule form: name, conditions, the analysis with the triage form's fields (components/triage-form.tsx),
// without versions, the rule's expiry, its mode), which checks the server's rules at each field before anything is
// sent (triage-rules.ts) and shows a refusal at the field it names; they switch a rule between dry run and enforce and
// delete one with a confirmation. Text only: every value from the API is a text node.
import { Fragment } from 'preact';
import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { useLocation } from 'preact-iso';
import { allPages, api, ApiError } from '../api';
import { SeverityBadge, When } from '../components/bits';
import { ConfirmButton, errorText, Outcome, useOutcome } from '../components/admin/common';
import { ListTable, MoreButton } from '../components/list';
import { Page, Status } from '../components/page';
import { AnalysisFields, analysisControl, errorAria, FieldError } from '../components/triage-form';
import { useLoad, usePages } from '../hooks';
import { paths } from '../paths';
import { isManager } from '../roles';
import { useMe } from '../session';
import { analysisTitle, expiryDays, RESPONSE_LABELS, type TriageDraft, type TriageField } from '../triage';
import {
  byAge,
  checkRule,
  CONDITION_LABELS,
  conditionLines,
  inForce,
  LIST_CONDITIONS,
  matchWords,
  MODE_HINTS,
  MODE_LABELS,
  RULE_ANALYSIS_FIELDS,
  RULE_ECOSYSTEMS,
  RULE_MODES,
  ruleBody,
  ruleDraftOf,
  ruleEffectText,
  ruleRefusal,
  RULES_PER_ORG,
  VALUES_PER_CONDITION,
  type RuleDraft,
  type RuleField,
} from '../triage-rules';
import type { Project, TriageRule, TriageRuleMatch, TriageRuleMatches } from '../types';
import { SEVERITIES } from '../types';

const ID = 'rule';
const ANALYSIS_ID = 'rule-analysis';

/** The id of the control a field's error takes the focus to. */
function controlOf(f: RuleField, d: RuleDraft): string {
  if (f.startsWith('analysis.')) return analysisControl(ANALYSIS_ID, f.slice(9) as TriageField, d.analysis);
  if (f === 'conditions.ecosystems') return `${ID}-ecosystems-${RULE_ECOSYSTEMS[0]}`;
  if (f === 'conditions.severities') return `${ID}-severities-${SEVERITIES[0]}`;
  if (f === 'mode') return `${ID}-mode-${d.mode}`;
  return `${ID}-${f.replace(/^conditions\./, '')}`;
}

/**
 * The rule form: a new rule (`rule` null) or a change of `rule` (every field sent again). A field's error shows once
 * it has changed or a save was tried; a save with errors sends nothing and takes the focus to the first field in error;
 * a refusal of the server is shown at the field it names (or under the form).
 */
function RuleForm({
  rule,
  projects,
  slugOf,
  onSaved,
  onCancel,
}: {
  rule: TriageRule | null;
  projects?: Project[];
  slugOf(id: string): string | undefined;
  onSaved(rule: TriageRule, created: boolean): void;
  onCancel(): void;
}) {
  const [draft, setDraft] = useState<RuleDraft>(() => ruleDraftOf(rule, slugOf));
  const [shown, setShown] = useState<ReadonlySet<RuleField> | 'all'>(new Set());
  const [server, setServer] = useState<{ field?: RuleField; text: string } | null>(null);
  const [busy, setBusy] = useState(false);
  const [tried, setTried] = useState(false);
  const [focus, setFocus] = useState<{ field: RuleField } | null>(null);
  const errors = checkRule(draft, { previous: rule, projects });
  const fields: RuleField[] = [
    'name',
    ...LIST_CONDITIONS.slice(0, 1).map((c) => `conditions.${c}` as const),
    'conditions.ecosystems',
    ...LIST_CONDITIONS.slice(1).map((c) => `conditions.${c}` as const),
    'conditions.relationship',
    'conditions.severities',
    ...RULE_ANALYSIS_FIELDS.filter((f) => f !== 'justification' || draft.analysis.state === 'not_affected').map(
      (f) => `analysis.${f}` as const,
    ),
    'expiresAt',
    'mode',
  ];
  const errorOf = (f: RuleField) =>
    ((shown === 'all' || shown.has(f)) && errors[f]) || (server?.field === f ? server.text : undefined);
  const general = server && !fields.includes(server.field!) ? server.text : null;
  useEffect(() => {
    if (focus) document.getElementById(controlOf(focus.field, draft))?.focus();
  }, [focus]);
  useEffect(() => document.getElementById(`${ID}-name`)?.focus(), []);

  const set = (field: RuleField, patch: Partial<RuleDraft>) => {
    setDraft((d) => ({ ...d, ...patch }));
    setShown((s) => (s === 'all' ? s : new Set(s).add(field)));
    setServer((x) => (x?.field === field ? null : x));
  };
  const setAnalysis = (f: TriageField, patch: Partial<TriageDraft>) =>
    set(`analysis.${f}`, { analysis: { ...draft.analysis, ...patch } });
  const aria = (f: RuleField, hint?: string) => errorAria(`${controlOf(f, draft)}-error`, errorOf(f), hint);
  const error = (f: RuleField) => <FieldError id={`${controlOf(f, draft)}-error`} text={errorOf(f) || undefined} />;
  const wrong = fields.filter((f) => errors[f]);

  const submit = async (e: Event) => {
    e.preventDefault();
    if (busy) return;
    setServer(null);
    setShown('all');
    setTried(true);
    if (wrong.length) return setFocus({ field: wrong[0] });
    setBusy(true);
    try {
      const body = ruleBody(draft, rule);
      const saved = rule
        ? await api.patch<TriageRule>(`/triage-rules/${encodeURIComponent(rule.id)}`, body)
        : await api.post<TriageRule>('/triage-rules', body);
      onSaved(saved, !rule);
    } catch (err) {
      const r =
        err instanceof ApiError && err.status !== 429
          ? ruleRefusal(err.status, err.code, err.message)
          : { text: errorText(err) };
      setServer(r);
      if (r.field && fields.includes(r.field)) setFocus({ field: r.field });
    } finally {
      setBusy(false);
    }
  };

  const days = expiryDays();
  const shownErrors = tried ? fields.filter((f) => errorOf(f)).length : 0;
  const label = rule ? `Edit the rule ${rule.name}` : 'New triage rule';
  const checks = <T extends string>(
    key: 'ecosystems' | 'severities',
    values: readonly T[],
    chosen: readonly string[],
    patch: (next: T[]) => Partial<RuleDraft>,
  ) => (
    <fieldset id={`${ID}-${key}`} {...aria(`conditions.${key}`)}>
      <legend>{CONDITION_LABELS[key].label}</legend>
      {values.map((v) => (
        <label key={v} class="check">
          <input
            type="checkbox"
            id={`${ID}-${key}-${v}`}
            value={v}
            checked={chosen.includes(v)}
            onChange={(e) =>
              set(
                `conditions.${key}`,
                patch(
                  e.currentTarget.checked
                    ? [...values.filter((x) => chosen.includes(x) || x === v)]
                    : values.filter((x) => chosen.includes(x) && x !== v),
                ),
              )
            }
          />
          {v}
        </label>
      ))}
      {error(`conditions.${key}`)}
    </fieldset>
  );
  return (
    <form id={ID} class="triage-form rule-form" aria-label={label} noValidate onSubmit={submit}>
      <h2>{rule ? `Edit “${rule.name}”` : 'New rule'}</h2>
      <div class="field rule-name">
        <label for={`${ID}-name`}>Name</label>
        <input
          id={`${ID}-name`}
          type="text"
          autoComplete="off"
          aria-required="true"
          value={draft.name}
          onInput={(e) => set('name', { name: e.currentTarget.value })}
          {...aria('name')}
        />
        {error('name')}
      </div>
      <fieldset class="rule-conditions" aria-describedby={`${ID}-conditions-hint`}>
        <legend>Conditions</legend>
        <p id={`${ID}-conditions-hint`} class="muted rule-hint">
          Every condition given must hold, any value within one; an empty one holds for every alert. Values are
          separated by commas or new lines, at most {VALUES_PER_CONDITION} each.
        </p>
        {LIST_CONDITIONS.map((c) => {
          const f = `conditions.${c}` as const;
          const hint = `${ID}-${c}-hint`;
          return (
            <Fragment key={c}>
              <div class="field">
                <label for={`${ID}-${c}`}>{CONDITION_LABELS[c].label}</label>
                <textarea
                  id={`${ID}-${c}`}
                  rows={2}
                  spellcheck={false}
                  autoComplete="off"
                  value={draft.lists[c]}
                  onInput={(e) => set(f, { lists: { ...draft.lists, [c]: e.currentTarget.value } })}
                  {...aria(f, hint)}
                />
                <span id={hint} class="muted">
                  {CONDITION_LABELS[c].hint}
                </span>
                {error(f)}
              </div>
              {c === 'projects'
                ? checks('ecosystems', RULE_ECOSYSTEMS, draft.ecosystems, (ecosystems) => ({ ecosystems }))
                : null}
            </Fragment>
          );
        })}
        <div class="field">
          <label for={`${ID}-relationship`}>{CONDITION_LABELS.relationship.label}</label>
          <select
            id={`${ID}-relationship`}
            value={draft.relationship}
            onChange={(e) =>
              set('conditions.relationship', { relationship: e.currentTarget.value as RuleDraft['relationship'] })
            }
            {...aria('conditions.relationship')}
          >
            <option value="">Direct or transitive</option>
            <option value="direct">Direct only (declared by the module)</option>
            <option value="transitive">Transitive only</option>
          </select>
          {error('conditions.relationship')}
        </div>
        {checks('severities', SEVERITIES, draft.severities, (severities) => ({ severities }))}
      </fieldset>
      <fieldset class="rule-analysis">
        <legend>Analysis the rule applies</legend>
        <AnalysisFields
          id={ANALYSIS_ID}
          draft={draft.analysis}
          fields={RULE_ANALYSIS_FIELDS}
          installed={null}
          errorOf={(f) => errorOf(`analysis.${f}`) || undefined}
          set={setAnalysis}
        />
      </fieldset>
      <div class="field">
        <label for={`${ID}-expiresAt`}>Rule expires on (optional)</label>
        <input
          id={`${ID}-expiresAt`}
          type="date"
          min={days.min}
          max={days.max}
          value={draft.expiresOn}
          onInput={(e) => set('expiresAt', { expiresOn: e.currentTarget.value })}
          {...aria('expiresAt', `${ID}-expiresAt-hint`)}
        />
        <span id={`${ID}-expiresAt-hint`} class="muted">
          the rule holds through that day (UTC), at most a year ahead
        </span>
        {error('expiresAt')}
      </div>
      <fieldset id={`${ID}-mode`} role="radiogroup" {...aria('mode')}>
        <legend>Mode</legend>
        {RULE_MODES.map((m) => (
          <label key={m} class="check">
            <input
              type="radio"
              id={`${ID}-mode-${m}`}
              name={`${ID}-mode`}
              value={m}
              checked={draft.mode === m}
              onChange={() => set('mode', { mode: m })}
            />
            <span>
              {MODE_LABELS[m]} <span class="muted">({MODE_HINTS[m]})</span>
            </span>
          </label>
        ))}
        {error('mode')}
      </fieldset>
      <div class="actions">
        <button type="submit" class="primary" aria-disabled={busy || undefined}>
          {rule ? 'Save the rule' : 'Create the rule'}
        </button>
        <button type="button" onClick={onCancel}>
          Cancel
        </button>
      </div>
      <Outcome
        error={general}
        done={shownErrors ? `${shownErrors === 1 ? 'One field needs' : `${shownErrors} fields need`} a change.` : null}
      />
    </form>
  );
}

/** The rule's analysis in words: its state and justification, responses, detail and ticket. */
function AnalysisText({ rule }: { rule: TriageRule }) {
  const a = rule.analysis;
  return (
    <>
      <span class={`analysis-badge state-${a.state}`}>{analysisTitle(a)}</span>
      {a.response.length ? <div class="muted">{a.response.map((r) => RESPONSE_LABELS[r]).join(', ')}</div> : null}
      {a.detail ? <div class="analysis-detail">{a.detail}</div> : null}
      {a.ticketUrl ? <div class="muted">ticket {a.ticketUrl}</div> : null}
    </>
  );
}

/** The preview of a rule: the open alerts it matches now, whether enforcing it would change each and why. */
function Preview({
  rule,
  rules,
  slugOf,
  focusKey,
}: {
  rule: TriageRule;
  rules: readonly TriageRule[];
  slugOf(id: string): string | undefined;
  /** Its heading takes the focus when it opens, and again when this changes (a save of the form). */
  focusKey: number;
}) {
  const heading = useRef<HTMLHeadingElement>(null);
  const [count, setCount] = useState<number | null>(null);
  const pages = usePages<TriageRuleMatch>(`${rule.id} ${rule.updatedAt}`, async (cursor, signal) => {
    const p = await api.get<TriageRuleMatches>(
      `/triage-rules/${encodeURIComponent(rule.id)}/matches`,
      { limit: 50, cursor },
      signal,
    );
    if (!signal.aborted) setCount(p.count);
    return { items: p.matches, nextCursor: p.nextCursor };
  });
  useEffect(() => heading.current?.focus(), [rule.id, focusKey]);
  const shown = pages.items.length;
  const changing = pages.items.filter((m) => m.wouldChange).length;
  return (
    <section class="rule-preview" aria-labelledby="rule-preview-title">
      <h2 id="rule-preview-title" tabIndex={-1} ref={heading}>
        Preview matches of “{rule.name}”
      </h2>
      <p class="muted">
        The open alerts the rule matches now, and what enforcing it would do to each: it {ruleEffectText(rule)}
        {inForce(rule)
          ? ' (it is enforced)'
          : rule.expired
            ? ' (it has expired: it changes nothing)'
            : ' (a dry run: it changes nothing yet)'}
        .
      </p>
      <p role="status" class="list-counts">
        {pages.loaded && count !== null
          ? `${count.toLocaleString('en')} open ${count === 1 ? 'alert matches' : 'alerts match'} now${
              count ? `; of the ${shown.toLocaleString('en')} shown, ${changing.toLocaleString('en')} would change` : ''
            }.`
          : pages.loading
            ? 'Loading the matches…'
            : ''}
      </p>
      <Status error={pages.error ? errorText(pages.error) : undefined} />
      {shown ? (
        <ListTable
          caption={`Open alerts matched by ${rule.name}`}
          columns={['Package', 'Advisory', 'Project', 'Severity', 'If enforced']}
        >
          {pages.items.map((m) => {
            const w = matchWords(m, rule, rules);
            return (
              <tr key={m.alert.id} class={m.wouldChange ? 'would-change' : 'no-change'}>
                <th scope="row" class="cell-wrap">
                  {m.alert.package}
                  <div class="muted">
                    {m.alert.installedVersions.join(', ')} · {m.alert.ecosystem}
                  </div>
                </th>
                <td class="cell-wrap">
                  <a href={paths.alert(m.alert.id)}>{m.alert.advisory}</a>
                </td>
                <td class="cell-wrap">{slugOf(m.alert.project) ?? m.alert.project}</td>
                <td>
                  <SeverityBadge severity={m.alert.severity} />
                </td>
                <td>
                  <strong class="match-change">{w.label}</strong>
                  <div class="muted">{w.why}</div>
                </td>
              </tr>
            );
          })}
        </ListTable>
      ) : null}
      <MoreButton pages={pages} label="More matches" />
    </section>
  );
}

export default function TriageRules() {
  const me = useMe();
  const manager = isManager(me.member?.role);
  const { query, route } = useLocation();
  const rules = useLoad(() => allPages<TriageRule>('/triage-rules', 'rules'), []);
  const projects = useLoad(() => allPages<Project>('/projects', 'projects'), []);
  const slugs = useMemo(() => new Map((projects.data ?? []).map((p) => [p.id, p.slug])), [projects.data]);
  const slugOf = (id: string) => slugs.get(id);
  // The rule as the last change here answered it, until the list is read again (no flash of a missing rule).
  const [latest, setLatest] = useState<TriageRule | null>(null);
  const list = useMemo(() => {
    const read = rules.data ?? [];
    const stale = latest && !read.some((r) => r.id === latest.id && r.updatedAt >= latest.updatedAt);
    return (stale ? [...read.filter((r) => r.id !== latest.id), latest] : [...read]).sort(byAge);
  }, [rules.data, latest]);
  /** Counts the saves of the form: the preview's heading takes the focus after each. */
  const [saves, setSaves] = useState(0);
  const preview = list.find((r) => r.id === query.preview);
  const [editing, setEditing] = useState<TriageRule | 'new' | null>(null);
  const [busyId, setBusyId] = useState<string | null>(null);
  const { error, done, setError, setDone, run } = useOutcome();
  const newButton = useRef<HTMLButtonElement>(null);

  const saved = (rule: TriageRule, created: boolean) => {
    setEditing(null);
    setLatest(rule);
    setSaves((n) => n + 1);
    rules.reload();
    setError(null);
    setDone(
      `The rule “${rule.name}” was ${created ? 'created' : 'saved'} (${MODE_LABELS[rule.mode].toLowerCase()}): its preview is below.`,
    );
    route(paths.triageRules(rule.id));
  };
  const setMode = async (rule: TriageRule, mode: TriageRule['mode']) => {
    setError(null);
    setDone(null);
    setBusyId(rule.id);
    try {
      setLatest(await api.patch<TriageRule>(`/triage-rules/${encodeURIComponent(rule.id)}`, { mode }));
      rules.reload();
      setDone(
        mode === 'enforce'
          ? `The rule “${rule.name}” is enforced now: it ${ruleEffectText(rule)}.`
          : `The rule “${rule.name}” is a dry run now: it changes nothing.`,
      );
    } catch (e) {
      setError(`Could not change the mode of “${rule.name}”: ${errorText(e)}`);
    } finally {
      setBusyId(null);
    }
  };
  const remove = (rule: TriageRule) =>
    run(`Could not delete the rule “${rule.name}”`, async () => {
      await api.del(`/triage-rules/${encodeURIComponent(rule.id)}`);
      setLatest((l) => (l?.id === rule.id ? null : l));
      if (editing !== 'new' && editing?.id === rule.id) setEditing(null);
      if (query.preview === rule.id) route(paths.triageRules());
      rules.reload();
      newButton.current?.focus();
      return `The rule “${rule.name}” was deleted: the alerts it decided are counted as their own analyses say.`;
    });

  return (
    <Page title="Triage rules" actions={<a href={paths.projects()}>Projects and their alerts</a>}>
      <p>
        A rule applies one analysis to every alert and finding that meets its conditions, now and in every later scan.
        An alert’s own analysis comes first (until it expires), then the oldest enforced rule in force that matches it:
        the rules are listed oldest first.
      </p>
      {manager ? (
        editing ? (
          <RuleForm
            key={editing === 'new' ? 'new' : `${editing.id} ${editing.updatedAt}`}
            rule={editing === 'new' ? null : editing}
            projects={projects.data}
            slugOf={slugOf}
            onSaved={saved}
            onCancel={() => {
              setEditing(null);
              setTimeout(() => newButton.current?.focus());
            }}
          />
        ) : (
          <p>
            <button
              type="button"
              ref={newButton}
              disabled={list.length >= RULES_PER_ORG}
              onClick={() => {
                setError(null);
                setDone(null);
                setEditing('new');
              }}
            >
              New rule…
            </button>
            {list.length >= RULES_PER_ORG ? (
              <span class="muted"> An organization holds at most {RULES_PER_ORG} rules.</span>
            ) : null}
          </p>
        )
      ) : (
        <p class="muted">Owners and admins create and change rules; your role reads them and their previews.</p>
      )}
      <Outcome error={error} done={done} />
      <Status loading={rules.loading && !rules.data} error={rules.error ? errorText(rules.error) : undefined} />
      {rules.data && !list.length ? <p>No triage rule yet.</p> : null}
      {list.length ? (
        <ListTable
          caption="Triage rules, oldest first (the oldest enforced rule that matches an alert decides)"
          columns={['Name', 'Mode', 'Conditions', 'Analysis', 'Expiry', 'Created', 'Actions']}
        >
          {list.map((r) => {
            const lines = conditionLines(r.conditions, slugOf);
            return (
              <tr key={r.id}>
                <th scope="row" class="cell-wrap">
                  {r.name}
                </th>
                <td>
                  <span class={`rule-mode mode-${r.mode}${r.expired ? ' expired' : ''}`}>{MODE_LABELS[r.mode]}</span>
                </td>
                <td class="cell-wrap">
                  {lines.length ? (
                    <ul class="rule-conditions-list">
                      {lines.map((l) => (
                        <li key={l}>{l}</li>
                      ))}
                    </ul>
                  ) : (
                    'every alert (no condition)'
                  )}
                </td>
                <td class="cell-wrap">
                  <AnalysisText rule={r} />
                </td>
                <td>
                  {r.expiresAt ? (
                    <>
                      {r.expired ? <span class="analysis-badge expired">expired</span> : 'until '}
                      <When iso={r.expiresAt} />
                    </>
                  ) : (
                    <span class="muted">no expiry</span>
                  )}
                </td>
                <td>
                  <When iso={r.createdAt} />
                  <div class="muted cell-wrap">by {r.createdBy.name ?? r.createdBy.id}</div>
                </td>
                <td class="actions">
                  <a
                    href={paths.triageRules(r.id)}
                    aria-label={`Preview matches of ${r.name}`}
                    aria-current={preview?.id === r.id ? 'true' : undefined}
                  >
                    Preview matches
                  </a>
                  {manager ? (
                    <>
                      <button
                        type="button"
                        aria-label={`Edit the rule ${r.name}`}
                        onClick={() => {
                          setError(null);
                          setDone(null);
                          setEditing(r);
                        }}
                      >
                        Edit
                      </button>
                      <button
                        type="button"
                        aria-label={`${r.mode === 'enforce' ? 'Switch to dry run' : 'Enforce'} the rule ${r.name}`}
                        disabled={busyId === r.id}
                        onClick={() => setMode(r, r.mode === 'enforce' ? 'dry_run' : 'enforce')}
                      >
                        {r.mode === 'enforce' ? 'Switch to dry run' : 'Enforce'}
                      </button>
                      <ConfirmButton
                        label="Delete"
                        accessibleLabel={`Delete the rule ${r.name}`}
                        question={`Delete the rule “${r.name}”?`}
                        confirmLabel="Delete"
                        onConfirm={() => remove(r)}
                      />
                    </>
                  ) : null}
                </td>
              </tr>
            );
          })}
        </ListTable>
      ) : null}
      {query.preview && rules.data && !preview ? (
        <p role="alert">
          No rule <code>{query.preview}</code> in this organization (it may have been deleted).
        </p>
      ) : null}
      {preview ? <Preview key={preview.id} rule={preview} rules={list} slugOf={slugOf} focusKey={saves} /> : null}
    </Page>
  );
}
