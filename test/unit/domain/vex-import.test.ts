// The VEX import's pure core (src/domain/vex-import): a document's kind by its content (detectVex), its validation
// against the official schemas kept in the repository (schemaError, uniqueItems checked by the linear keyword), a
// purl as the package a scan names (purlPackage), the statements of CycloneDX 1.4-1.6 and OpenVEX 0.2.0 documents in
// one form (refs, ids, timestamps, decisions and their problems), their matching to a project's alerts
// (matchStatements), and the round trip with the service's own exports: every analysis a person can make, written by
// the OpenVEX statement builder (statementOf, buildOpenVex) and the CycloneDX VEX's analysis (cdxAnalysis), comes back
// with the same state, justification, response and detail.
import { cdxAnalysis, type VexFinding } from '../../../src/domain/cyclonedx/vex';
import { ApiError } from '../../../src/domain/errors';
import {
  buildOpenVex,
  JUSTIFICATION,
  RESPONSE_WORDS,
  statementOf,
  type OpenVexInput,
  type OpenVexJustification,
} from '../../../src/domain/openvex/openvex';
import {
  ANALYSIS_STATES,
  DETAIL_MAX,
  JUSTIFICATIONS,
  parseAnalysis,
  RESPONSES,
  type Analysis,
  type Justification,
  type Response,
} from '../../../src/domain/triage/analysis';
import { matchStatements, type MatchAlert } from '../../../src/domain/vex-import/match';
import { purlPackage, type PurlPackage } from '../../../src/domain/vex-import/purl';
import {
  cyclonedxStatements,
  JUSTIFICATION_IN,
  openvexStatements,
  type Decision,
  type VexStatement,
} from '../../../src/domain/vex-import/statements';
import {
  canonicalJson,
  CYCLONEDX_VERSIONS,
  detectVex,
  OPENVEX_CONTEXT_PREFIX,
  schemaError,
  type VexKind,
} from '../../../src/domain/vex-import/validate';

type Obj = Record<string, unknown>;

// ------------------------------------------------------------------------------------------------ helpers --
const CDX16: VexKind = { format: 'cyclonedx', specVersion: '1.6' };
const OPENVEX: VexKind = { format: 'openvex', specVersion: '0.2.0' };
const NPM = ['javascript', 'typescript'];

/** A CycloneDX document of a version (1.6 unless said), with the fields given. */
const bom = (over: Obj = {}, specVersion = '1.6'): Obj => ({
  bomFormat: 'CycloneDX',
  specVersion,
  version: 1,
  ...over,
});

/** An OpenVEX 0.2.0 document of the statements given. */
const openvexDoc = (statements: Obj[], over: Obj = {}): Obj => ({
  '@context': 'https://openvex.dev/ns/v0.2.0',
  '@id': 'https://vex.example.test/docs/1',
  author: 'Acme',
  timestamp: '2026-01-01T00:00:00Z',
  version: 1,
  statements,
  ...over,
});

/** An OpenVEX statement: under investigation, about left-pad 1.3.0 (a product that is the purl). */
const ovStatement = (over: Obj = {}): Obj => ({
  vulnerability: { name: 'CVE-2021-1234' },
  products: [{ '@id': 'pkg:npm/left-pad@1.3.0' }],
  status: 'under_investigation',
  ...over,
});

/** The document's kind, checked valid against its schema (the inputs below are documents an import accepts). */
function accepted(doc: Obj): VexKind {
  const kind = detectVex(doc);
  if ('error' in kind) throw new Error(`not a VEX: ${kind.error}`);
  expect(schemaError(kind, doc)).toBeNull();
  return kind;
}

/** The statements of a valid CycloneDX document. */
function cdxRead(doc: Obj): VexStatement[] {
  expect(accepted(doc).format).toBe('cyclonedx');
  return cyclonedxStatements(doc);
}

/** The statements of a valid OpenVEX document. */
function ovRead(statements: Obj[], over: Obj = {}): VexStatement[] {
  const doc = openvexDoc(statements, over);
  expect(accepted(doc).format).toBe('openvex');
  return openvexStatements(doc);
}

/** A purl the service scans, as purlPackage reads it. */
function pkg(purl: string, version?: string | null): PurlPackage {
  const p = purlPackage(purl);
  if ('error' in p) throw new Error(`${purl} ${p.error}`);
  return version === undefined ? p : { ...p, version };
}

const decision = (over: Partial<Decision> = {}): Decision => ({
  state: 'in_triage',
  justification: null,
  response: [],
  detail: null,
  ...over,
});

/** A statement about CVE-2021-1234 in the purls given, deciding in_triage, without a timestamp. */
const stmt = (index: number, purls: string[], over: Partial<VexStatement> = {}): VexStatement => ({
  index,
  vulnerability: 'CVE-2021-1234',
  ids: ['CVE-2021-1234'],
  packages: purls.map((p) => pkg(p)),
  unusable: [],
  timestamp: null,
  decision: decision(),
  problem: null,
  ...over,
});

/** An alert of the project: left-pad (npm) for CVE-2021-1234 and its GHSA alias, 1.3.0 installed, no analysis. */
const alert = (over: Partial<MatchAlert> = {}): MatchAlert => ({
  id: 'alr_1',
  ecosystem: 'javascript',
  key: 'left-pad',
  package: 'left-pad',
  advisory: 'CVE-2021-1234',
  aliases: ['CVE-2021-1234', 'GHSA-1111-2222-3333'],
  installedVersions: ['1.3.0'],
  analysis: null,
  ...over,
});

const match = (statements: VexStatement[], alerts: MatchAlert[], overwrite = false) =>
  matchStatements(statements, alerts, { overwrite });

const T = (iso: string) => Date.parse(iso);

// ----------------------------------------------------------------------------------------------- detectVex --
describe('detectVex', () => {
  test('CycloneDX 1.4, 1.5 and 1.6 by bomFormat and specVersion', () => {
    expect(CYCLONEDX_VERSIONS).toEqual(['1.4', '1.5', '1.6']);
    for (const v of ['1.4', '1.5', '1.6'])
      expect(detectVex({ bomFormat: 'CycloneDX', specVersion: v })).toEqual({ format: 'cyclonedx', specVersion: v });
  });

  test('another CycloneDX version is refused naming it and the versions taken', () => {
    expect(detectVex({ bomFormat: 'CycloneDX', specVersion: '1.3' })).toEqual({
      error: 'is CycloneDX "1.3": VEX is imported from CycloneDX 1.4, 1.5, 1.6',
    });
    expect(detectVex({ bomFormat: 'CycloneDX', specVersion: '1.7' })).toEqual({
      error: 'is CycloneDX "1.7": VEX is imported from CycloneDX 1.4, 1.5, 1.6',
    });
    expect(detectVex({ bomFormat: 'CycloneDX' })).toEqual({
      error: 'is CycloneDX without a specVersion: VEX is imported from CycloneDX 1.4, 1.5, 1.6',
    });
    // a number is not the version string the schema wants
    expect(detectVex({ bomFormat: 'CycloneDX', specVersion: 1.6 })).toHaveProperty('error');
    // a long version is cut in the refusal
    const long = detectVex({ bomFormat: 'CycloneDX', specVersion: `1.${'9'.repeat(100)}` });
    expect(long).toEqual({ error: `is CycloneDX "1.${'9'.repeat(18)}": VEX is imported from CycloneDX 1.4, 1.5, 1.6` });
  });

  test('OpenVEX 0.2.0 by its @context, also with a trailing path or fragment', () => {
    expect(OPENVEX_CONTEXT_PREFIX).toBe('https://openvex.dev/ns/v0.2.0');
    for (const ctx of [
      'https://openvex.dev/ns/v0.2.0',
      'https://openvex.dev/ns/v0.2.0/',
      'https://openvex.dev/ns/v0.2.0/context.jsonld',
      'https://openvex.dev/ns/v0.2.0#',
    ])
      expect(detectVex({ '@context': ctx })).toEqual({ format: 'openvex', specVersion: '0.2.0' });
  });

  test('another OpenVEX context is refused naming it', () => {
    expect(detectVex({ '@context': 'https://openvex.dev/ns/v0.1.0' })).toEqual({
      error: 'is OpenVEX of @context "https://openvex.dev/ns/v0.1.0": OpenVEX is imported in version 0.2.0',
    });
    expect(detectVex({ '@context': 'https://openvex.dev/ns' })).toEqual({
      error: 'is OpenVEX of @context "https://openvex.dev/ns": OpenVEX is imported in version 0.2.0',
    });
    // not a path under v0.2.0
    expect(detectVex({ '@context': 'https://openvex.dev/ns/v0.2.01' })).toHaveProperty('error');
    expect(detectVex({ '@context': 'https://openvex.dev/ns/v0.2.0#x' })).toHaveProperty('error');
  });

  test('neither kind, and what is not a JSON object', () => {
    const neither =
      'is neither a CycloneDX VEX (bomFormat "CycloneDX", specVersion 1.4 to 1.6) nor an OpenVEX 0.2.0 document (@context)';
    expect(detectVex({})).toEqual({ error: neither });
    expect(detectVex({ bomFormat: 'SPDX', specVersion: '1.6' })).toEqual({ error: neither });
    expect(detectVex({ bomFormat: 'cyclonedx', specVersion: '1.6' })).toEqual({ error: neither });
    expect(detectVex({ '@context': 'https://example.test/ns/v0.2.0' })).toEqual({ error: neither });
    expect(detectVex({ '@context': ['https://openvex.dev/ns/v0.2.0'] })).toEqual({ error: neither });
    expect(detectVex({ spdxVersion: 'SPDX-2.3' })).toEqual({ error: neither });
    for (const x of [null, undefined, [], [{ bomFormat: 'CycloneDX', specVersion: '1.6' }], 'CycloneDX', 1.6, true])
      expect(detectVex(x)).toEqual({ error: 'must be a JSON object' });
  });
});

