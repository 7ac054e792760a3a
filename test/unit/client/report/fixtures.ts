// Report inputs shaped like a real `scanner scan` run: a v2 npm workspace scan (attributions, teams from CODEOWNERS)
// and a v1 requirements.txt scan, with real advisories. Suppressed findings are left out, as the command does.
import type { ApiFinding, ApiScan } from '../../../../src/client/api/types';
import type { ReportInput, ScanResult } from '../../../../src/client/report/types';
import type { Severity } from '../../../../src/shared/types';

type Attribution = ApiFinding['attributions'][number];

export function finding(
  over: Partial<ApiFinding> & Pick<ApiFinding, 'cve' | 'package' | 'installedVersion' | 'severity'>,
): ApiFinding {
  return {
    id: `fnd_${over.cve}_${over.package}`.replace(/[^a-z0-9_]/gi, '').toLowerCase(),
    scanId: 'scn_x',
    publishedAt: '2022-03-17T16:00:00Z',
    fixedVersion: null,
    path: [`${over.package}@${over.installedVersion}`],
    suppressed: false,
    suppressionReason: null,
    attributions: [],
    summary: '',
    aliases: [over.cve],
    ...over,
  };
}

const attr = (
  module: string,
  context: string,
  relationship: 'direct' | 'transitive',
  path: string[],
  origins: Array<[string, string, string[]]>,
): Attribution => ({
  module,
  context,
  relationship,
  path,
  origins: origins.map(([m, dependency, p]) => ({ module: m, dependency, path: p })),
});

export function scan(
  over: Partial<ApiScan> & Pick<ApiScan, 'id'>,
  counts: Record<Severity, number>,
  suppressed = 0,
): ApiScan {
  return {
    target: 'acme-web',
    project: 'acme-web',
    status: 'completed',
    findings: counts,
    suppressed,
    startedAt: '2026-11-23T10:00:00.000Z',
    finishedAt: '2026-11-23T10:00:04.000Z',
    failureReason: null,
    modules: [],
    metadata: null,
    ...over,
  };
}

