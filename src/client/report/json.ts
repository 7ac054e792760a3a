// `--format json`: the machine-readable report of `scanner scan`. A public contract: fields are only ever added;
// a change that removes or reshapes one bumps `reportVersion`.
//
// {
//   "reportVersion": 1,
//   "tool":    { "name": "scanner", "version": "1.4.0" },
//   "server":  "https://scanner.example.com",          // the service the scans ran on
//   "view":    "introduced" | "affected",              // the attribution view the findings were read in
//   "failOn":  "critical" | "high" | "medium" | "low" | "none",
//   "gate":    { "failOn": ..., "failed": true, "findingsAtOrAbove": 3, "mode": "new" | "all", "counted": 1,
//                "failOnKev": false, "kevFindings": 0 },
//              // failed ⇔ exit code 1; findingsAtOrAbove: the scans' unsuppressed counts at or above failOn (0 for
//              // none); counted: what the gate counted (with mode new: the findings the change added);
//              // failOnKev: --fail-on-kev was given; kevFindings: the unsuppressed findings listed in CISA KEV the
//              // gate reads (with mode new: those the change added), given whether or not failOnKev
//   "scans": [                                         // one per ecosystem found, in the order they were uploaded
//     {
//       "project":   "acme-web",
//       "ecosystem": "javascript",
//       "scan":      { ...Scan },                      // as GET /v1/scans/{id} serves it (Scan), counts included
//       "findings":  [ { ...Finding, "change"? } ],    // unsuppressed, as GET /v1/scans/{id}/findings serves them
//                                                      // (Finding; severity descending, then id); when the run
//                                                      // compared with a baseline, change: new | unchanged |
//                                                      // disclosed; kev ({dateAdded, dueDate,
//                                                      // knownRansomwareCampaignUse}) and epss ({score, percentile,
//                                                      // date}) always there: null when the service gives none (an
//                                                      // older service omits both)
//       "compare":   { baseline, baselineMissing, counts, removed, suppressionsAdded, dependencies },
//                                                      // only when compared (--gate new, --format markdown): as
//                                                      // GET /v1/scans/{id}/compare, removed = findings.removed
//                                                      // (each with kev and epss, null when absent)
//       "lockfiles": ["package-lock.json"],            // what the snapshot was made from, relative to the git root
//       "locations": { "minimist@1.2.5": { "file": "package-lock.json", "line": 812 } }
//                                                      // name@version → its lockfile entry (line 1-based, absent
//                                                      // when unknown), for the packages of the findings only
//     }
//   ]
// }
//
// Pretty-printed with two spaces, one trailing newline. Objects from the API pass through unchanged (findings gain
// only kev and epss as null when the service omits them), so fields the service adds later appear here too.
import { changesOf, countAtOrAbove, gatedCount, gatedKevCount, locator, type Change } from './common';
import type { CompareFinding, CompareResult } from '../../shared/compare';
import type { EpssEntry, KevEntry } from '../../shared/types';
import type { FailOn, ReportInput, ScanResult, View } from './types';
import type { ApiFinding, ApiScan } from '../api/types';
import type { PackageLocation } from '../producers/types';

export const JSON_REPORT_VERSION = 1;

export interface JsonReport {
  reportVersion: typeof JSON_REPORT_VERSION;
  tool: { name: 'scanner'; version: string };
  server: string;
  view: View;
  failOn: FailOn;
  gate: {
    failOn: FailOn;
    failed: boolean;
    findingsAtOrAbove: number;
    mode: ReportInput['gate'];
    counted: number;
    failOnKev: boolean;
    kevFindings: number;
  };
  scans: Array<{
    project: string;
    ecosystem: string;
    scan: ApiScan;
    findings: Array<WithIntel<ApiFinding> & { change?: Change }>;
    compare?: Pick<CompareResult, 'baseline' | 'baselineMissing' | 'counts' | 'suppressionsAdded' | 'dependencies'> & {
      removed: Array<WithIntel<CompareFinding>>;
    };
    lockfiles: string[];
    locations: Record<string, PackageLocation>;
  }>;
}

/** A finding with `kev` and `epss` always present: null when the service gave none. */
export type WithIntel<F extends { kev?: KevEntry | null; epss?: EpssEntry | null }> = F & {
  kev: KevEntry | null;
  epss: EpssEntry | null;
};

/** The finding with kev and epss set (null when an older service omits them); the same object when both are there. */
function withIntel<F extends { kev?: KevEntry | null; epss?: EpssEntry | null }>(f: F): WithIntel<F> {
  return f.kev !== undefined && f.epss !== undefined
    ? (f as WithIntel<F>)
    : { ...f, kev: f.kev ?? null, epss: f.epss ?? null };
}

/** The lockfile entries of the findings' packages: the whole map would list every package of the project. */
function findingLocations(result: ScanResult): Record<string, PackageLocation> {
  const locate = locator(result);
  const out: Record<string, PackageLocation> = {};
  for (const f of result.findings) {
    const loc = locate(f);
    if (loc) out[`${f.package}@${f.installedVersion}`] = loc;
  }
  return out;
}

/** The findings, each with kev and epss, and its change against the baseline when the run compared. */
function withChanges(result: ScanResult): Array<WithIntel<ApiFinding> & { change?: Change }> {
  const changes = changesOf(result);
  return result.findings.map((f) => {
    const change = changes.get(f.id);
    return change ? { ...withIntel(f), change } : withIntel(f);
  });
}

export function jsonReport(input: ReportInput): JsonReport {
  return {
    reportVersion: JSON_REPORT_VERSION,
    tool: { name: input.tool.name, version: input.tool.version },
    server: input.server,
    view: input.view,
    failOn: input.failOn,
    gate: {
      failOn: input.failOn,
      failed: input.gateFailed,
      findingsAtOrAbove: countAtOrAbove(input.results, input.failOn),
      mode: input.gate,
      counted: gatedCount(input),
      failOnKev: input.failOnKev,
      kevFindings: gatedKevCount(input),
    },
    scans: input.results.map((r) => ({
      project: r.project,
      ecosystem: r.ecosystem,
      scan: r.scan,
      findings: withChanges(r),
      ...(r.compare
        ? {
            compare: {
              baseline: r.compare.baseline,
              baselineMissing: r.compare.baselineMissing,
              counts: r.compare.counts,
              removed: r.compare.findings.removed.map(withIntel),
              suppressionsAdded: r.compare.suppressionsAdded,
              dependencies: r.compare.dependencies,
            },
          }
        : {}),
      lockfiles: r.lockfiles,
      locations: findingLocations(r),
    })),
  };
}

export const formatJson = (input: ReportInput): string => JSON.stringify(jsonReport(input), null, 2) + '\n';
