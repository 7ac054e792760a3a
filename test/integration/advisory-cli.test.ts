// Exit codes and messages of `scanner advisories import` and `sync` as an operator runs them (compiled CLI): a
// failed file or source exits non-zero with a message naming it; rejected records alone do not.
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { requireEnv, testContext, type TestContext } from '../helpers/context';
import { startHttpsServer, type TestHttpsServer } from '../helpers/https-server';
import { makeZip, osvText as osv } from '../helpers/osv-zip';

const BIN = path.resolve(__dirname, '../../bin/scanner.js');

let t: TestContext;
let env: NodeJS.ProcessEnv;
let dir: string;
let server: TestHttpsServer;
let zipBytes: Buffer;

beforeAll(async () => {
  const dbName = `advcli_${randomBytes(4).toString('hex')}`;
  t = await testContext({ dbName });
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'adv-cli-'));
  zipBytes = fs.readFileSync(makeZip(path.join(dir, 'served.zip'), { 'GHSA-served.json': osv('GHSA-served') }));
  server = await startHttpsServer((req, res) =>
    req.url === '/all.zip' ? res.end(zipBytes) : res.writeHead(404).end(),
  );
  env = {
    ...process.env,
    MONGODB_URI: requireEnv('MONGODB_URI'),
    MONGODB_DB: dbName,
    DATA_DIR: dir,
    NODE_EXTRA_CA_CERTS: server.caFile,
  };
  for (const k of Object.keys(env)) if (k.startsWith('ADVISORY_')) delete env[k];
});
afterAll(async () => {
  await server.close();
  await t.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

/** Runs the CLI; resolves with its exit code and output whatever the code. */
function scanner(
  args: string[],
  extraEnv: NodeJS.ProcessEnv = {},
): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) =>
    execFile(process.execPath, [BIN, ...args], { env: { ...env, ...extraEnv } }, (err, stdout, stderr) =>
      resolve({ code: err ? ((err as { code?: number }).code ?? -1) : 0, stdout, stderr }),
    ),
  );
}

test('a file that does not parse: skipped, named, and the import exits 1; the good file is applied', async () => {
  const d = path.join(dir, 'mixed');
  fs.mkdirSync(d);
  fs.writeFileSync(path.join(d, 'good.json'), osv('GHSA-good'));
  fs.writeFileSync(path.join(d, 'broken.json'), '{"id": "GHSA-xxxx", ');
  fs.writeFileSync(path.join(d, 'empty.json'), '');
  const r = await scanner(['advisories', 'import', d, '--json']);
  expect(r.code).toBe(1);
  const out = JSON.parse(r.stdout);
  expect(out).toMatchObject({ new: 1, rejected: [], failedSources: [] });
  expect(out.failedFiles).toEqual([
    { source: path.join(d, 'broken.json'), reason: expect.stringMatching(/^invalid JSON: /) },
    { source: path.join(d, 'empty.json'), reason: 'invalid JSON: the file is empty' },
  ]);
  expect(r.stderr).toContain('advisories import: 0 source(s) failed, 2 file(s) failed');
  const text = await scanner(['advisories', 'import', d]);
  expect(text.code).toBe(1);
  expect(text.stdout).toContain(`failed file ${path.join(d, 'empty.json')}: invalid JSON: the file is empty`);
  expect(text.stdout).toMatch(/failed files 2, failed sources 0/);
});

test('records that are not advisories are rejected and counted, and the import still exits 0', async () => {
  const file = path.join(dir, 'list.json');
  fs.writeFileSync(file, `[${osv('GHSA-list')}, 42, {"no": "id"}]`);
  const r = await scanner(['advisories', 'import', file]);
  expect(r).toMatchObject({ code: 0, stderr: '' });
  expect(r.stdout).toMatch(/rejected 2, failed files 0, failed sources 0/);
  expect(r.stdout).toContain(`rejected ${file}[1]: not an OSV advisory object`);
});

