// What every report format (table, json, sarif) is made from: the scans of one `scanner scan` run (one per
// ecosystem found), their findings, the gate's verdict, and where each package sits in its lockfile.
import type { CompareResult } from '../../shared/compare';
import type { Severity } from '../../shared/types';
import type { ApiFinding, ApiScan } from '../api/types';
import type { PackageLocation } from '../producers/types';

export type FailOn = Severity | 'none';
export type View = 'introduced' | 'affected';

export interface ScanResult {
  project: string;
  ecosystem: string;
  scan: ApiScan;
  /** Unsuppressed findings, in the API's order (severity descending, then id). */
  findings: ApiFinding[];
  /** The lockfiles this snapshot was made from, relative to the git root (or the project root outside git). */
  lockfiles: string[];
  /** Package id (name@version) → its entry, file relative to the git root (or the project root outside git). */
  locations: Record<string, PackageLocation>;
  /**
   * The scan compared with its baseline (GET /v1/scans/{id}/compare, every part read whole), when the run asked for
   * it (`--gate new`, or `--format markdown`); undefined otherwise.
   */
  compare?: CompareResult;
}

/** `new`: only findings the change adds fail the gate; `all`: every unsuppressed finding does. */
export type Gate = 'new' | 'all';

export interface ReportInput {
  tool: { name: 'scanner'; version: string };
  /** The service's base URL (reports may link scans to it). */
  server: string;
  view: View;
  failOn: FailOn;
  gate: Gate;
  /**
   * `--fail-on-kev`: an unsuppressed finding listed in CISA's Known Exploited Vulnerabilities catalog (`kev` not
   * null) fails the gate too, whatever its severity (with gate `new`: an added one).
   */
  failOnKev: boolean;
  /**
   * True when the gate counts an unsuppressed finding at or above failOn, or with failOnKev one listed in KEV (with
   * gate `new`: an added one).
   */
  gateFailed: boolean;
  results: ScanResult[];
}

export type Formatter = (input: ReportInput) => string;
