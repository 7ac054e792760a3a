// Advisory generations: an import writes every chunk of a new immutable generation, then flips one pointer
// document. A scan pins the generation current when it starts, so it never sees a half-applied import.
import { createHash } from 'node:crypto';
import { newId } from '../domain/ids';
import type { OsvAdvisory } from '../shared/types';
import { packJson, unpackJson } from './codec';
import type { AdvisoryGenerationDoc } from './documents/advisories';
import type { Store } from './mongo';

const POINTER_ID = 'advisoryGeneration';
export const ADVISORY_CHUNK_SIZE = 1000;

export async function currentGeneration(store: Store): Promise<string | null> {
  const doc = await store.c.settings.findOne({ _id: POINTER_ID });
  return doc ? String(doc.value) : null;
}

export const getGeneration = (store: Store, id: string) => store.c.advisoryGenerations.findOne({ _id: id });

/** Digest of a generation's content: the same advisories give the same digest, whatever their order. */
export function advisoryDigest(advisories: OsvAdvisory[]): string {
  const h = createHash('sha256');
  for (const a of [...advisories].sort((x, y) => (x.id < y.id ? -1 : x.id > y.id ? 1 : 0)))
    h.update(JSON.stringify(a)).update('\n');
  return h.digest('hex');
}

export async function writeGeneration(
  store: Store,
  advisories: OsvAdvisory[],
  meta: { previous: string | null; counts: Record<string, number>; sources: string[] },
): Promise<AdvisoryGenerationDoc> {
  const id = newId('adv');
  const chunks = Math.max(1, Math.ceil(advisories.length / ADVISORY_CHUNK_SIZE));
  for (let n = 0; n < chunks; n++) {
    const part = advisories.slice(n * ADVISORY_CHUNK_SIZE, (n + 1) * ADVISORY_CHUNK_SIZE);
    await store.c.advisoryChunks.insertOne({ _id: `${id}:${n}`, generation: id, n, data: await packJson(part) });
  }
  const doc: AdvisoryGenerationDoc = {
    _id: id,
    createdAt: new Date(),
    previous: meta.previous,
    advisoryCount: advisories.length,
    chunks,
    digest: advisoryDigest(advisories),
    counts: meta.counts,
    sources: meta.sources,
  };
  await store.c.advisoryGenerations.insertOne(doc);
  // The flip: one single-document write makes the whole generation visible at once.
  await store.c.settings.updateOne({ _id: POINTER_ID }, { $set: { value: id } }, { upsert: true });
  return doc;
}

export async function loadGeneration(store: Store, id: string): Promise<OsvAdvisory[]> {
  const gen = await getGeneration(store, id);
  if (!gen) throw new Error(`advisory generation ${id} not found`);
  const parts = await Promise.all(
    Array.from({ length: gen.chunks }, async (_, n) => {
      const doc = await store.c.advisoryChunks.findOne({ _id: `${id}:${n}` });
      if (!doc) throw new Error(`advisory chunk ${id}:${n} missing`);
      return unpackJson<OsvAdvisory[]>(doc.data);
    }),
  );
  return parts.flat();
}
