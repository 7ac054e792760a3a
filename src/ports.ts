// The seams between the API process's parts: what the HTTP layer and the sweepers need from the workflow engine,
// declared apart from both so that neither imports the other. src/temporal implements them; tests pass the same
// implementations against a real Temporal server.
import type { McpScanDoc } from './storage/documents/mcp';
import type { ScanDoc } from './storage/documents/scans';
import type { WebhookEvent } from './storage/webhooks';

export interface ScanStarter {
  /** Starts the scan's workflow (workflow id = scan id). Resolves false when Temporal could not be reached. */
  start(scan: ScanDoc): Promise<boolean>;
  /** Resolves once every start in flight has finished (graceful shutdown). */
  drain(): Promise<void>;
}

/** Starts the MCP scan workflow of an uploaded MCP scan (workflow id = the mcs_ id). */
export interface McpScanStarter {
  /** Resolves false when Temporal could not be reached (the scan stays queued for the sweeper). */
  start(scan: McpScanDoc): Promise<boolean>;
  drain(): Promise<void>;
}

/**
 * Holds `GET /v1/scans/{id}?wait=S` until the scan is terminal: its workflow's close (src/temporal/client.ts), raced
 * by a short, bounded watch of its document (src/storage/scan-watch.ts).
 */
export interface ScanWaiter {
  /**
   * Resolves when the scan is seen terminal, `ms` have passed, `signal` aborted or close() was called, whichever comes
   * first; with the scan as read terminal when this waiter read it (the caller reads it otherwise).
   */
  until(scanId: string, ms: number, signal?: AbortSignal): Promise<ScanDoc | undefined>;
  /** Ends every wait at once (shutdown: pending waits are answered with the scan as it is). */
  close(): void;
}

export interface Readiness {
  /** Temporal reachable and a worker polling the scan task queue. */
  temporal(): Promise<{ ok: boolean; detail: string }>;
}

/** The workflow runs of one kind of scan, as the sweepers see them. */
export interface WorkflowRuns<T extends { _id: string }> {
  /** Starts the workflow of `scan` under its id, once; false when it had been started already (running or closed). */
  startOnce(scan: T): Promise<boolean>;
  /** What the workflow of a scan not yet terminal is doing: running, or closed (never started, ended, or expired). */
  state(scanId: string): Promise<'running' | 'closed'>;
}

/** Emits a scan's webhook event (one event workflow per scan and type, started only when someone is subscribed). */
export interface ScanEventEmitter {
  emit(scanId: string, orgId: string, type: WebhookEvent): Promise<boolean>;
}

/**
 * Triage in the background (src/temporal/triage-reconcile.ts): after a rule change, the organization's alerts'
 * histories are reconciled with its rules in a workflow of its own (one per organization; a change made while it runs
 * makes it pass again).
 */
export interface TriageReconciler {
  /** Asks for a reconciliation of the organization; false when Temporal could not be reached (the hourly one catches up). */
  reconcile(orgId: string): Promise<boolean>;
  /** Resolves once every request in flight has finished (graceful shutdown). */
  drain(): Promise<void>;
}