test('the issue: a zip entry declaring 400 MB is refused with the default limit, before it is read, and exits 1', async () => {
  const file = makeZip(
    path.join(dir, 'big', 'all.zip'),
    { 'GHSA-a.json': osv('GHSA-a'), 'GHSA-big.json': osv('GHSA-big') },
    { 'GHSA-big.json': 400_000_000 },
  );
  const r = await scanner(['advisories', 'import', file]);
  expect(r.code).toBe(1);
  expect(r.stdout).toContain(
    `FAILED  ${file}: entry GHSA-big.json declares 400000000 bytes, over the limit of 64 MiB (ADVISORY_MAX_ENTRY_BYTES)`,
  );
  expect(r.stdout).not.toMatch(/Unexpected end of JSON input/);
  expect(r.stderr).toContain('advisories import: 1 source(s) failed, 0 file(s) failed');
});

test('limits come from the environment: an entry over ADVISORY_MAX_ENTRY_BYTES fails its source; a bad value is refused', async () => {
  const file = makeZip(path.join(dir, 'env', 'all.zip'), { 'GHSA-pad.json': osv('GHSA-pad', 2000) });
  const r = await scanner(['advisories', 'import', file, '--json'], { ADVISORY_MAX_ENTRY_BYTES: '1024' });
  expect(r.code).toBe(1);
  expect(JSON.parse(r.stdout).failedSources).toEqual([
    {
      source: file,
      reason: expect.stringMatching(
        /^entry GHSA-pad\.json declares \d+ bytes, over the limit of 1 KiB \(ADVISORY_MAX_ENTRY_BYTES\)$/,
      ),
    },
  ]);
  expect(await scanner(['advisories', 'import', file], { ADVISORY_MAX_ENTRY_BYTES: '64MB' })).toMatchObject({
    code: 1,
    stderr: expect.stringContaining('ADVISORY_MAX_ENTRY_BYTES must be a whole number of at least 1, got "64MB"'),
  });
  expect((await scanner(['advisories', 'import', file])).code).toBe(0);
});

test('a missing path is a failed source', async () => {
  const r = await scanner(['advisories', 'import', path.join(dir, 'nope.json')]);
  expect(r.code).toBe(1);
  expect(r.stdout).toMatch(/FAILED {2}\S+nope\.json: ENOENT/);
});

test('sync: an https source exits 0; http is refused from arguments and from ADVISORY_SOURCES; a download over the limit exits 1', async () => {
  expect(await scanner(['advisories', 'sync', `${server.base}/all.zip`])).toMatchObject({
    code: 0,
    stdout: expect.stringContaining(`applied ${server.base}/all.zip (1 attempt)`),
  });
  const plain = `http://127.0.0.1:${new URL(server.base).port}/all.zip`;
  const arg = await scanner(['advisories', 'sync', plain, `${server.base}/all.zip`]);
  expect(arg.code).toBe(1);
  expect(arg.stdout).toContain(`FAILED  ${plain}: ${plain}: only https:// URLs are accepted (http:// is refused)`);
  expect(arg.stdout).toContain(`applied ${server.base}/all.zip`);
  const configured = await scanner(['advisories', 'sync'], { ADVISORY_SOURCES: `${server.base}/all.zip ${plain}` });
  expect(configured).toMatchObject({ code: 1, stdout: '' });
  expect(configured.stderr).toContain(
    `ADVISORY_SOURCES: ${plain}: only https:// URLs are accepted (http:// is refused)`,
  );
  const big = await scanner(['advisories', 'sync', `${server.base}/all.zip`], { ADVISORY_MAX_DOWNLOAD_BYTES: '100' });
  expect(big.code).toBe(1);
  expect(big.stdout).toContain(
    `Content-Length ${zipBytes.length} bytes is over the limit of 100 bytes (ADVISORY_MAX_DOWNLOAD_BYTES)`,
  );
});
