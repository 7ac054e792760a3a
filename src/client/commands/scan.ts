// `scanner scan`: snapshot → upload (idempotent, retried) → wait → findings → report → gate.
import fs from 'node:fs';
import path from 'node:path';
import { SEVERITIES, type Severity } from '../../shared/types';
import { COMMON_OPTIONS, USAGE, parse, metadataFlags } from '../args';
import { Http } from '../api/http';
import { closeConnections } from '../api/transport';
import { allFindings, compareScan, idempotencyKey, uploadSnapshot, waitForScan } from '../api/scans';
import { MULTIPART_BUDGETS, multipartKey, overSingleLimits, splitSnapshot, uploadMultipart } from '../api/multipart';
import type { ApiFinding, ApiScan } from '../api/types';
import type { Snapshot, SnapshotSuppression } from '../../shared/types';
import { EXIT, InputError, ServiceError } from '../errors';
import type { Io } from '../io';
import type { FailOn, Formatter, Gate, ReportInput, ScanResult, View } from '../report/types';
import { ciChangeKind } from '../ci-metadata';
import { addedAtOrAbove, addedKevCount, kevCount } from '../report/common';
import { makeSnapshots } from '../snapshot/make';
import { suppressionsThatApplied } from '../suppression-match';
import {
  expiredWarnings,
  isExpired,
  loadSuppressions,
  todayUtc,
  unmatchedWarnings,
  type SuppressionsFile,
} from '../suppressions';
import { Timings } from '../timings';
import { VERSION } from '../version';

const OPTIONS = {
  ...COMMON_OPTIONS,
  server: { type: 'string' },
  'fail-on': { type: 'string' },
  'fail-on-kev': { type: 'boolean' },
  format: { type: 'string' },
  timeout: { type: 'string' },
  view: { type: 'string' },
  rescan: { type: 'boolean' },
  gate: { type: 'string' },
  baseline: { type: 'string' },
  'baseline-missing': { type: 'string' },
} as const;

const FAIL_ON: readonly FailOn[] = [...SEVERITIES, 'none'];
const FORMATS = ['table', 'json', 'sarif', 'cyclonedx', 'markdown'] as const;
const GATES: readonly Gate[] = ['new', 'all'];
const BASELINE_MISSING = ['all', 'pass', 'fail'] as const;
type BaselineMissing = (typeof BASELINE_MISSING)[number];
const VIEWS: readonly View[] = ['introduced', 'affected'];
/** The API's polling guidance suggests an overall timeout "such as 5 minutes"; a CI job may set its own. */
const DEFAULT_TIMEOUT_S = 300;

function oneOf<T extends string>(flag: string, value: string | undefined, allowed: readonly T[], fallback: T): T {
  if (value === undefined) return fallback;
  if (!(allowed as readonly string[]).includes(value))
    throw new InputError(`--${flag} ${JSON.stringify(value)}: expected one of ${allowed.join(', ')}`);
  return value as T;
}

/** Unsuppressed findings at or above the gate, from the scan's own counts. */
export function atOrAbove(scan: ApiScan, failOn: FailOn): number {
  if (failOn === 'none' || !scan.findings) return 0;
  const rank = SEVERITIES.indexOf(failOn);
  return SEVERITIES.slice(0, rank + 1).reduce((n, s: Severity) => n + (scan.findings?.[s] ?? 0), 0);
}

/**
 * `--gate`: the flag, else SCANNER_GATE, else `new` when the CI says the build is a change under review (a pull or
 * merge request, a merge queue) and `all` otherwise.
 */
export function gateOf(flag: string | undefined, env: NodeJS.ProcessEnv): Gate {
  if (flag !== undefined) return oneOf('gate', flag, GATES, 'all');
  if (env.SCANNER_GATE) return oneOf('gate', env.SCANNER_GATE, GATES, 'all');
  return ciChangeKind(env) ? 'new' : 'all';
}

/**
 * `--fail-on-kev`: the flag, else SCANNER_FAIL_ON_KEV (1 or true; 0, false or empty for off; anything else is a usage
 * error), else off.
 */
