// Size limits of the OSV reader, on real files and zip archives made here: declared sizes are checked before
// anything is read, read bytes are counted, and every refusal fails the whole source and names the limit.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {
  readOsvSources,
  readLimits,
  DEFAULT_READ_LIMITS,
  type OsvItem,
  type ReadLimits,
} from '../../../src/advisories/reader';
import { makeZip, osvText as osv } from '../../helpers/osv-zip';

let dir: string;

async function collect(paths: string[], limits: Partial<ReadLimits> = {}): Promise<OsvItem[]> {
  const out: OsvItem[] = [];
  for await (const item of readOsvSources(paths, limits)) out.push(item);
  return out;
}
const ids = (items: OsvItem[]) => items.map((i) => ('error' in i ? `ERROR ${i.kind}` : i.advisory.id));

beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'osv-limits-'));
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

test('defaults: 64 MiB an entry, 2 GiB a source, a million entries; the environment overrides, a bad value is refused', () => {
  expect(DEFAULT_READ_LIMITS).toEqual({
    maxEntryBytes: 64 * 1024 ** 2,
    maxTotalBytes: 2 * 1024 ** 3,
    maxEntries: 1_000_000,
  });
  expect(
    readLimits({ ADVISORY_MAX_ENTRY_BYTES: '1024', ADVISORY_MAX_TOTAL_BYTES: '', ADVISORY_MAX_ENTRIES: '7' }),
  ).toEqual({ maxEntryBytes: 1024, maxTotalBytes: 2 * 1024 ** 3, maxEntries: 7 });
  expect(readLimits({ ADVISORY_MAX_ENTRY_BYTES: '1024' }, { maxEntryBytes: 10 }).maxEntryBytes).toBe(10);
  expect(() => readLimits({ ADVISORY_MAX_TOTAL_BYTES: '2GB' })).toThrow(
    'ADVISORY_MAX_TOTAL_BYTES must be a whole number of at least 1, got "2GB"',
  );
  expect(() => readLimits({ ADVISORY_MAX_ENTRIES: '0' })).toThrow(/ADVISORY_MAX_ENTRIES/);
});

test('with the default limits, an entry whose central directory declares 400 MB is refused before any entry is read', async () => {
  // The data is a few bytes: reading it would end in a size mismatch, not in this refusal. The good entry comes
  // first and is not yielded either: the central directory is surveyed whole before anything is inflated.
  const file = makeZip(
    path.join(dir, 'declared', 'all.zip'),
    { 'A-1.json': osv('A-1'), 'BIG.json': osv('BIG') },
    { 'BIG.json': 400_000_000 },
  );
  const items = await collect([file]);
  expect(items).toEqual([
    {
      source: file,
      error: 'entry BIG.json declares 400000000 bytes, over the limit of 64 MiB (ADVISORY_MAX_ENTRY_BYTES)',
      kind: 'source',
    },
  ]);
});

test('an entry above a small configured limit fails its archive; the same archive passes a larger limit', async () => {
  const file = makeZip(path.join(dir, 'entry', 'all.zip'), {
    'A-1.json': osv('A-1'),
    'B-2.json': osv('B-2', 2000),
    'C-3.json': osv('C-3'),
  });
  expect(await collect([file], { maxEntryBytes: 1024 })).toEqual([
    {
      source: file,
      error: expect.stringMatching(
        /^entry B-2\.json declares \d+ bytes, over the limit of 1 KiB \(ADVISORY_MAX_ENTRY_BYTES\)$/,
      ),
      kind: 'source',
    },
  ]);
  expect(ids(await collect([file], { maxEntryBytes: 4096 }))).toEqual(['A-1', 'B-2', 'C-3']);
});

