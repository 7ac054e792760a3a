// Triage rules as the app shows and edits them (docs/triage.md#rules): a rule's conditions and mode in words; the rule
// form's draft (conditions typed as comma- or newline-separated values, ecosystems and severities ticked, the analysis
// as the triage form's draft without versions or expiry, the rule's own expiry, the mode), its checks (the server's
// rules of src/domain/triage/rules.ts, said at each field before anything is sent), the body it sends, a refusal of
// the server mapped onto the field it names (`conditions.teams` → the teams input); and why enforcing a rule would,
// or would not, change a matched alert (the preview). The lists are the OpenAPI document's enums: a value these lists
// lack, or one the server does not have, fails the type-check. Pure: tested in test/browser/triage-rules-logic.test.ts.
import { refusal } from './errors';
import {
  analysisBody,
  analysisRefusal,
  checkDraft,
  draftOf,
  expiryError,
  expiryOf,
  STATE_LABELS,
  stateWords,
  SUPPRESSING_STATES,
  type TriageDraft,
  type TriageErrors,
  type TriageField,
} from './triage';
import type {
  Alert,
  Checked,
  ListsEvery,
  RuleConditions,
  RuleMode,
  Severity,
  TriageRule,
  TriageRuleInput,
  TriageRuleMatch,
} from './types';
import { SEVERITIES } from './types';

export type Ecosystem = NonNullable<RuleConditions['ecosystems']>[number];
export const RULE_ECOSYSTEMS = ['gradle', 'python', 'javascript', 'typescript'] as const satisfies readonly Ecosystem[];
export type RuleEcosystemsListed = Checked<ListsEvery<Ecosystem, typeof RULE_ECOSYSTEMS>>;

export const RULE_MODES = ['dry_run', 'enforce'] as const satisfies readonly RuleMode[];
export type RuleModesListed = Checked<ListsEvery<RuleMode, typeof RULE_MODES>>;
export const MODE_LABELS: Record<RuleMode, string> = { dry_run: 'Dry run', enforce: 'Enforced' };
export const MODE_HINTS: Record<RuleMode, string> = {
  dry_run: 'changes nothing; its preview says what enforcing it would change',
  enforce: 'applies its analysis to every alert and finding it matches',
};

/** The server's bounds (src/domain/triage/rules.ts). */
export const VALUES_PER_CONDITION = 100;
export const VALUE_MAX = 512;
export const RULE_NAME_MAX = 200;
export const RULES_PER_ORG = 200;

/** The conditions typed as values (comma- or newline-separated), in the form's order. */
export const LIST_CONDITIONS = ['projects', 'teams', 'modules', 'contexts', 'packages', 'advisories'] as const;
export type ListCondition = (typeof LIST_CONDITIONS)[number];
export const CONDITIONS = [
  'projects',
  'ecosystems',
  'teams',
  'modules',
  'contexts',
  'relationship',
  'packages',
  'advisories',
  'severities',
] as const satisfies readonly (keyof RuleConditions)[];
export type ConditionsListed = Checked<ListsEvery<keyof RuleConditions, typeof CONDITIONS>>;
export type Condition = (typeof CONDITIONS)[number];

/** Each condition's input: its label, what it takes, and the noun of one value (for the errors). */
export const CONDITION_LABELS: Record<Condition, { label: string; hint: string; one: string; many: string }> = {
  projects: { label: 'Projects', hint: 'slugs or ids', one: 'project', many: 'projects' },
  ecosystems: { label: 'Ecosystems', hint: '', one: 'ecosystem', many: 'ecosystems' },
  teams: {
    label: 'Teams',
    hint: 'every module that brings the finding in belongs to one of them',
    one: 'team',
    many: 'teams',
  },
  modules: {
    label: 'Modules',
    hint: 'every module that brings the finding in is one of them',
    one: 'module',
    many: 'modules',
  },
  contexts: {
    label: 'Dependency contexts',
    hint: 'devDependencies, runtimeClasspath…; every path in is in one of them',
    one: 'context',
    many: 'contexts',
  },
  relationship: { label: 'Relationship', hint: '', one: 'relationship', many: 'relationships' },
  packages: {
    label: 'Packages',
    hint: 'names or globs: * any run, ? one character, case-sensitive',
    one: 'package',
    many: 'packages',
  },
  advisories: {
    label: 'Advisories',
    hint: 'any id of the advisory or its aliases',
    one: 'advisory',
    many: 'advisories',
  },
  severities: { label: 'Severities', hint: '', one: 'severity', many: 'severities' },
};

