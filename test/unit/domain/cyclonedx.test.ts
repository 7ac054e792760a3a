// The CycloneDX builders (src/shared/cyclonedx): purls by the purl spec, the SBOM's components (one per inventory id),
// first-party modules and dependency graph for v1 and v2 snapshots, the VEX's vulnerabilities, their alerts' analyses
// (only those in force: not expired, covering the installed version) and suppressions as properties, determinism (the same scan gives the same bytes whatever the order of the snapshot's arrays), and every document
// valid against the official CycloneDX 1.6 schema.
import { computeInventory, dependencyId } from '../../../src/domain/inventory';
import { moduleRef, serialNumber, serializeBom } from '../../../src/shared/cyclonedx/common';
import { encodePurlComponent, purlOf } from '../../../src/shared/cyclonedx/purl';
import { buildSbom } from '../../../src/shared/cyclonedx/sbom';
import { buildVex, methodOf, sourceOf, type ScoreCvss, type VexFinding } from '../../../src/domain/cyclonedx/vex';
import {
  ANALYSIS_STATES,
  JUSTIFICATIONS,
  RESPONSES,
  type Analysis,
  type AnalysisState,
} from '../../../src/domain/triage/analysis';
import type { Snapshot } from '../../../src/shared/types';
import { bomRefs, cyclonedxErrors } from '../../helpers/cyclonedx';
import { itWithSharedData } from '../../helpers/shared-data';
import { v2Snapshot } from '../../helpers/v2';

const PRJ = 'prj_0000000000TESTPROJECT';
const scan = { id: 'scn_0000000000TESTSCAN01', projectId: PRJ, project: 'shop', startedAt: '2026-11-23T10:00:00.000Z' };
const tool = { name: 'supply-chain-scanner', version: '9.9.9' };
const ref = (eco: string, name: string, version: string) => dependencyId(PRJ, eco, name, version);

const node = (id: string, dependencies: string[] = [], name?: string, version?: string) => {
  const at = id.lastIndexOf('@');
  return {
    id,
    name: name ?? id.slice(0, at),
    version: version ?? id.slice(at + 1),
    relationship: 'transitive' as const,
    dependencies,
  };
};

/** A v1 npm snapshot: web declares Zeta, @Acme/Util and left-pad; api declares alpha; "zeta" is "Zeta" to npm. */
function v1(): Snapshot {
  return {
    schemaVersion: 1,
    project: 'shop',
    ecosystem: 'javascript',
    manifests: ['package-lock.json'],
    roots: [
      {
        module: 'web',
        manifest: 'web/package.json',
        context: 'dependencies',
        dependencies: ['Zeta@1.0.0', '@Acme/Util@2.0.0', 'left-pad@1.3.0'],
      },
      { module: 'web', manifest: 'web/package.json', context: 'devDependencies', dependencies: ['zeta@1.0.0'] },
      { module: 'api', context: 'dependencies', dependencies: ['alpha@2.0.0'] },
    ],
    nodes: [
      node('@Acme/Util@2.0.0', ['left-pad@1.3.0']),
      node('Zeta@1.0.0', ['left-pad@1.3.0', 'zeta@1.0.0']),
      node('alpha@2.0.0', ['mid@1.0.0']),
      node('left-pad@1.3.0'),
      node('mid@1.0.0', ['left-pad@1.3.0']),
      node('zeta@1.0.0', ['mid@1.0.0']),
      // v1 ids are used as sent: another node of left-pad@1.3.0 is the same package
      node('left-pad-copy', [], 'left-pad', '1.3.0'),
    ],
    metadata: { commit: 'abc123', ref: 'refs/heads/main' },
  };
}

const JACKSON = 'com.fasterxml.jackson.core:jackson-databind@2.13.3';
const ANNOTATIONS = 'com.fasterxml.jackson.core:jackson-annotations@2.13.3';
const SNAKEYAML = 'org.yaml:snakeyaml@1.30';

/** :app depends on :lib; :lib declares jackson (in :app's resolution too); :app declares snakeyaml. */
function v2(): Snapshot {
  const s = v2Snapshot(
    [
      {
        module: ':app',
        context: 'runtimeClasspath',
        vertices: [
          ['r', ':app', 'lib', 'y'],
          ['lib', ':lib', 'j'],
          ['j', JACKSON, 'a'],
          ['a', ANNOTATIONS],
          ['y', SNAKEYAML],
        ],
      },
      {
        module: ':lib',
        context: 'runtimeClasspath',
        vertices: [
          ['r', ':lib', 'j'],
          ['j', JACKSON, 'a'],
          ['a', ANNOTATIONS],
        ],
      },
      {
        module: ':lib',
        context: 'testRuntimeClasspath',
        vertices: [
          ['r', ':lib', 'j'],
          ['j', JACKSON],
        ],
      },
    ],
    [
      { path: ':app', dependencies: [':lib'], teamName: 'web' },
      {
        path: ':lib',
        dependencies: [],
        teamName: 'platform',
        attributes: { tier: 'backend', codeowners: '@acme/platform' },
      },
    ],
    { project: 'shop', metadata: { runUrl: 'https://ci.example/1' } },
  );
  // The flat views are compatibility only: an edge that no resolution has must not reach the SBOM.
  s.nodes.find((n) => n.id === SNAKEYAML)!.dependencies = [ANNOTATIONS];
  return s;
}

