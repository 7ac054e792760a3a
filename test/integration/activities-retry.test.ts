// Activities retried (each step run twice, as Temporal does after a lost completion) against the real database:
// the scan ends with exactly the findings of a single run, no duplicates, no leftovers.
import fs from 'node:fs';
import path from 'node:path';
import { MockActivityEnvironment } from '@temporalio/testing';
import { createActivities } from '../../activities';
import { importAdvisories } from '../../src/advisories/import';
import { snapshotFromNpmLock } from '../../src/domain/snapshot';
import { createLogger } from '../../src/logger';
import { getScan } from '../../src/storage/scans';
import { readResults } from '../../src/storage/results';
import { bearer, newOrg, testContext, type TestContext } from '../helpers/context';
import { itWithSharedData, sharedDataDir } from '../helpers/shared-data';

const SHARED = sharedDataDir();
let t: TestContext;

beforeAll(async () => {
  t = await testContext(); // no worker polls this task queue: the test drives the activities itself
  await importAdvisories(t.store, [path.join(SHARED, 'advisories/npm')]);
});
afterAll(() => t.close());

itWithSharedData('every step run twice gives the same published findings as the fast path run once', async () => {
  const key = await (await newOrg(t.store)).key(['sca:upload', 'findings:read']);
  const lock = JSON.parse(
    fs.readFileSync(path.join(SHARED, 'lockfiles/npm/piscinajs__piscina__package-lock.json'), 'utf8'),
  );
  const body = {
    ...snapshotFromNpmLock(lock, { project: 'retry', includeDev: true }),
    suppressions: [{ cve: 'CVE-2024-37890', reason: 'known' }],
  };
  const a = (await t.api.post('/v1/scans/dependency-snapshots').set(bearer(key)).send(body)).body.id as string;
  const b = (await t.api.post('/v1/scans/dependency-snapshots').set(bearer(key)).send(body)).body.id as string;
  const acts = createActivities({ store: t.store, logger: createLogger('test', 'silent') });
  const env = new MockActivityEnvironment();

  for (let i = 0; i < 2; i++) await env.run(acts.prepareScan, { scanId: a });
  const prep = await env.run(acts.prepareScan, { scanId: a });
  for (let i = 0; i < 2; i++) await env.run(acts.matchAdvisories, { scanId: a, generation: prep.generation });
  for (let i = 0; i < 2; i++) await env.run(acts.derivePaths, { scanId: a });
  await env.run(acts.publishResults, { scanId: a, generation: prep.generation });
  // A retry of the last step after it already published (its completion was lost): nothing changes.
  expect(await env.run(acts.publishResults, { scanId: a, generation: prep.generation })).toEqual({
    findings: expect.any(Number),
    suppressed: 1,
  });
  await env.run(acts.scanSmall, { scanId: b });
  await env.run(acts.scanSmall, { scanId: b });

  const [sa, sb] = await Promise.all([getScan(t.store, a), getScan(t.store, b)]);
  expect(sa).toMatchObject({
    status: 'completed',
    findings: sb!.findings,
    suppressed: 1,
    advisoryGeneration: sb!.advisoryGeneration,
  });
  const strip = (fs_: Array<{ id: string; scanId: string }>) =>
    fs_.map(({ id: _i, scanId: _s, firstSeenAt: _f, ...rest }: any) => rest); // firstSeenAt: each run is the project's first sight, at its own time
  const ra = await readResults(t.store, a, sa!.resultChunks!);
  const rb = await readResults(t.store, b, sb!.resultChunks!);
  expect(strip(ra)).toEqual(strip(rb));
  expect(new Set(ra.map((f) => f.id)).size).toBe(ra.length);
  expect(await t.store.c.scanResults.countDocuments({ scanId: a })).toBe(sa!.resultChunks);
  expect(await t.store.c.scanWork.countDocuments({ scanId: a })).toBe(0);
});
