// Project alerts as stored: per (project, ecosystem) a chain of immutable states (`alertStates`, `_id` =
// `${pairId}:${seq}`), a small head per pair (`alertSets`) that readers follow, and history events per alert
// (`alertEvents`). The store has no multi-document transactions (FerretDB), so moves of one pair are serialised by the
// chain itself: a move computes its successor from the state it read and inserts it under the next seq; of two moves
// from one state only one insert succeeds (unique _id), and the other reads again and computes again. Readers read
// the state their head names; a state, once written, never changes, so it is cached by its _id.
import { LRUCache } from 'lru-cache';
import type { AlertEvent, AlertRecord } from '../domain/alerts/move';
import { eventId, summariseEvents, summaryId, type EventSummary } from '../domain/alerts/query';
import { packJson, packPlainJson, unpackJson, unpackPlainJson } from './codec';
import type { AlertSetDoc, AlertStateDoc } from './documents/alerts';
import { isDuplicateKey, onlyDuplicates, type Store } from './mongo';

export const pairIdOf = (projectId: string, ecosystem: string) => `${projectId}:${ecosystem}`;
const stateId = (pairId: string, seq: number) => `${pairId}:${seq}`;

/** What a move did besides the state: kept in the state so that a retry finishes the side effects. */
export interface StoredMove {
  events: AlertEvent[];
  opened: string[];
  fixed: string[];
  reopened: string[];
  /** Whether the move's webhook events go out (not on a pair's first tracked scan). */
  announce: boolean;
}

export interface AlertState {
  pairId: string;
  seq: number;
  scanId: string | null;
  startedAt: Date | null;
  /** The advisory generation the state was computed with (its scan's, or its re-match's). */
  generation?: string | null;
  alerts: AlertRecord[];
}

// Parsed states by _id (immutable). Bounded by count: a state of 2,000 alerts is about 2 MB in memory.
const parsed = new LRUCache<string, Promise<AlertRecord[]>>({ max: 512 });

function alertsOf(doc: Pick<AlertStateDoc, '_id' | 'data'>): Promise<AlertRecord[]> {
  let p = parsed.get(doc._id);
  if (!p) {
    p = unpackJson<AlertRecord[]>(doc.data);
    p.catch(() => parsed.delete(doc._id));
    parsed.set(doc._id, p);
  }
  return p;
}

/** The alerts of one stored state (cached: states never change). */
export async function readStateAlerts(store: Store, pairId: string, seq: number): Promise<AlertRecord[]> {
  if (seq <= 0) return [];
  const id = stateId(pairId, seq);
  const cached = parsed.get(id);
  if (cached) return cached;
  const doc = await store.c.alertStates.findOne({ _id: id }, { projection: { data: 1 } });
  if (!doc) return [];
  return alertsOf(doc);
}

/**
 * The newest state of a pair, for a move: the head, then any state written after it whose head update has not landed
 * yet (a move killed between its two writes), so that a move always builds on the last state of the chain.
 */
export async function latestState(store: Store, pairId: string): Promise<AlertState> {
  const head = await store.c.alertSets.findOne({ _id: pairId });
  let seq = head?.seq ?? 0;
  let doc: AlertStateDoc | null = null;
  for (;;) {
    const next = await store.c.alertStates.findOne({ _id: stateId(pairId, seq + 1) });
    if (!next) break;
    doc = next;
    seq++;
  }
  if (!doc && seq > 0) doc = await store.c.alertStates.findOne({ _id: stateId(pairId, seq) });
  if (!doc) return { pairId, seq: 0, scanId: null, startedAt: null, alerts: [] };
  return {
    pairId,
    seq,
    scanId: doc.scanId,
    startedAt: doc.startedAt,
    generation: doc.generation,
    alerts: await alertsOf(doc),
  };
}

/** The head's state, for reads that resolve findings (no probing: a state is at most one move behind). */
export async function headState(store: Store, pairId: string): Promise<AlertState> {
  const head = await store.c.alertSets.findOne({ _id: pairId });
  if (!head) return { pairId, seq: 0, scanId: null, startedAt: null, alerts: [] };
  return {
    pairId,
    seq: head.seq,
    scanId: head.scanId,
    startedAt: head.startedAt,
    alerts: await readStateAlerts(store, pairId, head.seq),
  };
}

export interface NewState {
  pairId: string;
  orgId: string;
  projectId: string;
  ecosystem: string;
  seq: number;
  scanId: string;
  startedAt: Date;
  at: Date;
  generation: string | null;
  rematch: boolean;
  alerts: AlertRecord[];
  move: StoredMove;
}

