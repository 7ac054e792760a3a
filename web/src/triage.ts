// Triage of alerts as the app does it (docs/triage.md): the analysis states, justifications and responses in words;
// the triage form's draft and its checks (the server's rules of src/domain/triage/analysis.ts, said at each field
// before anything is sent); the body the form sends; a refusal of the server mapped onto the field it names; an
// analysis in words; and the alerts list's selection (a click, a shift-click range). The lists are the OpenAPI
// document's enums: a value these lists lack, or one the server does not have, fails the type-check. Pure: tested in
// test/browser/alert-triage-logic.test.ts.
import { refusal } from './errors';
import type {
  Alert,
  Analysis,
  AnalysisInput,
  AnalysisResponse,
  AnalysisState,
  Checked,
  Justification,
  ListsEvery,
} from './types';

export const ANALYSIS_STATES = [
  'in_triage',
  'exploitable',
  'not_affected',
  'false_positive',
  'resolved',
] as const satisfies readonly AnalysisState[];
export type AnalysisStatesListed = Checked<ListsEvery<AnalysisState, typeof ANALYSIS_STATES>>;

/** CycloneDX's justifications, required for `not_affected`. */
export const JUSTIFICATIONS = [
  'code_not_present',
  'code_not_reachable',
  'requires_configuration',
  'requires_dependency',
  'requires_environment',
  'protected_by_compiler',
  'protected_at_runtime',
  'protected_at_perimeter',
  'protected_by_mitigating_control',
] as const satisfies readonly Justification[];
export type JustificationsListed = Checked<ListsEvery<Justification, typeof JUSTIFICATIONS>>;

/** CycloneDX's responses: any of them, or none. */
export const RESPONSES = [
  'can_not_fix',
  'will_not_fix',
  'update',
  'rollback',
  'workaround_available',
] as const satisfies readonly AnalysisResponse[];
export type ResponsesListed = Checked<ListsEvery<AnalysisResponse, typeof RESPONSES>>;

/** States that suppress the alert while the analysis covers every installed version and has not expired. */
export const SUPPRESSING_STATES: readonly AnalysisState[] = ['not_affected', 'false_positive', 'resolved'];
/** States whose detail is required. */
export const DETAIL_REQUIRED: readonly AnalysisState[] = ['not_affected', 'false_positive', 'resolved'];
export const DETAIL_MAX = 2000;
export const TICKET_URL_MAX = 2048;
/** The most alerts one bulk decision takes (POST /v1/alerts/analysis). */
export const BULK_MAX = 500;

export const STATE_LABELS: Record<AnalysisState, string> = {
  in_triage: 'In triage',
  exploitable: 'Exploitable',
  not_affected: 'Not affected',
  false_positive: 'False positive',
  resolved: 'Resolved',
};
/** What each state means, beside its choice. */
export const STATE_HINTS: Record<AnalysisState, string> = {
  in_triage: 'being looked into, nothing decided yet',
  exploitable: 'the project is affected',
  not_affected: 'needs a justification and a detail; suppresses the alert',
  false_positive: 'the advisory does not apply; needs a detail; suppresses the alert',
  resolved: 'dealt with; needs a detail; suppresses the alert',
};
export const JUSTIFICATION_LABELS: Record<Justification, string> = {
  code_not_present: 'The vulnerable code is not present',
  code_not_reachable: 'The vulnerable code is not reachable',
  requires_configuration: 'It needs a configuration the project does not have',
  requires_dependency: 'It needs a dependency the project does not have',
  requires_environment: 'It needs an environment the project does not run in',
  protected_by_compiler: 'Protected by the compiler',
  protected_at_runtime: 'Protected at run time',
  protected_at_perimeter: 'Protected at the perimeter',
  protected_by_mitigating_control: 'Protected by a mitigating control',
};
export const RESPONSE_LABELS: Record<AnalysisResponse, string> = {
  can_not_fix: 'Cannot fix',
  will_not_fix: 'Will not fix',
  update: 'Update',
  rollback: 'Roll back',
  workaround_available: 'Workaround available',
};

/** A state in a sentence: “not affected”. */
export const stateWords = (s: AnalysisState) => `“${STATE_LABELS[s].toLowerCase()}”`;

/** The triage form's fields, as the API names them in its refusals. */
export const TRIAGE_FIELDS = [
  'state',
  'justification',
  'response',
  'detail',
  'expiresAt',
  'versions',
  'ticketUrl',
] as const;
export type TriageField = (typeof TRIAGE_FIELDS)[number];
export type TriageErrors = Partial<Record<TriageField, string>>;

/** What the triage form holds: its inputs' values as typed. */
export interface TriageDraft {
  state: AnalysisState | '';
  justification: Justification | '';
  response: AnalysisResponse[];
  detail: string;
  /** The last day the analysis holds (a date input's YYYY-MM-DD, UTC), '' for no expiry. */
  expiresOn: string;
  /** The installed versions it covers; null: every version, now and later. */
  versions: string[] | null;
  ticketUrl: string;
}

