// The streaming OSV reader: .json/.yaml files (one advisory or an array), directories (recursively, sorted) and
// .zip archives. Bad input is reported as an item with a reason; reading goes on.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { readOsvSources, type OsvError, type OsvItem } from '../../../src/advisories/reader';

let dir: string;
let aside: string; // archives made by single tests, outside the directory the other tests list

/** Writes a zip with python3's zipfile (deflated); `damage` names entries whose local header signature is zeroed. */
function makeZip(file: string, entries: Record<string, string>, damage: string[] = []): void {
  const script = `
import json, sys, zipfile
file, entries, damage = sys.argv[1], json.loads(sys.argv[2]), json.loads(sys.argv[3])
with zipfile.ZipFile(file, 'w', zipfile.ZIP_DEFLATED) as z:
    for name, text in entries.items():
        z.writestr(name, text)
offsets = {i.filename: i.header_offset for i in zipfile.ZipFile(file).infolist()}
with open(file, 'r+b') as f:
    for name in damage:
        f.seek(offsets[name]); f.write(b'\\0\\0\\0\\0')
`;
  fs.mkdirSync(path.dirname(file), { recursive: true });
  execFileSync('python3', ['-c', script, file, JSON.stringify(entries), JSON.stringify(damage)]);
}

const osv = (id: string) =>
  JSON.stringify({ id, modified: '2024-01-01T00:00:00Z', affected: [{ package: { ecosystem: 'npm', name: 'x' } }] });
const write = (rel: string, text: string | Buffer) => {
  fs.mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true });
  fs.writeFileSync(path.join(dir, rel), text);
};

/** One line per item: "<id> <source relative to base>" or "ERROR <source>". */
async function collect(paths: string[], base = dir): Promise<string[]> {
  const out: string[] = [];
  for await (const item of readOsvSources(paths) as AsyncGenerator<OsvItem>) {
    const [file, entry] = item.source.split('!');
    const where = path.relative(base, file) + (entry === undefined ? '' : `!${entry}`);
    out.push('error' in item ? `ERROR ${where}` : `${item.advisory.id} ${where}`);
  }
  return out;
}

async function errorsOf(paths: string[]): Promise<OsvError[]> {
  const out: OsvError[] = [];
  for await (const item of readOsvSources(paths)) if ('error' in item) out.push(item);
  return out;
}

beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'osv-reader-'));
  aside = fs.mkdtempSync(path.join(os.tmpdir(), 'osv-reader-aside-'));
  write('good.json', osv('GHSA-good'));
  write('bad.json', '{"id": "GHSA-bad", ');
  write(
    'adv.yaml',
    'id: PYSEC-2021-1\nmodified: 2021-01-01T00:00:00Z\npublished: 2021-01-01\naliases:\n  - CVE-2021-1\naffected:\n  - package: {ecosystem: PyPI, name: x}\n',
  );
  write('list.json', `[${osv('GHSA-list0')}, 42, ${osv('GHSA-list2')}]`);
  write('notes.txt', 'not an advisory');
  write('deeper/more/deep.yml', 'id: GHSA-deep\n');
  write('empty.yaml', '');
  makeZip(path.join(dir, 'sub', 'nested.zip'), {
    'A-1.json': osv('ZIP-A'),
    'vulns/pkg/B-2.yaml': 'id: ZIP-B\n',
    'broken.json': '[',
    'README.md': '# not read',
    'pair.json': `[${osv('ZIP-P0')},${osv('ZIP-P1')}]`,
  });
  write('corrupt.zip', Buffer.from('PK\u0003\u0004 this is not really a zip archive at all'));
});

afterAll(() => {
  fs.rmSync(dir, { recursive: true, force: true });
  fs.rmSync(aside, { recursive: true, force: true });
});

test('a directory: every advisory yielded in sorted order, bad files reported, reading continues', async () => {
  expect(await collect([dir])).toEqual([
    'PYSEC-2021-1 adv.yaml',
    'ERROR bad.json',
    'ERROR corrupt.zip',
    'GHSA-deep deeper/more/deep.yml',
    'ERROR empty.yaml',
    'GHSA-good good.json',
    'GHSA-list0 list.json[0]',
    'ERROR list.json[1]',
    'GHSA-list2 list.json[2]',
    'ZIP-A sub/nested.zip!A-1.json',
    'ZIP-B sub/nested.zip!vulns/pkg/B-2.yaml',
    'ERROR sub/nested.zip!broken.json',
    'ZIP-P0 sub/nested.zip!pair.json[0]',
    'ZIP-P1 sub/nested.zip!pair.json[1]',
  ]);
});