/** The rule form's fields, as the API names them in its refusals (the analysis's as `analysis.<field>`). */
export type RuleField = 'name' | `conditions.${Condition}` | `analysis.${TriageField}` | 'expiresAt' | 'mode';
export type RuleErrors = Partial<Record<RuleField, string>>;
/** The fields of the analysis a rule sets: no versions (a rule covers every version), no expiry (the rule's own). */
export const RULE_ANALYSIS_FIELDS = [
  'state',
  'justification',
  'response',
  'detail',
  'ticketUrl',
] as const satisfies readonly TriageField[];

/** What the rule form holds: its inputs' values as typed. */
export interface RuleDraft {
  name: string;
  /** Each list condition as typed (comma- or newline-separated). */
  lists: Record<ListCondition, string>;
  ecosystems: Ecosystem[];
  severities: Severity[];
  relationship: 'direct' | 'transitive' | '';
  analysis: TriageDraft;
  /** The rule's last day (a date input's YYYY-MM-DD, UTC), '' for none. */
  expiresOn: string;
  mode: RuleMode;
}

/** The values of a list input: split at commas and line ends, trimmed, empty ones dropped, each once. */
export function splitValues(text: string): string[] {
  const out: string[] = [];
  for (const v of text.split(/[,\n\r]/)) {
    const t = v.trim();
    if (t && !out.includes(t)) out.push(t);
  }
  return out;
}

/** The draft of a rule (none: an empty form, a dry run). `slugOf`: projects are shown by their slug. */
export function ruleDraftOf(rule?: TriageRule | null, slugOf?: (id: string) => string | undefined): RuleDraft {
  const c = rule?.conditions ?? {};
  const lists = {} as Record<ListCondition, string>;
  for (const k of LIST_CONDITIONS) {
    const values = c[k] ?? [];
    lists[k] = (k === 'projects' ? values.map((id) => slugOf?.(id) ?? id) : values).join(', ');
  }
  return {
    name: rule?.name ?? '',
    lists,
    ecosystems: [...(c.ecosystems ?? [])],
    severities: [...(c.severities ?? [])],
    relationship: c.relationship ?? '',
    // a rule's analysis takes no versions and no expiry of its own (the rule's expiry is the one that counts)
    analysis: { ...draftOf(rule?.analysis, null), expiresOn: '' },
    expiresOn: rule?.expiresAt ? rule.expiresAt.slice(0, 10) : '',
    mode: rule?.mode ?? 'dry_run',
  };
}

/** A count in words: “1 team”, “104 teams”. */
const count = (n: number, c: ListCondition) =>
  `${n.toLocaleString('en')} ${n === 1 ? CONDITION_LABELS[c].one : CONDITION_LABELS[c].many}`;

/** What is wrong with one list condition's values, or undefined (the server's bounds; a project must exist). */
function listError(c: ListCondition, values: string[], projects?: readonly { id: string; slug: string }[]) {
  if (values.length > VALUES_PER_CONDITION)
    return `At most ${VALUES_PER_CONDITION} ${CONDITION_LABELS[c].many} (there are ${values.length.toLocaleString('en')}).`;
  const long = values.find((v) => v.length > VALUE_MAX);
  if (long !== undefined)
    return `Each ${CONDITION_LABELS[c].one} is at most ${VALUE_MAX} characters (“${long.slice(0, 20)}…” has ${long.length.toLocaleString('en')}).`;
  if (values.some((v) => v.includes('\u0000'))) return `A ${CONDITION_LABELS[c].one} must not contain a NUL character.`;
  if (c === 'projects' && projects) {
    const unknown = values.find((v) => !projects.some((p) => p.id === v || p.slug === v));
    if (unknown !== undefined) return `No project “${unknown}” in this organization.`;
  }
  return undefined;
}

/**
 * What is wrong with a draft, by field, in the words of the app's refusals: a name of 1 to 200 characters; at most 100
 * values of at most 512 characters per condition (projects that exist, when `projects` is known); the analysis as the
 * triage form checks it (triage.ts, without versions); an expiry in the future and at most a year ahead.
 */
