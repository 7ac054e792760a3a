// The statements of a VEX document, read into one form whatever the format (docs/integrations.md#vex-import): the
// advisory ids a statement names, the packages it is about (purls), when it was made, and the triage decision it says
// (state, justification, response, detail as src/domain/triage/analysis.ts checks them). A statement that lacks what
// a decision requires (§ of docs/triage.md: a justification for not_affected; a detail for not_affected,
// false_positive and resolved) carries a problem instead, which the import reports and does not apply.
//
// CycloneDX (1.4-1.6): a statement is a `vulnerabilities[]` entry with an `analysis`; its ids are `id` and every
// `references[].id`; its packages the purls of `affects[].ref`, which is a component's bom-ref (components nested at
// any depth, and metadata.component), a purl itself (as Dependency-Track writes refs), or a BOM-Link
// (`urn:cdx:<serial>/<version>#<bom-ref>`) whose fragment is one of those. A purl without a version takes the versions
// `affects[].versions[].version` lists. States and justifications are the service's own; `resolved_with_pedigree` is
// `resolved`.
//
// OpenVEX (0.2.0): a statement is a `statements[]` entry; its ids `vulnerability.name`, `@id` and `aliases`; its
// packages the purls of each product's subcomponents (`@id` or `identifiers.purl`), else the product's own. Status:
// not_affected → not_affected, affected → exploitable, fixed → resolved, under_investigation → in_triage; the
// justification as in JUSTIFICATION_IN; the detail is the impact_statement (not_affected), the action_statement
// (affected) or the status_notes. A document this service exported says the analysis in CycloneDX's words at the end
// of status_notes ("Triage analysis (CycloneDX): state …; justification …; response …."): its state, justification
// and responses are taken from there, so false_positive and the finer justifications come back as they were.
import { RESPONSE_WORDS, STATUS, type OpenVexJustification } from '../openvex/openvex';
import {
  ANALYSIS_STATES,
  DETAIL_MAX,
  JUSTIFICATIONS,
  RESPONSES,
  type AnalysisState,
  type Justification,
  type Response,
} from '../triage/analysis';
import { normalizedName } from '../../shared/package-names';
import { purlPackage, type PurlPackage } from './purl';

/** A triage decision a statement says. */
export interface Decision {
  state: AnalysisState;
  justification: Justification | null;
  response: Response[];
  detail: string | null;
}

export type ProblemCode = 'no_analysis' | 'missing_field' | 'invalid_field' | 'no_package';

export interface VexStatement {
  /** Its position in the document's list (vulnerabilities or statements), from 0. */
  index: number;
  /** The advisory id it leads with. */
  vulnerability: string | null;
  /** Every advisory id it names. */
  ids: string[];
  packages: PurlPackage[];
  /** Refs that name no package the service scans, and why (reported when nothing else matches). */
  unusable: Array<{ ref: string; reason: string }>;
  /** When it was made (ms), if the document says: a later statement about one alert supersedes an earlier one. */
  timestamp: number | null;
  decision: Decision | null;
  problem: { code: ProblemCode; reason: string } | null;
}

/** OpenVEX's justification → the service's (CycloneDX's). Its five are coarser than CycloneDX's nine. */
export const JUSTIFICATION_IN: Readonly<Record<OpenVexJustification, Justification>> = {
  component_not_present: 'code_not_present',
  vulnerable_code_not_present: 'code_not_present',
  vulnerable_code_not_in_execute_path: 'code_not_reachable',
  vulnerable_code_cannot_be_controlled_by_adversary: 'requires_configuration',
  inline_mitigations_already_exist: 'protected_by_mitigating_control',
};

const OPENVEX_STATE: Readonly<Record<string, AnalysisState>> = {
  not_affected: 'not_affected',
  affected: 'exploitable',
  fixed: 'resolved',
  under_investigation: 'in_triage',
};

const CYCLONEDX_STATE: Readonly<Record<string, AnalysisState>> = {
  in_triage: 'in_triage',
  exploitable: 'exploitable',
  false_positive: 'false_positive',
  not_affected: 'not_affected',
  resolved: 'resolved',
  resolved_with_pedigree: 'resolved',
};

const DETAIL_REQUIRED: readonly AnalysisState[] = ['not_affected', 'false_positive', 'resolved'];

type Obj = Record<string, unknown>;
const isObj = (x: unknown): x is Obj => !!x && typeof x === 'object' && !Array.isArray(x);
const str = (x: unknown): string | null => (typeof x === 'string' && x.trim() !== '' ? x : null);
const arr = (x: unknown): unknown[] => (Array.isArray(x) ? x : []);
const time = (...xs: unknown[]): number | null => {
  for (const x of xs) {
    const t = typeof x === 'string' ? Date.parse(x) : NaN;
    if (Number.isFinite(t)) return t;
  }
  return null;
};

