// Projects: found by id, or by slug within an organization; created on first upload; listed by slug.
import { newId } from '../domain/ids';
import { compareCodePoints } from '../shared/inventory-ids';
import type { ProjectDoc } from './documents/scans';
import { isDuplicateKey, type Store } from './mongo';

export async function findProject(store: Store, orgId: string, ref: string): Promise<ProjectDoc | null> {
  if (ref.startsWith('prj_')) {
    const p = await store.c.projects.findOne({ _id: ref });
    return p && p.orgId === orgId ? p : null;
  }
  return store.c.projects.findOne({ orgId, slug: ref });
}

/** Sets the project's default branch; the project as it is then, or null when it is not there. */
export async function setDefaultBranch(store: Store, project: ProjectDoc, branch: string): Promise<ProjectDoc | null> {
  await store.c.projects.updateOne({ _id: project._id, orgId: project.orgId }, { $set: { defaultBranch: branch } });
  return store.c.projects.findOne({ _id: project._id });
}

/** Creates the project for a slug, or returns the one a concurrent upload created first (unique orgId+slug). */
export async function createProject(store: Store, orgId: string, slug: string): Promise<ProjectDoc> {
  const doc: ProjectDoc = { _id: newId('prj'), orgId, slug, createdAt: new Date() };
  try {
    await store.c.projects.insertOne(doc);
    return doc;
  } catch (err) {
    if (!isDuplicateKey(err)) throw err;
    const existing = await store.c.projects.findOne({ orgId, slug });
    if (!existing) throw err;
    return existing;
  }
}

export async function findProjectsByIds(store: Store, orgId: string, ids: string[]): Promise<ProjectDoc[]> {
  const found = await Promise.all(ids.map((id) => store.c.projects.findOne({ _id: id })));
  return found.filter((p): p is ProjectDoc => !!p && p.orgId === orgId);
}

/**
 * A page of an organization's projects by slug in code-point order, after `after` (a slug), at most `limit` + 1 of
 * them (one more tells whether a next page exists). `ids`: a project restriction (only those projects).
 */
export async function listProjects(
  store: Store,
  orgId: string,
  q: { ids: string[] | null; after?: string; limit: number },
): Promise<ProjectDoc[]> {
  let docs: ProjectDoc[];
  if (q.ids) docs = await findProjectsByIds(store, orgId, q.ids);
  else {
    // MongoDB compares strings by their UTF-8 bytes, which is code-point order (FerretDB too); sorted again below.
    docs = await store.c.projects
      .find({ orgId, ...(q.after !== undefined ? { slug: { $gt: q.after } } : {}) })
      .sort({ slug: 1 })
      .limit(q.limit + 1)
      .toArray();
  }
  return docs
    .filter((p) => q.after === undefined || compareCodePoints(p.slug, q.after) > 0)
    .sort((a, b) => compareCodePoints(a.slug, b.slug))
    .slice(0, q.limit + 1);
}

/** The slugs of some projects of an organization by id, in one query (another organization's are left out). */
export async function projectSlugsByIds(
  store: Store,
  orgId: string,
  ids: readonly string[],
): Promise<Map<string, string>> {
  if (!ids.length) return new Map();
  const docs = await store.c.projects
    .find({ _id: { $in: [...ids] }, orgId }, { projection: { _id: 1, slug: 1 } })
    .toArray();
  return new Map(docs.map((d) => [d._id, d.slug]));
}