// --------------------------------------------------------------------------------------------- schemaError --
describe('schemaError', () => {
  test('a valid minimal document of each kind is null', () => {
    for (const v of CYCLONEDX_VERSIONS) {
      const doc = bom({}, v);
      expect(detectVex(doc)).toEqual({ format: 'cyclonedx', specVersion: v });
      expect(schemaError({ format: 'cyclonedx', specVersion: v }, doc)).toBeNull();
      const vex = bom(
        {
          components: [{ type: 'library', 'bom-ref': 'c1', name: 'left-pad', version: '1.3.0' }],
          vulnerabilities: [
            {
              id: 'CVE-2021-1234',
              analysis: { state: 'not_affected', justification: 'code_not_present', detail: 'd' },
              affects: [{ ref: 'c1' }],
            },
          ],
        },
        v,
      );
      expect(schemaError({ format: 'cyclonedx', specVersion: v }, vex)).toBeNull();
    }
    expect(schemaError(OPENVEX, openvexDoc([ovStatement()]))).toBeNull();
  });

  test('the first error names its JSON pointer: enums, required, formats, properties of another version', () => {
    const badState = bom({
      vulnerabilities: [{ id: 'CVE-2021-1234', analysis: { state: 'exploited' }, affects: [{ ref: 'c1' }] }],
    });
    expect(schemaError(CDX16, badState)).toMatch(
      /^\/vulnerabilities\/0\/analysis\/state: must be one of "resolved", "resolved_with_pedigree", "exploitable", "in_triage", "false_positive", "not_affected"$/,
    );
    const badJustification = bom({
      vulnerabilities: [{ id: 'CVE-2021-1234', analysis: { state: 'not_affected', justification: 'nope' } }],
    });
    expect(schemaError(CDX16, badJustification)).toMatch(
      /^\/vulnerabilities\/0\/analysis\/justification: must be one of /,
    );
    expect(schemaError(OPENVEX, openvexDoc([ovStatement({ status: 'exploitable' })]))).toBe(
      '/statements/0/status: must be one of "not_affected", "affected", "fixed", "under_investigation"',
    );
    expect(schemaError(OPENVEX, openvexDoc([ovStatement({ status: 'not_affected', justification: 'nope' })]))).toMatch(
      /^\/statements\/0\/justification: must be one of "component_not_present", /,
    );
    expect(schemaError(OPENVEX, openvexDoc([ovStatement()], { '@id': 'not an iri' }))).toBe(
      '/@id: must match format "iri"',
    );
    expect(schemaError(OPENVEX, openvexDoc([]))).toMatch(/^\/statements: /);
    expect(schemaError(OPENVEX, openvexDoc([ovStatement({ note: 'x' })]))).toBe(
      '/statements/0: must not have the property "note"',
    );
    // analysis.lastUpdated is CycloneDX 1.5's: a 1.4 document (its own schema) must not have it
    const lastUpdated = (v: string) =>
      bom(
        { vulnerabilities: [{ id: 'X-1', analysis: { state: 'in_triage', lastUpdated: '2026-01-01T00:00:00Z' } }] },
        v,
      );
    expect(schemaError({ format: 'cyclonedx', specVersion: '1.5' }, lastUpdated('1.5'))).toBeNull();
    expect(schemaError({ format: 'cyclonedx', specVersion: '1.4' }, lastUpdated('1.4'))).toBe(
      '/vulnerabilities/0/analysis: must not have the property "lastUpdated"',
    );
    // the root's own errors are at "/"
    expect(schemaError(CDX16, { bomFormat: 'CycloneDX' })).toMatch(/^\/: /);
  });

  test('uniqueItems by the linear keyword: repeated items refused, objects equal whatever their key order', () => {
    const affects = (list: Obj[]) => bom({ vulnerabilities: [{ id: 'X-1', affects: list }] });
    expect(schemaError(CDX16, affects([{ ref: 'c1' }, { ref: 'c2' }]))).toBeNull();
    expect(schemaError(CDX16, affects([{ ref: 'c1' }, { ref: 'c2' }, { ref: 'c1' }]))).toBe(
      '/vulnerabilities/0/affects: must not repeat an item',
    );
    const versions = [{ version: '1.0.0', status: 'affected' }];
    expect(
      schemaError(
        CDX16,
        affects([
          { ref: 'c1', versions },
          { versions: [{ status: 'affected', version: '1.0.0' }], ref: 'c1' },
        ]),
      ),
    ).toBe('/vulnerabilities/0/affects: must not repeat an item');
    // (an analysis' response has no uniqueItems in the official schemas: a repeated response is valid)
    const response = bom({
      vulnerabilities: [{ id: 'X-1', analysis: { state: 'exploitable', response: ['update', 'update'] } }],
    });
    expect(schemaError(CDX16, response)).toBeNull();
    const a = { type: 'library', 'bom-ref': 'c1', name: 'left-pad', version: '1.3.0' };
    const sameKeysOtherOrder = { version: '1.3.0', name: 'left-pad', 'bom-ref': 'c1', type: 'library' };
    expect(schemaError(CDX16, bom({ components: [a, { ...a, 'bom-ref': 'c2' }] }))).toBeNull();
    expect(schemaError(CDX16, bom({ components: [a, sameKeysOtherOrder] }))).toBe(
      '/components: must not repeat an item',
    );
    // nested objects compared by content as well
    const withHashes = (alg: Obj) => ({ ...a, hashes: [alg] });
    expect(
      schemaError(
        CDX16,
        bom({
          components: [
            withHashes({ alg: 'SHA-256', content: 'a'.repeat(64) }),
            withHashes({ content: 'a'.repeat(64), alg: 'SHA-256' }),
          ],
        }),
      ),
    ).toBe('/components: must not repeat an item');

    // OpenVEX: statements, aliases
    const s = ovStatement({ vulnerability: { name: 'CVE-2021-1234', aliases: ['GHSA-1111-2222-3333'] } });
    const reordered = { status: s.status, products: s.products, vulnerability: s.vulnerability };
    expect(schemaError(OPENVEX, openvexDoc([s, reordered]))).toBe('/statements: must not repeat an item');
    expect(schemaError(OPENVEX, openvexDoc([s, { ...s, status: 'affected', action_statement: 'a' }]))).toBeNull();
    expect(
      schemaError(
        OPENVEX,
        openvexDoc([ovStatement({ vulnerability: { name: 'CVE-2021-1234', aliases: ['GHSA-1', 'GHSA-1'] } })]),
      ),
    ).toBe('/statements/0/vulnerability/aliases: must not repeat an item');
  });

  test('canonicalJson: sorted keys, equal exactly when the values are', () => {
    expect(canonicalJson({ b: 1, a: [{ d: 1, c: 2 }, null, 'x'] })).toBe('{"a":[{"c":2,"d":1},null,"x"],"b":1}');
    expect(canonicalJson({ a: 1, b: { c: [1, 2] } })).toBe(canonicalJson({ b: { c: [1, 2] }, a: 1 }));
    expect(canonicalJson([1, 2])).not.toBe(canonicalJson([2, 1]));
    expect(canonicalJson({ a: 1 })).not.toBe(canonicalJson({ a: '1' }));
    expect(canonicalJson({ a: null })).not.toBe(canonicalJson({}));
    expect(canonicalJson({ 'a"b': 'c' })).toBe('{"a\\"b":"c"}');
  });

  test('large documents: 10,000 components (no timing asserted: the linear check keeps this test short)', () => {
    const components = Array.from({ length: 10_000 }, (_, i) => ({
      type: 'library',
      'bom-ref': `c${i}`,
      name: `pkg-${i}`,
      version: '1.0.0',
      purl: `pkg:npm/pkg-${i}@1.0.0`,
    }));
    expect(schemaError(CDX16, bom({ components }))).toBeNull();
    const dup = { ...components[0] };
    expect(schemaError(CDX16, bom({ components: [...components, dup] }))).toBe('/components: must not repeat an item');
    const statements = Array.from({ length: 2_000 }, (_, i) =>
      ovStatement({ vulnerability: { name: `CVE-2021-${10000 + i}` } }),
    );
    expect(schemaError(OPENVEX, openvexDoc(statements))).toBeNull();
    expect(schemaError(OPENVEX, openvexDoc([...statements, statements[1999]]))).toBe(
      '/statements: must not repeat an item',
    );
  });
});