test('YAML scalars stay strings and structure is kept', async () => {
  const items: OsvItem[] = [];
  for await (const item of readOsvSources([path.join(dir, 'adv.yaml')])) items.push(item);
  expect(items).toEqual([
    {
      source: path.join(dir, 'adv.yaml'),
      advisory: {
        id: 'PYSEC-2021-1',
        modified: '2021-01-01T00:00:00Z',
        published: '2021-01-01',
        aliases: ['CVE-2021-1'],
        affected: [{ package: { ecosystem: 'PyPI', name: 'x' } }],
      },
    },
  ]);
});

test('errors carry the source and a reason', async () => {
  const errors = await errorsOf([dir]);
  const by = (suffix: string) => errors.find((e) => e.source.endsWith(suffix))!;
  expect(by('bad.json')).toMatchObject({ error: expect.stringMatching(/^invalid JSON: /), kind: 'file' });
  expect(by('list.json[1]')).toMatchObject({ error: 'not an OSV advisory object', kind: 'record' });
  expect(by('empty.yaml')).toMatchObject({ error: 'not an OSV advisory object', kind: 'record' });
  expect(by('corrupt.zip')).toMatchObject({
    error: expect.stringMatching(/^unreadable zip archive: /),
    kind: 'source',
  });
  expect(by('nested.zip!broken.json')).toMatchObject({
    source: path.join(dir, 'sub', 'nested.zip') + '!broken.json',
    error: expect.stringMatching(/^invalid JSON: /),
    kind: 'file',
  });
  expect(errors).toHaveLength(5);
});

test('a corrupt or missing path is reported, not thrown, and the next path is still read', async () => {
  const missing = path.join(dir, 'missing.json');
  expect(await collect([path.join(dir, 'corrupt.zip'), missing, path.join(dir, 'good.json')])).toEqual([
    'ERROR corrupt.zip',
    'ERROR missing.json',
    'GHSA-good good.json',
  ]);
  const [err] = await errorsOf([missing]);
  expect(err).toMatchObject({ error: expect.stringMatching(/ENOENT/), kind: 'source' });
});

test('a zip with one damaged entry: that entry is reported, the others are still read', async () => {
  const file = path.join(aside, 'damaged', 'd.zip');
  makeZip(file, { 'a.json': osv('D-A'), 'b.json': osv('D-B'), 'c.json': osv('D-C') }, ['b.json']);
  expect(await collect([file], aside)).toEqual([
    'D-A damaged/d.zip!a.json',
    'ERROR damaged/d.zip!b.json',
    'D-C damaged/d.zip!c.json',
  ]);
  const [err] = await errorsOf([file]);
  expect(err).toMatchObject({ error: expect.stringMatching(/local file header/i), kind: 'source' }); // the archive is damaged: its source is not applied
});

test('a truncated zip archive is reported as unreadable', async () => {
  const file = path.join(aside, 'trunc', 't.zip');
  makeZip(file, { 'a.json': osv('T-A'), 'b.json': osv('T-B') });
  const bytes = fs.readFileSync(file);
  fs.writeFileSync(file, bytes.subarray(0, bytes.length - 30));
  const errors = await errorsOf([file]);
  expect(errors).toHaveLength(1);
  expect(errors[0]).toEqual({
    source: file,
    error: expect.stringMatching(/^unreadable zip archive: /),
    kind: 'source',
  });
});

test('a file given directly is read whatever its extension; a zip given directly is streamed', async () => {
  expect(await collect([path.join(dir, 'sub', 'nested.zip')])).toHaveLength(5);
  expect(await collect([path.join(dir, 'notes.txt')])).toEqual(['ERROR notes.txt']);
});

test('a JSON file that does not parse says so and names the file, also when it is empty', async () => {
  const empty = path.join(aside, 'empty.json');
  fs.writeFileSync(empty, '');
  expect(await errorsOf([empty, path.join(dir, 'bad.json')])).toEqual([
    { source: empty, error: 'invalid JSON: the file is empty', kind: 'file' },
    { source: path.join(dir, 'bad.json'), error: expect.stringMatching(/^invalid JSON: /), kind: 'file' },
  ]);
});