/** The decision checked as a person's would be, or the first thing it lacks. */
function checked(
  d: Decision,
): { decision: Decision; problem: null } | { decision: null; problem: VexStatement['problem'] } {
  const fail = (code: ProblemCode, reason: string) => ({ decision: null, problem: { code, reason } });
  if (d.state === 'not_affected' && !d.justification)
    return fail('missing_field', 'justification: is required when the state is not_affected');
  if (d.detail !== null && [...d.detail].length > DETAIL_MAX)
    return fail('invalid_field', `detail: at most ${DETAIL_MAX} characters`);
  if (d.detail === null && DETAIL_REQUIRED.includes(d.state))
    return fail('missing_field', `detail: is required when the state is ${d.state}`);
  return { decision: { ...d, response: [...new Set(d.response)] }, problem: null };
}

function packagesOf(refs: Array<{ ref: string; purl: string | null; versions: string[] }>): {
  packages: PurlPackage[];
  unusable: VexStatement['unusable'];
} {
  const packages: PurlPackage[] = [];
  const unusable: VexStatement['unusable'] = [];
  const seen = new Set<string>();
  for (const r of refs) {
    if (r.purl === null) {
      unusable.push({ ref: r.ref, reason: 'names no component with a purl' });
      continue;
    }
    const p = purlPackage(r.purl);
    if ('error' in p) {
      unusable.push({ ref: r.ref, reason: `${r.purl} ${p.error}` });
      continue;
    }
    const versions = p.version === null && r.versions.length ? r.versions : [p.version];
    for (const version of versions) {
      const k = `${p.ecosystems[0]}\0${p.key}\0${version ?? ''}`;
      if (seen.has(k)) continue;
      seen.add(k);
      packages.push({ ...p, version });
    }
  }
  return { packages, unusable };
}

function statement(
  index: number,
  ids: Array<string | null>,
  refs: Array<{ ref: string; purl: string | null; versions: string[] }>,
  timestamp: number | null,
  decision: Decision | null,
  problem: VexStatement['problem'],
): VexStatement {
  const all = [...new Set(ids.filter((x): x is string => x !== null).map((x) => x.trim()))];
  const { packages, unusable } = packagesOf(refs);
  const base = { index, vulnerability: all[0] ?? null, ids: all, packages, unusable, timestamp };
  if (problem || !decision)
    return { ...base, decision: null, problem: problem ?? { code: 'no_analysis', reason: 'says no decision' } };
  if (!packages.length)
    return {
      ...base,
      decision: null,
      problem: {
        code: 'no_package',
        reason: unusable.length
          ? `names no npm, pypi or maven package: ${unusable.map((u) => `${u.ref} ${u.reason}`).join('; ')}`.slice(
              0,
              1000,
            )
          : 'names no package (no purl)',
      },
    };
  return { ...base, ...checked(decision) };
}

// ------------------------------------------------------------------------------------------------ CycloneDX --

/** Every component's purl by its bom-ref, components nested at any depth and metadata.component included. */
function purlsByRef(doc: Obj): Map<string, string | null> {
  const out = new Map<string, string | null>();
  const walk = (list: unknown[]) => {
    for (const c of list) {
      if (!isObj(c)) continue;
      const ref = str(c['bom-ref']);
      if (ref !== null && !out.has(ref)) out.set(ref, str(c.purl));
      walk(arr(c.components));
    }
  };
  if (isObj(doc.metadata) && isObj(doc.metadata.component)) walk([doc.metadata.component]);
  walk(arr(doc.components));
  return out;
}

const looksLikePurl = (s: string) => /^pkg:/i.test(s.trim());