// -------------------------------------------------------------------------------------------- purlPackage --
describe('purlPackage', () => {
  test.each<[string, string[], string, string | null]>([
    ['pkg:npm/left-pad@1.3.0', NPM, 'left-pad', '1.3.0'],
    ['pkg:npm/Left-Pad@1.3.0', NPM, 'left-pad', '1.3.0'],
    ['pkg:npm/%40acme/util@2.0.0', NPM, '@acme/util', '2.0.0'],
    ['pkg:npm/%40Acme/Util@2.0.0', NPM, '@acme/util', '2.0.0'],
    ['pkg:npm/@acme/util@2.0.0', NPM, '@acme/util', '2.0.0'],
    ['pkg:npm/left-pad', NPM, 'left-pad', null],
    ['pkg:npm/left-pad@1.0.0%2Bbuild.5', NPM, 'left-pad', '1.0.0+build.5'],
    ['pkg:npm/left-pad@1.3.0?repository_url=https://r.example.test#lib/index.js', NPM, 'left-pad', '1.3.0'],
    ['pkg:pypi/Foo_Bar@1.0', ['python'], 'foo-bar', '1.0'],
    ['pkg:pypi/Foo.Bar_baz@2.1', ['python'], 'foo-bar-baz', '2.1'],
    ['pkg:pypi/foo-bar', ['python'], 'foo-bar', null],
    ['pkg:pypi/django@1.11.1?vcs_url=git%2Bhttps://example.test', ['python'], 'django', '1.11.1'],
    ['pkg:maven/org.example/lib-a@1.0', ['gradle'], 'org.example:lib-a', '1.0'],
    ['pkg:maven/org.example/lib-a@1.0?type=jar&classifier=sources', ['gradle'], 'org.example:lib-a', '1.0'],
    ['pkg:maven/org.Example/Lib-A@1.0', ['gradle'], 'org.Example:Lib-A', '1.0'],
    ['pkg:maven/org.example/lib-a', ['gradle'], 'org.example:lib-a', null],
  ])('%s → %j %s %s', (purl, ecosystems, key, version) => {
    expect(purlPackage(purl)).toEqual({ purl, ecosystems, key, version });
  });

  test('surrounding blanks are dropped for parsing; the purl is kept as the document wrote it', () => {
    expect(purlPackage(' pkg:npm/left-pad@1.3.0 ')).toEqual({
      purl: ' pkg:npm/left-pad@1.3.0 ',
      ecosystems: NPM,
      key: 'left-pad',
      version: '1.3.0',
    });
  });

  test('other types, a maven package without a groupId, and what is no purl are refused', () => {
    expect(purlPackage('pkg:golang/github.com/gorilla/mux@v1.8.0')).toEqual({
      error: 'is a golang package: VEX is matched to npm, pypi and maven packages',
    });
    expect(purlPackage('pkg:cargo/serde@1.0.0')).toEqual({
      error: 'is a cargo package: VEX is matched to npm, pypi and maven packages',
    });
    expect(purlPackage('pkg:generic/left-pad@1.3.0')).toEqual({
      error: 'is a generic package: VEX is matched to npm, pypi and maven packages',
    });
    // (packageurl-js refuses it at parsing: maven requires a namespace)
    expect(purlPackage('pkg:maven/lib-a@1.0')).toHaveProperty('error');
    for (const garbage of ['garbage', '', 'npm/left-pad@1.3.0', 'pkg:', 'pkg:npm', 'https://www.npmjs.com/package/x'])
      expect(purlPackage(garbage)).toEqual({ error: 'is not a package URL' });
  });
});

// ------------------------------------------------------------------------------------ CycloneDX statements --
describe('cyclonedxStatements', () => {
  const components = [
    {
      type: 'library',
      'bom-ref': 'lib-a',
      name: 'a',
      version: '1.0.0',
      purl: 'pkg:npm/a@1.0.0',
      components: [
        {
          type: 'library',
          'bom-ref': 'nested',
          group: '@acme',
          name: 'deep',
          version: '2.0.0',
          purl: 'pkg:npm/%40acme/deep@2.0.0',
          components: [
            { type: 'library', 'bom-ref': 'deeper', name: 'Foo_Bar', version: '3.0', purl: 'pkg:pypi/Foo_Bar@3.0' },
          ],
        },
      ],
    },
    { type: 'library', 'bom-ref': 'no-purl', name: 'vendored', version: '0.1' },
    {
      type: 'library',
      'bom-ref': 'go',
      name: 'mux',
      version: 'v1.8.0',
      purl: 'pkg:golang/github.com/gorilla/mux@v1.8.0',
    },
    { type: 'library', 'bom-ref': 'lp', name: 'left-pad', purl: 'pkg:npm/left-pad' },
    {
      type: 'library',
      'bom-ref': 'dep:left pad#1',
      name: 'left-pad',
      version: '1.3.0',
      purl: 'pkg:npm/left-pad@1.3.0',
    },
  ];
  const metadata = {
    component: { type: 'application', 'bom-ref': 'app', name: 'shop', purl: 'pkg:npm/shop@9.0.0' },
  };
  const inTriage = { state: 'in_triage' };
  const vuln = (affects: Obj[], over: Obj = {}): Obj => ({ id: 'CVE-2021-1234', analysis: inTriage, affects, ...over });
  const doc = (vulnerabilities: Obj[], specVersion = '1.6') =>
    bom({ metadata, components, vulnerabilities }, specVersion);
  const one = (v: Obj) => {
    const [s] = cdxRead(doc([v]));
    return s;
  };

  test('a statement in one form: index, ids (id then references), packages, timestamp, decision', () => {
    const s = cdxRead(
      doc([
        vuln([{ ref: 'lib-a' }]),
        vuln([{ ref: 'nested' }], {
          id: 'GHSA-1111-2222-3333',
          references: [
            { id: 'CVE-2021-1234', source: { name: 'NVD' } },
            { id: ' GHSA-1111-2222-3333 ', source: { name: 'GITHUB' } },
          ],
          analysis: {
            state: 'exploitable',
            justification: 'code_not_reachable',
            response: ['update', 'workaround_available'],
            detail: 'reachable from the checkout',
            firstIssued: '2026-01-01T00:00:00Z',
            lastUpdated: '2026-02-01T00:00:00Z',
          },
          published: '2025-01-01T00:00:00Z',
        }),
      ]),
    );
    expect(s).toEqual([
      {
        index: 0,
        vulnerability: 'CVE-2021-1234',
        ids: ['CVE-2021-1234'],
        packages: [pkg('pkg:npm/a@1.0.0')],
        unusable: [],
        timestamp: null,
        decision: decision(),
        problem: null,
      },
      {
        index: 1,
        vulnerability: 'GHSA-1111-2222-3333',
        ids: ['GHSA-1111-2222-3333', 'CVE-2021-1234'],
        packages: [{ purl: 'pkg:npm/%40acme/deep@2.0.0', ecosystems: NPM, key: '@acme/deep', version: '2.0.0' }],
        unusable: [],
        timestamp: T('2026-02-01T00:00:00Z'),
        decision: {
          state: 'exploitable',
          justification: 'code_not_reachable',
          response: ['update', 'workaround_available'],
          detail: 'reachable from the checkout',
        },
        problem: null,
      },
    ]);
  });

  test('the timestamp: analysis.lastUpdated, firstIssued, then the vulnerability updated, published, created', () => {
    const at = (analysis: Obj, over: Obj) => one(vuln([{ ref: 'lib-a' }], { analysis, ...over })).timestamp;
    const all = { updated: '2026-03-01T00:00:00Z', published: '2026-02-01T00:00:00Z', created: '2026-01-01T00:00:00Z' };
    expect(
      at({ state: 'in_triage', lastUpdated: '2026-05-01T00:00:00Z', firstIssued: '2026-04-01T00:00:00Z' }, all),
    ).toBe(T('2026-05-01T00:00:00Z'));
    expect(at({ state: 'in_triage', firstIssued: '2026-04-01T00:00:00Z' }, all)).toBe(T('2026-04-01T00:00:00Z'));
    expect(at(inTriage, all)).toBe(T('2026-03-01T00:00:00Z'));
    expect(at(inTriage, { published: all.published, created: all.created })).toBe(T('2026-02-01T00:00:00Z'));
    expect(at(inTriage, { created: all.created })).toBe(T('2026-01-01T00:00:00Z'));
    expect(at(inTriage, {})).toBeNull();
  });

  test('refs: a nested bom-ref, metadata.component, a purl, a BOM-Link to a bom-ref or a purl', () => {
    expect(one(vuln([{ ref: 'deeper' }])).packages).toEqual([pkg('pkg:pypi/Foo_Bar@3.0')]);
    expect(one(vuln([{ ref: 'app' }])).packages).toEqual([pkg('pkg:npm/shop@9.0.0')]);
    // a purl as the ref (as Dependency-Track writes refs), of no component of the document
    expect(one(vuln([{ ref: 'pkg:maven/org.example/lib-a@1.0?type=jar' }])).packages).toEqual([
      {
        purl: 'pkg:maven/org.example/lib-a@1.0?type=jar',
        ecosystems: ['gradle'],
        key: 'org.example:lib-a',
        version: '1.0',
      },
    ]);
    // BOM-Links: the fragment percent-encoded
    const serial = 'urn:cdx:3e671687-395b-41f5-a30f-a58921a69b79/1';
    expect(one(vuln([{ ref: `${serial}#${encodeURIComponent('dep:left pad#1')}` }])).packages).toEqual([
      pkg('pkg:npm/left-pad@1.3.0'),
    ]);
    expect(one(vuln([{ ref: `${serial}#nested` }])).packages).toEqual([pkg('pkg:npm/%40acme/deep@2.0.0')]);
    expect(one(vuln([{ ref: `${serial}#${encodeURIComponent('pkg:pypi/requests@2.31.0')}` }])).packages).toEqual([
      pkg('pkg:pypi/requests@2.31.0'),
    ]);
    // several refs: every package once
    const s = one(vuln([{ ref: 'lib-a' }, { ref: 'pkg:npm/a@1.0.0' }, { ref: 'nested' }, { ref: `${serial}#lib-a` }]));
    expect(s.packages.map((p) => p.purl)).toEqual(['pkg:npm/a@1.0.0', 'pkg:npm/%40acme/deep@2.0.0']);
    expect(s.problem).toBeNull();
  });

  test('a ref naming no package the service scans: no_package with the reason; others still used', () => {
    expect(one(vuln([{ ref: 'no-purl' }]))).toMatchObject({
      packages: [],
      unusable: [{ ref: 'no-purl', reason: 'names no component with a purl' }],
      decision: null,
      problem: {
        code: 'no_package',
        reason: 'names no npm, pypi or maven package: no-purl names no component with a purl',
      },
    });
    expect(one(vuln([{ ref: 'nowhere' }])).problem).toEqual({
      code: 'no_package',
      reason: 'names no npm, pypi or maven package: nowhere names no component with a purl',
    });
    expect(one(vuln([{ ref: 'go' }, { ref: 'no-purl' }])).problem).toEqual({
      code: 'no_package',
      reason:
        'names no npm, pypi or maven package: go pkg:golang/github.com/gorilla/mux@v1.8.0 is a golang package: VEX is matched to npm, pypi and maven packages; no-purl names no component with a purl',
    });
    // a vulnerability affecting nothing
    expect(one({ id: 'CVE-2021-1234', analysis: inTriage }).problem).toEqual({
      code: 'no_package',
      reason: 'names no package (no purl)',
    });
    // one usable ref is enough; the others are kept as unusable
    expect(one(vuln([{ ref: 'no-purl' }, { ref: 'lib-a' }]))).toMatchObject({
      packages: [pkg('pkg:npm/a@1.0.0')],
      unusable: [{ ref: 'no-purl', reason: 'names no component with a purl' }],
      decision: decision(),
      problem: null,
    });
    // the reason is cut at 1,000 characters
    const many = Array.from({ length: 60 }, (_, i) => ({ ref: `missing-component-${i}` }));
    expect(one(vuln(many)).problem?.reason).toHaveLength(1000);
  });

  test('affects[].versions: the versions of a purl without one; a purl with a version keeps its own', () => {
    const versions = [
      { version: '1.3.0', status: 'affected' },
      { version: '1.2.0', status: 'affected' },
      { range: 'vers:npm/<1.0.0', status: 'affected' },
      { version: '1.3.0', status: 'affected' },
    ];
    expect(one(vuln([{ ref: 'lp', versions }])).packages).toEqual([
      pkg('pkg:npm/left-pad', '1.3.0'),
      pkg('pkg:npm/left-pad', '1.2.0'),
    ]);
    expect(one(vuln([{ ref: 'lp' }])).packages).toEqual([pkg('pkg:npm/left-pad', null)]);
    expect(one(vuln([{ ref: 'lib-a', versions }])).packages).toEqual([pkg('pkg:npm/a@1.0.0')]);
  });

  test('states: the service own, resolved_with_pedigree is resolved', () => {
    const state = (analysis: Obj) => one(vuln([{ ref: 'lib-a' }], { analysis }));
    expect(state({ state: 'resolved_with_pedigree', detail: 'patched in our fork' }).decision).toEqual(
      decision({ state: 'resolved', detail: 'patched in our fork' }),
    );
    expect(state({ state: 'resolved', detail: 'upgraded' }).decision).toEqual(
      decision({ state: 'resolved', detail: 'upgraded' }),
    );
    expect(state({ state: 'false_positive', detail: 'another package' }).decision).toEqual(
      decision({ state: 'false_positive', detail: 'another package' }),
    );
    expect(state({ state: 'exploitable' }).decision).toEqual(decision({ state: 'exploitable' }));
    // a state the schema does not know (read without the schema check): invalid_field
    const [bad] = cyclonedxStatements(doc([vuln([{ ref: 'lib-a' }], { analysis: { state: 'exploited' } })]));
    expect(bad.problem).toEqual({ code: 'invalid_field', reason: 'analysis.state: exploited' });
  });

  test('no analysis, or one without a state: no_analysis', () => {
    const [s] = cdxRead(doc([{ id: 'CVE-2021-1234', affects: [{ ref: 'lib-a' }] }]));
    expect(s).toMatchObject({
      vulnerability: 'CVE-2021-1234',
      packages: [pkg('pkg:npm/a@1.0.0')],
      decision: null,
      problem: { code: 'no_analysis', reason: 'carries no analysis' },
    });
    const [noState] = cdxRead(
      doc([{ id: 'CVE-2021-1234', analysis: { justification: 'code_not_present' }, affects: [{ ref: 'lib-a' }] }]),
    );
    expect(noState.problem).toEqual({ code: 'no_analysis', reason: 'analysis: has no state' });
    // no analysis and no package: the missing analysis is what is said
    expect(one({ id: 'CVE-2021-1234', affects: [{ ref: 'no-purl' }] }).problem?.code).toBe('no_analysis');
  });

  test('what a decision requires: missing_field; a detail over 2,000 characters: invalid_field', () => {
    const problem = (analysis: Obj) => one(vuln([{ ref: 'lib-a' }], { analysis })).problem;
    expect(problem({ state: 'not_affected', detail: 'not used' })).toEqual({
      code: 'missing_field',
      reason: 'justification: is required when the state is not_affected',
    });
    expect(problem({ state: 'not_affected', justification: 'code_not_present' })).toEqual({
      code: 'missing_field',
      reason: 'detail: is required when the state is not_affected',
    });
    expect(problem({ state: 'false_positive' })).toEqual({
      code: 'missing_field',
      reason: 'detail: is required when the state is false_positive',
    });
    expect(problem({ state: 'resolved' })).toEqual({
      code: 'missing_field',
      reason: 'detail: is required when the state is resolved',
    });
    expect(problem({ state: 'resolved_with_pedigree' })).toEqual({
      code: 'missing_field',
      reason: 'detail: is required when the state is resolved',
    });
    expect(problem({ state: 'not_affected', justification: 'code_not_present', detail: '   ' })?.code).toBe(
      'missing_field',
    );
    expect(problem({ state: 'in_triage' })).toBeNull();
    expect(problem({ state: 'exploitable', response: ['will_not_fix'] })).toBeNull();
    // a response repeated (the schema allows it) is said once
    expect(
      one(
        vuln([{ ref: 'lib-a' }], { analysis: { state: 'exploitable', response: ['update', 'can_not_fix', 'update'] } }),
      ).decision,
    ).toEqual(decision({ state: 'exploitable', response: ['update', 'can_not_fix'] }));
    expect(DETAIL_MAX).toBe(2000);
    expect(problem({ state: 'resolved', detail: 'x'.repeat(2001) })).toEqual({
      code: 'invalid_field',
      reason: 'detail: at most 2000 characters',
    });
    expect(problem({ state: 'in_triage', detail: 'é'.repeat(2001) })?.code).toBe('invalid_field');
    expect(problem({ state: 'resolved', detail: 'x'.repeat(2000) })).toBeNull();
    // characters, not UTF-16 units
    const emoji = one(vuln([{ ref: 'lib-a' }], { analysis: { state: 'resolved', detail: '😀'.repeat(2000) } }));
    expect(emoji.problem).toBeNull();
    expect(emoji.decision?.detail).toHaveLength(4000);
  });

  test('every CycloneDX version is read alike (1.4 without lastUpdated)', () => {
    for (const v of CYCLONEDX_VERSIONS) {
      const [s] = cdxRead(
        doc(
          [
            vuln([{ ref: 'nested' }], {
              analysis: { state: 'not_affected', justification: 'requires_environment', detail: 'only in CI' },
            }),
          ],
          v,
        ),
      );
      expect(s.decision).toEqual(
        decision({ state: 'not_affected', justification: 'requires_environment', detail: 'only in CI' }),
      );
      expect(s.packages).toEqual([pkg('pkg:npm/%40acme/deep@2.0.0')]);
    }
  });

  test('a document without vulnerabilities has no statements', () => {
    expect(cdxRead(bom({ components }))).toEqual([]);
  });
});

