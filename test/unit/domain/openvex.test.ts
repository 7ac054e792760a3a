// The OpenVEX 0.2.0 builder (src/domain/openvex/openvex.ts): one statement per (advisory, package) whose finding's
// alert has an analysis in force (none for a finding without one, an expired analysis, or one covering other
// versions), the status and justification mapping for every state and justification, the project as the product with
// the package's purl as its subcomponent, and every document valid against the official OpenVEX 0.2.0 schema (the
// third-party data's schemas/openvex-0.2.0.schema.json), formats checked.
import fs from 'node:fs';
import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import type { VexFinding } from '../../../src/domain/cyclonedx/vex';
import {
  buildOpenVex,
  FALSE_POSITIVE_JUSTIFICATION,
  JUSTIFICATION,
  OPENVEX_CONTEXT,
  packagePurl,
  RESPONSE_WORDS,
  STATUS,
  type OpenVexInput,
} from '../../../src/domain/openvex/openvex';
import {
  ANALYSIS_STATES,
  JUSTIFICATIONS,
  RESPONSES,
  type Analysis,
  type AnalysisState,
} from '../../../src/domain/triage/analysis';
import { itWithSharedData, sharedDataPath } from '../../helpers/shared-data';

const PRJ = 'prj_0000000000TESTPROJECT';
const PROJECT = `urn:supply-chain-scanner:project:${PRJ}`;
const scan = {
  id: 'scn_0000000000TESTSCAN01',
  projectId: PRJ,
  project: 'shop',
  startedAt: '2026-11-23T10:00:00.000Z',
  finishedAt: '2026-11-23T10:00:05.000Z',
};
const tool = { name: 'supply-chain-scanner', version: '9.9.9' };
const NOW = new Date('2026-12-01T00:00:00.000Z');

