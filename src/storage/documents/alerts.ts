// Stored documents of project alerts (src/storage/alerts.ts): per (project, ecosystem) a chain of immutable states,
// the head that readers follow, and the history events of the alerts.
import type { Binary } from 'mongodb';

/**
 * The head of one (project, ecosystem)'s alerts: which state readers read, and what it holds in brief. Small, found by
 * its organization (top-level equality), so that a read of an organization's alerts checks every head in one query.
 * _id = `${projectId}:${ecosystem}`.
 */
export interface AlertSetDoc {
  _id: string;
  orgId: string;
  projectId: string;
  ecosystem: string;
  /** The state readers read: `alertStates` `${_id}:${seq}`. */
  seq: number;
  /** The tracked scan the state comes from, and its startedAt. */
  scanId: string;
  startedAt: Date;
  updatedAt: Date;
  /** Open alerts in the state (merged and fixed ones left out). */
  open: number;
}

/**
 * One state of one (project, ecosystem)'s alerts, written once and never changed: `_id` = `${pairId}:${seq}`, so that
 * of two moves computed from the same state only one can store its successor (insert of a unique _id: the store has
 * no transactions). `data`: the AlertRecord[] as plain JSON in a Binary (src/storage/codec.ts); `events`: the history
 * events this move made, kept so that a retried move finishes what a killed one started.
 */
export interface AlertStateDoc {
  _id: string;
  pairId: string;
  orgId: string;
  seq: number;
  scanId: string;
  startedAt: Date;
  at: Date;
  generation: string | null;
  rematch: boolean;
  data: Binary;
  /** { events: AlertEvent[], opened, fixed, reopened } of the move that wrote this state. */
  move: Binary;
}

/** One history event of one alert; _id = `${alertId}:${seq}:${type}` (a retried write adds nothing). */
export interface AlertEventDoc {
  _id: string;
  alertId: string;
  orgId: string;
  seq: number;
  type: string;
  at: Date;
  scanId?: string;
  generation?: string | null;
  details: Binary;
}