/** npm workspaces: "." (@acme/platform), packages/web (@acme/web), packages/api (no CODEOWNERS rule) using web. */
export function v2Result(): ScanResult {
  const findings: ApiFinding[] = [
    finding({
      severity: 'critical',
      cve: 'GHSA-xvch-5gv4-984h',
      package: 'minimist',
      installedVersion: '1.2.5',
      fixedVersion: '1.2.6',
      aliases: ['GHSA-xvch-5gv4-984h', 'CVE-2021-44906'],
      summary: 'Prototype Pollution in minimist',
      path: ['packages/web', 'mkdirp@0.5.5', 'minimist@1.2.5'],
      attributions: [
        attr(
          'packages/web',
          'dependencies',
          'transitive',
          ['packages/web', 'mkdirp@0.5.5', 'minimist@1.2.5'],
          [['packages/web', 'mkdirp@0.5.5', ['packages/web', 'mkdirp@0.5.5', 'minimist@1.2.5']]],
        ),
        attr(
          'packages/api',
          'dependencies',
          'transitive',
          ['packages/api', 'packages/web', 'mkdirp@0.5.5', 'minimist@1.2.5'],
          [['packages/web', 'mkdirp@0.5.5', ['packages/web', 'mkdirp@0.5.5', 'minimist@1.2.5']]],
        ),
      ],
    }),
    finding({
      severity: 'high',
      cve: 'GHSA-3xgq-45jj-v275',
      package: 'cross-spawn',
      installedVersion: '7.0.3',
      fixedVersion: '7.0.5',
      aliases: ['GHSA-3xgq-45jj-v275', 'CVE-2024-21538'],
      summary: 'Regular Expression Denial of Service (ReDoS) in cross-spawn',
      path: ['.', 'eslint@8.57.0', 'cross-spawn@7.0.3'],
      attributions: [
        attr(
          '.',
          'devDependencies',
          'transitive',
          ['.', 'eslint@8.57.0', 'cross-spawn@7.0.3'],
          [['.', 'eslint@8.57.0', ['.', 'eslint@8.57.0', 'cross-spawn@7.0.3']]],
        ),
      ],
    }),
    finding({
      severity: 'high',
      cve: 'GHSA-p6mc-m468-83gw',
      package: 'lodash',
      installedVersion: '4.17.15',
      fixedVersion: '4.17.19',
      aliases: ['GHSA-p6mc-m468-83gw', 'CVE-2020-8203'],
      summary: 'Prototype Pollution in lodash',
      path: ['packages/api', 'lodash@4.17.15'],
      attributions: [
        attr(
          'packages/api',
          'dependencies',
          'direct',
          ['packages/api', 'lodash@4.17.15'],
          [['packages/api', 'lodash@4.17.15', ['packages/api', 'lodash@4.17.15']]],
        ),
      ],
    }),
    finding({
      severity: 'medium',
      cve: 'GHSA-952p-6rrq-rcjv',
      package: 'micromatch',
      installedVersion: '4.0.5',
      fixedVersion: '4.0.8',
      aliases: ['GHSA-952p-6rrq-rcjv', 'CVE-2024-4067'],
      summary: 'Regular Expression Denial of Service (ReDoS) in micromatch',
      path: [
        '.',
        'jest@29.7.0',
        '@jest/core@29.7.0',
        'jest-config@29.7.0',
        'babel-jest@29.7.0',
        'babel-plugin-istanbul@6.1.1',
        'test-exclude@6.0.0',
        '@istanbuljs/load-nyc-config@1.1.0',
        'find-up@4.1.0',
        'micromatch@4.0.5',
      ],
      attributions: [
        attr(
          '.',
          'devDependencies',
          'transitive',
          ['.', 'jest@29.7.0', 'micromatch@4.0.5'],
          [['.', 'jest@29.7.0', ['.', 'jest@29.7.0', 'micromatch@4.0.5']]],
        ),
      ],
    }),
    finding({
      severity: 'medium',
      cve: 'GHSA-p8p7-x288-28g6',
      package: 'request',
      installedVersion: '2.88.2',
      fixedVersion: null,
      aliases: ['GHSA-p8p7-x288-28g6', 'CVE-2023-28155'],
      summary: 'Server-Side Request Forgery in Request',
      path: ['packages/api', 'request@2.88.2'],
      attributions: [
        attr(
          'packages/api',
          'dependencies',
          'direct',
          ['packages/api', 'request@2.88.2'],
          [['packages/api', 'request@2.88.2', ['packages/api', 'request@2.88.2']]],
        ),
      ],
    }),
    finding({
      severity: 'low',
      cve: 'GHSA-m6fv-jmcg-4jfg',
      package: 'send',
      installedVersion: '0.18.0',
      fixedVersion: '0.19.0',
      aliases: ['GHSA-m6fv-jmcg-4jfg', 'CVE-2024-43799'],
      summary: 'send vulnerable to template injection that can lead to XSS',
      path: ['packages/api', 'express@4.19.2', 'send@0.18.0'],
      attributions: [
        attr(
          'packages/api',
          'dependencies',
          'transitive',
          ['packages/api', 'express@4.19.2', 'send@0.18.0'],
          [['packages/api', 'express@4.19.2', ['packages/api', 'express@4.19.2', 'send@0.18.0']]],
        ),
      ],
    }),
  ];
  return {
    project: 'acme-web',
    ecosystem: 'javascript',
    scan: scan(
      {
        id: 'scn_01jd4v2npm',
        ecosystem: 'javascript',
        modules: [
          { path: '.', dependencies: [], teamName: '@acme/platform', attributes: { codeowners: '@acme/platform' } },
          {
            path: 'packages/web',
            dependencies: [],
            teamName: '@acme/web',
            attributes: { codeowners: '@acme/web @alice' },
          },
          { path: 'packages/api', dependencies: ['packages/web'] },
        ],
        metadata: { commit: 'a'.repeat(40), ref: 'refs/heads/main' },
      },
      { critical: 1, high: 2, medium: 2, low: 1 },
      1,
    ),
    findings,
    lockfiles: ['package-lock.json'],
    locations: {
      'minimist@1.2.5': { file: 'package-lock.json', line: 812 },
      'cross-spawn@7.0.3': { file: 'package-lock.json', line: 240 },
      'lodash@4.17.15': { file: 'package-lock.json', line: 655 },
      'micromatch@4.0.5': { file: 'package-lock.json', line: 801 },
      // request: entry line unknown (the producer could not tell) → location without a region
      'request@2.88.2': { file: 'package-lock.json' },
      'send@0.18.0': { file: 'package-lock.json', line: 1203 },
      'mkdirp@0.5.5': { file: 'package-lock.json', line: 830 },
    },
  };
}

/** requirements.txt pins in a sub-directory of the repository: a flat (v1) snapshot, no modules, no attributions. */
export function v1Result(): ScanResult {
  return {
    project: 'acme-web',
    ecosystem: 'python',
    scan: scan({ id: 'scn_01jd4v1pip', ecosystem: 'python' }, { critical: 1, high: 0, medium: 1, low: 0 }, 0),
    findings: [
      finding({
        severity: 'critical',
        cve: 'GHSA-8q59-q68h-6hv4',
        package: 'PyYAML',
        installedVersion: '5.3.1',
        fixedVersion: '5.4',
        aliases: ['GHSA-8q59-q68h-6hv4', 'CVE-2020-14343', 'PYSEC-2021-142'],
        summary: 'Improper Input Validation in PyYAML',
        path: ['services/worker/requirements.txt', 'PyYAML@5.3.1'],
      }),
      finding({
        severity: 'medium',
        cve: 'GHSA-j8r2-6x86-q33q',
        package: 'requests',
        installedVersion: '2.28.1',
        fixedVersion: '2.31.0',
        aliases: ['GHSA-j8r2-6x86-q33q', 'CVE-2023-32681', 'PYSEC-2023-74'],
        summary: 'Unintended leak of Proxy-Authorization header in requests',
        path: ['services/worker/requirements.txt', 'requests@2.28.1'],
      }),
    ],
    lockfiles: ['services/worker/requirements.txt'],
    // The producer keys entries by the name as the lockfile spells it; the finding says "PyYAML".
    locations: {
      'pyyaml@5.3.1': { file: 'services/worker/requirements.txt', line: 7 },
      'requests@2.28.1': { file: 'services/worker/requirements.txt', line: 9 },
    },
  };
}

