// What the where-used index (src/http/usages/index-cache.ts) reads and validates itself with: a per-organization
// version of its inventories, the organization's projects, each project's latest completed scan per ecosystem with the
// scans still in flight that could displace it, and the status of those scans. Also the slugs of projects by id
// (remembered: a slug never changes), for the advisory page's projects (src/http/advisories/routes.ts).
//
// The version is a settings document set to a fresh value when a scan's inventory is written, after its head entry
// and before the scan is marked completed (activities/scan-steps.ts publish). So a reader that read the version before
// some head entry was written sees another version at its next read once that scan can have completed; a head entry
// it did see, of a scan not completed then, is one of the `pending` scans whose status it reads again.
import { randomBytes } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import type { InventoryHeadDoc } from './documents/inventory';
import { isDuplicateKey, type Store } from './mongo';

const versionId = (orgId: string) => `usagesVersion:${orgId}`;

/** A scan of the organization is about to publish its inventory: a new value of its usages version. */
export async function touchOrgUsages(store: Store, orgId: string): Promise<void> {
  const value = `${Date.now()}:${randomBytes(8).toString('hex')}`;
  try {
    await store.c.settings.updateOne({ _id: versionId(orgId) }, { $set: { value } }, { upsert: true });
  } catch (err) {
    // two first upserts raced to insert it: the loser writes again
    if (!isDuplicateKey(err)) throw err;
    await store.c.settings.updateOne({ _id: versionId(orgId) }, { $set: { value } });
  }
}

/** The organization's usages version (null: no inventory written since versions exist). */
export async function orgUsagesVersion(store: Store, orgId: string): Promise<string | null> {
  const doc = await store.c.settings.findOne({ _id: versionId(orgId) });
  return doc ? String(doc.value) : null;
}

/** Every project of an organization: id and slug (top-level equality). */
export async function orgProjectSlugs(store: Store, orgId: string): Promise<Array<{ id: string; slug: string }>> {
  const docs = await store.c.projects.find({ orgId }, { projection: { _id: 1, slug: 1 } }).toArray();
  return docs.map((p) => ({ id: p._id, slug: p.slug }));
}

// Completed and failed are terminal: a status once seen as either never changes, so it is remembered.
const terminal = new LRUCache<string, 'completed' | 'failed'>({ max: 50_000 });

/** The status of some scans (null: no such scan), read now unless terminal before. */
export async function scanStatuses(store: Store, ids: readonly string[]): Promise<Map<string, string | null>> {
  const out = new Map<string, string | null>();
  await Promise.all(
    ids.map(async (id) => {
      const known = terminal.get(id);
      if (known) return out.set(id, known);
      const doc = await store.c.scans.findOne({ _id: id }, { projection: { status: 1 } });
      const status = doc?.status ?? null;
      if (status === 'completed' || status === 'failed') terminal.set(id, status);
      out.set(id, status);
    }),
  );
  return out;
}

/** A project's inventories as the index takes them. */
export interface ProjectInventories {
  /** The latest completed scan of each ecosystem (newest startedAt, then id), by ecosystem. */
  latest: Record<string, string>;
  /** Scans not terminal yet that would become the latest of their ecosystem if they completed. */
  pending: string[];
}

/** Newest first: startedAt descending, then id descending (the inventory's and the scan list's order). */
function newestFirst(a: InventoryHeadDoc, b: InventoryHeadDoc): number {
  return b.startedAt.getTime() - a.startedAt.getTime() || (a._id < b._id ? 1 : a._id > b._id ? -1 : 0);
}

/**
 * The latest completed scan of each ecosystem of a project, as src/storage/inventory.ts latestInventories finds it
 * (the head entries of its project, their scans' statuses), and the scans in flight newer than it.
 */
export async function projectInventories(store: Store, projectId: string): Promise<ProjectInventories> {
  const heads = (await store.c.inventoryHeads.find({ projectId }).toArray()).sort(newestFirst);
  const statuses = await scanStatuses(
    store,
    heads.map((h) => h._id),
  );
  const latest: Record<string, string> = {};
  const pending: string[] = [];
  for (const h of heads) {
    if (h.ecosystem in latest) continue; // older than the latest completed: never the latest again
    const status = statuses.get(h._id);
    if (status === 'completed') latest[h.ecosystem] = h._id;
    else if (status === 'queued' || status === 'running') pending.push(h._id);
  }
  return { latest, pending };
}

// A project's slug never changes once created (projects are neither renamed nor deleted): remembered by id.
const slugs = new LRUCache<string, string>({ max: 100_000 });

/** The slugs of some projects of an organization, by id (projects of another organization are left out). */
export async function projectSlugs(store: Store, orgId: string, ids: readonly string[]): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  await Promise.all(
    ids.map(async (id) => {
      const known = slugs.get(`${orgId}\0${id}`);
      if (known !== undefined) return out.set(id, known);
      const doc = await store.c.projects.findOne({ _id: id }, { projection: { orgId: 1, slug: 1 } });
      if (!doc || doc.orgId !== orgId) return;
      slugs.set(`${orgId}\0${id}`, doc.slug);
      out.set(id, doc.slug);
    }),
  );
  return out;
}
