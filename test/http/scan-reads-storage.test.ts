// A paged scan's stored attributions on the real database, at sizes the HTTP tests do not reach: a package whose
// attributions span several list chunks and many path chunks (by count and by bytes), many packages written in
// several bulk round trips, scope lists and module counts, and a shard output larger than one stored part.
import { attributionId, type AttributionListItem, type AttributionPathItem } from '../../src/domain/attribution/views';
import {
  AttributionWriter,
  clearAttributions,
  getShardOutput,
  LIST_CHUNK_ITEMS,
  PATH_CHUNK_ITEMS,
  putShardOutput,
  readAttributionPath,
  readModuleCounts,
  readPackageAttributions,
  readScope,
  SCOPE_BUCKETS,
  scopeBucket,
  SHARD_PART_BYTES,
  shardMeta,
} from '../../src/storage/attributions';
import { testContext, type TestContext } from '../helpers/context';

let t: TestContext;
beforeAll(async () => {
  t = await testContext();
});
afterAll(() => t.close());

function attribution(
  pkg: string,
  i: number,
  originCount = 2,
): { item: AttributionListItem; path: AttributionPathItem } {
  const module = `:m${i}`;
  const origins = Array.from({ length: originCount }, (_, k) => ({
    module: `:o${k}`,
    dependency: `d${k}@1`,
    path: [`:o${k}`, `d${k}@1`, pkg],
  }));
  return {
    // (the list item keeps two origins whatever the path item holds: only the path chunks are to grow by bytes here)
    item: {
      id: attributionId(pkg, module, 'c'),
      module,
      context: 'c',
      relationship: 'transitive',
      origins: origins.slice(0, 2).map(({ module: m, dependency }) => ({ module: m, dependency })),
    },
    path: { path: [module, `x${i}@1`, pkg], origins },
  };
}

test('one package over several list chunks and many path chunks reads back whole, every path from its chunk', async () => {
  const scanId = 'scn_storage_big';
  const pkg = 'big@1';
  const n = LIST_CHUNK_ITEMS * 2 + 500;
  // every 97th attribution has many origins, so path chunks are cut by bytes too, not only by count
  const atts = Array.from({ length: n }, (_, i) => attribution(pkg, i, i % 97 === 0 ? 10_000 : 2));
  const w = new AttributionWriter(t.store, scanId);
  await w.putPackage(
    pkg,
    atts.map((a) => a.item),
    atts.map((a) => a.path),
  );
  await w.close();
  const head = await t.store.c.scanAttributions.findOne({ _id: { $regex: `^${scanId}:list:` } as never });
  expect(head).toBeTruthy();
  const lists = await t.store.c.scanAttributions.countDocuments({ scanId, _id: { $regex: ':list:' } as never });
  const paths = await t.store.c.scanAttributions.countDocuments({ scanId, _id: { $regex: ':path:' } as never });
  expect(lists).toBe(3);
  expect(paths).toBeGreaterThan(Math.ceil(n / PATH_CHUNK_ITEMS)); // more than by count alone: some cut by bytes

  const read = await readPackageAttributions(t.store, scanId, pkg);
  expect(read.items).toEqual(atts.map((a) => a.item));
  expect(read.pathStarts.length).toBe(paths);
  for (const i of [0, 1, 96, 97, 98, PATH_CHUNK_ITEMS - 1, PATH_CHUNK_ITEMS, LIST_CHUNK_ITEMS, n - 1]) {
    expect(read.positions.get(atts[i].item.id)).toBe(i);
    expect(await readAttributionPath(t.store, scanId, pkg, read, i)).toEqual(atts[i].path);
  }
  // a package without attributions reads as empty
  expect((await readPackageAttributions(t.store, scanId, 'none@1')).items).toEqual([]);
  await clearAttributions(t.store, scanId);
  expect(await t.store.c.scanAttributions.countDocuments({ scanId })).toBe(0);
}, 60_000);

