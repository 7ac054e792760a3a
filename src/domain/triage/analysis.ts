// Triage analyses (docs/triage.md): a person's decision on an alert, with its justification, response, detail,
// expiry, the installed versions it covers and a ticket. Pure: checking a request body into an Analysis (422 naming
// the field, as the rest of the API does), and what an analysis does at a given time (whether it suppresses, whether
// it has expired, whether it covers a version).
import { ApiError, invalidParameter } from '../errors';

export const ANALYSIS_STATES = ['in_triage', 'exploitable', 'not_affected', 'false_positive', 'resolved'] as const;
export type AnalysisState = (typeof ANALYSIS_STATES)[number];

/** CycloneDX's impact-analysis justifications. */
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
] as const;
export type Justification = (typeof JUSTIFICATIONS)[number];

/** CycloneDX's impact-analysis responses. */
export const RESPONSES = ['can_not_fix', 'will_not_fix', 'update', 'rollback', 'workaround_available'] as const;
export type Response = (typeof RESPONSES)[number];

/** States that take an alert out of counts, gate and events while they hold. */
export const SUPPRESSING_STATES: readonly AnalysisState[] = ['not_affected', 'false_positive', 'resolved'];
/** States whose `detail` is required. */
const DETAIL_REQUIRED: readonly AnalysisState[] = ['not_affected', 'false_positive', 'resolved'];

export const DETAIL_MAX = 2000;
export const TICKET_URL_MAX = 2048;
const YEAR_MS = 366 * 24 * 3600 * 1000;

/** Who decided: a person (session) or an API key. */
export interface Actor {
  kind: 'user' | 'api_key';
  id: string;
  name?: string;
}

/** An analysis as stored and served (`expired` is added at read). */
export interface Analysis {
  state: AnalysisState;
  justification: Justification | null;
  response: Response[];
  detail: string | null;
  expiresAt: string | null;
  /** The installed versions it covers; null: every version. */
  versions: string[] | null;
  ticketUrl: string | null;
  updatedAt: string;
  updatedBy: Actor;
  /** The bulk decision that wrote it, if any. */
  bulkId?: string;
  /** The VEX import that wrote it, if any: a later import may replace it; a person's analysis only on overwrite. */
  importId?: string;
}

const FIELDS = ['state', 'justification', 'response', 'detail', 'expiresAt', 'versions', 'ticketUrl'] as const;

const missing = (field: string, why: string) => new ApiError(422, 'missing_parameter', `${field}: ${why}`);

/**
 * An analysis from a request body, checked whole: unknown fields, each field's type and range, and the rules between
 * them. `installedVersions`: the alert's, which `versions` must be a subset of; null in a bulk decision, which takes
 * no `versions`.
 */
