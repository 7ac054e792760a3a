// Data for the browser tests: a small gradle monorepo (v2) whose user-controlled text (project, module paths, team
// names, attributes, suppression reasons, and advisory text) carries script payloads, and the advisories it matches.
import { v2Snapshot } from '../helpers/v2';

/** Each payload sets window.__xss if it ever runs. */
export const XSS = {
  img: '<img src=x onerror="window.__xss=1">',
  script: '"><script>window.__xss=2</script>',
  svg: '<svg onload="window.__xss=3"></svg>',
};

export const TEAM_PAY = `payments ${XSS.img}`;
export const TEAM_PLATFORM = 'platform';
export const MOD_APP = ':app';
export const MOD_LIB = ':lib';
export const MOD_WEB = `:web${XSS.img}`;

export const ALPHA = 'org.demo:alpha@1.0.0';
export const BETA = 'org.demo:beta@2.0.0';
export const GAMMA = 'org.demo:gamma@1.0.0';
export const DELTA = 'org.demo:delta@1.0.0';

export const ADV = {
  alpha: { id: 'GHSA-demo-0001-aaaa', cve: 'CVE-2099-0001' },
  beta: { id: 'GHSA-demo-0002-bbbb', cve: 'CVE-2099-0002' },
  delta: { id: 'GHSA-demo-0003-cccc', cve: 'CVE-2099-0003' },
};

const CRITICAL = 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H';
const MEDIUM = 'CVSS:3.1/AV:N/AC:L/PR:N/UI:R/S:U/C:L/I:L/A:N'; // 5.4

/** An OSV advisory of one Maven package, affected below `fixed` (9.0.0 unless given). */
export function mavenAdvisory(a: {
  id: string;
  name: string;
  cvss: string;
  aliases?: string[];
  summary?: string;
  details?: string;
  fixed?: string;
}) {
  return {
    id: a.id,
    aliases: a.aliases ?? [],
    modified: '2024-01-01T00:00:00Z',
    published: '2024-01-01T00:00:00Z',
    summary: a.summary ?? `${a.name} flaw ${a.id}`,
    ...(a.details ? { details: a.details } : {}),
    severity: [{ type: 'CVSS_V3', score: a.cvss }],
    affected: [
      {
        package: { ecosystem: 'Maven', name: a.name },
        ranges: [{ type: 'ECOSYSTEM', events: [{ introduced: '0' }, { fixed: a.fixed ?? '9.0.0' }] }],
      },
    ],
  };
}

const osv = (id: string, cve: string, name: string, summary: string, cvss: string) =>
  mavenAdvisory({ id, name, cvss, aliases: [cve], summary, details: `${summary} ${XSS.script}` });

export function demoAdvisories() {
  return [
    osv(ADV.alpha.id, ADV.alpha.cve, 'org.demo:alpha', `Alpha deserialization ${XSS.img}`, CRITICAL),
    osv(ADV.beta.id, ADV.beta.cve, 'org.demo:beta', `Beta path traversal ${XSS.svg}`, MEDIUM),
    osv(ADV.delta.id, ADV.delta.cve, 'org.demo:delta', 'Delta denial of service', MEDIUM),
  ];
}

/**
 * :app (team payments…) depends on :lib (team platform) and declares gamma (→ beta); :lib declares alpha; :web<img…>
 * (no team) declares delta, whose finding is suppressed with a reason carrying a payload.
 */
export function demoSnapshot(project: string) {
  return v2Snapshot(
    [
      {
        module: MOD_APP,
        context: 'runtimeClasspath',
        vertices: [
          ['a', MOD_APP, 'l', 'g'],
          ['l', MOD_LIB, 'al'],
          ['al', ALPHA],
          ['g', GAMMA, 'b'],
          ['b', BETA],
        ],
      },
      {
        module: MOD_LIB,
        context: 'runtimeClasspath',
        vertices: [
          ['l', MOD_LIB, 'al'],
          ['al', ALPHA],
        ],
      },
      {
        module: MOD_WEB,
        context: 'runtimeClasspath',
        vertices: [
          ['w', MOD_WEB, 'd'],
          ['d', DELTA],
        ],
      },
    ],
    [
      { path: MOD_APP, dependencies: [MOD_LIB], teamName: TEAM_PAY, attributes: { owner: XSS.img, note: XSS.script } },
      { path: MOD_LIB, dependencies: [], teamName: TEAM_PLATFORM },
      { path: MOD_WEB, dependencies: [], attributes: { [`k${XSS.svg}`]: XSS.img } },
    ],
    {
      project,
      manifests: ['build.gradle'],
      suppressions: [{ cve: ADV.delta.cve, reason: `accepted risk ${XSS.script} ${XSS.img}` }],
    },
  );
}