export function failOnKevOf(flag: boolean | undefined, env: NodeJS.ProcessEnv): boolean {
  if (flag) return true;
  const v = env.SCANNER_FAIL_ON_KEV;
  if (v === undefined || v === '') return false;
  const value = v.trim().toLowerCase();
  if (value === '1' || value === 'true') return true;
  if (value === '0' || value === 'false') return false;
  throw new InputError(`SCANNER_FAIL_ON_KEV=${JSON.stringify(v)}: expected 1, true, 0 or false`);
}

async function formatterFor(
  format: Exclude<(typeof FORMATS)[number], 'cyclonedx'>,
  color: boolean,
): Promise<Formatter> {
  if (format === 'json') return (await import('../report/json')).formatJson;
  if (format === 'markdown') return (await import('../report/markdown')).formatMarkdown;
  if (format === 'sarif') return (await import('../report/sarif')).formatSarif;
  const { formatTable } = await import('../report/table');
  return (input) => formatTable(input, { color });
}

/**
 * `--format cyclonedx`: the CycloneDX SBOM of what was uploaded, the very document GET /v1/scans/{id}/sbom answers
 * for that scan (src/shared/cyclonedx, loaded only for this format). Its bom-refs derive from the project's id, which
 * the scan carries.
 */
async function sbomOf(snapshot: Snapshot, scan: ApiScan): Promise<string> {
  if (!scan.project)
    throw new ServiceError(
      `scan ${scan.id}: the service did not give the scan's project id, from which the SBOM's bom-refs are derived`,
    );
  const { buildSbom, serializeBom, TOOL_NAME } = await import('../../shared/cyclonedx/sbom');
  const bomScan = { id: scan.id, projectId: scan.project, project: scan.target, startedAt: scan.startedAt };
  return serializeBom(buildSbom({ scan: bomScan, snapshot, tool: { name: TOOL_NAME, version: VERSION } }));
}

/** Where the SBOM of each of several scans goes with --output FILE: FILE with the ecosystem after its stem. */
export function sbomFile(file: string, ecosystem: string): string {
  const dir = path.dirname(file);
  const base = path.basename(file);
  const dot = base.indexOf('.', 1);
  return path.join(dir, dot < 0 ? `${base}.${ecosystem}` : `${base.slice(0, dot)}.${ecosystem}${base.slice(dot)}`);
}

/** SCANNER_MAX_ATTEMPTS and SCANNER_RETRY_BASE_MS (README): how hard to retry; the defaults suit a CI job. */
function retryTuning(env: NodeJS.ProcessEnv): { maxAttempts?: number; baseDelayMs?: number } {
  const int = (name: string, min: number): number | undefined => {
    const v = env[name];
    if (v === undefined || v === '') return undefined;
    if (!/^\d+$/.test(v) || Number(v) < min)
      throw new InputError(`${name}=${JSON.stringify(v)}: a whole number of at least ${min}`);
    return Number(v);
  };
  return { maxAttempts: int('SCANNER_MAX_ATTEMPTS', 1), baseDelayMs: int('SCANNER_RETRY_BASE_MS', 0) };
}

/** SCANNER_PART_BYTES: the size of a multipart upload's parts (default and most: 10 MB); smaller for tests. */
function partBytes(env: NodeJS.ProcessEnv): number {
  const v = env.SCANNER_PART_BYTES;
  if (v === undefined || v === '') return MULTIPART_BUDGETS.partBytes;
  if (!/^\d+$/.test(v) || Number(v) < 1024 || Number(v) > MULTIPART_BUDGETS.partBytes) {
    throw new InputError(
      `SCANNER_PART_BYTES=${JSON.stringify(v)}: a whole number of bytes from 1024 to ${MULTIPART_BUDGETS.partBytes}`,
    );
  }
  return Number(v);
}

/**
 * The scan's findings that a suppression of its snapshot silenced (`suppressed=true`, the light shape, every page):
 * the report reads only unsuppressed ones. Read only to tell which of the repository's suppressions applied.
 */
const suppressedFindings = (http: Http, id: string): Promise<ApiFinding[]> =>
  allFindings(http, id, 'introduced', { suppressed: 'true', details: 'summary' });

/** One status line on stderr, rewritten in place, only when stderr is a terminal. */
function progressLine(io: Io) {
  let shown = false;
  return {
    update(text: string) {
      if (!io.stderrIsTTY) return;
      io.err(`\r\x1b[K${text}`);
      shown = true;
    },
    done() {
      if (shown) io.err('\r\x1b[K');
      shown = false;
    },
  };
}

