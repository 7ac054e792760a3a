// Triage rules (docs/triage.md): an analysis applied to every finding and alert whose facts meet the rule's
// conditions. Every given condition must hold, any listed value within one. Team, module, context and relationship
// conditions read the attributions in the introduced view (each attribution counted once per origin module, with its
// context and relationship) and hold only when every one matches, so a dev-only rule never silences a finding that also
// reaches production; they never hold for a finding without attributions (v1 snapshots, paged scans). Precedence: the
// alert's own analysis, then the oldest enforce rule that matches. Pure.
import { ApiError, invalidParameter } from '../errors';
import { globMatcher } from '../suppressions';
import { SEVERITIES, type Finding, type Severity } from '../../shared/types';
import { parseAnalysis, type Actor, type Analysis } from './analysis';

export const RULE_MODES = ['enforce', 'dry_run'] as const;
export type RuleMode = (typeof RULE_MODES)[number];
export const RULES_PER_ORG = 200;
export const VALUES_PER_CONDITION = 100;
export const RULE_NAME_MAX = 200;
const VALUE_MAX = 512;
const ECOSYSTEMS = ['gradle', 'python', 'javascript', 'typescript'] as const;

export interface RuleConditions {
  projects?: string[];
  ecosystems?: string[];
  teams?: string[];
  modules?: string[];
  contexts?: string[];
  relationship?: 'direct' | 'transitive';
  /** Globs on the package name (the snapshot suppressions' matcher: `*`, `?`, case-sensitive). */
  packages?: string[];
  /** Advisory ids: any id of the alias group, case-insensitive. */
  advisories?: string[];
  severities?: Severity[];
}

export interface TriageRule {
  id: string;
  name: string;
  conditions: RuleConditions;
  /** The analysis the rule applies (no versions). */
  analysis: Analysis;
  expiresAt: string | null;
  mode: RuleMode;
  createdAt: string;
  createdBy: Actor;
  updatedAt: string;
}

/** One attribution in the introduced view: the origin module, its team, the attribution's context and relationship. */
export type Unit = [module: string, team: string | null, context: string, relationship: 'direct' | 'transitive'];

/** What a rule is matched against: a finding's or an alert's facts. */
export interface Subject {
  projectId: string;
  ecosystem: string;
  package: string;
  /** Every id of the advisory's alias group (display id included). */
  ids: readonly string[];
  severity: Severity;
  units: readonly Unit[];
}

/** A finding's units: each attribution once per origin module (its consuming module when it has no origins). */
export function unitsOf(
  attributions: Finding['attributions'],
  teamOf: (module: string) => string | null | undefined,
): Unit[] {
  const seen = new Set<string>();
  const out: Unit[] = [];
  for (const a of attributions ?? []) {
    const modules = a.origins?.length ? a.origins.map((o) => o.module) : [a.module];
    for (const m of modules) {
      const key = `${m}\0${a.context}\0${a.relationship}`;
      if (seen.has(key)) continue;
      seen.add(key);
      out.push([m, teamOf(m) ?? null, a.context, a.relationship]);
    }
  }
  return out.sort((x, y) => (x.join('\0') < y.join('\0') ? -1 : x.join('\0') > y.join('\0') ? 1 : 0));
}

/** A rule compiled for matching many subjects. */
export interface CompiledRule {
  rule: TriageRule;
  test(s: Subject): boolean;
}

export function compileRule(rule: TriageRule): CompiledRule {
  const c = rule.conditions;
  const set = (xs?: readonly string[]) => (xs ? new Set(xs) : null);
  const projects = set(c.projects);
  const ecosystems = set(c.ecosystems);
  const teams = set(c.teams);
  const modules = set(c.modules);
  const contexts = set(c.contexts);
  const severities = set(c.severities);
  const advisories = c.advisories ? new Set(c.advisories.map((a) => a.toUpperCase())) : null;
  const packages = c.packages?.map(globMatcher) ?? null;
  const needsUnits = teams || modules || contexts || c.relationship;
  return {
    rule,
    test(s) {
      if (projects && !projects.has(s.projectId)) return false;
      if (ecosystems && !ecosystems.has(s.ecosystem)) return false;
      if (severities && !severities.has(s.severity)) return false;
      if (advisories && !s.ids.some((id) => advisories.has(id.toUpperCase()))) return false;
      if (packages && !packages.some((m) => m(s.package))) return false;
      if (needsUnits) {
        if (s.units.length === 0) return false;
        for (const [module, team, context, relationship] of s.units) {
          if (modules && !modules.has(module)) return false;
          if (teams && (team === null || !teams.has(team))) return false;
          if (contexts && !contexts.has(context)) return false;
          if (c.relationship && relationship !== c.relationship) return false;
        }
      }
      return true;
    },
  };
}

/** Whether a rule is in force at `now` (enforced and not expired). */
export const ruleInForce = (r: TriageRule, now: Date): boolean =>
  r.mode === 'enforce' && (r.expiresAt === null || now.getTime() < Date.parse(r.expiresAt));

/** Rules oldest first (the precedence among rules): creation time, then id. */
export const byAge = (a: TriageRule, b: TriageRule): number =>
  a.createdAt < b.createdAt ? -1 : a.createdAt > b.createdAt ? 1 : a.id < b.id ? -1 : a.id > b.id ? 1 : 0;