/** Stores a pair's next state; false when another move stored that seq first (read again, compute again). */
export async function insertState(store: Store, s: NewState): Promise<boolean> {
  const doc: AlertStateDoc = {
    _id: stateId(s.pairId, s.seq),
    pairId: s.pairId,
    orgId: s.orgId,
    seq: s.seq,
    scanId: s.scanId,
    startedAt: s.startedAt,
    at: s.at,
    generation: s.generation,
    rematch: s.rematch,
    data: await packJson(s.alerts),
    move: await packJson(s.move),
  };
  try {
    await store.c.alertStates.insertOne(doc);
  } catch (err) {
    if (isDuplicateKey(err)) return false;
    throw err;
  }
  parsed.set(doc._id, Promise.resolve(s.alerts));
  return true;
}

/** The state a scan's move stored (its non-rematch one), with what the move did; null when it never moved. */
export async function stateOfScan(
  store: Store,
  pairId: string,
  scanId: string,
): Promise<{ seq: number; move: StoredMove; alerts: AlertRecord[] } | null> {
  const docs = await store.c.alertStates.find({ pairId, scanId }).toArray();
  const doc = docs.filter((d) => !d.rematch).sort((a, b) => a.seq - b.seq)[0];
  if (!doc) return null;
  return { seq: doc.seq, move: await unpackJson<StoredMove>(doc.move), alerts: await alertsOf(doc) };
}

/** History events kept per alert; older ones are summarised in one `summarised` event. */
export const MAX_ALERT_EVENTS = 1000;

/**
 * Writes a move's history events; a retry (same seq) adds nothing. An alert gets at most one event per move, so only
 * a pair past `cap` moves can hold an alert with more than `cap` events: only then are the alerts of this move counted,
 * and the oldest events of one past the cap folded into its summary event.
 */
export async function writeAlertEvents(
  store: Store,
  orgId: string,
  seq: number,
  events: AlertEvent[],
  cap = MAX_ALERT_EVENTS,
): Promise<void> {
  await insertAlertEvents(store, orgId, seq, events);
  if (seq > cap)
    for (const alertId of new Set(events.map((e) => e.alertId))) await capHistory(store, orgId, alertId, cap);
}

async function capHistory(store: Store, orgId: string, alertId: string, cap: number): Promise<void> {
  if ((await store.c.alertEvents.countDocuments({ alertId })) <= cap) return;
  const docs = (await store.c.alertEvents.find({ alertId }).toArray()).sort((a, b) => a.seq - b.seq);
  const summaryOf = summaryId(alertId);
  const old = docs.filter((d) => d._id !== summaryOf);
  const drop = old.slice(0, old.length - (cap - 1)); // keep cap - 1 events and the summary
  if (!drop.length) return;
  const prior = docs.find((d) => d._id === summaryOf);
  const summary = summariseEvents(
    prior ? unpackPlainJson<EventSummary>(prior.details) : null,
    drop.map((d) => ({ type: d.type, at: d.at.toISOString() })),
  );
  const last = drop[drop.length - 1];
  // The summary first, then the deletions: a move killed between them leaves events counted twice, never lost.
  await store.c.alertEvents.replaceOne(
    { _id: summaryOf },
    { alertId, orgId, seq: last.seq, type: 'summarised', at: last.at, details: packPlainJson(summary) },
    { upsert: true },
  );
  await store.c.alertEvents.deleteMany({ _id: { $in: drop.map((d) => d._id) } });
}

async function insertAlertEvents(store: Store, orgId: string, seq: number, events: AlertEvent[]): Promise<void> {
  if (!events.length) return;
  try {
    await store.c.alertEvents.insertMany(
      events.map((e) => ({
        _id: eventId(e.alertId, seq, e.type),
        alertId: e.alertId,
        orgId,
        seq,
        type: e.type,
        at: new Date(e.at),
        ...(e.scanId !== undefined ? { scanId: e.scanId } : {}),
        ...(e.generation !== undefined ? { generation: e.generation } : {}),
        details: packPlainJson(e.details),
      })),
      { ordered: false },
    );
  } catch (err) {
    if (!onlyDuplicates(err)) throw err;
  }
}

/** Moves a pair's head forward to `seq` (never back: a late, older head update is dropped). */
export async function advanceHead(
  store: Store,
  s: Pick<NewState, 'pairId' | 'orgId' | 'projectId' | 'ecosystem' | 'seq' | 'scanId' | 'startedAt' | 'at'> & {
    open: number;
  },
): Promise<void> {
  try {
    await store.c.alertSets.updateOne(
      { _id: s.pairId, seq: { $lt: s.seq } },
      {
        $set: {
          orgId: s.orgId,
          projectId: s.projectId,
          ecosystem: s.ecosystem,
          seq: s.seq,
          scanId: s.scanId,
          startedAt: s.startedAt,
          updatedAt: s.at,
          open: s.open,
        },
      },
      { upsert: true },
    );
  } catch (err) {
    // The head is already at or past seq (the upsert's insert met the existing head).
    if (!isDuplicateKey(err)) throw err;
  }
  await touchOrgAlerts(store, s.orgId, `${s.pairId}:${s.seq}:${Date.now()}`);
}

