// `--format json`: the machine-readable report of `scanner scan`. A public contract: fields are only ever added;
// a change that removes or reshapes one bumps `reportVersion`.
//
// {
//   "reportVersion": 1,
//   "tool":    { "name": "scanner", "version": "1.4.0" },
//   "server":  "https://scanner.example.com",          // the service the scans ran on
//   "view":    "introduced" | "affected",              // the attribution view the findings were read in
//   "failOn":  "critical" | "high" | "medium" | "low" | "none",
//   "gate":    { "failOn": ..., "failed": true, "findingsAtOrAbove": 3 },
//              // failed ⇔ exit code 1; the count is the scans' unsuppressed counts at or above failOn (0 for none)
//   "scans": [                                         // one per ecosystem found, in the order they were uploaded
//     {
//       "project":   "acme-web",
//       "ecosystem": "javascript",
//       "scan":      { ...Scan },                      // as GET /v1/scans/{id} serves it (Scan), counts included
//       "findings":  [ { ...Finding } ],               // unsuppressed, as GET /v1/scans/{id}/findings serves them
//                                                      // (Finding; severity descending, then id)
//       "lockfiles": ["package-lock.json"],            // what the snapshot was made from, relative to the git root
//       "locations": { "minimist@1.2.5": { "file": "package-lock.json", "line": 812 } }
//                                                      // name@version → its lockfile entry (line 1-based, absent
//                                                      // when unknown), for the packages of the findings only
//     }
//   ]
// }
//
// Pretty-printed with two spaces, one trailing newline. Objects from the API pass through unchanged, so fields the
// service adds later appear here too.
import { countAtOrAbove, locator } from './common';
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
  gate: { failOn: FailOn; failed: boolean; findingsAtOrAbove: number };
  scans: Array<{
    project: string;
    ecosystem: string;
    scan: ApiScan;
    findings: ApiFinding[];
    lockfiles: string[];
    locations: Record<string, PackageLocation>;
  }>;
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
    },
    scans: input.results.map((r) => ({
      project: r.project,
      ecosystem: r.ecosystem,
      scan: r.scan,
      findings: r.findings,
      lockfiles: r.lockfiles,
      locations: findingLocations(r),
    })),
  };
}

export const formatJson = (input: ReportInput): string => JSON.stringify(jsonReport(input), null, 2) + '\n';