function cdxPurl(ref: string, byRef: Map<string, string | null>): string | null {
  if (byRef.has(ref)) return byRef.get(ref)!;
  if (looksLikePurl(ref)) return ref;
  // A BOM-Link to another document's component: its fragment is the bom-ref (percent-encoded).
  const m = /^urn:cdx:[^#]+#(.+)$/i.exec(ref);
  if (m) {
    let frag = m[1];
    try {
      frag = decodeURIComponent(frag);
    } catch {
      /* kept as written */
    }
    if (byRef.has(frag)) return byRef.get(frag)!;
    if (looksLikePurl(frag)) return frag;
  }
  return null;
}

export function cyclonedxStatements(doc: Obj): VexStatement[] {
  const byRef = purlsByRef(doc);
  return arr(doc.vulnerabilities).map((raw, index) => {
    const v = isObj(raw) ? raw : {};
    const ids = [str(v.id), ...arr(v.references).map((r) => (isObj(r) ? str(r.id) : null))];
    const refs = arr(v.affects)
      .filter(isObj)
      .map((a) => {
        const ref = str(a.ref) ?? '';
        const versions = arr(a.versions)
          .map((x) => (isObj(x) ? str(x.version) : null))
          .filter((x): x is string => x !== null);
        return { ref, purl: ref === '' ? null : cdxPurl(ref, byRef), versions };
      });
    const a = isObj(v.analysis) ? v.analysis : null;
    const ts = time(a?.lastUpdated, a?.firstIssued, v.updated, v.published, v.created);
    if (!a || typeof a.state !== 'string')
      return statement(index, ids, refs, ts, null, {
        code: 'no_analysis',
        reason: a ? 'analysis: has no state' : 'carries no analysis',
      });
    const state = CYCLONEDX_STATE[a.state];
    if (!state)
      return statement(index, ids, refs, ts, null, { code: 'invalid_field', reason: `analysis.state: ${a.state}` });
    const justification = str(a.justification);
    const decision: Decision = {
      state,
      justification:
        justification && (JUSTIFICATIONS as readonly string[]).includes(justification)
          ? (justification as Justification)
          : null,
      response: arr(a.response).filter((r): r is Response => (RESPONSES as readonly unknown[]).includes(r)),
      detail: str(a.detail),
    };
    return statement(index, ids, refs, ts, decision, null);
  });
}

// -------------------------------------------------------------------------------------------------- OpenVEX --

const MARKER =
  /(?:^|\n)Triage analysis \(CycloneDX\): state ([a-z_]+)(?:; justification ([a-z_]+))?(?:; response ([a-z_, ]+))?\.\s*$/;

/** What this service's own export said in status_notes: the text before it, and the analysis in CycloneDX's words. */
function marker(notes: string | null): {
  before: string | null;
  state: AnalysisState;
  justification: Justification | null;
  response: Response[];
} | null {
  if (notes === null) return null;
  const m = MARKER.exec(notes);
  if (!m || !(ANALYSIS_STATES as readonly string[]).includes(m[1])) return null;
  const j = m[2] && (JUSTIFICATIONS as readonly string[]).includes(m[2]) ? (m[2] as Justification) : null;
  const response = (m[3] ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter((r): r is Response => (RESPONSES as readonly string[]).includes(r));
  return { before: str(notes.slice(0, m.index)), state: m[1] as AnalysisState, justification: j, response };
}

/**
 * The action_statement this service's export writes for an exploitable analysis without a detail: the responses in
 * words, else "Upgrade <the statement's package> to <version>.", else the no-remediation sentence. (A person's detail
 * written exactly so cannot be told apart: it imports as no detail.)
 */
function derivedAction(text: string, response: Response[], packages: readonly PurlPackage[]): boolean {
  if (response.length) return text === response.map((r) => RESPONSE_WORDS[r]).join(' ');
  if (text === 'No remediation has been decided yet: no fixed version is known.') return true;
  const m = /^Upgrade (\S.*) to \S+\.$/.exec(text);
  return !!m && packages.some((p) => normalizedName(p.ecosystems[0], m[1]) === p.key);
}

function openvexRefs(products: unknown[]): Array<{ ref: string; purl: string | null; versions: string[] }> {
  const idOf = (x: Obj): { ref: string; purl: string | null } => {
    const id = str(x['@id']);
    const ident = isObj(x.identifiers) ? str(x.identifiers.purl) : null;
    const purl = id !== null && looksLikePurl(id) ? id : ident;
    return { ref: id ?? ident ?? '', purl };
  };
  const out: Array<{ ref: string; purl: string | null; versions: string[] }> = [];
  for (const p of products.filter(isObj)) {
    const subs = arr(p.subcomponents).filter(isObj);
    if (subs.length) for (const s of subs) out.push({ ...idOf(s), versions: [] });
    else out.push({ ...idOf(p), versions: [] });
  }
  return out;
}

export function openvexStatements(doc: Obj): VexStatement[] {
  const docTime = time(doc.last_updated, doc.timestamp);
  return arr(doc.statements).map((raw, index) => {
    const s = isObj(raw) ? raw : {};
    const vuln = isObj(s.vulnerability) ? s.vulnerability : {};
    const ids = [str(vuln.name), ...arr(vuln.aliases).map(str)];
    const id = str(vuln['@id']);
    if (id !== null && !/^[a-z][a-z0-9+.-]*:\/\//i.test(id)) ids.push(id); // an IRI that is an id, not a URL
    const refs = openvexRefs(arr(s.products));
    const ts = time(s.last_updated, s.timestamp) ?? docTime;
    const status = typeof s.status === 'string' ? s.status : '';
    const state = OPENVEX_STATE[status];
    if (!state) return statement(index, ids, refs, ts, null, { code: 'invalid_field', reason: `status: ${status}` });
    const notes = str(s.status_notes);
    const own = marker(notes);
    const mine = own && STATUS[own.state] === status ? own : null;
    const justification = str(s.justification) as OpenVexJustification | null;
    let detail: string | null;
    if (state === 'not_affected') detail = str(s.impact_statement) ?? (mine ? mine.before : notes);
    else if (state === 'exploitable') {
      const action = str(s.action_statement);
      detail = mine
        ? action !== null && !derivedAction(action, mine.response, packagesOf(refs).packages)
          ? action
          : mine.before
        : (action ?? notes);
    } else detail = mine ? mine.before : notes;
    const decision: Decision = mine
      ? { state: mine.state, justification: mine.justification, response: mine.response, detail }
      : {
          state,
          justification: state === 'not_affected' && justification ? (JUSTIFICATION_IN[justification] ?? null) : null,
          response: [],
          detail,
        };
    return statement(index, ids, refs, ts, decision, null);
  });
}