// -------------------------------------------------------------------------------------- OpenVEX statements --
describe('openvexStatements', () => {
  test('a statement in one form: ids from name, aliases and an @id that is no URL; packages; timestamp', () => {
    const [s] = ovRead([
      ovStatement({
        vulnerability: {
          '@id': 'urn:cve:CVE-2021-1234',
          name: 'CVE-2021-1234',
          aliases: ['GHSA-1111-2222-3333', 'CVE-2021-1234'],
        },
        timestamp: '2026-03-01T00:00:00Z',
        status_notes: 'looking into it',
      }),
    ]);
    expect(s).toEqual({
      index: 0,
      vulnerability: 'CVE-2021-1234',
      ids: ['CVE-2021-1234', 'GHSA-1111-2222-3333', 'urn:cve:CVE-2021-1234'],
      packages: [pkg('pkg:npm/left-pad@1.3.0')],
      unusable: [],
      timestamp: T('2026-03-01T00:00:00Z'),
      decision: decision({ detail: 'looking into it' }),
      problem: null,
    });
    // an @id that is a URL is where the vulnerability is described, not one of its ids
    const [url] = ovRead([
      ovStatement({
        vulnerability: { '@id': 'https://nvd.nist.gov/vuln/detail/CVE-2021-1234', name: 'CVE-2021-1234' },
      }),
    ]);
    expect(url.ids).toEqual(['CVE-2021-1234']);
  });

  test('the timestamp: the statement last_updated, its timestamp, the document last_updated, its timestamp', () => {
    const at = (s: Obj, d: Obj) => ovRead([ovStatement(s)], d)[0].timestamp;
    const doc = { timestamp: '2026-01-01T00:00:00Z', last_updated: '2026-02-01T00:00:00Z' };
    expect(at({ timestamp: '2026-03-01T00:00:00Z', last_updated: '2026-04-01T00:00:00Z' }, doc)).toBe(
      T('2026-04-01T00:00:00Z'),
    );
    expect(at({ timestamp: '2026-03-01T00:00:00Z' }, doc)).toBe(T('2026-03-01T00:00:00Z'));
    expect(at({}, doc)).toBe(T('2026-02-01T00:00:00Z'));
    expect(at({}, { timestamp: '2026-01-01T00:00:00Z' })).toBe(T('2026-01-01T00:00:00Z'));
  });

  test("products: each product's subcomponents (@id or identifiers.purl), else the product's own purl", () => {
    const products = (p: Obj[]) => ovRead([ovStatement({ products: p })])[0];
    // the product is the application; the package its subcomponent
    expect(
      products([
        { '@id': 'pkg:npm/shop@9.0.0', subcomponents: [{ '@id': 'pkg:npm/left-pad@1.3.0' }] },
        { '@id': 'pkg:npm/admin@1.0.0' },
      ]).packages,
    ).toEqual([pkg('pkg:npm/left-pad@1.3.0'), pkg('pkg:npm/admin@1.0.0')]);
    expect(
      products([
        {
          '@id': 'urn:acme:project:shop',
          subcomponents: [
            { identifiers: { purl: 'pkg:pypi/Foo_Bar@1.0' } },
            { '@id': 'urn:acme:component:7', identifiers: { purl: 'pkg:maven/org.example/lib-a@1.0' } },
            { '@id': 'pkg:npm/left-pad@1.3.0', identifiers: { purl: 'pkg:npm/other@1.0.0' } },
          ],
        },
      ]).packages,
    ).toEqual([pkg('pkg:pypi/Foo_Bar@1.0'), pkg('pkg:maven/org.example/lib-a@1.0'), pkg('pkg:npm/left-pad@1.3.0')]);
    expect(products([{ identifiers: { purl: 'pkg:npm/left-pad@1.3.0' } }]).packages).toEqual([
      pkg('pkg:npm/left-pad@1.3.0'),
    ]);
    // a product that names no purl
    expect(products([{ '@id': 'urn:acme:project:shop' }])).toMatchObject({
      packages: [],
      unusable: [{ ref: 'urn:acme:project:shop', reason: 'names no component with a purl' }],
      decision: null,
      problem: {
        code: 'no_package',
        reason: 'names no npm, pypi or maven package: urn:acme:project:shop names no component with a purl',
      },
    });
    expect(products([{ identifiers: { cpe23: 'cpe:2.3:a:acme:shop:9.0:*:*:*:*:*:*:*' } }]).problem?.code).toBe(
      'no_package',
    );
    // a statement without products
    expect(ovRead([{ vulnerability: { name: 'CVE-2021-1234' }, status: 'under_investigation' }])[0].problem).toEqual({
      code: 'no_package',
      reason: 'names no package (no purl)',
    });
  });

  test('each status: not_affected, affected → exploitable, fixed → resolved, under_investigation → in_triage', () => {
    const [notAffected, affected, affectedNotes, fixed, investigating, investigatingBare] = ovRead([
      ovStatement({
        status: 'not_affected',
        justification: 'vulnerable_code_not_in_execute_path',
        impact_statement: 'only the CLI calls it',
        status_notes: 'checked by the security team',
      }),
      ovStatement({ status: 'affected', action_statement: 'upgrade to 1.3.1', status_notes: 'seen in prod' }),
      ovStatement({
        vulnerability: { name: 'CVE-2021-9999' },
        status: 'affected',
        action_statement: '   ',
        status_notes: 'seen in prod',
      }),
      ovStatement({ status: 'fixed', status_notes: 'upgraded in release 4.2' }),
      ovStatement({ status: 'under_investigation', status_notes: 'looking into it', vulnerability: { name: 'X-1' } }),
      ovStatement({ status: 'under_investigation', vulnerability: { name: 'X-2' } }),
    ]);
    expect(notAffected.decision).toEqual(
      decision({ state: 'not_affected', justification: 'code_not_reachable', detail: 'only the CLI calls it' }),
    );
    expect(affected.decision).toEqual(decision({ state: 'exploitable', detail: 'upgrade to 1.3.1' }));
    // a blank action: the status notes
    expect(affectedNotes.decision).toEqual(decision({ state: 'exploitable', detail: 'seen in prod' }));
    expect(fixed.decision).toEqual(decision({ state: 'resolved', detail: 'upgraded in release 4.2' }));
    expect(investigating.decision).toEqual(decision({ state: 'in_triage', detail: 'looking into it' }));
    expect(investigatingBare.decision).toEqual(decision({ state: 'in_triage' }));
    // a justification is only read for not_affected
    const [fixedJ] = ovRead([
      ovStatement({ status: 'fixed', justification: 'component_not_present', status_notes: 'removed' }),
    ]);
    expect(fixedJ.decision).toEqual(decision({ state: 'resolved', detail: 'removed' }));
    // not_affected without an impact statement: the status notes are the detail
    const [notesOnly] = ovRead([
      ovStatement({ status: 'not_affected', justification: 'component_not_present', status_notes: 'removed in 4.0' }),
    ]);
    expect(notesOnly.decision).toEqual(
      decision({ state: 'not_affected', justification: 'code_not_present', detail: 'removed in 4.0' }),
    );
    // a status the schema does not know (read without the schema check)
    const [bad] = openvexStatements(openvexDoc([ovStatement({ status: 'exploitable' })]));
    expect(bad.problem).toEqual({ code: 'invalid_field', reason: 'status: exploitable' });
    const [none] = openvexStatements(openvexDoc([{ vulnerability: { name: 'X' }, products: [] }]));
    expect(none.problem).toEqual({ code: 'invalid_field', reason: 'status: ' });
  });

  test('the five justifications (JUSTIFICATION_IN)', () => {
    expect(JUSTIFICATION_IN).toEqual({
      component_not_present: 'code_not_present',
      vulnerable_code_not_present: 'code_not_present',
      vulnerable_code_not_in_execute_path: 'code_not_reachable',
      vulnerable_code_cannot_be_controlled_by_adversary: 'requires_configuration',
      inline_mitigations_already_exist: 'protected_by_mitigating_control',
    });
    const five = Object.keys(JUSTIFICATION_IN) as OpenVexJustification[];
    // every justification the export writes is read back as one of the service's
    expect(new Set(Object.values(JUSTIFICATION))).toEqual(new Set(five.filter((j) => j !== 'component_not_present')));
    const read = ovRead(
      five.map((j) =>
        ovStatement({
          vulnerability: { name: `X-${j}` },
          status: 'not_affected',
          justification: j,
          impact_statement: j,
        }),
      ),
    );
    expect(read.map((s) => s.decision?.justification)).toEqual(five.map((j) => JUSTIFICATION_IN[j]));
    for (const s of read) expect(s.problem).toBeNull();
    // the mapped justification, read back through the export's mapping, is the OpenVEX one (the coarser five)
    for (const j of five.filter((x) => x !== 'component_not_present'))
      expect(JUSTIFICATION[JUSTIFICATION_IN[j]]).toBe(j);
  });

  test('not_affected without a justification, fixed without status notes: missing_field', () => {
    const [noJustification, noDetail, fixedBare, fixedImpact] = ovRead([
      ovStatement({ status: 'not_affected', impact_statement: 'not used', vulnerability: { name: 'X-1' } }),
      ovStatement({ status: 'not_affected', justification: 'component_not_present', vulnerability: { name: 'X-2' } }),
      ovStatement({ status: 'fixed', vulnerability: { name: 'X-3' } }),
      ovStatement({ status: 'fixed', impact_statement: 'not a fixed statement field', vulnerability: { name: 'X-4' } }),
    ]);
    expect(noJustification).toMatchObject({
      decision: null,
      problem: { code: 'missing_field', reason: 'justification: is required when the state is not_affected' },
    });
    expect(noDetail.problem).toEqual({
      code: 'missing_field',
      reason: 'detail: is required when the state is not_affected',
    });
    expect(fixedBare.problem).toEqual({
      code: 'missing_field',
      reason: 'detail: is required when the state is resolved',
    });
    expect(fixedImpact.problem).toEqual({
      code: 'missing_field',
      reason: 'detail: is required when the state is resolved',
    });
    const [long] = ovRead([ovStatement({ status: 'fixed', status_notes: 'y'.repeat(2001) })]);
    expect(long.problem).toEqual({ code: 'invalid_field', reason: 'detail: at most 2000 characters' });
  });

  test("the service's own marker in status_notes restores state, justification and response", () => {
    const [fp, na, affected, fixed, investigating] = ovRead([
      ovStatement({
        vulnerability: { name: 'X-1' },
        status: 'not_affected',
        justification: 'vulnerable_code_not_present',
        impact_statement: 'the advisory names another package',
        status_notes: 'Triage analysis (CycloneDX): state false_positive; justification code_not_reachable.',
      }),
      ovStatement({
        vulnerability: { name: 'X-2' },
        status: 'not_affected',
        justification: 'vulnerable_code_cannot_be_controlled_by_adversary',
        impact_statement: 'needs a plugin we do not load',
        status_notes: 'Triage analysis (CycloneDX): state not_affected; justification requires_dependency.',
      }),
      ovStatement({
        vulnerability: { name: 'X-3' },
        status: 'affected',
        action_statement: RESPONSE_WORDS.update + ' ' + RESPONSE_WORDS.can_not_fix,
        status_notes: 'Triage analysis (CycloneDX): state exploitable; response update, can_not_fix.',
      }),
      ovStatement({
        vulnerability: { name: 'X-4' },
        status: 'fixed',
        status_notes:
          'upgraded\nin two steps\nTriage analysis (CycloneDX): state resolved; justification code_not_present.',
      }),
      ovStatement({
        vulnerability: { name: 'X-5' },
        status: 'under_investigation',
        status_notes: 'Triage analysis (CycloneDX): state in_triage; response workaround_available.\n',
      }),
    ]);
    expect(fp.decision).toEqual(
      decision({
        state: 'false_positive',
        justification: 'code_not_reachable',
        detail: 'the advisory names another package',
      }),
    );
    expect(na.decision).toEqual(
      decision({
        state: 'not_affected',
        justification: 'requires_dependency',
        detail: 'needs a plugin we do not load',
      }),
    );
    // the action that is the responses in words is not a detail
    expect(affected.decision).toEqual(decision({ state: 'exploitable', response: ['update', 'can_not_fix'] }));
    expect(fixed.decision).toEqual(
      decision({ state: 'resolved', justification: 'code_not_present', detail: 'upgraded\nin two steps' }),
    );
    expect(investigating.decision).toEqual(decision({ state: 'in_triage', response: ['workaround_available'] }));
  });

  test('a marker that is not the statement status, or not the marker, is text like any other', () => {
    const [other, unknown, inside] = ovRead([
      // says in_triage, under a fixed status: the status holds and the notes are the detail
      ovStatement({
        vulnerability: { name: 'X-1' },
        status: 'fixed',
        status_notes: 'done\nTriage analysis (CycloneDX): state in_triage; response update.',
      }),
      ovStatement({
        vulnerability: { name: 'X-2' },
        status: 'under_investigation',
        status_notes: 'Triage analysis (CycloneDX): state pending.',
      }),
      // not at the end
      ovStatement({
        vulnerability: { name: 'X-3' },
        status: 'under_investigation',
        status_notes: 'Triage analysis (CycloneDX): state in_triage; response update. More to come.',
      }),
    ]);
    expect(other.decision).toEqual(
      decision({ state: 'resolved', detail: 'done\nTriage analysis (CycloneDX): state in_triage; response update.' }),
    );
    expect(unknown.decision).toEqual(decision({ detail: 'Triage analysis (CycloneDX): state pending.' }));
    expect(inside.decision).toEqual(
      decision({ detail: 'Triage analysis (CycloneDX): state in_triage; response update. More to come.' }),
    );
  });

  test("exploitable: the export's derived action is not a detail, any other action is", () => {
    const read = (action: string, notes: string) =>
      ovRead([ovStatement({ status: 'affected', action_statement: action, status_notes: notes })])[0].decision;
    const marker = 'Triage analysis (CycloneDX): state exploitable.';
    expect(read('Upgrade left-pad to 1.3.1.', marker)).toEqual(decision({ state: 'exploitable' }));
    expect(read('No remediation has been decided yet: no fixed version is known.', marker)).toEqual(
      decision({ state: 'exploitable' }),
    );
    expect(read('reachable from the checkout', marker)).toEqual(
      decision({ state: 'exploitable', detail: 'reachable from the checkout' }),
    );
    // the responses' words are only derived text when they are exactly the responses the marker names
    const withUpdate = 'Triage analysis (CycloneDX): state exploitable; response update.';
    expect(read(RESPONSE_WORDS.update, withUpdate)).toEqual(decision({ state: 'exploitable', response: ['update'] }));
    expect(read(RESPONSE_WORDS.rollback, withUpdate)).toEqual(
      decision({ state: 'exploitable', response: ['update'], detail: RESPONSE_WORDS.rollback }),
    );
    // without the marker (another tool's document), the action is the detail whatever it says
    expect(read('Upgrade left-pad to 1.3.1.', 'from the vendor')).toEqual(
      decision({ state: 'exploitable', detail: 'Upgrade left-pad to 1.3.1.' }),
    );
  });
});