const versionId = (orgId: string) => `alertsVersion:${orgId}`;

/**
 * The organization's alerts changed: a new value of its version (written after the head, so that a reader that read
 * the version before the heads never keeps an index older than the heads it saw; see src/http/alerts/index-cache.ts).
 */
export const touchOrgAlerts = (store: Store, orgId: string, value: string): Promise<void> =>
  setVersion(store, versionId(orgId), value);

/** Sets a version setting (an upsert that met another process's insert updates). */
export async function setVersion(store: Store, id: string, value: string): Promise<void> {
  try {
    await store.c.settings.updateOne({ _id: id }, { $set: { value } }, { upsert: true });
  } catch (err) {
    if (!isDuplicateKey(err)) throw err;
    await store.c.settings.updateOne({ _id: id }, { $set: { value } });
  }
}

const triageVersionId = (orgId: string) => `triageVersion:${orgId}`;

/**
 * The organization's triage changed (an analysis written, a rule changed): a new value of its triage version, written
 * after the change (as touchOrgAlerts is after a head).
 */
export const touchOrgTriage = (store: Store, orgId: string, value: string): Promise<void> =>
  setVersion(store, triageVersionId(orgId), value);

/** Both versions of an organization's alerts in one read: its heads' and its triage's (null: never moved). */
export async function orgAlertVersions(
  store: Store,
  orgId: string,
): Promise<{ alerts: string | null; triage: string | null }> {
  const docs = await store.c.settings.find({ _id: { $in: [versionId(orgId), triageVersionId(orgId)] } }).toArray();
  const of = (id: string) => {
    const d = docs.find((x) => x._id === id);
    return d ? String(d.value) : null;
  };
  return { alerts: of(versionId(orgId)), triage: of(triageVersionId(orgId)) };
}

/** The version of the organization's triage: changes with every analysis and rule written (null before any). */
export async function orgTriageVersion(store: Store, orgId: string): Promise<string | null> {
  const doc = await store.c.settings.findOne({ _id: triageVersionId(orgId) });
  return doc ? String(doc.value) : null;
}

/** Every head of an organization's alerts (small documents, one query). */
export function orgAlertSets(store: Store, orgId: string): Promise<AlertSetDoc[]> {
  return store.c.alertSets.find({ orgId }).toArray();
}

/** The history events of some alerts (an alert and the alerts merged into it), unordered. */
export async function alertEvents(store: Store, alertIds: string[]): Promise<Array<AlertEvent & { seq: number }>> {
  const lists = await Promise.all(alertIds.map((alertId) => store.c.alertEvents.find({ alertId }).toArray()));
  return lists.flat().map((d) => ({
    alertId: d.alertId,
    type: d.type as AlertEvent['type'],
    at: d.at.toISOString(),
    ...(d.scanId !== undefined ? { scanId: d.scanId } : {}),
    ...(d.generation !== undefined ? { generation: d.generation } : {}),
    details: unpackPlainJson<Record<string, unknown>>(d.details),
    seq: d.seq,
  }));
}

/** Every alert of an organization (merged ones included), from the states its heads name; states are cached. */
export async function orgAlerts(store: Store, orgId: string): Promise<AlertRecord[]> {
  const heads = await orgAlertSets(store, orgId);
  const lists = await Promise.all(heads.map((h) => readStateAlerts(store, h._id, h.seq)));
  return lists.flat();
}

/** Every (project, ecosystem) with alerts: what a re-match after an advisory import goes over. */
export async function alertPairs(store: Store): Promise<string[]> {
  const heads = await store.c.alertSets.find({}, { projection: { _id: 1 } }).toArray();
  return heads.map((h) => h._id).sort();
}

/** The move stored with one state, and whether it was a re-match; null when the state is not there. */
export async function storedMove(
  store: Store,
  pairId: string,
  seq: number,
): Promise<{ rematch: boolean; generation: string | null; move: StoredMove } | null> {
  const doc = await store.c.alertStates.findOne(
    { _id: stateId(pairId, seq) },
    { projection: { rematch: 1, generation: 1, move: 1 } },
  );
  return doc
    ? { rematch: doc.rematch, generation: doc.generation, move: await unpackJson<StoredMove>(doc.move) }
    : null;
}
