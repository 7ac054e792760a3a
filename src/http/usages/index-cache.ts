// The where-used index of an organization (src/domain/usages), kept per API process and validated on every read by one
// small query, so that a read over 100 projects costs a settings document instead of 100 inventories.
//
// Why not read every inventory per request: the latest completed scan per (project, ecosystem) costs one head query per
// project and each inventory a few compressed chunks (docs/benchmarks.md: FerretDB pays per document decoded), so a
// request would pay hundreds of milliseconds over 100 projects. Why not a persisted package → projects index: it would
// be one more write per completed scan and per package, and its consistency with the inventories would need the same
// care as this cache, which needs none of it: inventories are immutable and already stored.
//
// Validity. An index records the organization's usages version it was built under (src/storage/usages.ts), read
// before anything else, and the scans it saw in flight (`pending`: head entries written, scan not completed yet, newer
// than their ecosystem's latest). A scan's publish writes its head entry, then a new version, then marks the scan
// completed. A read takes the index kept while the version is the same and every pending scan is still in flight:
//   - a scan completed since the index was built had its head entry written either after the index's heads were
//     read (then its version write came after the index's version read: the version differs), or before (then the
//     index saw it, completed, or pending, and its status is read again);
//   - a new project gets an inventory only through such a publish.
// So a read that starts after a scan is seen completed sees that scan's inventory. A change reads the version, the
// projects, each project's head entries again (one query each) and only the inventories of the (project, ecosystem)
// pairs whose latest scan changed (inventories are immutable and cached, src/storage/inventory.ts); the new index
// shares every other list with the old one. As a guard against writers that do not set the version (a worker of an
// older release during an upgrade), an index is also rebuilt after USAGES_INDEX_MAX_AGE_MS (default 10 minutes).
import { LRUCache } from 'lru-cache';
import { envInt } from '../../config';
import { UsageIndex, type UsageSource } from '../../domain/usages';
import type { Store } from '../../storage/mongo';
import { readInventory } from '../../storage/inventory';
import { orgProjectSlugs, orgUsagesVersion, projectInventories, scanStatuses } from '../../storage/usages';

interface Entry {
  index: UsageIndex;
  version: string | null;
  /** Tick of the local clock when the version read it was built under started. */
  tick: number;
  /** When it was built (ms): kept at most maxAge. */
  builtAt: number;
  pending: readonly string[];
}

const MAX_AGE_MS = envInt('USAGES_INDEX_MAX_AGE_MS', 10 * 60 * 1000, { min: 0 });
const entries = new LRUCache<string, Entry>({ max: 64 });
/** The refresh under way per organization, with the tick at which its version read started. */
const refreshing = new Map<string, { tick: number; done: Promise<Entry> }>();
// Orders reads within this process: a version read started after another one ended sees a version at least as new.
let clock = 0;

async function build(store: Store, orgId: string, base: Entry | undefined, tick: number): Promise<Entry> {
  const version = await orgUsagesVersion(store, orgId);
  const projects = await orgProjectSlugs(store, orgId);
  const states = await Promise.all(projects.map((p) => projectInventories(store, p.id)));
  const latest = new Set<string>();
  const pending: string[] = [];
  const wanted: Array<Omit<UsageSource, 'items' | 'names'>> = [];
  projects.forEach((p, i) => {
    pending.push(...states[i].pending);
    for (const [ecosystem, scanId] of Object.entries(states[i].latest)) {
      latest.add(`${p.id}\0${ecosystem}`);
      if (base?.index.scanOf(p.id, ecosystem) !== scanId)
        wanted.push({ projectId: p.id, projectSlug: p.slug, ecosystem, scanId });
    }
  });
  const added = await Promise.all(
    wanted.map(async (w) => ({ ...w, ...(await readInventory(store, w.scanId, w.ecosystem)) })),
  );
  const index = (base?.index ?? UsageIndex.EMPTY).next(added, (projectId, ecosystem) =>
    latest.has(`${projectId}\0${ecosystem}`),
  );
  return { index, version, tick, builtAt: Date.now(), pending };
}

/** Starts a refresh of the organization's index from the one kept (its unchanged sources are carried over). */
function refresh(store: Store, orgId: string): { tick: number; done: Promise<Entry> } {
  const tick = ++clock;
  const done = build(store, orgId, entries.get(orgId), tick).then((entry) => {
    const kept = entries.get(orgId);
    if (!kept || kept.tick < entry.tick) entries.set(orgId, entry);
    return entry;
  });
  const run = { tick, done };
  refreshing.set(orgId, run);
  const clear = () => {
    if (refreshing.get(orgId) === run) refreshing.delete(orgId);
  };
  done.then(clear, clear);
  return run;
}

/** The organization's where-used index, current for every scan completed before this call. */
export async function orgUsages(store: Store, orgId: string, now = Date.now()): Promise<UsageIndex> {
  const since = clock;
  const kept = entries.get(orgId);
  if (kept) {
    const [version, statuses] = await Promise.all([
      orgUsagesVersion(store, orgId),
      kept.pending.length ? scanStatuses(store, kept.pending) : undefined,
    ]);
    const inFlight = (id: string) => ['queued', 'running'].includes(statuses?.get(id) ?? '');
    if (version === kept.version && now - kept.builtAt < MAX_AGE_MS && kept.pending.every(inFlight)) return kept.index;
  }
  // A refresh whose version read started after this call began is at least as current as this call needs.
  const running = refreshing.get(orgId);
  const run = running && running.tick > since ? running : refresh(store, orgId);
  return (await run.done).index;
}

/** Forgets every kept index (tests). */
export function forgetUsageIndexes(): void {
  entries.clear();
}
