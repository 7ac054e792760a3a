// --format sarif: valid SARIF 2.1.0 (the draft-07 schema and the normative draft-04 errata01 file) and GitHub code
// scanning's documented constraints, asserted one by one: one run, rules for every ruleId, security-severity bands,
// tags, locations on the lockfile, stable fingerprints, and the per-run limits with the most severe kept.
import fs from 'node:fs';
import path from 'node:path';
import Ajv, { type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import {
  GITHUB_LIMITS,
  SECURITY_SEVERITY,
  fingerprint,
  formatSarif,
  sarifLog,
  toUri,
} from '../../../../src/client/report/sarif';
import type { ReportInput, ScanResult } from '../../../../src/client/report/types';
import type { Severity } from '../../../../src/shared/types';
import { itWithSharedData, sharedDataPath } from '../../../helpers/shared-data';
import { finding, reportInput, scan, v1Result, v2Result } from './fixtures';

/** The official SARIF schemas, in the third-party data (src/infra/shared-data.ts): the tests that validate need it. */
const SCHEMAS = sharedDataPath('schemas');
type Sarif = ReturnType<typeof sarifLog>;
type Result = Sarif['runs'][number]['results'][number];

/** unicodeRegExp off: the schema's `language` pattern has a stray "]", legal in a plain ECMA-262 regex (what JSON
 *  Schema specifies) but a syntax error under the u flag Ajv uses by default. */
function compile(schema: object): ValidateFunction {
  const ajv = new Ajv({ strict: false, allErrors: true, unicodeRegExp: false });
  addFormats(ajv);
  return ajv.compile(schema);
}
let draft07Compiled: ValidateFunction | undefined;
/** Compiled at first use, never at import: without the third-party data the tests that use it are skipped. */
const draft07 = () =>
  (draft07Compiled ??= compile(
    JSON.parse(fs.readFileSync(path.join(SCHEMAS, 'sarif-schema-2.1.0.draft-07.json'), 'utf8')),
  ));

/**
 * The normative errata01 schema is draft-04, which Ajv 8 does not read (that needs ajv-draft-04, not installed).
 * Draft-04 and draft-07 differ, for what this schema uses, only in `id` (→ `$id`) and boolean exclusiveMinimum /
 * exclusiveMaximum; the walk below proves the schema has neither anywhere but its root `id`, so renaming that one
 * key and the `$schema` validates by exactly the draft-04 rules.
 */
function draft04Validator(): ValidateFunction {
  const schema = JSON.parse(fs.readFileSync(path.join(SCHEMAS, 'sarif-schema-2.1.0.json'), 'utf8'));
  expect(schema.$schema).toBe('http://json-schema.org/draft-04/schema#');
  const offending: string[] = [];
  const walk = (node: unknown, at: string) => {
    if (Array.isArray(node)) node.forEach((n, i) => walk(n, `${at}/${i}`));
    else if (node && typeof node === 'object') {
      for (const [k, v] of Object.entries(node)) {
        if ((k === 'exclusiveMinimum' || k === 'exclusiveMaximum') && at !== '') offending.push(`${at}/${k}`);
        if (k === 'id' && typeof v === 'string' && at !== '') offending.push(`${at}/id`);
        walk(v, `${at}/${k}`);
      }
    }
  };
  walk(schema, '');
  expect(offending).toEqual([]);
  const { id, $schema: _draft04, ...rest } = schema;
  return compile({ $schema: 'http://json-schema.org/draft-07/schema#', $id: id, ...rest });
}

const errors = (validate: ValidateFunction, doc: unknown) => (validate(doc) ? [] : validate.errors);
const run = (log: Sarif) => log.runs[0];
const rulesById = (log: Sarif) => new Map(run(log).tool.driver.rules.map((r) => [r.id, r]));
const resultFor = (log: Sarif, pkg: string) => run(log).results.find((r) => r.properties.package === pkg)!;
const fingerprints = (log: Sarif) => run(log).results.map((r) => r.partialFingerprints.primaryLocationLineHash);

/** GitHub: > 9.0 critical, 7.0–8.9 high, 4.0–6.9 medium, 0.1–3.9 low. */
const BAND: Record<Severity, [number, number]> = {
  critical: [9.01, 10],
  high: [7.0, 8.9],
  medium: [4.0, 6.9],
  low: [0.1, 3.9],
};

itWithSharedData(
  'valid against the official SARIF 2.1.0 schema: the draft-07 file and the normative draft-04 errata01 file',
  () => {
    const log = JSON.parse(formatSarif(reportInput()));
    expect(errors(draft07(), log)).toEqual([]);
    const draft04 = draft04Validator();
    expect(errors(draft04, log)).toEqual([]);
    // The validators do reject: a result without its message, a region starting at line 0.
    const broken = JSON.parse(formatSarif(reportInput()));
    delete broken.runs[0].results[0].message;
    broken.runs[0].results[1].locations[0].physicalLocation.region.startLine = 0;
    expect(errors(draft07(), broken)?.length).toBeGreaterThanOrEqual(2);
    expect(errors(draft04, broken)?.length).toBeGreaterThanOrEqual(2);
  },
);

test('one run holds every scan of the invocation; tool.driver names the tool and its version', () => {
  const log = sarifLog(reportInput());
  expect(log.version).toBe('2.1.0');
  expect(log.runs).toHaveLength(1);
  expect(new Set(run(log).results.map((r) => r.properties.ecosystem))).toEqual(new Set(['javascript', 'python']));
  expect(run(log).results).toHaveLength(8);
  expect(run(log).tool.driver).toMatchObject({ name: 'scanner', version: '1.4.0', semanticVersion: '1.4.0' });
  expect(sarifLog(reportInput({ tool: { name: 'scanner', version: 'dev' } })).runs[0].tool.driver).not.toHaveProperty(
    'semanticVersion',
  );
  expect(run(log).properties.gate).toEqual({ failOn: 'high', failed: true, findingsAtOrAbove: 4 });
});

test('a rule per advisory: every ruleId resolves, security-severity is a numeric string in its GitHub band, tags, help', () => {
  const log = sarifLog(reportInput());
  const rules = run(log).tool.driver.rules;
  expect(new Set(rules.map((r) => r.id)).size).toBe(rules.length);
  expect(rules).toHaveLength(8);
  for (const result of run(log).results) {
    const rule = rules[result.ruleIndex];
    expect(rule.id).toBe(result.ruleId);
    const score = rule.properties['security-severity'];
    expect(score).toMatch(/^\d+(\.\d+)?$/);
    const [lo, hi] = BAND[result.properties.severity];
    expect(Number(score)).toBeGreaterThanOrEqual(lo);
    expect(Number(score)).toBeLessThanOrEqual(hi);
    expect(result.level).toBe(
      { critical: 'error', high: 'error', medium: 'warning', low: 'note' }[result.properties.severity],
    );
  }
  for (const rule of rules) {
    expect(rule.properties.tags).toEqual(expect.arrayContaining(['security', 'vulnerability']));
    expect(rule.properties.tags.length).toBeLessThanOrEqual(10);
    expect(rule.help.text.length).toBeGreaterThan(0);
    expect(rule.name.length).toBeLessThanOrEqual(255);
    expect(rule.shortDescription.text.length).toBeGreaterThan(0);
    expect(rule.shortDescription.text.length).toBeLessThanOrEqual(1024);
    expect(rule.fullDescription.text.length).toBeLessThanOrEqual(1024);
  }
  const minimist = rulesById(log).get('GHSA-xvch-5gv4-984h')!;
  expect(minimist.properties.tags).toContain('javascript');
  expect(minimist.helpUri).toBe('https://osv.dev/vulnerability/GHSA-xvch-5gv4-984h');
  expect(minimist.help.markdown).toContain('| `minimist` | `1.2.5` | `1.2.6` |');
  expect(rulesById(log).get('GHSA-8q59-q68h-6hv4')!.properties.tags).toContain('python');
  expect(Object.values(SECURITY_SEVERITY).map(Number)).toEqual([9.5, 8.0, 5.5, 2.0]);
});

test('results: message names package, installed and fixed version and path; location on the lockfile with its line', () => {
  const log = sarifLog(reportInput());
  const minimist = resultFor(log, 'minimist');
  expect(minimist.message.text).toContain('minimist 1.2.5');
  expect(minimist.message.text).toContain('GHSA-xvch-5gv4-984h (CVE-2021-44906)');
  expect(minimist.message.text).toContain('Fixed in 1.2.6');
  expect(minimist.message.text).toContain('packages/web › mkdirp@0.5.5 › minimist@1.2.5');
  expect(minimist.message.text).toContain('Introduced by: packages/web (@acme/web)');
  expect(resultFor(log, 'request').message.text).toContain('No fixed release yet');
  expect(minimist.locations).toEqual([
    {
      physicalLocation: {
        artifactLocation: { uri: 'package-lock.json', uriBaseId: '%SRCROOT%' },
        region: { startLine: 812 },
      },
    },
  ]);
  // Line unknown: the lockfile still, without a region.
  expect(resultFor(log, 'request').locations![0].physicalLocation).toEqual({
    artifactLocation: { uri: 'package-lock.json', uriBaseId: '%SRCROOT%' },
  });
  // "PyYAML" finds the producer's "pyyaml" entry.
  expect(resultFor(log, 'PyYAML').locations![0].physicalLocation).toEqual({
    artifactLocation: { uri: 'services/worker/requirements.txt', uriBaseId: '%SRCROOT%' },
    region: { startLine: 7 },
  });
  expect(run(log).originalUriBaseIds).toHaveProperty(['%SRCROOT%']);
  for (const r of run(log).results) {
    expect(r.locations!.length).toBeGreaterThanOrEqual(1);
    expect(r.locations!.length).toBeLessThanOrEqual(10);
    const { artifactLocation, region } = r.locations![0].physicalLocation as {
      artifactLocation: { uri: string };
      region?: { startLine: number };
    };
    expect(artifactLocation.uri).not.toMatch(/^\/|^[a-z][a-z0-9+.-]*:|(^|\/)\.\.(\/|$)/i);
    if (region) expect(Number.isInteger(region.startLine) && region.startLine >= 1).toBe(true);
  }
});

test('partialFingerprints: present, unique, stable across runs; they change with the package, version or lockfile', () => {
  const a = sarifLog(reportInput());
  expect(fingerprints(a).every((f) => /^[0-9a-f]{64}$/.test(f))).toBe(true);
  expect(new Set(fingerprints(a)).size).toBe(fingerprints(a).length);
  expect(fingerprints(sarifLog(reportInput()))).toEqual(fingerprints(a));

  // A re-scan: new scan and finding ids, other times, lockfile lines moved. Same alerts.
  const rescan = reportInput();
  for (const r of rescan.results) {
    r.scan = { ...r.scan, id: `${r.scan.id}_2`, startedAt: '2026-12-01T00:00:00Z' };
    r.findings = r.findings.map((f) => ({ ...f, id: `${f.id}_2`, scanId: r.scan.id }));
    for (const loc of Object.values(r.locations)) if (loc.line) loc.line += 40;
  }
  expect(fingerprints(sarifLog(rescan))).toEqual(fingerprints(a));

  const upgraded = reportInput();
  upgraded.results[0].findings[0] = { ...upgraded.results[0].findings[0], installedVersion: '1.2.6' };
  expect(fingerprints(sarifLog(upgraded))[0]).not.toBe(fingerprints(a)[0]);
  expect(fingerprints(sarifLog(upgraded)).slice(1)).toEqual(fingerprints(a).slice(1));
  expect(fingerprint('GHSA-1', 'javascript', 'a', '1.0.0', 'package-lock.json')).not.toBe(
    fingerprint('GHSA-1', 'javascript', 'b', '1.0.0', 'package-lock.json'),
  );
  expect(fingerprint('GHSA-1', 'javascript', 'a', '1.0.0', 'package-lock.json')).not.toBe(
    fingerprint('GHSA-1', 'javascript', 'a', '1.0.0', 'web/package-lock.json'),
  );
});

/** n findings of one ecosystem: `critical` critical ones, then high, the rest low; one advisory each. */
function bulk(n: number, critical: number, high: number): ScanResult {
  const severity = (i: number): Severity => (i < critical ? 'critical' : i < critical + high ? 'high' : 'low');
  // Low first, as if the API order were unfavourable: selection must not depend on it.
  const findings = Array.from({ length: n }, (_, i) =>
    finding({
      severity: severity(n - 1 - i),
      cve: `GHSA-bulk-${n - 1 - i}`,
      package: `pkg-${n - 1 - i}`,
      installedVersion: '1.0.0',
      fixedVersion: '1.0.1',
    }),
  );
  const counts = { critical, high, medium: 0, low: n - critical - high };
  return {
    project: 'big',
    ecosystem: 'javascript',
    scan: scan({ id: 'scn_big' }, counts),
    findings,
    lockfiles: ['package-lock.json'],
    locations: {},
  };
}

test('over 25,000 results: the most severe 25,000 are kept, and the run says how many were left out', () => {
  const input = reportInput({ results: [bulk(GITHUB_LIMITS.results + 3, 10, 100)] });
  const log = sarifLog(input);
  const results = run(log).results;
  expect(results).toHaveLength(25_000);
  expect(results.filter((r) => r.properties.severity === 'critical')).toHaveLength(10);
  expect(results.filter((r) => r.properties.severity === 'high')).toHaveLength(100);
  expect(results.slice(0, 10).every((r) => r.properties.severity === 'critical')).toBe(true);
  expect(run(log).tool.driver.rules.length).toBeLessThanOrEqual(25_000);
  expect(run(log).properties.completeness).toMatchObject({ findings: 25_003, results: 25_000, leftOut: 3 });
  const notes = run(log).invocations[0].toolExecutionNotifications!;
  expect(notes[0]).toMatchObject({
    level: 'warning',
    message: { text: expect.stringMatching(/^3 of 25003 findings left out \(3 low\)/) },
  });
  expect(notes[1].message.text).toMatch(/shows the 5000 most severe/);
}, 60_000);

itWithSharedData('the rule limit keeps the most severe advisories too; the output stays schema-valid', () => {
  const input = reportInput();
  const log = sarifLog(input, { results: 100, rules: 3, tagsPerRule: 10 });
  expect(run(log).tool.driver.rules.map((r) => r.id)).toEqual([
    'GHSA-xvch-5gv4-984h',
    'GHSA-8q59-q68h-6hv4',
    'GHSA-3xgq-45jj-v275',
  ]);
  expect(run(log).results.map((r) => r.properties.package)).toEqual(['minimist', 'PyYAML', 'cross-spawn']);
  expect(run(log).properties.completeness.leftOut).toBe(5);
  expect(run(log).invocations[0].toolExecutionNotifications![0].message.text).toMatch(
    /5 of 8 findings left out \(1 high, 3 medium, 1 low\)/,
  );
  expect(errors(draft07(), JSON.parse(JSON.stringify(log)))).toEqual([]);
});

test('tags stay within the 10 GitHub shows, however many ecosystems share an advisory', () => {
  const results: ScanResult[] = Array.from({ length: 12 }, (_, i) => ({
    ...v1Result(),
    ecosystem: `eco${String(i).padStart(2, '0')}`,
  }));
  const log = sarifLog(reportInput({ results }));
  for (const rule of run(log).tool.driver.rules) {
    expect(rule.properties.tags).toHaveLength(10);
    expect(rule.properties.tags.slice(0, 2)).toEqual(['security', 'vulnerability']);
  }
});

itWithSharedData('no findings: one empty run (so GitHub closes fixed alerts), still schema-valid', () => {
  const empty = v2Result();
  empty.findings = [];
  empty.scan = { ...empty.scan, findings: { critical: 0, high: 0, medium: 0, low: 0 } };
  const log = JSON.parse(formatSarif(reportInput({ results: [empty], gateFailed: false })));
  expect(log.runs).toHaveLength(1);
  expect(log.runs[0].results).toEqual([]);
  expect(log.runs[0].tool.driver.rules).toEqual([]);
  expect(errors(draft07(), log)).toEqual([]);
});

test('uris: relative to the git root, percent-encoded; message brackets escaped as SARIF requires', () => {
  expect(toUri('./web/package-lock.json')).toBe('web/package-lock.json');
  expect(toUri('my app/@scope/requirements.txt')).toBe('my%20app/%40scope/requirements.txt');
  const odd = v2Result();
  odd.findings = [
    finding({
      severity: 'high',
      cve: 'GHSA-odd',
      package: 'a[b]',
      installedVersion: '1.0.0',
      path: ['.', 'a[b]@1.0.0'],
    }),
  ];
  const text = resultFor(sarifLog(reportInput({ results: [odd] })), 'a[b]').message.text;
  expect(text).toContain('a\\[b\\] 1.0.0');
});

test('formatSarif prints the log pretty, with a trailing newline, the same for the same input', () => {
  const input: ReportInput = reportInput();
  const text = formatSarif(input);
  expect(text.endsWith('}\n')).toBe(true);
  expect(text).toContain('\n  "version": "2.1.0"');
  expect(formatSarif(reportInput())).toBe(text);
});