export async function scanCommand(args: string[], io: Io): Promise<number> {
  try {
    return await scan(args, io);
  } finally {
    closeConnections();
  }
}

async function scan(args: string[], io: Io): Promise<number> {
  const timings = new Timings();
  const { values, positionals } = parse(args, OPTIONS);
  if (values.help) {
    io.out(`${USAGE}\n`);
    return EXIT.ok;
  }
  const failOn = oneOf('fail-on', values['fail-on'], FAIL_ON, 'low');
  const failOnKev = failOnKevOf(values['fail-on-kev'], io.env);
  const format = oneOf('format', values.format, FORMATS, 'table');
  const view = oneOf('view', values.view, VIEWS, 'introduced');
  const gate = gateOf(values.gate, io.env);
  const baselineMissing = oneOf('baseline-missing', values['baseline-missing'], BASELINE_MISSING, 'all');
  const baseline = values.baseline ?? 'auto';
  if (baseline !== 'auto' && !/^scn_[A-Za-z0-9_-]+$/.test(baseline))
    throw new InputError(`--baseline ${JSON.stringify(baseline)}: auto or a scan id (scn_...)`);
  const timeoutS = values.timeout === undefined ? DEFAULT_TIMEOUT_S : Number(values.timeout);
  if (!Number.isFinite(timeoutS) || timeoutS <= 0)
    throw new InputError(`--timeout ${JSON.stringify(values.timeout)}: a number of seconds above 0`);
  const server = values.server ?? io.env.SCANNER_URL;
  if (!server) throw new InputError('no service: pass --server URL or set SCANNER_URL');
  if (!/^https?:\/\/[^/]/i.test(server)) throw new InputError(`--server ${JSON.stringify(server)}: an http(s) URL`);
  const token = io.env.SCANNER_TOKEN;
  if (!token)
    throw new InputError(
      'no credential: set SCANNER_TOKEN to an API key with sca:upload, scans:read and findings:read',
    );
  const project = values.project ?? io.env.SCANNER_PROJECT;
  if (!project) throw new InputError('--project is required (or set SCANNER_PROJECT)');

  // The repository's suppressions go into every snapshot; a file the service would refuse stops the run here.
  let suppressions: SuppressionsFile | undefined;
  const made = makeSnapshots({
    paths: positionals,
    project,
    metadataFlags: metadataFlags(values),
    env: io.env,
    cwd: io.cwd,
    suppressions: (root) => {
      suppressions = loadSuppressions({ root, flag: values.suppressions, cwd: io.cwd });
      return suppressions?.entries.map((e) => e.suppression) ?? [];
    },
  });
  for (const m of made) for (const w of m.warnings) io.err(`scanner: warning: ${w}\n`);
  const today = todayUtc();
  if (suppressions) for (const w of expiredWarnings(suppressions, today)) io.err(`scanner: warning: ${w}\n`);
  // Whether any of them is in force: then the run tells which suppressed nothing (read after each scan).
  const checkSuppressions = suppressions?.entries.some((e) => !isExpired(e.suppression, today)) ?? false;
  if (baseline !== 'auto' && made.length > 1)
    throw new InputError(
      `--baseline ${baseline} names one scan, and this run makes ${made.length} snapshots (${made.map((m) => m.snapshot.ecosystem).join(', ')}): scan one ecosystem's lockfiles, or leave --baseline auto`,
    );
  timings.mark('snapshot');

  const http = new Http({
    server,
    token,
    userAgent: `scanner/${VERSION} node/${process.versions.node}`,
    deadline: Date.now() + timeoutS * 1000,
    ...retryTuning(io.env),
    onRetry: (msg) => io.err(`scanner: ${msg}\n`),
  });
  const uploaded: Array<{ scan: ApiScan; index: number }> = [];
  for (const [index, m] of made.entries()) {
    const body = JSON.stringify(m.snapshot);
    // A snapshot above the single-document limits goes as a multipart upload (v2 only).
    const over = overSingleLimits(m.snapshot, Buffer.byteLength(body, 'utf8'));
    if (over) {
      const what = `${m.snapshot.ecosystem} snapshot (${m.snapshot.nodes.length} packages from ${m.lockfiles.join(', ')})`;
      if (m.snapshot.schemaVersion !== 2)
        throw new InputError(
          `${what} is over the single-document limits (${over}), and a snapshot v1 cannot be sent in parts: only v2 snapshots can`,
        );
      const split = splitSnapshot(m.snapshot, partBytes(io.env));
      const key = multipartKey(split, values.rescan ? new Date() : undefined);
      timings.mark('serialize+hash');
      const sending = progressLine(io);
      const { scan, replay, upload } = await uploadMultipart(http, split, key, {
        onPart: (sent, total) => sending.update(`scanner: part ${sent} of ${total} sent`),
      });
      sending.done();
      io.err(
        `scanner: ${what} → scan ${scan.id} (over the single-document limits: ${over}; sent as multipart upload ${upload.id} in ${split.parts.length} parts)${replay ? ' (unchanged since an earlier upload: its scan; --rescan for a new one)' : ''}\n`,
      );
      uploaded.push({ scan, index });
      timings.mark('upload');
      continue;
    }
    const key = idempotencyKey(body, values.rescan ? new Date() : undefined);
    timings.mark('serialize+hash');
    const { scan, replay } = await uploadSnapshot(http, body, key);
    io.err(
      `scanner: ${m.snapshot.ecosystem} snapshot (${m.snapshot.nodes.length} packages from ${m.lockfiles.join(', ')}) → scan ${scan.id}${replay ? ' (unchanged since an earlier upload: its scan; --rescan for a new one)' : ''}\n`,
    );
    uploaded.push({ scan, index });
    timings.mark('upload');
  }

  const progress = progressLine(io);
  const results: ScanResult[] = [];
  const sboms: string[] = [];
  /** The snapshots' suppressions that suppressed a finding of the run's scans. */
  const applied: SnapshotSuppression[] = [];
  for (const { scan: first, index } of uploaded) {
    const m = made[index];
    const scan = await waitForScan(http, first.id, {
      onProgress: (s, ms) => progress.update(`scanner: scan ${s.id} ${s.status} · ${Math.round(ms / 1000)} s`),
    });
    progress.done();
    timings.mark('wait');
    if (scan.status === 'failed')
      throw new ServiceError(`scan ${scan.id} failed: ${scan.failureReason ?? 'no reason given'}`);
    // A scan matched against no advisories passes every gate: say so, once per run, where CI logs show it.
    if (scan.advisoryGeneration === null && !results.some((r) => r.scan.advisoryGeneration === null)) {
      io.err(
        'scanner: warning: the service has no advisories imported, so this scan could not find anything (an operator runs `npx scanner advisories import` or sets ADVISORY_SOURCES on the service)\n',
      );
    }
    // cyclonedx: the SBOM replaces the findings report; the gate reads the scan's counts, as for every format, and
    // with --fail-on-kev the findings (every page), which carry KEV where the counts do not.
    if (format === 'cyclonedx') sboms.push(await sbomOf(m.snapshot, scan));
    const findings = format === 'cyclonedx' && !failOnKev ? [] : await allFindings(http, scan.id, view);
    timings.mark('findings');
    // The comparison with the baseline: what the gate `new` counts, and what the markdown comment shows.
    const compare = gate === 'new' || format === 'markdown' ? await compareScan(http, scan.id, baseline) : undefined;
    if (compare) timings.mark('compare');
    // A scan that suppressed nothing needs no read; one whose count is unknown (an older service) is read.
    if (checkSuppressions && scan.suppressed !== 0) {
      const silenced = await suppressedFindings(http, scan.id);
      // The processing day is the scan's own (UTC), when it gives it.
      const day = scan.finishedAt?.slice(0, 10) ?? today;
      applied.push(...suppressionsThatApplied(m.snapshot.suppressions ?? [], m.snapshot.ecosystem, silenced, day));
      timings.mark('suppressions');
    }
    results.push({
      project,
      ecosystem: m.snapshot.ecosystem,
      scan,
      findings,
      lockfiles: m.lockfilesFromGitRoot,
      locations: m.locationsFromGitRoot,
      ...(compare ? { compare } : {}),
    });
  }

  let gated = 0;
  /** With --fail-on-kev: the unsuppressed findings listed in KEV the gate counts (gate new: the added ones). */
  let kevGated = 0;
  let missingFails = false;
  for (const r of results) {
    if (gate === 'all' || !r.compare) {
      gated += atOrAbove(r.scan, failOn);
      if (failOnKev) kevGated += kevCount(r);
      continue;
    }
    if (!r.compare.baselineMissing) {
      gated += addedAtOrAbove(r.compare, failOn);
      if (failOnKev) kevGated += addedKevCount(r);
      continue;
    }
    // No baseline: the project has no completed scan of its default branch (for this ecosystem) before this one.
    const why = `no baseline for scan ${r.scan.id} (${r.ecosystem}): the project has no completed scan of its default branch before it`;
    if (baselineMissing === 'fail') {
      io.err(`scanner: ${why}; --baseline-missing fail: exit 1\n`);
      missingFails = true;
    } else if (baselineMissing === 'pass') {
      io.err(`scanner: warning: ${why}; --baseline-missing pass: its findings do not fail the gate\n`);
    } else {
      io.err(
        `scanner: warning: ${why}; every finding counts as new (--baseline-missing all; scan the default branch first, or pass --baseline-missing pass|fail)\n`,
      );
      gated += atOrAbove(r.scan, failOn);
      if (failOnKev) kevGated += kevCount(r);
    }
  }
  const input: ReportInput = {
    tool: { name: 'scanner', version: VERSION },
    server,
    view,
    failOn,
    gate,
    failOnKev,
    gateFailed: gated > 0 || kevGated > 0 || missingFails,
    results,
  };
  const color = format === 'table' && !values.output && io.stdoutIsTTY && !io.env.NO_COLOR;
  // cyclonedx on stdout: one document per line (each is one line of compact JSON), so one scan is exactly the service's.
  const report = format === 'cyclonedx' ? sboms.join('') : (await formatterFor(format, color))(input);
  if (values.output && format === 'cyclonedx') {
    writeSboms(io, path.resolve(io.cwd, values.output), results, sboms);
  } else if (values.output) {
    const file = path.resolve(io.cwd, values.output);
    fs.writeFileSync(file, report);
    io.err(`scanner: ${format} report → ${file}\n`);
  } else {
    io.out(report);
  }
  // On GitHub Actions the comment also goes to the job's summary page.
  if (format === 'markdown' && io.env.GITHUB_ACTIONS && io.env.GITHUB_STEP_SUMMARY)
    fs.appendFileSync(io.env.GITHUB_STEP_SUMMARY, report.endsWith('\n') ? report : `${report}\n`);
  timings.mark('report');
  // The repository's suppressions that suppressed no finding of any of the run's scans: stale, or mistyped.
  if (suppressions && checkSuppressions)
    for (const w of unmatchedWarnings(suppressions, applied, today)) io.err(`scanner: warning: ${w}\n`);
  if (io.env.SCANNER_TIMINGS === '1') io.err(timings.line());
  const what = gate === 'new' ? 'new finding(s)' : 'finding(s)';
  const verdict: string[] = [];
  if (failOn !== 'none' || !failOnKev)
    verdict.push(
      gated > 0
        ? `${gated} ${what} at or above --fail-on ${failOn}`
        : `nothing${gate === 'new' ? ' new' : ''} at or above --fail-on ${failOn}`,
    );
  if (failOnKev)
    verdict.push(
      kevGated > 0
        ? `${kevGated} ${gate === 'new' ? 'new ' : ''}KEV finding(s) (--fail-on-kev)`
        : `no${gate === 'new' ? ' new' : ''} KEV finding (--fail-on-kev)`,
    );
  io.err(`scanner: ${verdict.join('; ')}${gated > 0 || kevGated > 0 ? ': exit 1' : ''}\n`);
  return gated > 0 || kevGated > 0 || missingFails ? EXIT.findings : EXIT.ok;
}

/** --output with cyclonedx: that file for a single scan, or one file per scan's ecosystem (sbomFile). */
function writeSboms(io: Io, file: string, results: ScanResult[], sboms: string[]): void {
  sboms.forEach((text, i) => {
    const target = sboms.length === 1 ? file : sbomFile(file, results[i].ecosystem);
    fs.writeFileSync(target, text);
    io.err(`scanner: CycloneDX SBOM of scan ${results[i].scan.id} → ${target}\n`);
  });
}
