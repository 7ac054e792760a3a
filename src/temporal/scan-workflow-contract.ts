// Names shared by the client, the worker and the workflow. Imported by workflow code: @temporalio/common only.
import { defineSearchAttributeKey, SearchAttributeType } from '@temporalio/common';

export const SCAN_WORKFLOW = 'scanWorkflow';

/**
 * Typed search attributes: an operator finds a scan by id or project (its `prj_` id or its slug, the name the
 * operator knows) and sees ecosystem, size and stage.
 */
export const SA = {
  scanId: defineSearchAttributeKey('ScanId', SearchAttributeType.KEYWORD),
  orgId: defineSearchAttributeKey('OrgId', SearchAttributeType.KEYWORD),
  projectId: defineSearchAttributeKey('ProjectId', SearchAttributeType.KEYWORD),
  projectSlug: defineSearchAttributeKey('ProjectSlug', SearchAttributeType.KEYWORD),
  ecosystem: defineSearchAttributeKey('Ecosystem', SearchAttributeType.KEYWORD),
  nodeCount: defineSearchAttributeKey('NodeCount', SearchAttributeType.INT),
  stage: defineSearchAttributeKey('Stage', SearchAttributeType.KEYWORD),
};

export type Stage = 'queued' | 'preparing' | 'matching' | 'attributing' | 'publishing' | 'completed' | 'failed';

/** Scan failure reasons that are decided by the data, never by luck: retrying cannot help. */
export const NON_RETRYABLE = ['unsupported_ecosystem', 'attribution_limit_exceeded', 'invalid_snapshot'] as const;

/**
 * The failure type of an activity that met a database outage: retried every RETRY_MAX_INTERVAL until the step's
 * patience (STEP_PATIENCE) runs out. Other failures get FAULT_ATTEMPTS attempts.
 */
export const DATABASE_UNAVAILABLE = 'database_unavailable';
export const FAULT_ATTEMPTS = 5;
export const RETRY_MAX_INTERVAL = '5 seconds';
export const STEP_PATIENCE = '30 minutes';

export interface ScanWorkflowInput {
  scanId: string;
  /** Packages in the snapshot (known at upload): small scans take the fast path. */
  nodeCount?: number;
  /** v2: vertices + edges of all resolutions. Large graphs take the activity pipeline and its thread pool. */
  graphSize?: number;
  /** A multipart scan: attribution fans out over shards of roots as separate activities. */
  paged?: boolean;
}

/** Snapshots up to this many packages are scanned by one local activity: no task round trips between steps. */
export const FAST_PATH_MAX_NODES = 2000;
/** ... and at most this many v2 vertices + edges (walked inline, without the pool). */
export const FAST_PATH_MAX_GRAPH = 20_000;

export interface ScanWorkflowResult {
  scanId: string;
  status: 'completed' | 'failed';
  failureReason?: string;
  findings?: number;
}