test('many packages, scope lists and module counts in several bulk round trips; read back as written', async () => {
  const scanId = 'scn_storage_many';
  const w = new AttributionWriter(t.store, scanId);
  for (let p = 0; p < 700; p++) {
    const pkg = `p${p}@1`;
    const a = attribution(pkg, p);
    await w.putPackage(pkg, [a.item], [a.path]);
  }
  await w.putScopes([
    { view: 'introduced', kind: 'team', key: 'platform', pairs: Int32Array.of(3, 2, 9, 1) },
    ...Array.from({ length: 300 }, (_, m) => ({
      view: 'affected' as const,
      kind: 'module' as const,
      key: `:m${m}`,
      pairs: Int32Array.of(m, 1),
    })),
  ]);
  await w.putModuleCounts([{ critical: 1, high: 0, medium: 2, low: 0, suppressed: 1 }]);
  await w.close();
  const scopeDocs = await t.store.c.scanAttributions.countDocuments({ scanId, _id: { $regex: ':scope:' } as never });
  // the 300 module lists in as many documents as their buckets (at most SCOPE_BUCKETS), the one team list alone
  const moduleBuckets = new Set(Array.from({ length: 300 }, (_, m) => scopeBucket(`:m${m}`))).size;
  expect(moduleBuckets).toBeLessThanOrEqual(SCOPE_BUCKETS);
  expect(scopeDocs).toBe(moduleBuckets + 1);
  const total = 700 * 2 + scopeDocs + 1;
  expect(await t.store.c.scanAttributions.countDocuments({ scanId })).toBe(total);
  for (const p of [0, 499, 500, 699]) {
    const read = await readPackageAttributions(t.store, scanId, `p${p}@1`);
    expect(read.items).toEqual([attribution(`p${p}@1`, p).item]);
    expect(await readAttributionPath(t.store, scanId, `p${p}@1`, read, 0)).toEqual(attribution(`p${p}@1`, p).path);
  }
  expect(Array.from(await readScope(t.store, scanId, 'introduced', 'team', 'platform'))).toEqual([3, 2, 9, 1]);
  expect(Array.from(await readScope(t.store, scanId, 'affected', 'team', 'platform'))).toEqual([]);
  for (const m of [0, 1, 150, 299])
    expect(Array.from(await readScope(t.store, scanId, 'affected', 'module', `:m${m}`))).toEqual([m, 1]);
  expect(Array.from(await readScope(t.store, scanId, 'affected', 'module', ':m300'))).toEqual([]);
  expect(await readModuleCounts(t.store, scanId)).toEqual([{ critical: 1, high: 0, medium: 2, low: 0, suppressed: 1 }]);
  // an attempt running beside this one writes the same documents: those that exist are kept, nothing doubles
  const beside = new AttributionWriter(t.store, scanId);
  await beside.putPackage('p0@1', [attribution('p0@1', 0).item], [attribution('p0@1', 0).path]);
  await beside.putPackage('p700@1', [attribution('p700@1', 700).item], [attribution('p700@1', 700).path]);
  await beside.close();
  expect(await t.store.c.scanAttributions.countDocuments({ scanId })).toBe(total + 2);
  // a retried completion starts from nothing
  const retried = new AttributionWriter(t.store, scanId);
  await retried.start();
  expect(await t.store.c.scanAttributions.countDocuments({ scanId })).toBe(0);
}, 60_000);

test('a shard output larger than a stored part is stored in parts and read back exactly; the head marks it stored', async () => {
  const scanId = 'scn_storage_shard';
  const data = new Int32Array(SHARD_PART_BYTES / 4 + 12345);
  for (let i = 0; i < data.length; i++) data[i] = (i * 2654435761) | 0;
  expect(await shardMeta(t.store, scanId, 3)).toBeNull();
  await putShardOutput(t.store, scanId, 3, data.subarray(0), { segments: 7, characters: 70 });
  expect(await shardMeta(t.store, scanId, 3)).toEqual({ segments: 7, characters: 70, parts: 2 });
  const back = await getShardOutput(t.store, scanId, 3);
  expect(back.length).toBe(data.length);
  expect(Buffer.from(back.buffer).equals(Buffer.from(data.buffer))).toBe(true);
  await putShardOutput(t.store, scanId, 4, new Int32Array(0), { segments: 0, characters: 0 });
  expect((await getShardOutput(t.store, scanId, 4)).length).toBe(0);
  await expect(getShardOutput(t.store, scanId, 5)).rejects.toThrow('attribution shard 5 of scn_storage_shard missing');
}, 60_000);