export function parseAnalysis(
  body: Record<string, unknown>,
  o: { now: Date; installedVersions: readonly string[] | null; actor: Actor; bulkId?: string },
  prefix = '',
): Analysis {
  const name = (f: string) => `${prefix}${f}`;
  for (const k of Object.keys(body))
    if (!(FIELDS as readonly string[]).includes(k) || (k === 'versions' && o.installedVersions === null))
      throw invalidParameter(name(k), `is not a field of an analysis${o.installedVersions === null ? ' here' : ''}`);
  const state = body.state;
  if (state === undefined || state === null) throw missing(name('state'), 'is required');
  if (typeof state !== 'string' || !(ANALYSIS_STATES as readonly string[]).includes(state))
    throw invalidParameter(name('state'), `must be one of ${ANALYSIS_STATES.join(', ')}`);
  const s = state as AnalysisState;

  const justification = optional(body, 'justification');
  if (justification !== null && !(JUSTIFICATIONS as readonly unknown[]).includes(justification))
    throw invalidParameter(name('justification'), `must be one of ${JUSTIFICATIONS.join(', ')}`);
  if (s === 'not_affected' && justification === null)
    throw missing(name('justification'), 'is required when state is not_affected');

  const response = optional(body, 'response') ?? [];
  if (!Array.isArray(response)) throw invalidParameter(name('response'), 'must be an array');
  for (const r of response)
    if (!(RESPONSES as readonly unknown[]).includes(r))
      throw invalidParameter(name('response'), `must hold only ${RESPONSES.join(', ')}`);
  if (new Set(response).size !== response.length) throw invalidParameter(name('response'), 'must not repeat a value');

  const detail = optional(body, 'detail');
  if (detail !== null) {
    if (typeof detail !== 'string') throw invalidParameter(name('detail'), 'must be a string');
    if (detail.trim() === '') throw invalidParameter(name('detail'), 'must not be blank');
    if ([...detail].length > DETAIL_MAX) throw invalidParameter(name('detail'), `at most ${DETAIL_MAX} characters`);
    if (detail.includes('\u0000')) throw invalidParameter(name('detail'), 'must not contain NUL');
  }
  if (detail === null && DETAIL_REQUIRED.includes(s)) throw missing(name('detail'), `is required when state is ${s}`);

  const expires = optional(body, 'expiresAt');
  let expiresAt: string | null = null;
  if (expires !== null) {
    const t = typeof expires === 'string' && ISO_TIME.test(expires) ? Date.parse(expires) : NaN;
    if (!Number.isFinite(t)) throw invalidParameter(name('expiresAt'), 'must be an RFC 3339 date-time');
    if (t <= o.now.getTime()) throw invalidParameter(name('expiresAt'), 'must be in the future');
    if (t > o.now.getTime() + YEAR_MS) throw invalidParameter(name('expiresAt'), 'must be at most one year ahead');
    expiresAt = new Date(t).toISOString();
  }

  let versions: string[] | null = null;
  const v = o.installedVersions === null ? null : optional(body, 'versions');
  if (v !== null) {
    if (!Array.isArray(v) || v.length === 0 || v.some((x) => typeof x !== 'string'))
      throw invalidParameter(name('versions'), 'must be a non-empty array of installed versions');
    const unknown = v.find((x) => !o.installedVersions!.includes(x as string));
    if (unknown !== undefined)
      throw invalidParameter(
        name('versions'),
        `${JSON.stringify(unknown).slice(0, 200)} is not an installed version of the alert (${o.installedVersions!.join(', ')})`,
      );
    versions = [...new Set(v as string[])].sort();
  }

  const ticket = optional(body, 'ticketUrl');
  let ticketUrl: string | null = null;
  if (ticket !== null) {
    if (typeof ticket !== 'string' || ticket.length > TICKET_URL_MAX || !isHttpsUrl(ticket))
      throw invalidParameter(name('ticketUrl'), `must be an https URL of at most ${TICKET_URL_MAX} characters`);
    ticketUrl = ticket;
  }

  return {
    state: s,
    justification: justification as Justification | null,
    response: response as Response[],
    detail: detail as string | null,
    expiresAt,
    versions,
    ticketUrl,
    updatedAt: o.now.toISOString(),
    updatedBy: o.actor,
    ...(o.bulkId ? { bulkId: o.bulkId } : {}),
  };
}

const ISO_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?(Z|[+-]\d{2}:\d{2})$/i;

function optional(body: Record<string, unknown>, field: string): unknown {
  const v = body[field];
  return v === undefined || v === null ? null : v;
}

function isHttpsUrl(s: string): boolean {
  if (/[\s\u0000-\u001f]/.test(s)) return false;
  try {
    const u = new URL(s);
    return u.protocol === 'https:' && u.hostname !== '' && u.username === '' && u.password === '';
  } catch {
    return false;
  }
}

/** Whether the analysis has expired at `now` (effective at read: it then no longer suppresses or filters). */
export const isExpired = (a: Pick<Analysis, 'expiresAt'>, now: Date): boolean =>
  a.expiresAt !== null && now.getTime() >= Date.parse(a.expiresAt);

/** Whether the analysis covers an installed version (no `versions`: every version). */
export const coversVersion = (a: Pick<Analysis, 'versions'>, version: string): boolean =>
  a.versions === null || a.versions.includes(version);

/** Whether the analysis suppresses a finding of this version at `now`. */
export const suppressesVersion = (a: Analysis, version: string, now: Date): boolean =>
  SUPPRESSING_STATES.includes(a.state) && !isExpired(a, now) && coversVersion(a, version);

/** Whether the analysis suppresses an alert (every current installed version covered) at `now`. */
export const suppressesAlert = (a: Analysis, installedVersions: readonly string[], now: Date): boolean =>
  SUPPRESSING_STATES.includes(a.state) && !isExpired(a, now) && installedVersions.every((v) => coversVersion(a, v));

/** The analysis as reads serve it: with `expired`. */
export const analysisView = (a: Analysis, now: Date) => ({ ...a, expired: isExpired(a, now) });
export type AnalysisView = ReturnType<typeof analysisView>;

/** Whether two analyses say the same (who and when aside): a repeated bulk decision changes nothing. */
export function sameDecision(a: Analysis | null, b: Analysis | null): boolean {
  if (!a || !b) return a === b;
  return FIELDS.every((f) => JSON.stringify(a[f]) === JSON.stringify(b[f]));
}
