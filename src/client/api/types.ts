// The API's resources as the client reads them (Scan, Finding). Declared here, not imported
// from the server's presenters: the client depends on the published contract, not on server code. The shapes are
// the domain's shared types where the contract and the domain agree.
import type { Finding, SeverityCounts, SnapshotMetadata } from '../../shared/types';

export interface ApiScanModule {
  path: string;
  dependencies: string[];
  teamName?: string | null;
  attributes?: Record<string, string>;
}

export interface ApiScan {
  id: string;
  target: string;
  project?: string;
  ecosystem?: string;
  status: 'queued' | 'running' | 'completed' | 'failed';
  findings: SeverityCounts | null;
  suppressed: number | null;
  startedAt: string;
  finishedAt: string | null;
  failureReason: string | null;
  modules: ApiScanModule[];
  metadata?: SnapshotMetadata | null;
  /** The advisory generation the scan matched against; null when the service had no advisories imported. */
  advisoryGeneration?: string | null;
}

/** A finding as GET /v1/scans/{id}/findings serves it (aliases and packageRef are additive; older servers omit them). */
export type ApiFinding = Omit<Finding, 'aliases' | 'packageRef'> & { aliases?: string[]; packageRef?: string };

export interface ApiErrorBody {
  error: { code: string; message: string; requestId?: string };
}
