// The MCP registry: one entry per (organization, identity), upserted by identity. The entry's _id is
// derived from both (mre_ + 22 hex digits of their SHA-256), so two concurrent upserts of one identity write the same
// document: an insert race ends in a duplicate _id, which FerretDB does enforce (it does not reliably enforce unique
// secondary indexes, README "Local database caveat"), and the loser's write becomes an update. A deleted entry's
// identity upserted again gets the same id back.
import { sha256Hex } from '../domain/ids';
import { isDuplicateKey, type Store } from './mongo';
import type { McpRegistryEntryDoc } from './documents/mcp';

export const registryEntryId = (orgId: string, identity: string): string =>
  `mre_${sha256Hex(`${orgId}\0${identity}`).slice(0, 22)}`;

export type RegistryPosition = [identity: string, id: string];

export interface RegistryUpsert {
  identity: string;
  versions: string[] | null;
  decision: 'allow' | 'deny';
  note: string | null;
}

/** Ordered by identity (one entry each), then id. */
export async function listRegistry(
  store: Store,
  orgId: string,
  o: { after?: RegistryPosition; limit: number },
): Promise<McpRegistryEntryDoc[]> {
  const filter = o.after
    ? { orgId, $or: [{ identity: { $gt: o.after[0] } }, { identity: o.after[0], _id: { $gt: o.after[1] } }] }
    : { orgId };
  return store.c.mcpRegistry.find(filter).sort({ identity: 1, _id: 1 }).limit(o.limit).toArray();
}

/** Upserts every entry (last writer wins per identity); the entries as stored, in the order given. */
export async function upsertRegistry(
  store: Store,
  orgId: string,
  entries: RegistryUpsert[],
  updatedBy: string,
  now = new Date(),
): Promise<McpRegistryEntryDoc[]> {
  const docs: McpRegistryEntryDoc[] = entries.map((e) => ({
    _id: registryEntryId(orgId, e.identity),
    orgId,
    identity: e.identity,
    versions: e.versions,
    decision: e.decision,
    note: e.note,
    updatedBy,
    updatedAt: now,
  }));
  await Promise.all(
    docs.map(async ({ _id, ...fields }) => {
      try {
        await store.c.mcpRegistry.updateOne({ _id }, { $set: fields }, { upsert: true });
      } catch (err) {
        if (!isDuplicateKey(err)) throw err;
        await store.c.mcpRegistry.updateOne({ _id }, { $set: fields }); // another upsert inserted it meanwhile
      }
    }),
  );
  return docs;
}

export async function deleteRegistryEntry(
  store: Store,
  orgId: string,
  id: string,
): Promise<McpRegistryEntryDoc | null> {
  const doc = await store.c.mcpRegistry.findOne({ _id: id });
  if (!doc || doc.orgId !== orgId) return null;
  const r = await store.c.mcpRegistry.deleteOne({ _id: id, orgId });
  return r.deletedCount === 1 ? doc : null;
}

/** The organization's entries for these identities (all of them when `identities` is undefined). */
export async function registryRules(
  store: Store,
  orgId: string,
  identities?: readonly string[],
): Promise<McpRegistryEntryDoc[]> {
  const filter = identities ? { orgId, identity: { $in: [...new Set(identities)] } } : { orgId };
  return store.c.mcpRegistry.find(filter).toArray();
}