/** The bounds of the form that decides on one alert (`installedVersions`) or on many (null: no versions). */
export interface TriageTarget {
  installedVersions: readonly string[] | null;
  /** The analysis the form changes: an unchanged expiry day keeps its exact time. */
  previous?: Analysis | null;
}

/** The draft of an analysis (none: an empty form); versions no longer installed are left out. */
export function draftOf(a: Analysis | null | undefined, installedVersions: readonly string[] | null): TriageDraft {
  const kept = (a?.versions ?? []).filter((v) => installedVersions?.includes(v));
  return {
    state: a?.state ?? '',
    justification: a?.justification ?? '',
    response: [...(a?.response ?? [])],
    detail: a?.detail ?? '',
    expiresOn: a?.expiresAt ? a.expiresAt.slice(0, 10) : '',
    versions: installedVersions && kept.length ? kept : null,
    ticketUrl: a?.ticketUrl ?? '',
  };
}

const DAY_MS = 24 * 3600 * 1000;

/** The days an expiry may take (a date input's min and max, UTC): today, to a year from now. */
export function expiryDays(now = new Date()): { min: string; max: string } {
  return {
    min: now.toISOString().slice(0, 10),
    max: new Date(now.getTime() + 365 * DAY_MS).toISOString().slice(0, 10),
  };
}

/** The time an expiry day stands for: the end of that day (UTC), or the previous analysis's own time on its day. */
export function expiryOf(day: string, previous?: Pick<Analysis, 'expiresAt'> | null): string {
  return previous?.expiresAt?.slice(0, 10) === day ? previous.expiresAt : `${day}T23:59:59.000Z`;
}

/**
 * What is wrong with an expiry day (a date input's YYYY-MM-DD; '' is none), or undefined: in the future, at most a
 * year ahead. The server checks a triage rule's expiry as an analysis's: so does the rules page (triage-rules.ts).
 */
export function expiryError(
  day: string,
  previous: Pick<Analysis, 'expiresAt'> | null | undefined,
  now = new Date(),
): string | undefined {
  if (!day) return undefined;
  const at = Date.parse(expiryOf(day, previous));
  const max = expiryDays(now).max;
  const iso = /^\d{4}-\d\d-\d\d$/.test(day) && Number.isFinite(at) && new Date(at).toISOString();
  if (!iso || iso.slice(0, 10) !== day) return 'The expiry date must be a date (YYYY-MM-DD).';
  if (at <= now.getTime()) return 'The expiry date must be in the future.';
  if (day > max) return `The expiry date must be at most one year ahead (${max} at the latest).`;
  return undefined;
}

/** Characters as the server counts them (code points: an emoji is one). */
export const characters = (s: string) => [...s].length;

function isHttpsUrl(s: string): boolean {
  if (/[\s\u0000-\u001f]/.test(s)) return false;
  try {
    const u = new URL(s);
    return u.protocol === 'https:' && u.hostname !== '' && u.username === '' && u.password === '';
  } catch {
    return false;
  }
}

/** A ticket URL that may be a link: https only (the server accepts nothing else; anything else is shown as text). */
export const ticketHref = (url: string | null | undefined) => (url && isHttpsUrl(url) ? url : undefined);

/**
 * What is wrong with a draft, by field, in the words of the app's refusals: the server's rules (a state; a
 * justification for `not_affected`; a detail of 1 to 2,000 characters for `not_affected`, `false_positive` and
 * `resolved`; an expiry in the future and at most a year ahead; installed versions, at least one; an https ticket URL).
 */
export function checkDraft(d: TriageDraft, t: TriageTarget, now = new Date()): TriageErrors {
  const e: TriageErrors = {};
  if (!d.state) e.state = 'Choose a state.';
  else if (d.state === 'not_affected' && !d.justification)
    e.justification = `The justification is required when the state is ${stateWords(d.state)}.`;
  const detail = d.detail.trim();
  if (d.state && DETAIL_REQUIRED.includes(d.state) && !detail)
    e.detail = `The detail is required when the state is ${stateWords(d.state)}.`;
  else if (characters(detail) > DETAIL_MAX)
    e.detail = `The detail must be at most 2,000 characters (it has ${characters(detail).toLocaleString('en')}).`;
  else if (detail.includes('\u0000')) e.detail = 'The detail must not contain a NUL character.';
  const expiry = expiryError(d.expiresOn, t.previous, now);
  if (expiry) e.expiresAt = expiry;
  if (t.installedVersions && d.versions) {
    const unknown = d.versions.find((v) => !t.installedVersions!.includes(v));
    if (!d.versions.length) e.versions = 'Choose at least one version, or every version.';
    else if (unknown !== undefined) e.versions = `${unknown} is not an installed version of the alert.`;
  }
  const ticket = d.ticketUrl.trim();
  if (ticket && (ticket.length > TICKET_URL_MAX || !isHttpsUrl(ticket)))
    e.ticketUrl = 'The ticket URL must be an https address (https://…) of at most 2,048 characters.';
  return e;
}

