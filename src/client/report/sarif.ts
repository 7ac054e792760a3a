// `--format sarif`: SARIF 2.1.0 for GitHub code scanning, valid against the OASIS schema and within
// GitHub's documented limits ("SARIF support for code scanning", "SARIF results exceed one or more limits"):
// - one run (a file may hold 20; one keeps the tool's alerts in one analysis), every ScanResult in it;
// - ≤ 25,000 results and ≤ 25,000 rules per run (more is rejected; GitHub shows the top 5,000 results by severity).
//   Over a limit the most severe results are kept and the run says what was left out (notifications, properties);
// - one location per result (≤ 10 used, ≤ 1,000 accepted), ≤ 10 tags per rule (20 accepted, 10 shown), rule name ≤
//   255 and short/full descriptions ≤ 1,024 characters; help.text, non-empty, on every rule;
// - properties["security-severity"]: GitHub reads > 9.0 as critical, 7.0–8.9 high, 4.0–6.9 medium, 0.1–3.9 low.
//   The API gives a severity, not a score, so each severity gets one fixed score well inside its band;
// - partialFingerprints.primaryLocationLineHash (the only key GitHub reads) from what identifies the finding across
//   runs: advisory, ecosystem, package, version, lockfile. Never the line (lockfile edits move entries), the finding
//   id (it hashes the scan id) or the time, so an alert survives re-scans and closes when the package is upgraded.
// - a result's properties carry the finding's CISA KEV entry (`kev`) and EPSS score (`epss`) when the service gives
//   them (a property bag: GitHub keeps ranking by security-severity, which KEV and EPSS leave unchanged).
// Locations: the package's entry in its lockfile, the uri relative to the git root under %SRCROOT% (the base
// GitHub resolves against the checkout), region.startLine when the producer knows the entry's line.
import { nodeCrypto } from '../builtins';
import { posix } from 'node:path';
import { SEVERITIES, type Severity } from '../../shared/types';
import type { ApiFinding } from '../api/types';
import {
  changesOf,
  countAtOrAbove,
  epssOf,
  gatedKevCount,
  kevOf,
  locator,
  moduleLabel,
  modulesOf,
  notableAliases,
  severityIndex,
  shortPath,
  truncate,
} from './common';
import type { ReportInput, ScanResult } from './types';

export const SARIF_SCHEMA =
  'https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json';

export interface SarifLimits {
  results: number;
  rules: number;
  tagsPerRule: number;
}
/** GitHub's hard limits per run (results, rules), and the tags per rule it shows. */
export const GITHUB_LIMITS: SarifLimits = { results: 25_000, rules: 25_000, tagsPerRule: 10 };
/** GitHub stores and shows only this many results of a run, the most severe first. */
export const GITHUB_SHOWN_RESULTS = 5_000;
const MAX_RULE_NAME = 255;
const MAX_DESCRIPTION = 1024;
/** No documented cap on message.text; GitHub titles the alert with its first sentence, so keep it short. */
const MAX_MESSAGE = 1000;
const MAX_PACKAGES_IN_HELP = 20;

/** One score per severity, well inside GitHub's band for it: critical clear of the 9.0 edge (the docs say "over 9.0"
 *  in one place, "9.0–10.0" in another), the others near their band's middle. */
export const SECURITY_SEVERITY: Record<Severity, string> = { critical: '9.5', high: '8.0', medium: '5.5', low: '2.0' };
const LEVEL: Record<Severity, 'error' | 'warning' | 'note'> = {
  critical: 'error',
  high: 'error',
  medium: 'warning',
  low: 'note',
};
const SRCROOT = '%SRCROOT%';

/** Stable identity of a result across runs (see the header); hex SHA-256. */
export function fingerprint(
  advisory: string,
  ecosystem: string,
  pkg: string,
  version: string,
  lockfile: string,
): string {
  return nodeCrypto()
    .createHash('sha256')
    .update(['scanner-sca/1', advisory, ecosystem, pkg, version, lockfile].join('\0'))
    .digest('hex');
}

/** A '/'-separated path relative to the git root as a relative URI reference: segments percent-encoded. */
export function toUri(file: string): string {
  const p = posix.normalize(file.replace(/\\/g, '/')).replace(/^(\.\/)+/, '');
  const encoded = p
    .split('/')
    .map((s) => (s === '..' || s === '.' ? s : encodeURIComponent(s)))
    .join('/');
  return p.startsWith('/') ? `file://${encoded}` : encoded;
}