const deps = (bom: any) => new Map<string, string[]>(bom.dependencies.map((d: any) => [d.ref, d.dependsOn ?? []]));

/** The same snapshot with every array (and object key order of the modules) reversed. */
function shuffled(s: Snapshot): Snapshot {
  const c: Snapshot = JSON.parse(JSON.stringify(s));
  c.nodes.reverse();
  c.roots.reverse();
  for (const r of c.roots) {
    r.dependencies.reverse();
    r.resolution?.vertices.reverse();
    for (const v of r.resolution?.vertices ?? []) v.dependencies.reverse();
  }
  for (const n of c.nodes) n.dependencies.reverse();
  c.modules?.reverse();
  for (const m of c.modules ?? [])
    if (m.attributes) m.attributes = Object.fromEntries(Object.entries(m.attributes).reverse());
  return c;
}

describe('purls', () => {
  test('npm: lowercased, a scope as namespace with its @ encoded', () => {
    expect(purlOf('javascript', '@Angular/Core', '12.3.1')).toBe('pkg:npm/%40angular/core@12.3.1');
    expect(purlOf('typescript', 'Foobar', '1.0.0')).toBe('pkg:npm/foobar@1.0.0');
    expect(purlOf('javascript', 'left-pad', '1.3.0-rc.1+build.5')).toBe('pkg:npm/left-pad@1.3.0-rc.1%2Bbuild.5');
  });

  test('pypi: the PEP 503 name', () => {
    expect(purlOf('python', 'Foo_Bar..baz', '1.0')).toBe('pkg:pypi/foo-bar-baz@1.0');
    expect(purlOf('python', 'Django', '1.11.1')).toBe('pkg:pypi/django@1.11.1');
  });

  test('maven: group:artifact as namespace and name; a name without a group is the name', () => {
    expect(purlOf('gradle', 'org.apache.xmlgraphics:batik-anim', '1.9.1')).toBe(
      'pkg:maven/org.apache.xmlgraphics/batik-anim@1.9.1',
    );
    expect(purlOf('gradle', 'standalone', '1.0')).toBe('pkg:maven/standalone@1.0');
    expect(purlOf('gradle', 'g:a:classifier', '1.0')).toBe('pkg:maven/g/a:classifier@1.0');
    expect(purlOf('cargo', 'x', '1')).toBeUndefined();
  });

  test('encoding: alphanumerics, .-_~ and the colon stay; everything else is percent-encoded (UTF-8, upper-case hex)', () => {
    expect(encodePurlComponent('aZ09.-_~:')).toBe('aZ09.-_~:');
    expect(encodePurlComponent("a b!'()*/@?#&=+%")).toBe('a%20b%21%27%28%29%2A%2F%40%3F%23%26%3D%2B%25');
    expect(encodePurlComponent('é')).toBe('%C3%A9');
    expect(encodePurlComponent('x\ud800y')).toBe('x%EF%BF%BDy'); // a lone surrogate: U+FFFD, never a URIError
  });
});