export function checkRule(
  d: RuleDraft,
  o: {
    now?: Date;
    previous?: Pick<TriageRule, 'expiresAt'> | null;
    projects?: readonly { id: string; slug: string }[];
  } = {},
): RuleErrors {
  const now = o.now ?? new Date();
  const e: RuleErrors = {};
  const name = d.name.trim();
  if (!name) e.name = 'The name is required.';
  else if (name.length > RULE_NAME_MAX)
    e.name = `The name must be at most ${RULE_NAME_MAX} characters (it has ${name.length.toLocaleString('en')}).`;
  else if (name.includes('\u0000')) e.name = 'The name must not contain a NUL character.';
  for (const c of LIST_CONDITIONS) {
    const wrong = listError(c, splitValues(d.lists[c]), o.projects);
    if (wrong) e[`conditions.${c}`] = wrong;
  }
  const a: TriageErrors = checkDraft(d.analysis, { installedVersions: null }, now);
  for (const f of RULE_ANALYSIS_FIELDS) if (a[f]) e[`analysis.${f}`] = a[f];
  const expiry = expiryError(d.expiresOn, o.previous, now);
  if (expiry) e.expiresAt = expiry.replace('The expiry date', 'The rule’s expiry date');
  return e;
}

/** The conditions of a draft: only those given (a condition left empty holds for every alert). */
export function conditionsOf(d: RuleDraft): RuleConditions {
  const c: RuleConditions = {};
  for (const k of LIST_CONDITIONS) {
    const values = splitValues(d.lists[k]);
    if (values.length) c[k] = values;
  }
  if (d.ecosystems.length) c.ecosystems = RULE_ECOSYSTEMS.filter((x) => d.ecosystems.includes(x));
  if (d.severities.length) c.severities = SEVERITIES.filter((x) => d.severities.includes(x));
  if (d.relationship) c.relationship = d.relationship;
  return c;
}

/**
 * The body of POST /v1/triage-rules, or of a PATCH that rewrites every field: the name trimmed, the conditions given,
 * the analysis without versions or expiry, the rule's expiry (an unchanged day keeps its exact time; none: null).
 */
export function ruleBody(d: RuleDraft, previous?: Pick<TriageRule, 'expiresAt'> | null): TriageRuleInput {
  return {
    name: d.name.trim(),
    conditions: conditionsOf(d),
    analysis: analysisBody({ ...d.analysis, expiresOn: '', versions: null }, { installedVersions: null }),
    expiresAt: d.expiresOn ? expiryOf(d.expiresOn, previous) : null,
    mode: d.mode,
  };
}

/**
 * A refusal of a rules call in words, with the form's field it names: `conditions.teams: …` the teams input,
 * `analysis.detail: …` the analysis's detail, `name`, `expiresAt`, `mode`; `unknown_project` the projects input.
 */
export function ruleRefusal(status: number, code: string, message: string): { field?: RuleField; text: string } {
  const cond = /^conditions\.(\w+): (.+)$/s.exec(message);
  if (cond && (CONDITIONS as readonly string[]).includes(cond[1])) {
    const c = cond[1] as Condition;
    const what = cond[2].trim();
    const text =
      code === 'missing_parameter'
        ? `The ${CONDITION_LABELS[c].many} condition is required.`
        : `The ${CONDITION_LABELS[c].many} condition: ${what.replace(/\.$/, '')}.`;
    return { field: `conditions.${c}`, text };
  }
  if (/^analysis\.\w+: /.test(message)) {
    const r = analysisRefusal(status, code, message);
    return { field: r.field ? `analysis.${r.field}` : undefined, text: r.text };
  }
  const r = refusal(status, code, message);
  const field = (['name', 'expiresAt', 'mode'] as const).find((f) => f === r.field);
  return { field, text: field === 'expiresAt' ? r.text.replace('The expiry date', 'The rule’s expiry date') : r.text };
}

/** Values in words: “a”, “a or b”, “a, b or c”. */
export function orList(values: readonly string[]): string {
  return values.length <= 1 ? (values[0] ?? '') : `${values.slice(0, -1).join(', ')} or ${values[values.length - 1]}`;
}

/**
 * A rule's conditions in words, one line each (none: every alert). `slugOf`: a project by its slug. Teams, modules,
 * contexts and the relationship hold only when every attribution of the finding matches: “only” says so.
 */