// -------------------------------------------------------------------------------- round trip with exports --
describe('round trip: what the exports write is what the import reads', () => {
  const PRJ = 'prj_0000000000TESTPROJECT';
  const scan = {
    id: 'scn_0000000000TESTSCAN01',
    projectId: PRJ,
    project: 'shop',
    startedAt: '2026-11-23T10:00:00.000Z',
    finishedAt: '2026-11-23T10:00:05.000Z',
  };
  const tool = { name: 'supply-chain-scanner', version: '9.9.9' };
  const input: Pick<OpenVexInput, 'scan' | 'ecosystem' | 'tool'> = { scan, ecosystem: 'javascript', tool };
  const finding = (over: Partial<VexFinding> = {}): VexFinding => ({
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
  const actor = { kind: 'user' as const, id: 'usr_1' };
  const now = new Date('2026-11-20T09:00:00.000Z');

  /** The analysis a person can make of these fields (parseAnalysis accepts it), else null. */
  function personal(body: Obj): Analysis | null {
    try {
      return parseAnalysis(body, { now, installedVersions: ['1.3.0'], actor });
    } catch (e) {
      if (e instanceof ApiError) return null;
      throw e;
    }
  }

  const RESPONSE_SETS: Response[][] = [[], ['update'], ['will_not_fix', 'workaround_available'], [...RESPONSES]];
  const DETAILS: Array<string | null> = [
    null,
    'reachable only from the admin CLI',
    'two lines:\nsee TICKET-12',
    'Triage notes: state of the art; justification pending.',
    'ü'.repeat(DETAIL_MAX),
  ];
  /** Every analysis a person can make: each state × no or each justification × responses × no or some detail. */
  const analyses: Analysis[] = [];
  for (const state of ANALYSIS_STATES)
    for (const justification of [null, ...JUSTIFICATIONS] as Array<Justification | null>)
      for (const response of RESPONSE_SETS)
        for (const detail of DETAILS) {
          const a = personal({ state, justification, response, detail });
          if (a) analyses.push(a);
        }
  const said = (a: Analysis): Decision => ({
    state: a.state,
    justification: a.justification,
    response: a.response,
    detail: a.detail,
  });

  test('the matrix holds every state, justification, response set and detail a person can give', () => {
    // not_affected needs a justification and a detail, false_positive and resolved a detail
    const per = (state: string) => analyses.filter((a) => a.state === state).length;
    const J = JUSTIFICATIONS.length + 1;
    const R = RESPONSE_SETS.length;
    const D = DETAILS.length;
    expect(per('in_triage')).toBe(J * R * D);
    expect(per('exploitable')).toBe(J * R * D);
    expect(per('not_affected')).toBe((J - 1) * R * (D - 1));
    expect(per('false_positive')).toBe(J * R * (D - 1));
    expect(per('resolved')).toBe(J * R * (D - 1));
  });

  test('OpenVEX (statementOf): state, justification, response and detail come back as they were', () => {
    for (const f of [finding(), finding({ fixedVersion: null })]) {
      const statements = analyses.map((a, i) =>
        statementOf(a, { ...f, cve: `GHSA-0000-0000-${String(i).padStart(4, '0')}`, aliases: [] }, input),
      );
      const doc = openvexDoc(statements as unknown as Obj[]);
      expect(accepted(doc)).toEqual(OPENVEX);
      const read = openvexStatements(doc);
      expect(read).toHaveLength(analyses.length);
      const mismatches = analyses
        .map((a, i) => ({ want: said(a), got: read[i].decision, problem: read[i].problem }))
        .filter((x) => JSON.stringify(x.want) !== JSON.stringify(x.got));
      expect(mismatches).toEqual([]);
      for (const s of read) expect(s.packages).toEqual([pkg('pkg:npm/left-pad@1.3.0')]);
    }
  });

  test('CycloneDX (cdxAnalysis in a BOM whose component has a purl): the same four fields', () => {
    const doc = bom({
      components: [
        {
          type: 'library',
          'bom-ref': 'dep_leftpad',
          name: 'left-pad',
          version: '1.3.0',
          purl: 'pkg:npm/left-pad@1.3.0',
        },
      ],
      vulnerabilities: analyses.map((a, i) => ({
        'bom-ref': `fnd_${i}`,
        id: 'CVE-2021-1234',
        analysis: cdxAnalysis(a),
        affects: [{ ref: 'dep_leftpad', versions: [{ version: '1.3.0', status: 'affected' }] }],
      })),
    });
    const read = cdxRead(doc);
    expect(read).toHaveLength(analyses.length);
    const mismatches = analyses
      .map((a, i) => ({ want: said(a), got: read[i].decision, problem: read[i].problem }))
      .filter((x) => JSON.stringify(x.want) !== JSON.stringify(x.got));
    expect(mismatches).toEqual([]);
    for (const s of read) expect(s.packages).toEqual([pkg('pkg:npm/left-pad@1.3.0')]);
  });

  test('a whole exported OpenVEX document (buildOpenVex) is imported onto the alerts it came from', () => {
    const made = [
      personal({ state: 'false_positive', detail: 'the advisory names another package' }),
      personal({ state: 'not_affected', justification: 'protected_at_perimeter', detail: 'behind the WAF' }),
      personal({ state: 'exploitable', response: ['rollback'] }),
      personal({ state: 'resolved', detail: 'upgraded' }),
    ];
    const findings: VexFinding[] = [
      finding({ id: 'fnd_1', alertId: 'alr_1' }),
      finding({
        id: 'fnd_2',
        cve: 'GHSA-aaaa-bbbb-cccc',
        aliases: ['GHSA-aaaa-bbbb-cccc', 'CVE-2022-0001'],
        package: '@Acme/Util',
        installedVersion: '2.0.0',
        alertId: 'alr_2',
      }),
      finding({ id: 'fnd_3', cve: 'CVE-2022-0003', aliases: ['CVE-2022-0003'], alertId: 'alr_3' }),
      finding({ id: 'fnd_4', cve: 'CVE-2022-0004', aliases: ['CVE-2022-0004'], alertId: 'alr_4' }),
    ];
    const analysesById = new Map(made.map((a, i) => [`alr_${i + 1}`, a!]));
    const doc = buildOpenVex({
      ...input,
      author: 'Acme',
      findings,
      analyses: analysesById,
      now: new Date('2026-12-01T00:00:00.000Z'),
    }) as unknown as Obj;
    expect(accepted(doc)).toEqual(OPENVEX);
    const alerts = findings.map((f) =>
      alert({
        id: f.alertId!,
        key: f.package.toLowerCase(),
        package: f.package,
        advisory: f.cve,
        aliases: f.aliases,
        installedVersions: [f.installedVersion],
        analysis: { importId: 'imp_earlier', updatedBy: actor },
      }),
    );
    const result = match(openvexStatements(doc), alerts);
    expect(result.unmatched).toEqual([]);
    expect(result.applied).toEqual(
      made.map((a, i) => ({
        alertId: `alr_${i + 1}`,
        statement: i,
        decision: said(a!),
        versions: [findings[i].installedVersion],
      })),
    );
  });

  test('an exploitable detail that reads like the derived upgrade text is kept', () => {
    // The export writes the detail as the action_statement; for this finding the derived text would be
    // "Upgrade left-pad to 1.3.1.", which this detail is not (it names no package).
    const a = personal({ state: 'exploitable', detail: 'Upgrade the package to 2.0.' })!;
    const s = statementOf(a, finding(), input);
    expect(s).toMatchObject({ action_statement: 'Upgrade the package to 2.0.' });
    const [read] = openvexStatements(openvexDoc([s as unknown as Obj]));
    // (the derived text names the statement's package: "Upgrade the package to 2.0." is a person's detail)
    expect(read.decision).toEqual(decision({ state: 'exploitable', detail: 'Upgrade the package to 2.0.' }));
  });
});

// ------------------------------------------------------------------------------------------ matchStatements --
describe('matchStatements', () => {
  test('by any id of the alert alias group, case aside; the purl version becomes the versions', () => {
    const r = match([stmt(0, ['pkg:npm/left-pad@1.3.0'], { ids: ['ghsa-1111-2222-3333'] })], [alert()]);
    expect(r).toEqual({
      applied: [{ alertId: 'alr_1', statement: 0, decision: decision(), versions: ['1.3.0'] }],
      unmatched: [],
    });
    // the statement id as the alert's advisory, in another case
    const lower = match([stmt(0, ['pkg:npm/left-pad@1.3.0'], { ids: ['cve-2021-1234'] })], [alert({ aliases: [] })]);
    expect(lower.applied.map((a) => a.alertId)).toEqual(['alr_1']);
    // any of the statement's ids
    const second = match(
      [stmt(0, ['pkg:npm/left-pad@1.3.0'], { ids: ['CVE-2099-0001', 'GHSA-1111-2222-3333'] })],
      [alert()],
    );
    expect(second.applied.map((a) => a.alertId)).toEqual(['alr_1']);
  });

  test('no alert for any id: no_alert naming them', () => {
    expect(match([stmt(0, ['pkg:npm/left-pad@1.3.0'], { ids: ['CVE-2099-0001', 'GHSA-x'] })], [alert()])).toEqual({
      applied: [],
      unmatched: [
        {
          statement: 0,
          vulnerability: 'CVE-2021-1234',
          package: 'pkg:npm/left-pad@1.3.0',
          code: 'no_alert',
          reason: 'no alert of this project is for CVE-2099-0001 or GHSA-x',
        },
      ],
    });
  });

  test('the purl names the package in its ecosystem, its name normalised', () => {
    const alerts = [
      alert({ id: 'alr_ts', ecosystem: 'typescript', key: '@acme/util', package: '@Acme/Util' }),
      alert({
        id: 'alr_py',
        ecosystem: 'python',
        key: 'foo-bar-baz',
        package: 'Foo.Bar_baz',
        installedVersions: ['2.1'],
      }),
      alert({ id: 'alr_mvn', ecosystem: 'gradle', key: 'org.example:lib-a', package: 'org.example:lib-a' }),
    ];
    const r = match(
      [
        stmt(0, ['pkg:npm/%40Acme/Util@1.3.0']),
        stmt(1, ['pkg:pypi/foo_bar.BAZ@2.1']),
        stmt(2, ['pkg:maven/org.example/lib-a@1.3.0?type=jar']),
        // maven names are compared as written
        stmt(3, ['pkg:maven/org.Example/lib-a@1.3.0']),
      ],
      alerts,
    );
    expect(r.applied).toEqual([
      { alertId: 'alr_ts', statement: 0, decision: decision(), versions: ['1.3.0'] },
      { alertId: 'alr_py', statement: 1, decision: decision(), versions: ['2.1'] },
      { alertId: 'alr_mvn', statement: 2, decision: decision(), versions: ['1.3.0'] },
    ]);
    expect(r.unmatched).toEqual([
      {
        statement: 3,
        vulnerability: 'CVE-2021-1234',
        package: 'pkg:maven/org.Example/lib-a@1.3.0',
        code: 'no_alert',
        reason: 'no alert of this project is for CVE-2021-1234 in pkg:maven/org.Example/lib-a@1.3.0',
      },
    ]);
  });

  test('an alert of another ecosystem with the same name is not matched (pkg:npm vs python)', () => {
    const py = alert({
      id: 'alr_py',
      ecosystem: 'python',
      key: 'requests',
      package: 'requests',
      installedVersions: ['2.0.0'],
    });
    const r = match([stmt(0, ['pkg:npm/requests@2.0.0'])], [py]);
    expect(r).toEqual({
      applied: [],
      unmatched: [
        {
          statement: 0,
          vulnerability: 'CVE-2021-1234',
          package: 'pkg:npm/requests@2.0.0',
          code: 'no_alert',
          reason: 'no alert of this project is for CVE-2021-1234 in pkg:npm/requests@2.0.0',
        },
      ],
    });
    // the pypi purl of it is
    expect(match([stmt(0, ['pkg:pypi/Requests@2.0.0'])], [py]).applied.map((a) => a.alertId)).toEqual(['alr_py']);
  });

  test('the version must be installed; none: every version; several: all of them', () => {
    const a = alert({ installedVersions: ['1.0.0', '1.1.0', '1.3.0'] });
    expect(match([stmt(0, ['pkg:npm/left-pad@9.9.9'])], [a])).toEqual({
      applied: [],
      unmatched: [
        {
          statement: 0,
          vulnerability: 'CVE-2021-1234',
          package: 'pkg:npm/left-pad@9.9.9',
          code: 'version_not_installed',
          reason: "version 9.9.9 is not installed (the alert's installed versions: 1.0.0, 1.1.0, 1.3.0)",
        },
      ],
    });
    expect(match([stmt(0, ['pkg:npm/left-pad'])], [a]).applied[0].versions).toBeNull();
    expect(match([stmt(0, ['pkg:npm/left-pad@1.3.0', 'pkg:npm/left-pad@1.0.0'])], [a]).applied[0].versions).toEqual([
      '1.0.0',
      '1.3.0',
    ]);
    // a purl without a version beside one with: every version
    expect(match([stmt(0, ['pkg:npm/left-pad@1.3.0', 'pkg:npm/left-pad'])], [a]).applied[0].versions).toBeNull();
    expect(match([stmt(0, ['pkg:npm/left-pad', 'pkg:npm/left-pad@1.3.0'])], [a]).applied[0].versions).toBeNull();
    // percent-decoded before comparing
    const build = alert({ installedVersions: ['1.0.0+build.5'] });
    expect(match([stmt(0, ['pkg:npm/left-pad@1.0.0%2Bbuild.5'])], [build]).applied[0].versions).toEqual([
      '1.0.0+build.5',
    ]);
  });

  test('a version not installed beside one that is: the same result whatever the order of the purls', () => {
    const a = alert({ installedVersions: ['1.3.0'] });
    const installedFirst = match([stmt(0, ['pkg:npm/left-pad@1.3.0', 'pkg:npm/left-pad@2.0.0'])], [a]);
    expect(installedFirst).toEqual({
      applied: [{ alertId: 'alr_1', statement: 0, decision: decision(), versions: ['1.3.0'] }],
      unmatched: [],
    });
    const installedLast = match([stmt(0, ['pkg:npm/left-pad@2.0.0', 'pkg:npm/left-pad@1.3.0'])], [a]);
    expect(installedLast.applied).toEqual(installedFirst.applied);
    // (whatever the order of the purls: a version of the package is installed, so nothing is reported)
    expect(installedLast.unmatched).toEqual(installedFirst.unmatched);
  });

  test('one statement deciding two alerts (two packages)', () => {
    const alerts = [
      alert({ id: 'alr_b', ecosystem: 'python', key: 'foo-bar', package: 'Foo_Bar', installedVersions: ['2.0'] }),
      alert({ id: 'alr_a' }),
      alert({ id: 'alr_other', advisory: 'CVE-2099-0001', aliases: [] }),
    ];
    const d = decision({ state: 'not_affected', justification: 'code_not_present', detail: 'not shipped' });
    const r = match([stmt(0, ['pkg:pypi/foo-bar@2.0', 'pkg:npm/left-pad@1.3.0'], { decision: d })], alerts);
    expect(r).toEqual({
      applied: [
        { alertId: 'alr_a', statement: 0, decision: d, versions: ['1.3.0'] },
        { alertId: 'alr_b', statement: 0, decision: d, versions: ['2.0'] },
      ],
      unmatched: [],
    });
    // the same package in two ecosystems of one project (javascript and typescript): both alerts
    const both = match(
      [stmt(0, ['pkg:npm/left-pad'])],
      [alert({ id: 'alr_js' }), alert({ id: 'alr_ts', ecosystem: 'typescript' })],
    );
    expect(both.applied.map((a) => a.alertId)).toEqual(['alr_js', 'alr_ts']);
  });

  test('a later statement wins: by timestamp, then by place; the earlier one is superseded', () => {
    const exploitable = decision({ state: 'exploitable' });
    const resolved = decision({ state: 'resolved', detail: 'upgraded' });
    // the first is later by its timestamp
    const byTime = match(
      [
        stmt(0, ['pkg:npm/left-pad@1.3.0'], { timestamp: T('2026-02-01T00:00:00Z'), decision: resolved }),
        stmt(1, ['pkg:npm/left-pad@1.3.0'], { timestamp: T('2026-01-01T00:00:00Z'), decision: exploitable }),
      ],
      [alert()],
    );
    expect(byTime).toEqual({
      applied: [{ alertId: 'alr_1', statement: 0, decision: resolved, versions: ['1.3.0'] }],
      unmatched: [
        {
          statement: 1,
          vulnerability: 'CVE-2021-1234',
          package: 'left-pad',
          code: 'superseded',
          reason: 'alert alr_1 is decided by the later statement #1',
        },
      ],
    });
    // the same timestamp, or none: the later in the document
    for (const timestamp of [T('2026-01-01T00:00:00Z'), null]) {
      const byPlace = match(
        [
          stmt(0, ['pkg:npm/left-pad@1.3.0'], { timestamp, decision: resolved }),
          stmt(1, ['pkg:npm/left-pad@1.3.0'], { timestamp, decision: exploitable }),
        ],
        [alert()],
      );
      expect(byPlace.applied).toEqual([{ alertId: 'alr_1', statement: 1, decision: exploitable, versions: ['1.3.0'] }]);
      expect(byPlace.unmatched).toMatchObject([
        { statement: 0, code: 'superseded', reason: 'alert alr_1 is decided by the later statement #2' },
      ]);
    }
    // a statement without a timestamp is earlier than any with one
    const untimed = match(
      [
        stmt(0, ['pkg:npm/left-pad@1.3.0'], { timestamp: T('2020-01-01T00:00:00Z'), decision: resolved }),
        stmt(1, ['pkg:npm/left-pad@1.3.0'], { decision: exploitable }),
      ],
      [alert()],
    );
    expect(untimed.applied.map((a) => a.statement)).toEqual([0]);
    expect(untimed.unmatched.map((u) => [u.statement, u.code])).toEqual([[1, 'superseded']]);
  });

  test('statements saying the same decision merge their versions', () => {
    const a = alert({ installedVersions: ['1.0.0', '1.1.0', '1.3.0'] });
    const same = match(
      [
        stmt(0, ['pkg:npm/left-pad@1.3.0'], { timestamp: T('2026-01-02T00:00:00Z') }),
        stmt(1, ['pkg:npm/left-pad@1.0.0'], { timestamp: T('2026-01-01T00:00:00Z') }),
        stmt(2, ['pkg:npm/left-pad@1.1.0'], {
          timestamp: T('2026-01-03T00:00:00Z'),
          decision: decision({ response: [] }),
        }),
      ],
      [a],
    );
    expect(same).toEqual({
      applied: [{ alertId: 'alr_1', statement: 2, decision: decision(), versions: ['1.0.0', '1.1.0', '1.3.0'] }],
      unmatched: [],
    });
    // the same responses in another order are the same decision
    const ordered = match(
      [
        stmt(0, ['pkg:npm/left-pad@1.0.0'], { decision: decision({ response: ['update', 'rollback'] }) }),
        stmt(1, ['pkg:npm/left-pad@1.1.0'], { decision: decision({ response: ['rollback', 'update'] }) }),
      ],
      [a],
    );
    expect(ordered.applied).toEqual([
      {
        alertId: 'alr_1',
        statement: 1,
        decision: decision({ response: ['rollback', 'update'] }),
        versions: ['1.0.0', '1.1.0'],
      },
    ]);
    expect(ordered.unmatched).toEqual([]);
    // one of them about every version: every version
    const every = match([stmt(0, ['pkg:npm/left-pad']), stmt(1, ['pkg:npm/left-pad@1.1.0'])], [a]);
    expect(every.applied).toEqual([{ alertId: 'alr_1', statement: 1, decision: decision(), versions: null }]);
    // another detail is another decision
    const other = match(
      [
        stmt(0, ['pkg:npm/left-pad@1.0.0'], { decision: decision({ detail: 'a' }) }),
        stmt(1, ['pkg:npm/left-pad@1.1.0'], { decision: decision({ detail: 'b' }) }),
      ],
      [a],
    );
    expect(other.applied).toEqual([
      { alertId: 'alr_1', statement: 1, decision: decision({ detail: 'b' }), versions: ['1.1.0'] },
    ]);
    expect(other.unmatched.map((u) => [u.statement, u.code])).toEqual([[0, 'superseded']]);
  });

  test("a person's analysis is kept unless overwrite; an earlier import's is replaced", () => {
    const person = alert({ analysis: { updatedBy: { kind: 'user', id: 'usr_1', name: 'Ada' } } });
    const d = decision({ state: 'exploitable' });
    const statements = [
      stmt(0, ['pkg:npm/left-pad@1.3.0'], { decision: d, timestamp: T('2026-01-01T00:00:00Z') }),
      stmt(1, ['pkg:npm/left-pad@1.3.0'], { decision: d, timestamp: T('2026-01-02T00:00:00Z') }),
      stmt(2, ['pkg:npm/left-pad@1.3.0'], { decision: decision(), timestamp: T('2025-01-01T00:00:00Z') }),
    ];
    expect(match(statements, [person])).toEqual({
      applied: [],
      unmatched: [
        {
          statement: 0,
          vulnerability: 'CVE-2021-1234',
          package: 'left-pad',
          code: 'person_analysis',
          reason: 'alert alr_1 holds an analysis by Ada: overwrite=true replaces it',
        },
        {
          statement: 1,
          vulnerability: 'CVE-2021-1234',
          package: 'left-pad',
          code: 'person_analysis',
          reason: 'alert alr_1 holds an analysis by Ada: overwrite=true replaces it',
        },
        {
          statement: 2,
          vulnerability: 'CVE-2021-1234',
          package: 'left-pad',
          code: 'superseded',
          reason: 'alert alr_1 is decided by the later statement #2',
        },
      ],
    });
    // an API key without a name: its id
    const key = alert({ analysis: { updatedBy: { kind: 'api_key', id: 'key_1' } } });
    expect(match([statements[0]], [key]).unmatched[0].reason).toBe(
      'alert alr_1 holds an analysis by key_1: overwrite=true replaces it',
    );
    // overwrite
    const over = match(statements, [person], true);
    expect(over.applied).toEqual([{ alertId: 'alr_1', statement: 1, decision: d, versions: ['1.3.0'] }]);
    expect(over.unmatched.map((u) => [u.statement, u.code])).toEqual([[2, 'superseded']]);
    // an analysis an import wrote is replaced without overwrite
    const imported = alert({ analysis: { importId: 'imp_1', updatedBy: { kind: 'user', id: 'usr_1', name: 'Ada' } } });
    expect(match([statements[0]], [imported]).applied).toEqual([
      { alertId: 'alr_1', statement: 0, decision: d, versions: ['1.3.0'] },
    ]);
  });

  test('statements with a problem are reported with their code and reason, with their first purl', () => {
    const r = match(
      [
        stmt(0, ['pkg:npm/left-pad@1.3.0'], {
          decision: null,
          problem: { code: 'missing_field', reason: 'detail: is required when the state is resolved' },
        }),
        stmt(1, [], { decision: null, problem: { code: 'no_package', reason: 'names no package (no purl)' } }),
        stmt(2, ['pkg:npm/left-pad@1.3.0'], { decision: null }),
      ],
      [alert()],
    );
    expect(r).toEqual({
      applied: [],
      unmatched: [
        {
          statement: 0,
          vulnerability: 'CVE-2021-1234',
          package: 'pkg:npm/left-pad@1.3.0',
          code: 'missing_field',
          reason: 'detail: is required when the state is resolved',
        },
        {
          statement: 1,
          vulnerability: 'CVE-2021-1234',
          package: null,
          code: 'no_package',
          reason: 'names no package (no purl)',
        },
        {
          statement: 2,
          vulnerability: 'CVE-2021-1234',
          package: 'pkg:npm/left-pad@1.3.0',
          code: 'no_analysis',
          reason: 'says no decision',
        },
      ],
    });
  });

  test('ordering: applied by statement then alert id; unmatched by statement then code', () => {
    const alerts = [
      alert({ id: 'alr_z', installedVersions: ['1.3.0'] }),
      alert({ id: 'alr_y', ecosystem: 'python', key: 'foo', package: 'foo', installedVersions: ['1.0'] }),
      alert({ id: 'alr_m', key: 'mid', package: 'mid', installedVersions: ['1.0.0'] }),
    ];
    const r = match(
      [
        // #0: version_not_installed (mid 2.0.0) and superseded on alr_z by #1; applied to alr_y
        stmt(0, ['pkg:npm/mid@2.0.0', 'pkg:npm/left-pad@1.3.0', 'pkg:pypi/foo@1.0'], {
          decision: decision({ state: 'exploitable' }),
        }),
        // #1: applied to alr_z; a problem-free statement for no alert of the project
        stmt(1, ['pkg:npm/left-pad@1.3.0']),
        stmt(2, ['pkg:npm/left-pad@1.3.0'], { ids: ['CVE-2099-0001'], vulnerability: 'CVE-2099-0001' }),
        stmt(3, ['pkg:npm/mid@1.0.0'], { decision: null, problem: { code: 'invalid_field', reason: 'status: x' } }),
      ],
      alerts,
    );
    expect(r.applied.map((a) => [a.statement, a.alertId])).toEqual([
      [0, 'alr_y'],
      [1, 'alr_z'],
    ]);
    expect(r.unmatched.map((u) => [u.statement, u.code])).toEqual([
      [0, 'superseded'],
      [0, 'version_not_installed'],
      [2, 'no_alert'],
      [3, 'invalid_field'],
    ]);
  });

  test('from a CycloneDX document to the alerts it decides', () => {
    const doc = bom({
      components: [
        { type: 'library', 'bom-ref': 'lp', name: 'left-pad', purl: 'pkg:npm/left-pad' },
        { type: 'library', 'bom-ref': 'vendored', name: 'vendored' },
      ],
      vulnerabilities: [
        {
          id: 'GHSA-1111-2222-3333',
          analysis: { state: 'not_affected', justification: 'code_not_reachable', detail: 'server only' },
          affects: [
            {
              ref: 'lp',
              versions: [
                { version: '1.0.0', status: 'affected' },
                { version: '1.3.0', status: 'affected' },
              ],
            },
          ],
        },
        { id: 'CVE-2021-1234', analysis: { state: 'exploitable' }, affects: [{ ref: 'vendored' }] },
        { id: 'CVE-2021-1234', affects: [{ ref: 'lp' }] },
      ],
    });
    const r = match(cdxRead(doc), [alert({ installedVersions: ['1.0.0', '1.3.0', '1.4.0'] })]);
    expect(r).toEqual({
      applied: [
        {
          alertId: 'alr_1',
          statement: 0,
          decision: decision({ state: 'not_affected', justification: 'code_not_reachable', detail: 'server only' }),
          versions: ['1.0.0', '1.3.0'],
        },
      ],
      unmatched: [
        {
          statement: 1,
          vulnerability: 'CVE-2021-1234',
          package: null,
          code: 'no_package',
          reason: 'names no npm, pypi or maven package: vendored names no component with a purl',
        },
        {
          statement: 2,
          vulnerability: 'CVE-2021-1234',
          package: 'pkg:npm/left-pad',
          code: 'no_analysis',
          reason: 'carries no analysis',
        },
      ],
    });
  });
});