test('an entry that inflates past the size it declares is stopped while inflating (validateEntrySizes)', async () => {
  const file = makeZip(
    path.join(dir, 'lying', 'all.zip'),
    { 'A-1.json': osv('A-1'), 'LIE.json': osv('LIE', 50_000), 'C-3.json': osv('C-3') },
    { 'LIE.json': 100 },
  );
  const items = await collect([file]);
  const lie = items.find((i) => i.source.endsWith('!LIE.json'));
  expect(lie).toEqual({
    source: `${file}!LIE.json`,
    error: expect.stringMatching(/^inflates to more than the 100 bytes it declares: a corrupt or hostile archive/),
    kind: 'source',
  });
  // Stopped at the first inflated chunk past the declaration, not after the whole 50 kB.
  expect(Number(/got at least (\d+)/.exec((lie as { error: string }).error)?.[1])).toBeLessThan(50_000);
  expect(ids(items)).toEqual(['A-1', 'ERROR source', 'C-3']);
});

test('entries adding up past the total limit fail the archive before any is read', async () => {
  const file = makeZip(path.join(dir, 'total', 'all.zip'), {
    'A-1.json': osv('A-1', 600),
    'B-2.json': osv('B-2', 600),
    'C-3.json': osv('C-3', 600),
  });
  expect(await collect([file], { maxEntryBytes: 1024, maxTotalBytes: 1500 })).toEqual([
    {
      source: file,
      error: "the source's files add up to more than the limit of 1500 bytes (ADVISORY_MAX_TOTAL_BYTES)",
      kind: 'source',
    },
  ]);
});

test('the total holds across a directory source, its files and the archives in it', async () => {
  const d = path.join(dir, 'tree');
  fs.mkdirSync(d, { recursive: true });
  fs.writeFileSync(path.join(d, 'a.json'), osv('D-A', 600));
  makeZip(path.join(d, 'b.zip'), { 'B-1.json': osv('D-B', 600) });
  fs.writeFileSync(path.join(d, 'c.json'), osv('D-C', 600));
  const items = await collect([d], { maxTotalBytes: 1500 });
  expect(ids(items)).toEqual(['D-A', 'D-B', 'ERROR source']);
  expect(items[2]).toMatchObject({
    source: path.join(d, 'c.json'),
    error: expect.stringContaining('ADVISORY_MAX_TOTAL_BYTES'),
  });
  // Each path is a source of its own: the same files given one by one pass.
  expect(
    ids(
      await collect([path.join(d, 'a.json'), path.join(d, 'b.zip'), path.join(d, 'c.json')], { maxTotalBytes: 1500 }),
    ),
  ).toEqual(['D-A', 'D-B', 'D-C']);
});

test('a plain file above the entry limit is refused by its size, before it is read', async () => {
  const file = path.join(dir, 'big.json');
  fs.writeFileSync(file, osv('BIG', 5000));
  expect(await collect([file], { maxEntryBytes: 1024 })).toEqual([
    {
      source: file,
      error: `is ${fs.statSync(file).size} bytes, over the limit of 1 KiB (ADVISORY_MAX_ENTRY_BYTES)`,
      kind: 'source',
    },
  ]);
});

test('a file without a size (a device) is counted while read and stopped at the limit', async () => {
  expect(await collect(['/dev/zero'], { maxEntryBytes: 64 * 1024 })).toEqual([
    {
      source: '/dev/zero',
      error: 'more than 64 KiB once read, over the limit (ADVISORY_MAX_ENTRY_BYTES)',
      kind: 'source',
    },
  ]);
});

test('an archive with more entries than allowed is refused from its central directory', async () => {
  const file = makeZip(
    path.join(dir, 'many', 'all.zip'),
    Object.fromEntries([1, 2, 3, 4, 5].map((i) => [`E-${i}.json`, osv(`E-${i}`)])),
  );
  expect(await collect([file], { maxEntries: 3 })).toEqual([
    { source: file, error: 'holds 5 entries, over the limit of 3 (ADVISORY_MAX_ENTRIES)', kind: 'source' },
  ]);
  expect(ids(await collect([file], { maxEntries: 5 }))).toHaveLength(5);
});
