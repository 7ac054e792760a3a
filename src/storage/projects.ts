// Projects: found by id, or by slug within an organization; created on first upload.
import { newId } from '../domain/ids';
import type { ProjectDoc } from './documents';
import { isDuplicateKey, type Store } from './mongo';

export async function findProject(store: Store, orgId: string, ref: string): Promise<ProjectDoc | null> {
  if (ref.startsWith('prj_')) {
    const p = await store.c.projects.findOne({ _id: ref });
    return p && p.orgId === orgId ? p : null;
  }
  return store.c.projects.findOne({ orgId, slug: ref });
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