/** The oldest rule in force that matches the subject, or null. `rules`: compiled, oldest first. */
export function ruleFor(rules: readonly CompiledRule[], s: Subject, now: Date): TriageRule | null {
  for (const r of rules) if (ruleInForce(r.rule, now) && r.test(s)) return r.rule;
  return null;
}

// ------------------------------------------------------------------------------------------------ input --

const RULE_FIELDS = ['name', 'conditions', 'analysis', 'expiresAt', 'mode'] as const;
const CONDITION_FIELDS = [
  'projects',
  'ecosystems',
  'teams',
  'modules',
  'contexts',
  'relationship',
  'packages',
  'advisories',
  'severities',
] as const;

const missing = (field: string) => new ApiError(422, 'missing_parameter', `${field}: is required`);

function stringList(v: unknown, field: string, allowed?: readonly string[]): string[] {
  if (!Array.isArray(v) || v.length === 0) throw invalidParameter(field, 'must be a non-empty array');
  if (v.length > VALUES_PER_CONDITION) throw invalidParameter(field, `at most ${VALUES_PER_CONDITION} values`);
  for (const x of v) {
    if (typeof x !== 'string' || x === '' || x.length > VALUE_MAX || x.includes('\u0000'))
      throw invalidParameter(field, `must hold strings of 1 to ${VALUE_MAX} characters`);
    if (allowed && !allowed.includes(x)) throw invalidParameter(field, `must hold only ${allowed.join(', ')}`);
  }
  return [...new Set(v as string[])];
}

/** Conditions from a request body (projects as given: the caller resolves them to ids and checks reach). */
export function parseConditions(v: unknown): RuleConditions {
  if (v === undefined || v === null) return {};
  if (typeof v !== 'object' || Array.isArray(v)) throw invalidParameter('conditions', 'must be an object');
  const body = v as Record<string, unknown>;
  const out: RuleConditions = {};
  for (const k of Object.keys(body)) {
    if (!(CONDITION_FIELDS as readonly string[]).includes(k))
      throw invalidParameter(`conditions.${k}`, `is not a condition (${CONDITION_FIELDS.join(', ')})`);
    const val = body[k];
    if (val === undefined || val === null) continue;
    const field = `conditions.${k}`;
    if (k === 'relationship') {
      if (val !== 'direct' && val !== 'transitive') throw invalidParameter(field, 'must be direct or transitive');
      out.relationship = val;
    } else if (k === 'ecosystems') out.ecosystems = stringList(val, field, ECOSYSTEMS);
    else if (k === 'severities') out.severities = stringList(val, field, SEVERITIES) as Severity[];
    else out[k as 'projects'] = stringList(val, field);
  }
  return out;
}

export interface RuleInput {
  name: string;
  conditions: RuleConditions;
  analysis: Analysis;
  expiresAt: string | null;
  mode: RuleMode;
}

/**
 * A rule from a request body, checked whole. `partial` (PATCH): only the fields given, the rest from `current`.
 * Expiry as an analysis's (in the future, at most a year ahead).
 */
export function parseRule(
  body: Record<string, unknown>,
  o: { now: Date; actor: Actor; current?: RuleInput },
): RuleInput {
  for (const k of Object.keys(body))
    if (!(RULE_FIELDS as readonly string[]).includes(k))
      throw invalidParameter(k, `is not a field of a triage rule (${RULE_FIELDS.join(', ')})`);
  const has = (k: string) => body[k] !== undefined && !(o.current && body[k] === null && k !== 'expiresAt');
  let name = o.current?.name;
  if (has('name') || !o.current) {
    const n = body.name;
    if (n === undefined || n === null) throw missing('name');
    if (typeof n !== 'string' || n.trim() === '' || n.length > RULE_NAME_MAX || n.includes('\u0000'))
      throw invalidParameter('name', `must be a string of 1 to ${RULE_NAME_MAX} characters`);
    name = n;
  }
  const conditions = has('conditions') || !o.current ? parseConditions(body.conditions) : o.current.conditions;
  let analysis = o.current?.analysis;
  if (has('analysis') || !o.current) {
    const a = body.analysis;
    if (a === undefined || a === null) throw missing('analysis');
    if (typeof a !== 'object' || Array.isArray(a)) throw invalidParameter('analysis', 'must be an object');
    analysis = parseAnalysis(
      a as Record<string, unknown>,
      { now: o.now, installedVersions: null, actor: o.actor },
      'analysis.',
    );
  }
  let expiresAt = o.current?.expiresAt ?? null;
  if (body.expiresAt !== undefined || !o.current) {
    // an expiry is checked as an analysis's (its own field name)
    expiresAt =
      body.expiresAt === null || body.expiresAt === undefined
        ? null
        : parseAnalysis(
            { state: 'in_triage', expiresAt: body.expiresAt },
            { now: o.now, installedVersions: null, actor: o.actor },
          ).expiresAt;
  }
  let mode = o.current?.mode;
  if (has('mode') || !o.current) {
    const m = body.mode;
    if (m === undefined || m === null) throw missing('mode');
    if (typeof m !== 'string' || !(RULE_MODES as readonly string[]).includes(m))
      throw invalidParameter('mode', `must be one of ${RULE_MODES.join(', ')}`);
    mode = m as RuleMode;
  }
  return { name: name!, conditions, analysis: analysis!, expiresAt, mode: mode! };
}