export function conditionLines(c: RuleConditions, slugOf?: (id: string) => string | undefined): string[] {
  const lines: string[] = [];
  if (c.projects?.length) lines.push(`project ${orList(c.projects.map((id) => slugOf?.(id) ?? id))}`);
  if (c.ecosystems?.length) lines.push(`ecosystem ${orList(c.ecosystems)}`);
  if (c.packages?.length)
    lines.push(`package ${c.packages.some((p) => /[*?]/.test(p)) ? 'matching ' : ''}${orList(c.packages)}`);
  if (c.advisories?.length) lines.push(`advisory ${orList(c.advisories)}`);
  if (c.severities?.length) lines.push(`severity ${orList(c.severities)}`);
  if (c.teams?.length) lines.push(`brought in only by team ${orList(c.teams)}`);
  if (c.modules?.length) lines.push(`brought in only by module ${orList(c.modules)}`);
  if (c.contexts?.length) lines.push(`only in context ${orList(c.contexts)}`);
  if (c.relationship) lines.push(`only as a ${c.relationship} dependency`);
  return lines;
}

/** The conditions as one sentence: “Every alert with project shop and severity low or medium.” */
export function conditionsText(c: RuleConditions, slugOf?: (id: string) => string | undefined): string {
  const lines = conditionLines(c, slugOf);
  return lines.length ? `Every alert with ${lines.join(' and ')}.` : 'Every alert of the organization (no condition).';
}

/** What the rule does when enforced, in words: “suppresses them” or “marks them “in triage” without suppressing”. */
export function ruleEffectText(rule: Pick<TriageRule, 'analysis'>): string {
  const s = rule.analysis.state;
  return SUPPRESSING_STATES.includes(s)
    ? `marks them ${stateWords(s)} and suppresses them`
    : `marks them ${stateWords(s)} without suppressing them`;
}

/** Whether a rule is in force now: enforced and not expired. */
export const inForce = (r: Pick<TriageRule, 'mode' | 'expired'>) => r.mode === 'enforce' && !r.expired;

/** The rules oldest first (the precedence among them): creation time, then id. */
export const byAge = (a: Pick<TriageRule, 'createdAt' | 'id'>, b: Pick<TriageRule, 'createdAt' | 'id'>) =>
  a.createdAt < b.createdAt ? -1 : a.createdAt > b.createdAt ? 1 : a.id < b.id ? -1 : a.id > b.id ? 1 : 0;

/**
 * Why enforcing `rule` would, or would not, change a matched alert (the preview): the server's `wouldChange`, and
 * the reason read from the alert as it is now (its own analysis first, then the oldest rule in force; a snapshot's
 * suppression stays). `rules`: the organization's rules, to name the one that decides.
 */
export function matchWords(
  m: Pick<TriageRuleMatch, 'wouldChange'> & {
    alert: Pick<Alert, 'suppressed' | 'suppressionSource' | 'ruleId' | 'analysis'>;
  },
  rule: Pick<TriageRule, 'id' | 'analysis' | 'createdAt'>,
  rules: readonly Pick<TriageRule, 'id' | 'name' | 'createdAt'>[] = [],
): { label: 'would change' | 'no change'; why: string } {
  const a = m.alert;
  const suppresses = SUPPRESSING_STATES.includes(rule.analysis.state);
  if (m.wouldChange)
    return {
      label: 'would change',
      why: suppresses
        ? 'enforcing this rule would suppress it'
        : a.suppressionSource === 'rule'
          ? `enforcing this rule would count it again: it is older than the rule that suppresses it now, and ${stateWords(rule.analysis.state)} does not suppress`
          : 'enforcing this rule would count it again',
    };
  const words = (why: string) => ({ label: 'no change' as const, why });
  if (a.ruleId === rule.id) return words('this rule applies to it already');
  if (a.suppressionSource === 'snapshot') return words('the snapshot’s suppressions suppress it already');
  if (a.analysis && !a.analysis.expired)
    return words(`its own analysis (${STATE_LABELS[a.analysis.state].toLowerCase()}) comes before any rule`);
  const other = a.ruleId ? rules.find((r) => r.id === a.ruleId) : undefined;
  if (a.ruleId && (!other || byAge(other, rule) < 0))
    return words(`an older rule in force decides it${other ? `: “${other.name}”` : ''}`);
  return words(
    suppresses
      ? 'it is suppressed already'
      : `it is counted already, and ${stateWords(rule.analysis.state)} does not suppress`,
  );
}