export function reportInput(over: Partial<ReportInput> = {}): ReportInput {
  return {
    tool: { name: 'scanner', version: '1.4.0' },
    server: 'https://scanner.acme.example',
    view: 'introduced',
    failOn: 'high',
    gate: 'all',
    failOnKev: false,
    gateFailed: true,
    results: [v2Result(), v1Result()],
    ...over,
  };
}

/**
 * A finding as the comparison serves it (CompareFinding, src/shared/compare.ts): the light shape, no attributions,
 * the introducing modules (sorted) and their teams, read from the scan's attributions and modules as the service
 * reads them.
 */
export function asCompareFinding(
  result: ScanResult,
  f: ApiFinding,
  over: Partial<NonNullable<ScanResult['compare']>['findings']['added'][number]> = {},
): NonNullable<ScanResult['compare']>['findings']['added'][number] {
  const teamOf = new Map(result.scan.modules.map((m) => [m.path, m.teamName ?? null]));
  const modules = [...new Set(f.attributions.flatMap((a) => a.origins.map((o) => o.module)))].sort();
  return {
    ...f,
    attributions: [],
    aliases: f.aliases,
    cvss: null,
    alertId: null,
    firstSeenAt: null,
    attributionCount: f.attributions.length,
    modules,
    teams: [...new Set(modules.map((m) => teamOf.get(m)).filter((t): t is string => !!t))].sort(),
    ...over,
  };
}

/**
 * The comparison (CompareResult) of a result with a baseline: each class's findings as given, counts made from the
 * unsuppressed ones, parts sized by the lists. With `baseline: null` (and no reason given) the project had no
 * tracked scan.
 */
export function compareResultOf(
  result: ScanResult,
  over: {
    baseline?: NonNullable<ScanResult['compare']>['baseline'];
    baselineMissing?: NonNullable<ScanResult['compare']>['baselineMissing'];
    findings?: Partial<NonNullable<ScanResult['compare']>['findings']>;
    suppressionsAdded?: NonNullable<ScanResult['compare']>['suppressionsAdded'];
    dependencies?: Partial<NonNullable<ScanResult['compare']>['dependencies']>;
  } = {},
): NonNullable<ScanResult['compare']> {
  const baseline =
    over.baseline === undefined
      ? { id: 'scn_01jd4base', ref: 'refs/heads/main', commit: 'b'.repeat(40), startedAt: '2026-11-22T09:00:00.000Z' }
      : over.baseline;
  const findings = { added: [], unchanged: [], disclosed: [], removed: [], ...over.findings };
  const dependencies = { added: [], removed: [], changed: [], ...over.dependencies };
  const counts = Object.fromEntries(
    (['added', 'unchanged', 'disclosed', 'removed'] as const).map((cls) => {
      const c = { critical: 0, high: 0, medium: 0, low: 0 };
      for (const f of findings[cls]) if (!f.suppressed) c[f.severity]++;
      return [cls, c];
    }),
  ) as NonNullable<ScanResult['compare']>['counts'];
  const part = (n: number) => ({ count: n, nextCursor: null });
  return {
    scanId: result.scan.id,
    baseline,
    baselineMissing: over.baselineMissing !== undefined ? over.baselineMissing : baseline ? null : 'no_tracked_scan',
    counts,
    findings,
    suppressionsAdded: over.suppressionsAdded ?? [],
    dependencies,
    parts: {
      'findings.added': part(findings.added.length),
      'findings.unchanged': part(findings.unchanged.length),
      'findings.disclosed': part(findings.disclosed.length),
      'findings.removed': part(findings.removed.length),
      'dependencies.added': part(dependencies.added.length),
      'dependencies.removed': part(dependencies.removed.length),
      'dependencies.changed': part(dependencies.changed.length),
    },
  };
}

/** v2Result compared with a baseline: its first finding added, its second disclosed since, the others unchanged. */
export function comparedV2Result(): ScanResult {
  const r = v2Result();
  const [first, second, ...rest] = r.findings;
  r.compare = compareResultOf(r, {
    findings: {
      added: [asCompareFinding(r, first)],
      disclosed: [asCompareFinding(r, second)],
      unchanged: rest.map((f) => asCompareFinding(r, f)),
    },
  });
  return r;
}