/** Plain-text SARIF messages read "[text](n)" as embedded links; literal brackets are escaped (SARIF §3.11.6). */
const escapeMessage = (text: string) => text.replace(/[[\]\\]/g, '\\$&');
/** A Markdown table cell in code style: no backtick or pipe may end it early. */
const code = (s: string) => '`' + s.replace(/`/g, "'").replace(/\|/g, '\\|') + '`';

interface Entry {
  result: ScanResult;
  finding: ApiFinding;
}

/** Most severe first, API order within a severity; then what fits: results up to the limit, rules up to theirs. */
function select(input: ReportInput, limits: SarifLimits): { kept: Entry[]; dropped: Entry[] } {
  const all = input.results.flatMap((result) => result.findings.map((finding) => ({ result, finding })));
  all.sort((a, b) => severityIndex(a.finding.severity) - severityIndex(b.finding.severity));
  const rules = new Set<string>();
  const kept: Entry[] = [];
  const dropped: Entry[] = [];
  for (const e of all) {
    const fits = kept.length < limits.results && (rules.has(e.finding.cve) || rules.size < limits.rules);
    if (!fits) {
      dropped.push(e);
      continue;
    }
    rules.add(e.finding.cve);
    kept.push(e);
  }
  return { kept, dropped };
}

function rule(id: string, entries: Entry[], limits: SarifLimits) {
  const severity = SEVERITIES.find((s) => entries.some((e) => e.finding.severity === s)) ?? 'low';
  const summary = entries.map((e) => e.finding.summary.trim()).find((s) => s.length > 0) ?? '';
  const aliases = [...new Set(entries.flatMap((e) => e.finding.aliases ?? []))].filter((a) => a !== id);
  const ecosystems = [...new Set(entries.map((e) => e.result.ecosystem))].sort();
  const helpUri = `https://osv.dev/vulnerability/${encodeURIComponent(id)}`;
  const packages = [
    ...new Map(
      entries.map((e) => [`${e.result.ecosystem}\0${e.finding.package}\0${e.finding.installedVersion}`, e.finding]),
    ).values(),
  ];
  const listed = packages.slice(0, MAX_PACKAGES_IN_HELP);
  const more = packages.length - listed.length;
  const fix = (f: ApiFinding) => (f.fixedVersion ? `fixed in ${f.fixedVersion}` : 'no fixed release yet');
  const text = [
    `${id}${summary ? `: ${summary}` : ''}`,
    aliases.length > 0 ? `Also known as: ${aliases.join(', ')}.` : '',
    `Severity: ${severity}.`,
    'Affected packages:',
    ...listed.map((f) => `- ${f.package} ${f.installedVersion}: ${fix(f)}`),
    more > 0 ? `- and ${more} more` : '',
    'Upgrade each package to its fixed version or later (or the dependency that pulls it in); where there is no fix, remove or replace the package, or suppress the advisory with a reason.',
    `Advisory: ${helpUri}`,
  ].filter((l) => l !== '');
  const markdown = [
    `**${id}**${summary ? `: ${summary}` : ''}`,
    aliases.length > 0 ? `Also known as: ${aliases.join(', ')}.` : '',
    `Severity: **${severity}**.`,
    '| Package | Installed | Fixed |\n| --- | --- | --- |\n' +
      listed
        .map(
          (f) =>
            `| ${code(f.package)} | ${code(f.installedVersion)} | ${f.fixedVersion ? code(f.fixedVersion) : 'no fix'} |`,
        )
        .join('\n') +
      (more > 0 ? `\n\nand ${more} more.` : ''),
    'Upgrade each package to its fixed version or later (or the dependency that pulls it in); where there is no fix, remove or replace the package, or suppress the advisory with a reason.',
    `See [${id}](${helpUri}).`,
  ].filter((l) => l !== '');
  return {
    id,
    name: truncate(id, MAX_RULE_NAME),
    shortDescription: { text: truncate(summary ? `${id}: ${summary}` : `${id} in a dependency`, MAX_DESCRIPTION) },
    fullDescription: {
      text: truncate(
        summary
          ? `${summary}${aliases.length > 0 ? ` (${[id, ...aliases].join(', ')})` : ''}`
          : `Dependency vulnerability ${id}.`,
        MAX_DESCRIPTION,
      ),
    },
    helpUri,
    help: { text: text.join('\n'), markdown: markdown.join('\n\n') },
    defaultConfiguration: { level: LEVEL[severity] },
    properties: {
      'security-severity': SECURITY_SEVERITY[severity],
      tags: ['security', 'vulnerability', 'dependency', ...ecosystems].slice(0, limits.tagsPerRule),
      ...(aliases.length > 0 ? { aliases } : {}),
    },
  };
}

function message(entry: Entry, view: ReportInput['view']): string {
  const f = entry.finding;
  const aliases = notableAliases(f);
  const modules = modulesOf(entry.result, f, view);
  const parts = [
    `${f.package} ${f.installedVersion} is vulnerable to ${f.cve}${aliases.length > 0 ? ` (${aliases.join(', ')})` : ''}, ${f.severity}.`,
    f.fixedVersion ? `Fixed in ${f.fixedVersion}.` : 'No fixed release yet.',
    f.path.length > 0 ? `Path: ${shortPath(f.path, 300)}.` : '',
    modules.length > 0
      ? `${view === 'introduced' ? 'Introduced by' : 'Affects'}: ${modules.slice(0, 5).map(moduleLabel).join(', ')}${modules.length > 5 ? ` and ${modules.length - 5} more` : ''}.`
      : '',
  ];
  return escapeMessage(truncate(parts.filter((p) => p !== '').join(' '), MAX_MESSAGE));
}

export function sarifLog(input: ReportInput, limits: SarifLimits = GITHUB_LIMITS) {
  const { kept, dropped } = select(input, limits);
  const byRule = new Map<string, Entry[]>();
  for (const e of kept) {
    const list = byRule.get(e.finding.cve);
    if (list) list.push(e);
    else byRule.set(e.finding.cve, [e]);
  }
  const ruleIds = [...byRule.keys()];
  const ruleIndex = new Map(ruleIds.map((id, i) => [id, i]));
  const locators = new Map(input.results.map((r) => [r, locator(r)]));

  const results = kept.map((e) => {
    const f = e.finding;
    const change = changesOf(e.result).get(f.id);
    const loc = locators.get(e.result)!(f) ?? (e.result.lockfiles.length > 0 ? { file: e.result.lockfiles[0] } : null);
    const uri = loc ? toUri(loc.file) : null;
    const startLine = loc?.line !== undefined && Number.isInteger(loc.line) && loc.line >= 1 ? loc.line : undefined;
    const kev = kevOf(e.result, f);
    const epss = epssOf(f);
    return {
      ruleId: f.cve,
      ruleIndex: ruleIndex.get(f.cve)!,
      level: LEVEL[f.severity],
      message: { text: message(e, input.view) },
      ...(uri !== null
        ? {
            locations: [
              {
                physicalLocation: {
                  artifactLocation: { uri, uriBaseId: SRCROOT },
                  ...(startLine ? { region: { startLine } } : {}),
                },
              },
            ],
          }
        : {}),
      // Against the run's baseline (GET /v1/scans/{id}/compare): SARIF's own baselineState, and which kind of new.
      ...(change ? { baselineState: change === 'unchanged' ? 'unchanged' : 'new' } : {}),
      partialFingerprints: {
        primaryLocationLineHash: fingerprint(f.cve, e.result.ecosystem, f.package, f.installedVersion, uri ?? ''),
      },
      properties: {
        project: e.result.project,
        ecosystem: e.result.ecosystem,
        scanId: e.result.scan.id,
        severity: f.severity,
        package: f.package,
        installedVersion: f.installedVersion,
        fixedVersion: f.fixedVersion,
        ...(change ? { change } : {}),
        ...(kev ? { kev } : {}),
        ...(epss ? { epss } : {}),
      },
    };
  });

  const notifications: Array<{ level: 'warning' | 'note'; message: { text: string } }> = [];
  if (dropped.length > 0) {
    const bySeverity = SEVERITIES.map(
      (s) => [s, dropped.filter((e) => e.finding.severity === s).length] as const,
    ).filter(([, n]) => n > 0);
    notifications.push({
      level: 'warning',
      message: {
        text: `${dropped.length} of ${kept.length + dropped.length} findings left out (${bySeverity.map(([s, n]) => `${n} ${s}`).join(', ')}): GitHub code scanning accepts at most ${limits.results} results and ${limits.rules} rules per run; the most severe were kept. The table or json format lists every finding.`,
      },
    });
  }
  if (kept.length > GITHUB_SHOWN_RESULTS) {
    notifications.push({
      level: 'note',
      message: {
        text: `${kept.length} results: GitHub code scanning shows the ${GITHUB_SHOWN_RESULTS} most severe of a run.`,
      },
    });
  }

  const version = input.tool.version;
  return {
    $schema: SARIF_SCHEMA,
    version: '2.1.0' as const,
    runs: [
      {
        tool: {
          driver: {
            name: 'scanner',
            version,
            ...(/^\d+\.\d+\.\d+(?:-[0-9A-Za-z.-]+)?(?:\+[0-9A-Za-z.-]+)?$/.test(version)
              ? { semanticVersion: version }
              : {}),
            rules: ruleIds.map((id) => rule(id, byRule.get(id)!, limits)),
          },
        },
        invocations: [
          {
            executionSuccessful: true,
            ...(notifications.length > 0 ? { toolExecutionNotifications: notifications } : {}),
          },
        ],
        originalUriBaseIds: {
          [SRCROOT]: {
            description: {
              text: 'The root of the git repository the lockfiles belong to (the project root outside git).',
            },
          },
        },
        results,
        properties: {
          server: input.server,
          view: input.view,
          gate: {
            failOn: input.failOn,
            failed: input.gateFailed,
            findingsAtOrAbove: countAtOrAbove(input.results, input.failOn),
            ...(input.failOnKev ? { failOnKev: true, kevFindings: gatedKevCount(input) } : {}),
          },
          scans: input.results.map((r) => ({
            project: r.project,
            ecosystem: r.ecosystem,
            scanId: r.scan.id,
            status: r.scan.status,
            findings: r.scan.findings,
            suppressed: r.scan.suppressed,
          })),
          completeness: {
            findings: kept.length + dropped.length,
            results: kept.length,
            leftOut: dropped.length,
            limits: { results: limits.results, rules: limits.rules },
          },
        },
      },
    ],
  };
}

export const formatSarif = (input: ReportInput): string => JSON.stringify(sarifLog(input), null, 2) + '\n';