describe('the SBOM of a v1 snapshot', () => {
  const bom = buildSbom({ scan, snapshot: v1(), tool }) as any;

  itWithSharedData('is valid CycloneDX 1.6, with this service as the tool and the scan in its metadata', () => {
    expect(cyclonedxErrors(bom)).toEqual([]);
    expect(bom).toMatchObject({
      bomFormat: 'CycloneDX',
      specVersion: '1.6',
      version: 1,
      serialNumber: serialNumber(scan.id, 'sbom'),
    });
    expect(bom.serialNumber).toMatch(/^urn:uuid:[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(bom.metadata.timestamp).toBe(scan.startedAt);
    expect(bom.metadata.tools).toEqual({
      components: [{ type: 'application', name: 'supply-chain-scanner', version: '9.9.9' }],
    });
    expect(bom.metadata.properties).toEqual([
      { name: 'scanner:scan', value: scan.id },
      { name: 'scanner:ecosystem', value: 'javascript' },
      { name: 'scanner:commit', value: 'abc123' },
      { name: 'scanner:ref', value: 'refs/heads/main' },
    ]);
  });

  test("components: one per inventory id, exactly the inventory's ids, merged nodes once under their smallest name", () => {
    const inventory = computeInventory(v1(), PRJ);
    expect(bom.components.map((c: any) => c['bom-ref']).sort()).toEqual(inventory.map((i) => i.id).sort());
    expect(bom.components.map((c: any) => [c.group, c.name, c.version, c.purl])).toEqual([
      ['@Acme', 'Util', '2.0.0', 'pkg:npm/%40acme/util@2.0.0'],
      [undefined, 'Zeta', '1.0.0', 'pkg:npm/zeta@1.0.0'], // Zeta and zeta: one package to npm, named by the smallest
      [undefined, 'alpha', '2.0.0', 'pkg:npm/alpha@2.0.0'],
      [undefined, 'left-pad', '1.3.0', 'pkg:npm/left-pad@1.3.0'],
      [undefined, 'mid', '1.0.0', 'pkg:npm/mid@1.0.0'],
    ]);
    expect(bom.components.every((c: any) => c.type === 'library')).toBe(true);
    expect(bom.components[1]['bom-ref']).toBe(ref('javascript', 'zeta', '1.0.0'));
  });

  test("first-party components: the manifests its paths start from (a root without one: the snapshot's first)", () => {
    const project = bom.metadata.component;
    expect(project).toMatchObject({ type: 'application', 'bom-ref': PRJ, name: 'shop' });
    expect(project.components).toEqual([
      { type: 'application', 'bom-ref': moduleRef(PRJ, 'javascript', 'package-lock.json'), name: 'package-lock.json' },
      { type: 'application', 'bom-ref': moduleRef(PRJ, 'javascript', 'web/package.json'), name: 'web/package.json' },
    ]);
    // the inventory's manifests are the same
    expect(new Set(computeInventory(v1(), PRJ).map((i) => i.manifest))).toEqual(
      new Set(['package-lock.json', 'web/package.json']),
    );
  });

  test('the graph: project → modules → declared packages → their dependencies, deduplicated by bom-ref, no self edges', () => {
    const d = deps(bom);
    const web = moduleRef(PRJ, 'javascript', 'web/package.json');
    const api = moduleRef(PRJ, 'javascript', 'package-lock.json');
    const [util, zeta, alpha, leftPad, mid] = bom.components.map((c: any) => c['bom-ref']);
    expect(d.get(PRJ)).toEqual([api, web].sort());
    expect(d.get(web)).toEqual([util, zeta, leftPad].sort()); // Zeta and zeta: once
    expect(d.get(api)).toEqual([alpha]);
    expect(d.get(zeta)).toEqual([leftPad, mid].sort()); // Zeta → zeta is the package itself: dropped
    expect(d.get(leftPad)).toEqual([]);
    expect(bom.dependencies.map((x: any) => x.ref)).toEqual([PRJ, api, web, util, zeta, alpha, leftPad, mid]);
    expect(bom.dependencies.find((x: any) => x.ref === leftPad)).toEqual({ ref: leftPad }); // no dependsOn when empty
  });

  test("deterministic: the same bytes every time, whatever the order of the snapshot's arrays", () => {
    const bytes = serializeBom(bom);
    expect(serializeBom(buildSbom({ scan, snapshot: v1(), tool }))).toBe(bytes);
    expect(serializeBom(buildSbom({ scan, snapshot: shuffled(v1()), tool }))).toBe(bytes);
    expect(bytes.endsWith('}\n')).toBe(true);
    expect(bytes.indexOf('\n')).toBe(bytes.length - 1);
    // another scan of the same snapshot: another serial number
    expect(buildSbom({ scan: { ...scan, id: 'scn_other' }, snapshot: v1(), tool }).serialNumber).not.toBe(
      bom.serialNumber,
    );
  });
});

describe('the SBOM of a v2 snapshot', () => {
  const bom = buildSbom({ scan, snapshot: v2(), tool }) as any;
  const app = moduleRef(PRJ, 'gradle', ':app');
  const lib = moduleRef(PRJ, 'gradle', ':lib');
  const maven = (id: string) => ref('gradle', id.slice(0, id.lastIndexOf('@')), id.slice(id.lastIndexOf('@') + 1));

  itWithSharedData('is valid; packages with Maven group and name; modules with their team and attributes', () => {
    expect(cyclonedxErrors(bom)).toEqual([]);
    expect(bom.components.map((c: any) => [c['bom-ref'], c.group, c.name, c.purl])).toEqual([
      [
        maven(ANNOTATIONS),
        'com.fasterxml.jackson.core',
        'jackson-annotations',
        'pkg:maven/com.fasterxml.jackson.core/jackson-annotations@2.13.3',
      ],
      [
        maven(JACKSON),
        'com.fasterxml.jackson.core',
        'jackson-databind',
        'pkg:maven/com.fasterxml.jackson.core/jackson-databind@2.13.3',
      ],
      [maven(SNAKEYAML), 'org.yaml', 'snakeyaml', 'pkg:maven/org.yaml/snakeyaml@1.30'],
    ]);
    expect(bom.metadata.component.components).toEqual([
      { type: 'application', 'bom-ref': app, name: ':app', properties: [{ name: 'scanner:team', value: 'web' }] },
      {
        type: 'application',
        'bom-ref': lib,
        name: ':lib',
        properties: [
          { name: 'scanner:team', value: 'platform' },
          { name: 'scanner:attribute:codeowners', value: '@acme/platform' },
          { name: 'scanner:attribute:tier', value: 'backend' },
        ],
      },
    ]);
    expect(bom.metadata.properties).toContainEqual({ name: 'scanner:runUrl', value: 'https://ci.example/1' });
    expect(bomRefs(bom).size).toBe(1 + 2 + 3);
  });

  test('the graph comes from the resolutions: a module vertex declares packages in whichever resolution it sits', () => {
    const d = deps(bom);
    expect(d.get(PRJ)).toEqual([app, lib].sort());
    expect(d.get(app)).toEqual([lib, maven(SNAKEYAML)].sort());
    expect(d.get(lib)).toEqual([maven(JACKSON)]);
    expect(d.get(maven(JACKSON))).toEqual([maven(ANNOTATIONS)]);
    expect(d.get(maven(SNAKEYAML))).toEqual([]); // its flat nodes[].dependencies say otherwise: not read
  });

  itWithSharedData(
    'a package vertex depending on a module vertex, and a module only a vertex names, are in the graph too',
    () => {
      const s = v2Snapshot(
        [
          {
            module: ':app',
            context: 'c',
            vertices: [
              ['r', ':app', 'p'],
              ['p', 'g:plugin@1', 'm'],
              ['m', ':gen'],
            ],
          },
        ],
        [{ path: ':app', dependencies: [] }],
      );
      const b = buildSbom({ scan, snapshot: s, tool }) as any;
      expect(cyclonedxErrors(b)).toEqual([]);
      const gen = moduleRef(PRJ, 'gradle', ':gen');
      expect(b.metadata.component.components.map((c: any) => c.name)).toEqual([':app', ':gen']);
      expect(deps(b).get(ref('gradle', 'g:plugin', '1'))).toEqual([gen]);
    },
  );

  test('deterministic whatever the order of modules, roots, vertices, edges and attributes', () => {
    expect(serializeBom(buildSbom({ scan, snapshot: shuffled(v2()), tool }))).toBe(serializeBom(bom));
  });

  itWithSharedData(
    "components are exactly the inventory's ids; PyPI names needing normalisation are one package",
    () => {
      const s = v2Snapshot(
        [
          {
            module: ':svc',
            context: 'main',
            vertices: [
              ['r', ':svc', 'f', 'g'],
              ['f', 'Foo_Bar@1.0', 'q'],
              ['g', 'foo.bar@1.0'],
              ['q', 'requests@2.31.0'],
            ],
          },
        ],
        undefined,
        { ecosystem: 'python' },
      );
      const b = buildSbom({ scan, snapshot: s, tool }) as any;
      expect(cyclonedxErrors(b)).toEqual([]);
      expect(b.components.map((c: any) => c['bom-ref']).sort()).toEqual(
        computeInventory(s, PRJ)
          .map((i) => i.id)
          .sort(),
      );
      expect(b.components.map((c: any) => [c.name, c.purl])).toEqual([
        ['Foo_Bar', 'pkg:pypi/foo-bar@1.0'],
        ['requests', 'pkg:pypi/requests@2.31.0'],
      ]);
    },
  );

  itWithSharedData("a version over the schema's 1,024 characters is kept whole in a property and the purl", () => {
    const long = '1.' + '0'.repeat(1500);
    const s = v2Snapshot([
      {
        module: ':a',
        context: 'c',
        vertices: [
          ['r', ':a', 'p'],
          ['p', `g:a@${long}`],
        ],
      },
    ]);
    const b = buildSbom({ scan, snapshot: s, tool }) as any;
    expect(cyclonedxErrors(b)).toEqual([]);
    expect(b.components[0].version).toBeUndefined();
    expect(b.components[0].properties).toEqual([{ name: 'scanner:version', value: long }]);
    expect(b.components[0].purl).toBe(`pkg:maven/g/a@${long}`);
  });

  itWithSharedData(
    'the schema check fails what it should: a repeated component, a bad serial number, a missing name',
    () => {
      const twice = { ...bom, components: [...bom.components, bom.components[0]] };
      expect(cyclonedxErrors(twice)).not.toEqual([]);
      expect(cyclonedxErrors(twice, { large: true })).not.toEqual([]);
      expect(cyclonedxErrors({ ...bom, serialNumber: 'urn:uuid:nope' })).not.toEqual([]);
      const nameless = JSON.parse(JSON.stringify(bom));
      delete nameless.components[0].name;
      expect(cyclonedxErrors(nameless, { large: true })).not.toEqual([]);
      expect(cyclonedxErrors(bom, { large: true })).toEqual([]);
    },
  );

  itWithSharedData('an empty snapshot is still a valid document', () => {
    const s: Snapshot = { schemaVersion: 1, project: 'shop', ecosystem: 'python', roots: [], nodes: [] };
    const b = buildSbom({ scan, snapshot: s, tool }) as any;
    expect(cyclonedxErrors(b)).toEqual([]);
    expect(b.components).toEqual([]);
    expect(b.dependencies).toEqual([{ ref: PRJ }]);
    expect(b.metadata.component.components).toBeUndefined();
  });
});

describe('the VEX', () => {
  const snapshot: Snapshot = {
    ...v1(),
    suppressions: [
      { cve: 'CVE-2020-0001', reason: 'only for alpha', package: 'alpha' },
      { cve: 'GHSA-aaaa-bbbb-cccc', reason: 'not reachable in our build', package: 'zet*', expires: '2020-01-01' },
      { cve: 'GHSA-aaaa-bbbb-cccc', reason: 'later, same advisory' },
    ],
  };
  const finding = (over: Partial<VexFinding>): VexFinding => ({
    id: 'fnd_1',
    severity: 'high',
    cve: 'CVE-2021-1234',
    publishedAt: '2021-05-01T00:00:00.000Z',
    package: 'left-pad',
    installedVersion: '1.3.0',
    fixedVersion: '1.3.1',
    path: ['web/package.json', 'left-pad@1.3.0'],
    suppressed: false,
    suppressionReason: null,
    summary: 'Prototype pollution in left-pad',
    aliases: ['CVE-2021-1234', 'GHSA-1111-2222-3333', 'PYSEC-2021-9'],
    packageRef: ref('javascript', 'left-pad', '1.3.0'),
    ...over,
  });
  const findings: VexFinding[] = [
    finding({}),
    finding({
      id: 'fnd_2',
      severity: 'medium',
      cve: 'GHSA-aaaa-bbbb-cccc',
      aliases: ['GHSA-aaaa-bbbb-cccc'],
      package: 'zeta',
      fixedVersion: null,
      suppressed: true,
      suppressionReason: 'not reachable in our build',
      packageRef: ref('javascript', 'zeta', '1.0.0'),
      publishedAt: null,
      summary: '',
    }),
    finding({ id: 'fnd_3', severity: 'low', cve: 'MAL-2024-1', aliases: ['MAL-2024-1'], fixedVersion: null }),
  ];
  const advisories = new Map([
    [
      'GHSA-1111-2222-3333',
      [
        { type: 'CVSS_V3', score: 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H' },
        { type: 'Ubuntu', score: 'high' },
      ],
    ],
    [
      'CVE-2021-1234',
      [
        { type: 'CVSS_V3', score: 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H' },
        { type: 'CVSS_V2', score: 'AV:N/AC:L/Au:N/C:P/I:P/A:P' },
      ],
    ],
  ]);
  const scores: Record<string, number> = {
    'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H': 9.8,
    'AV:N/AC:L/Au:N/C:P/I:P/A:P': 7.5,
  };
  const score: ScoreCvss = (_type, vector) =>
    vector in scores ? { score: scores[vector], severity: scores[vector] >= 9 ? 'critical' : 'high' } : null;
  const NOW = new Date('2026-12-01T00:00:00.000Z');
  const analysis = (state: AnalysisState, over: Partial<Analysis> = {}): Analysis => ({
    state,
    justification: null,
    response: [],
    detail: null,
    expiresAt: null,
    versions: null,
    ticketUrl: null,
    updatedAt: '2026-11-24T09:00:00.000Z',
    updatedBy: { kind: 'user', id: 'usr_1' },
    ...over,
  });
  const NONE = new Map<string, Analysis>();
  const vex = buildVex({
    scan: { ...scan, finishedAt: '2026-11-23T10:00:05.000Z' },
    snapshot,
    tool,
    findings,
    advisories,
    score,
    analyses: NONE,
    now: NOW,
  }) as any;
  const byId = new Map<string, any>(vex.vulnerabilities.map((v: any) => [v['bom-ref'], v]));

  itWithSharedData('is valid CycloneDX 1.6; every affected ref is a component of the document, as in the SBOM', () => {
    expect(cyclonedxErrors(vex)).toEqual([]);
    expect(vex.serialNumber).toBe(serialNumber(scan.id, 'vex'));
    expect(vex.serialNumber).not.toBe(serialNumber(scan.id, 'sbom'));
    expect(vex.metadata.timestamp).toBe('2026-11-23T10:00:05.000Z');
    const refs = bomRefs(vex);
    for (const v of vex.vulnerabilities) expect(refs.has(v.affects[0].ref)).toBe(true);
    const sbom = buildSbom({ scan, snapshot, tool }) as any;
    const inSbom = new Map(sbom.components.map((c: any) => [c['bom-ref'], c]));
    expect(vex.components.map((c: any) => c['bom-ref'])).toEqual([
      ref('javascript', 'zeta', '1.0.0'),
      ref('javascript', 'left-pad', '1.3.0'),
    ]);
    for (const c of vex.components) expect(c).toEqual(inSbom.get(c['bom-ref']));
    expect(vex.vulnerabilities.map((v: any) => v['bom-ref'])).toEqual(['fnd_1', 'fnd_2', 'fnd_3']);
  });

  test('a vulnerability per finding: id, source, aliases as references, ratings, recommendation, affects', () => {
    const v = byId.get('fnd_1');
    expect(v).toMatchObject({
      id: 'CVE-2021-1234',
      source: { name: 'NVD', url: 'https://nvd.nist.gov/vuln/detail/CVE-2021-1234' },
      references: [
        {
          id: 'GHSA-1111-2222-3333',
          source: { name: 'GITHUB', url: 'https://github.com/advisories/GHSA-1111-2222-3333' },
        },
        { id: 'PYSEC-2021-9', source: { name: 'OSV', url: 'https://osv.dev/vulnerability/PYSEC-2021-9' } },
      ],
      description: 'Prototype pollution in left-pad',
      recommendation: 'Upgrade left-pad to 1.3.1.',
      published: '2021-05-01T00:00:00.000Z',
      affects: [{ ref: ref('javascript', 'left-pad', '1.3.0'), versions: [{ version: '1.3.0', status: 'affected' }] }],
      properties: [{ name: 'scanner:path', value: '["web/package.json","left-pad@1.3.0"]' }],
    });
    // the finding's own severity, then each CVSS vector once per source (the Ubuntu entry is not CVSS)
    expect(v.ratings).toEqual([
      expect.objectContaining({ source: { name: 'supply-chain-scanner' }, severity: 'high', method: 'other' }),
      {
        source: sourceOf('CVE-2021-1234'),
        score: 9.8,
        severity: 'critical',
        method: 'CVSSv31',
        vector: 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H',
      },
      {
        source: sourceOf('CVE-2021-1234'),
        score: 7.5,
        severity: 'high',
        method: 'CVSSv2',
        vector: 'AV:N/AC:L/Au:N/C:P/I:P/A:P',
      },
      {
        source: sourceOf('GHSA-1111-2222-3333'),
        score: 9.8,
        severity: 'critical',
        method: 'CVSSv31',
        vector: 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H',
      },
    ]);
  });

  test('no analysis without one: neither an unsuppressed nor a suppressed finding; the suppression as properties', () => {
    for (const v of vex.vulnerabilities) expect(v).not.toHaveProperty('analysis');
    expect(byId.get('fnd_1').properties).toEqual([
      { name: 'scanner:path', value: '["web/package.json","left-pad@1.3.0"]' },
    ]);
    expect(byId.get('fnd_3').recommendation).toBeUndefined();
    // The scan applied the suppression before it expired: its reason and date explain the stored finding.
    expect(byId.get('fnd_2').properties).toEqual([
      { name: 'scanner:path', value: '["web/package.json","left-pad@1.3.0"]' },
      { name: 'scanner:suppressed', value: 'true' },
      { name: 'scanner:suppressionSource', value: 'snapshot' },
      { name: 'scanner:suppressionReason', value: 'not reachable in our build' },
      { name: 'scanner:suppressionExpires', value: '2020-01-01' },
    ]);
    expect(byId.get('fnd_2')).not.toHaveProperty('published');
    expect(byId.get('fnd_2')).not.toHaveProperty('description');
    expect(byId.get('fnd_2')).not.toHaveProperty('references');
    expect(byId.get('fnd_3').source).toEqual({ name: 'OSV', url: 'https://osv.dev/vulnerability/MAL-2024-1' });
  });

  itWithSharedData(
    'a suppression without expiry; a suppressed finding whose suppression is gone keeps its reason',
    () => {
      const f = [
        finding({
          id: 'fnd_4',
          cve: 'GHSA-aaaa-bbbb-cccc',
          aliases: ['GHSA-aaaa-bbbb-cccc'],
          suppressed: true,
          suppressionReason: 'later, same advisory',
        }),
        finding({ id: 'fnd_5', suppressed: true, suppressionReason: 'from an older snapshot' }),
      ];
      const v = buildVex({
        scan: { ...scan, finishedAt: scan.startedAt },
        snapshot,
        tool,
        findings: f,
        advisories: new Map(),
        score,
        analyses: NONE,
        now: NOW,
      }) as any;
      expect(cyclonedxErrors(v)).toEqual([]);
      expect(v.vulnerabilities.map((x: any) => x.properties.slice(1))).toEqual([
        [
          { name: 'scanner:suppressed', value: 'true' },
          { name: 'scanner:suppressionSource', value: 'snapshot' },
          { name: 'scanner:suppressionReason', value: 'later, same advisory' },
        ],
        [
          { name: 'scanner:suppressed', value: 'true' },
          { name: 'scanner:suppressionSource', value: 'snapshot' },
          { name: 'scanner:suppressionReason', value: 'from an older snapshot' },
        ],
      ]);
      expect(v.vulnerabilities.every((x: any) => x.analysis === undefined)).toBe(true);
      expect(v.vulnerabilities[0].ratings).toHaveLength(1);
    },
  );

  itWithSharedData(
    'a finding whose package is not in the snapshot still resolves; no findings is an empty list',
    () => {
      const f = [
        finding({ package: 'ghost', installedVersion: '0.0.1', packageRef: ref('javascript', 'ghost', '0.0.1') }),
      ];
      const v = buildVex({
        scan: { ...scan, finishedAt: scan.startedAt },
        snapshot,
        tool,
        findings: f,
        advisories,
        score,
        analyses: NONE,
        now: NOW,
      }) as any;
      expect(cyclonedxErrors(v)).toEqual([]);
      expect(v.components).toEqual([
        {
          type: 'library',
          'bom-ref': ref('javascript', 'ghost', '0.0.1'),
          name: 'ghost',
          version: '0.0.1',
          purl: 'pkg:npm/ghost@0.0.1',
        },
      ]);
      const none = buildVex({
        scan: { ...scan, finishedAt: scan.startedAt },
        snapshot,
        tool,
        findings: [],
        advisories,
        score,
        analyses: NONE,
        now: NOW,
      }) as any;
      expect(cyclonedxErrors(none)).toEqual([]);
      expect(none).toMatchObject({ components: [], vulnerabilities: [] });
    },
  );

  describe("the alerts' analyses", () => {
    const withAlerts = [
      finding({ alertId: 'alr_exploitable' }),
      finding({ id: 'fnd_none', alertId: 'alr_without' }),
      finding({ id: 'fnd_branch', alertId: null }),
      finding({ id: 'fnd_old' }), // a finding of a scan stored before alerts: no alertId at all
      finding({ id: 'fnd_expired', alertId: 'alr_expired' }),
      finding({ id: 'fnd_other_version', alertId: 'alr_other_version' }),
      finding({ id: 'fnd_this_version', alertId: 'alr_this_version' }),
      finding({
        id: 'fnd_suppressed',
        alertId: 'alr_fp',
        suppressed: true,
        suppressionSource: 'analysis',
        suppressionReason: 'the advisory names another package',
      }),
      finding({
        id: 'fnd_rule',
        alertId: 'alr_without',
        suppressed: true,
        suppressionSource: 'rule',
        suppressionReason: 'dev tooling only',
        ruleId: 'trl_1',
      }),
    ];
    const analyses = new Map<string, Analysis>([
      [
        'alr_exploitable',
        analysis('exploitable', {
          response: ['update', 'workaround_available'],
          detail: 'reachable from the checkout',
          ticketUrl: 'https://jira.example.test/browse/SEC-1',
        }),
      ],
      [
        'alr_expired',
        analysis('not_affected', {
          justification: 'code_not_reachable',
          detail: 'until the refactoring',
          expiresAt: '2026-11-30T00:00:00.000Z',
        }),
      ],
      [
        'alr_other_version',
        analysis('not_affected', { justification: 'code_not_present', detail: 'patched', versions: ['1.2.0'] }),
      ],
      [
        'alr_this_version',
        analysis('resolved', { detail: 'upgraded in the next release', versions: ['1.2.0', '1.3.0'] }),
      ],
      ['alr_fp', analysis('false_positive', { detail: 'the advisory names another package' })],
    ]);
    const build = (now = NOW) =>
      buildVex({
        scan: { ...scan, finishedAt: scan.startedAt },
        snapshot,
        tool,
        findings: withAlerts,
        advisories,
        score,
        analyses,
        now,
      }) as any;
    const of = (doc: any) => new Map<string, any>(doc.vulnerabilities.map((v: any) => [v['bom-ref'], v]));

    itWithSharedData('the analysis in force, in CycloneDX names, empty fields left out; valid CycloneDX 1.6', () => {
      const doc = build();
      expect(cyclonedxErrors(doc)).toEqual([]);
      const v = of(doc);
      expect(v.get('fnd_1').analysis).toEqual({
        state: 'exploitable',
        response: ['update', 'workaround_available'],
        detail: 'reachable from the checkout',
      });
      expect(v.get('fnd_this_version').analysis).toEqual({ state: 'resolved', detail: 'upgraded in the next release' });
      // the analysis of today, not the suppression the scan applied; the suppression stays in properties
      expect(v.get('fnd_suppressed').analysis).toEqual({
        state: 'false_positive',
        detail: 'the advisory names another package',
      });
      expect(v.get('fnd_suppressed').properties.slice(1)).toEqual([
        { name: 'scanner:suppressed', value: 'true' },
        { name: 'scanner:suppressionSource', value: 'analysis' },
        { name: 'scanner:suppressionReason', value: 'the advisory names another package' },
      ]);
      expect(v.get('fnd_rule').properties.slice(1)).toEqual([
        { name: 'scanner:suppressed', value: 'true' },
        { name: 'scanner:suppressionSource', value: 'rule' },
        { name: 'scanner:suppressionReason', value: 'dev tooling only' },
        { name: 'scanner:ruleId', value: 'trl_1' },
      ]);
    });

    test('none: no alert, an alert without analysis, an expired analysis, one covering other versions', () => {
      const v = of(build());
      for (const id of ['fnd_none', 'fnd_branch', 'fnd_old', 'fnd_expired', 'fnd_other_version', 'fnd_rule'])
        expect([id, v.get(id)]).toEqual([id, expect.not.objectContaining({ analysis: expect.anything() })]);
      // before its expiry, the same analysis is in force
      expect(of(build(new Date('2026-11-29T23:59:59.999Z'))).get('fnd_expired').analysis).toEqual({
        state: 'not_affected',
        justification: 'code_not_reachable',
        detail: 'until the refactoring',
      });
    });

    itWithSharedData('every state, justification and response is valid CycloneDX 1.6', () => {
      const all: VexFinding[] = [];
      const map = new Map<string, Analysis>();
      let n = 0;
      const add = (a: Analysis) => {
        const id = `alr_${++n}`;
        all.push(finding({ id: `fnd_${String(n).padStart(3, '0')}`, alertId: id }));
        map.set(id, a);
      };
      for (const state of ANALYSIS_STATES) add(analysis(state, { detail: `${state} because` }));
      for (const j of JUSTIFICATIONS) add(analysis('not_affected', { justification: j, detail: j }));
      add(analysis('exploitable', { response: [...RESPONSES] }));
      add(analysis('in_triage'));
      const doc = buildVex({
        scan: { ...scan, finishedAt: scan.startedAt },
        snapshot,
        tool,
        findings: all,
        advisories,
        score,
        analyses: map,
        now: NOW,
      }) as any;
      expect(cyclonedxErrors(doc)).toEqual([]);
      const analysesOut = doc.vulnerabilities.map((v: any) => v.analysis);
      expect(analysesOut.map((a: any) => a.state)).toEqual([
        ...ANALYSIS_STATES,
        ...JUSTIFICATIONS.map(() => 'not_affected'),
        'exploitable',
        'in_triage',
      ]);
      expect(analysesOut.slice(ANALYSIS_STATES.length, -2).map((a: any) => a.justification)).toEqual([
        ...JUSTIFICATIONS,
      ]);
      expect(analysesOut.at(-2)).toEqual({ state: 'exploitable', response: [...RESPONSES] });
      expect(analysesOut.at(-1)).toEqual({ state: 'in_triage' });
    });
  });

  test('scoring methods as the severity rules read the entries', () => {
    expect(methodOf('CVSS_V4', 'CVSS:4.0/AV:N')).toBe('CVSSv4');
    expect(methodOf('CVSS_V3', ' CVSS:3.0/AV:N')).toBe('CVSSv3');
    expect(methodOf('CVSS_V3', 'CVSS:3.1/AV:N')).toBe('CVSSv31');
    expect(methodOf('CVSS_V2', 'AV:N/AC:L')).toBe('CVSSv2');
    expect(methodOf('Ubuntu', 'high')).toBeNull();
  });
});