/**
 * The body of PUT /v1/alerts/{id}/analysis (or the `analysis` of a bulk decision, which takes no versions): only
 * what the draft sets; a justification only for `not_affected`; the detail and ticket URL trimmed.
 */
export function analysisBody(d: TriageDraft, t: TriageTarget): AnalysisInput {
  const detail = d.detail.trim();
  const ticketUrl = d.ticketUrl.trim();
  return {
    state: d.state as AnalysisState,
    ...(d.state === 'not_affected' && d.justification ? { justification: d.justification } : {}),
    ...(d.response.length ? { response: RESPONSES.filter((r) => d.response.includes(r)) } : {}),
    ...(detail ? { detail } : {}),
    ...(d.expiresOn ? { expiresAt: expiryOf(d.expiresOn, t.previous) } : {}),
    ...(t.installedVersions && d.versions ? { versions: [...d.versions].sort() } : {}),
    ...(ticketUrl ? { ticketUrl } : {}),
  };
}

/**
 * A refusal of a triage call in words, with the form's field it names: a bulk decision's `analysis.detail` is the
 * detail's; a missing field keeps when it is required; a state the message names is said in words.
 */
export function analysisRefusal(status: number, code: string, message: string): { field?: TriageField; text: string } {
  const m = message
    .replace(/^analysis\.(?=\w+: )/, '')
    .replace(/\bstate is (\w+)/, (all, s: string) =>
      s in STATE_LABELS ? `the state is ${stateWords(s as AnalysisState)}` : all,
    );
  const r = refusal(status, code === 'missing_parameter' ? 'invalid_parameter' : code, m);
  const field = (TRIAGE_FIELDS as readonly string[]).includes(r.field ?? '') ? (r.field as TriageField) : undefined;
  return { field, text: r.text };
}

/** The state with its justification: “Not affected: the vulnerable code is not reachable”. */
export function analysisTitle(a: Pick<Analysis, 'state' | 'justification'>): string {
  const j = a.justification ? JUSTIFICATION_LABELS[a.justification] : undefined;
  return j ? `${STATE_LABELS[a.state]}: ${j.toLowerCase()}` : STATE_LABELS[a.state];
}

/** Who decided: a person by their email, an API key by its name. */
export function deciderText(by: Analysis['updatedBy']): string {
  return by.kind === 'api_key' ? `the API key ${by.name ?? by.id}` : (by.name ?? by.id);
}

/** The installed versions an analysis covers, in words. */
export function coverageText(a: Pick<Analysis, 'versions'>): string {
  return a.versions ? `${a.versions.join(', ')} only` : 'every installed version, now and later';
}

/** What the analysis does to the alert now (empty without one). */
export function effectText(a: Pick<Alert, 'analysis' | 'suppressionSource'>): string {
  const x = a.analysis;
  if (!x) return '';
  if (!SUPPRESSING_STATES.includes(x.state)) return `${STATE_LABELS[x.state]} does not suppress the alert.`;
  if (x.expired) return 'It has expired: it no longer suppresses the alert.';
  if (a.suppressionSource === 'analysis')
    return 'It suppresses the alert: out of the counts, and the findings of later scans are suppressed.';
  if (a.suppressionSource) return 'The alert is suppressed by the snapshot’s suppressions already.';
  return 'It does not suppress the alert: it does not cover every installed version.';
}

/** The words of a bulk decision's outcome. */
export function bulkResultText(n: number, state: AnalysisState): string {
  const alerts = `${n} ${n === 1 ? 'alert' : 'alerts'}`;
  return SUPPRESSING_STATES.includes(state)
    ? `${alerts} marked ${stateWords(state)}: suppressed, they leave a list that hides suppressed alerts.`
    : `${alerts} marked ${stateWords(state)}.`;
}

/**
 * The selection after a click on the row `id` of the rows shown (`ids`, in their order), which turns it `on` or off.
 * With shift and an anchor (the row clicked before) still shown, every row from the anchor to it turns the same way.
 */
export function selectRows(
  selected: ReadonlySet<string>,
  ids: readonly string[],
  id: string,
  on: boolean,
  anchor: string | null,
  shift: boolean,
): Set<string> {
  const at = ids.indexOf(id);
  const from = shift && anchor !== null ? ids.indexOf(anchor) : -1;
  const range = from >= 0 && at >= 0 ? ids.slice(Math.min(from, at), Math.max(from, at) + 1) : [id];
  const next = new Set(selected);
  for (const x of range) on ? next.add(x) : next.delete(x);
  return next;
}