// ------------------------------------------------------------------------------------------------- schema --
/** An absolute IRI (RFC 3987), as far as WHATWG URL parsing can tell: a scheme, no blanks, controls or delimiters. */
const iri = (s: string) => {
  if (!/^[a-z][a-z0-9+.-]*:/i.test(s) || /[\s\u0000-\u001f\u007f<>"{}|\\^`]/u.test(s)) return false;
  try {
    new URL(s);
    return true;
  } catch {
    return false;
  }
};
let validate: ReturnType<Ajv2020['compile']> | undefined;
/** The official schema's errors for a document ([] when valid); read at the first check (itWithSharedData). */
function openVexErrors(doc: unknown): unknown[] {
  if (!validate) {
    const ajv = new Ajv2020({ strict: false, allErrors: true });
    addFormats(ajv);
    ajv.addFormat('iri', iri);
    const schema = JSON.parse(fs.readFileSync(sharedDataPath('schemas', 'openvex-0.2.0.schema.json'), 'utf8'));
    validate = ajv.compile(schema);
  }
  return validate(doc) ? [] : (validate.errors ?? ['invalid']);
}

// ------------------------------------------------------------------------------------------------ helpers --
const finding = (over: Partial<VexFinding>): VexFinding => ({
  id: 'fnd_1',
  severity: 'high',
  cve: 'CVE-2021-1234',
  publishedAt: null,
  package: 'left-pad',
  installedVersion: '1.3.0',
  fixedVersion: '1.3.1',
  path: ['web/package.json', 'left-pad@1.3.0'],
  suppressed: false,
  suppressionReason: null,
  summary: 'Prototype pollution in left-pad',
  aliases: ['CVE-2021-1234', 'GHSA-1111-2222-3333'],
  packageRef: 'dep_leftpad',
  alertId: 'alr_1',
  ...over,
});
const analysis = (state: AnalysisState, over: Partial<Analysis> = {}): Analysis => ({
  state,
  justification: null,
  response: [],
  detail: null,
  expiresAt: null,
  versions: null,
  ticketUrl: null,
  updatedAt: '2026-11-20T09:00:00.000Z',
  updatedBy: { kind: 'user', id: 'usr_1' },
  ...over,
});
const build = (findings: VexFinding[], analyses: Map<string, Analysis>, over: Partial<OpenVexInput> = {}) =>
  buildOpenVex({ scan, ecosystem: 'javascript', author: 'Acme', tool, findings, analyses, now: NOW, ...over });

/** A finding with its own alert for each analysis given, in order: fnd_001/alr_001, ... */
function oneEach(analyses: Analysis[]): { findings: VexFinding[]; map: Map<string, Analysis> } {
  const findings: VexFinding[] = [];
  const map = new Map<string, Analysis>();
  analyses.forEach((a, i) => {
    const n = String(i + 1).padStart(3, '0');
    findings.push(
      finding({ id: `fnd_${n}`, cve: `GHSA-0000-0000-0${n}`, aliases: [`GHSA-0000-0000-0${n}`], alertId: `alr_${n}` }),
    );
    map.set(`alr_${n}`, a);
  });
  return { findings, map };
}

// ------------------------------------------------------------------------------------------------- tests --
describe('the mapping', () => {
  test('every state has a status, every CycloneDX justification an OpenVEX one', () => {
    expect(STATUS).toEqual({
      not_affected: 'not_affected',
      false_positive: 'not_affected',
      exploitable: 'affected',
      resolved: 'fixed',
      in_triage: 'under_investigation',
    });
    expect(Object.keys(STATUS).sort()).toEqual([...ANALYSIS_STATES].sort());
    expect(JUSTIFICATION).toEqual({
      code_not_present: 'vulnerable_code_not_present',
      code_not_reachable: 'vulnerable_code_not_in_execute_path',
      requires_configuration: 'vulnerable_code_cannot_be_controlled_by_adversary',
      requires_dependency: 'vulnerable_code_cannot_be_controlled_by_adversary',
      requires_environment: 'vulnerable_code_cannot_be_controlled_by_adversary',
      protected_by_compiler: 'inline_mitigations_already_exist',
      protected_at_runtime: 'inline_mitigations_already_exist',
      protected_at_perimeter: 'inline_mitigations_already_exist',
      protected_by_mitigating_control: 'inline_mitigations_already_exist',
    });
    expect(Object.keys(JUSTIFICATION).sort()).toEqual([...JUSTIFICATIONS].sort());
    expect(Object.keys(RESPONSE_WORDS).sort()).toEqual([...RESPONSES].sort());
  });

  itWithSharedData('every state and every justification: statements valid against the OpenVEX 0.2.0 schema', () => {
    const { findings, map } = oneEach([
      ...JUSTIFICATIONS.map((j) => analysis('not_affected', { justification: j, detail: `not affected: ${j}` })),
      analysis('false_positive', { detail: 'the advisory names another package' }),
      analysis('false_positive', { justification: 'code_not_reachable', detail: 'misattributed' }),
      analysis('exploitable', { detail: 'reachable from the checkout', response: ['update'] }),
      analysis('exploitable', { response: ['workaround_available', 'will_not_fix'] }),
      analysis('exploitable'),
      analysis('resolved', { detail: 'upgraded in release 4.2' }),
      analysis('in_triage'),
      analysis('in_triage', { detail: 'looking into it', response: ['update'] }),
    ]);
    const doc = build(findings, map);
    expect(openVexErrors(doc)).toEqual([]);
    const s = doc.statements;
    expect(s).toHaveLength(findings.length);
    const J = JUSTIFICATIONS.length;
    JUSTIFICATIONS.forEach((j, i) => {
      expect(s[i]).toMatchObject({
        status: 'not_affected',
        justification: JUSTIFICATION[j],
        impact_statement: `not affected: ${j}`,
        status_notes: `Triage analysis (CycloneDX): state not_affected; justification ${j}.`,
      });
      expect(s[i]).not.toHaveProperty('action_statement');
    });
    // false_positive: not_affected, vulnerable_code_not_present, the detail; the state kept in status_notes
    expect(s[J]).toEqual({
      vulnerability: { name: 'GHSA-0000-0000-0010' },
      timestamp: '2026-11-20T09:00:00.000Z',
      products: [{ '@id': PROJECT, subcomponents: [{ '@id': 'pkg:npm/left-pad@1.3.0' }] }],
      status: 'not_affected',
      justification: FALSE_POSITIVE_JUSTIFICATION,
      impact_statement: 'the advisory names another package',
      status_notes: 'Triage analysis (CycloneDX): state false_positive.',
    });
    expect(FALSE_POSITIVE_JUSTIFICATION).toBe('vulnerable_code_not_present');
    expect(s[J + 1]).toMatchObject({
      status: 'not_affected',
      justification: 'vulnerable_code_not_present',
      status_notes: 'Triage analysis (CycloneDX): state false_positive; justification code_not_reachable.',
    });
    // exploitable: affected, the detail as the action, else the responses in words, else the fixed version
    expect(s[J + 2]).toMatchObject({
      status: 'affected',
      action_statement: 'reachable from the checkout',
      action_statement_timestamp: '2026-11-20T09:00:00.000Z',
      status_notes: 'Triage analysis (CycloneDX): state exploitable; response update.',
    });
    expect(s[J + 2]).not.toHaveProperty('justification');
    expect(s[J + 3].action_statement).toBe('A workaround is available. The vulnerability will not be fixed.');
    expect(s[J + 4].action_statement).toBe('Upgrade left-pad to 1.3.1.');
    // resolved: fixed; in_triage: under_investigation; the detail in status_notes
    expect(s[J + 5]).toEqual({
      vulnerability: { name: 'GHSA-0000-0000-0015' },
      timestamp: '2026-11-20T09:00:00.000Z',
      products: [{ '@id': PROJECT, subcomponents: [{ '@id': 'pkg:npm/left-pad@1.3.0' }] }],
      status: 'fixed',
      status_notes: 'upgraded in release 4.2\nTriage analysis (CycloneDX): state resolved.',
    });
    expect(s[J + 6]).toMatchObject({
      status: 'under_investigation',
      status_notes: 'Triage analysis (CycloneDX): state in_triage.',
    });
    expect(s[J + 7].status_notes).toBe(
      'looking into it\nTriage analysis (CycloneDX): state in_triage; response update.',
    );
  });

  itWithSharedData('an exploitable analysis without detail or responses, and no fix known: still an action', () => {
    const doc = build([finding({ fixedVersion: null })], new Map([['alr_1', analysis('exploitable')]]));
    expect(openVexErrors(doc)).toEqual([]);
    expect(doc.statements[0].action_statement).toBe('No remediation has been decided yet: no fixed version is known.');
  });
});

describe('the document', () => {
  itWithSharedData('its frame: context, stable id, author, the scan as timestamp, version, tooling', () => {
    const doc = build([finding({})], new Map([['alr_1', analysis('in_triage')]]));
    expect(openVexErrors(doc)).toEqual([]);
    expect(doc).toMatchObject({
      '@context': OPENVEX_CONTEXT,
      '@id': `urn:supply-chain-scanner:scan:${scan.id}:openvex`,
      author: 'Acme',
      timestamp: scan.finishedAt,
      version: 1,
      tooling: 'supply-chain-scanner 9.9.9',
    });
    expect(OPENVEX_CONTEXT).toBe('https://openvex.dev/ns/v0.2.0');
    // the analysis predates the scan: no last_updated
    expect(doc).not.toHaveProperty('last_updated');
    expect(doc.statements[0].vulnerability).toEqual({ name: 'CVE-2021-1234', aliases: ['GHSA-1111-2222-3333'] });
    // the same input, the same bytes
    expect(JSON.stringify(build([finding({})], new Map([['alr_1', analysis('in_triage')]])))).toBe(JSON.stringify(doc));
  });

  itWithSharedData('last_updated: the latest analysis made after the scan', () => {
    const { findings, map } = oneEach([
      analysis('in_triage', { updatedAt: '2026-11-25T00:00:00.000Z' }),
      analysis('resolved', { detail: 'done', updatedAt: '2026-11-27T12:00:00.000Z' }),
      analysis('in_triage', { updatedAt: '2026-11-01T00:00:00.000Z' }),
    ]);
    const doc = build(findings, map);
    expect(openVexErrors(doc)).toEqual([]);
    expect(doc.timestamp).toBe(scan.finishedAt);
    expect(doc.last_updated).toBe('2026-11-27T12:00:00.000Z');
    expect(doc.statements.map((s) => s.timestamp)).toEqual([
      '2026-11-25T00:00:00.000Z',
      '2026-11-27T12:00:00.000Z',
      '2026-11-01T00:00:00.000Z',
    ]);
  });

  itWithSharedData(
    'findings without an analysis in force make no statement; none at all is not a valid document',
    () => {
      const findings = [
        finding({ id: 'fnd_a', alertId: 'alr_a' }),
        finding({ id: 'fnd_none', cve: 'CVE-2021-0002', aliases: ['CVE-2021-0002'], alertId: 'alr_without' }),
        finding({ id: 'fnd_null', cve: 'CVE-2021-0003', aliases: ['CVE-2021-0003'], alertId: null }),
        finding({ id: 'fnd_old', cve: 'CVE-2021-0004', aliases: ['CVE-2021-0004'], alertId: undefined }),
        finding({ id: 'fnd_expired', cve: 'CVE-2021-0005', aliases: ['CVE-2021-0005'], alertId: 'alr_expired' }),
        finding({ id: 'fnd_other', cve: 'CVE-2021-0006', aliases: ['CVE-2021-0006'], alertId: 'alr_other' }),
        finding({
          id: 'fnd_suppressed',
          cve: 'CVE-2021-0007',
          aliases: ['CVE-2021-0007'],
          alertId: 'alr_without',
          suppressed: true,
          suppressionReason: 'only in tests',
          suppressionSource: 'snapshot',
        }),
      ];
      const analyses = new Map([
        [
          'alr_a',
          analysis('not_affected', { justification: 'code_not_present', detail: 'patched out', versions: ['1.3.0'] }),
        ],
        [
          'alr_expired',
          analysis('not_affected', {
            justification: 'code_not_reachable',
            detail: 'for now',
            expiresAt: '2026-11-30T00:00:00.000Z',
          }),
        ],
        ['alr_other', analysis('false_positive', { detail: 'not this one', versions: ['1.2.0'] })],
      ]);
      const doc = build(findings, analyses);
      expect(openVexErrors(doc)).toEqual([]);
      expect(doc.statements.map((s) => s.vulnerability.name)).toEqual(['CVE-2021-1234']);
      // before its expiry the expired one is in force
      const earlier = build(findings, analyses, { now: new Date('2026-11-29T00:00:00.000Z') });
      expect(earlier.statements.map((s) => s.vulnerability.name)).toEqual(['CVE-2021-1234', 'CVE-2021-0005']);
      // nothing to state: the schema wants a statement, which is why the route answers 409 for such a scan
      const empty = build(findings.slice(1), analyses);
      expect(empty.statements).toEqual([]);
      expect(openVexErrors(empty)).not.toEqual([]);
    },
  );

  itWithSharedData(
    'products: the project, the package purl as subcomponent, per ecosystem; one statement per (advisory, purl)',
    () => {
      const a = new Map([['alr_1', analysis('in_triage')]]);
      const cases: Array<[string, string, string, string]> = [
        ['javascript', '@Acme/Util', '2.0.0', 'pkg:npm/%40acme/util@2.0.0'],
        ['python', 'Foo_Bar', '1.0', 'pkg:pypi/foo-bar@1.0'],
        ['gradle', 'org.example:lib-a', '1.0', 'pkg:maven/org.example/lib-a@1.0'],
      ];
      for (const [ecosystem, name, version, purl] of cases) {
        const doc = build([finding({ package: name, installedVersion: version })], a, { ecosystem });
        expect(openVexErrors(doc)).toEqual([]);
        expect(doc.statements[0].products).toEqual([{ '@id': PROJECT, subcomponents: [{ '@id': purl }] }]);
      }
      expect(packagePurl('cargo', 'serde json', '1.0')).toBe('pkg:generic/serde%20json@1.0');
      // two names npm does not tell apart are one package: one statement, the first finding's
      const twice = build(
        [
          finding({ id: 'fnd_a', package: 'Zeta', installedVersion: '1.0.0' }),
          finding({ id: 'fnd_b', package: 'zeta', installedVersion: '1.0.0' }),
          finding({ id: 'fnd_c', package: 'zeta', installedVersion: '1.0.1' }),
        ],
        a,
      );
      expect(openVexErrors(twice)).toEqual([]);
      expect(twice.statements.map((s) => s.products[0].subcomponents[0]['@id'])).toEqual([
        'pkg:npm/zeta@1.0.0',
        'pkg:npm/zeta@1.0.1',
      ]);
    },
  );

  itWithSharedData(
    'the schema check fails what it should: affected without an action, a bad status, an @id that is no IRI',
    () => {
      const doc = build([finding({})], new Map([['alr_1', analysis('exploitable', { detail: 'x' })]])) as any;
      expect(openVexErrors(doc)).toEqual([]);
      const { action_statement: _dropped, ...noAction } = doc.statements[0];
      expect(openVexErrors({ ...doc, statements: [noAction] })).not.toEqual([]);
      expect(openVexErrors({ ...doc, statements: [{ ...doc.statements[0], status: 'exploitable' }] })).not.toEqual([]);
      expect(openVexErrors({ ...doc, '@id': 'not an iri' })).not.toEqual([]);
    },
  );
});
