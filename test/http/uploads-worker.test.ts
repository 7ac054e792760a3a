// A multipart upload's scan, end to end in the real worker: the scan reads its snapshot from the upload's parts
// (activities/inputs.ts) and completes with the findings the same graph gives when uploaded inline.
import path from 'node:path';
import { importAdvisories } from '../../src/advisories/import';
import type { Snapshot } from '../../src/shared/types';
import { startTestWorker, type TestWorker } from '../helpers/worker';
import { installRuntime } from '../../workers/temporal-runtime';
import { bearer, newOrg, testContext, type TestContext } from '../helpers/context';
import { v2Snapshot } from '../helpers/v2';
import { prng, splitInto } from '../unit/domain/parts-helpers';
import { uploadClient } from './uploads-helpers';
import { itWithSharedData, sharedDataDir } from '../helpers/shared-data';

const SHARED = sharedDataDir();

let t: TestContext;
let key: string;
let worker: TestWorker | undefined;

beforeAll(async () => {
  installRuntime('error');
  t = await testContext();
  expect((await importAdvisories(t.store, [path.join(SHARED, 'advisories/maven')])).rejected).toEqual([]);
  key = await (await newOrg(t.store)).key(['sca:upload', 'scans:read', 'findings:read']);
  worker = await startTestWorker(t);
}, 120_000);

afterAll(async () => {
  await worker?.stop();
  await t?.close();
});

const JACKSON = 'com.fasterxml.jackson.core:jackson-databind@2.13.3';
const SNAKEYAML = 'org.yaml:snakeyaml@1.30';

/** :app depends on :lib; :lib declares jackson-databind; :app declares snakeyaml and gets jackson through :lib. */
function monorepo(project: string): Snapshot {
  return v2Snapshot(
    [
      {
        module: ':app',
        context: 'runtimeClasspath',
        vertices: [
          ['r', ':app', 'lib', 'y'],
          ['lib', ':lib', 'j'],
          ['j', JACKSON, 'a'],
          ['a', 'com.fasterxml.jackson.core:jackson-annotations@2.13.3'],
          ['y', SNAKEYAML],
        ],
      },
      {
        module: ':lib',
        context: 'runtimeClasspath',
        vertices: [
          ['r', ':lib', 'j'],
          ['j', JACKSON, 'a'],
          ['a', 'com.fasterxml.jackson.core:jackson-annotations@2.13.3'],
        ],
      },
      {
        module: ':lib',
        context: 'testRuntimeClasspath',
        vertices: [
          ['r', ':lib', 'j'],
          ['j', JACKSON],
        ],
      },
    ],
    [
      { path: ':app', dependencies: [':lib'], teamName: 'web' },
      { path: ':lib', dependencies: [], teamName: 'platform', attributes: { tier: 'backend' } },
    ],
    {
      project,
      suppressions: [{ cve: 'CVE-2022-25857', reason: 'yaml input is trusted' }],
      metadata: { commit: 'f00d' },
    },
  );
}

async function finished(id: string): Promise<Record<string, any>> {
  for (;;) {
    const got = await t.api.get(`/v1/scans/${id}?wait=30`).set(bearer(key));
    if (got.body.status === 'completed' || got.body.status === 'failed') return got.body;
  }
}

/** What a finding is, apart from its scan (ids, attributions and the like are the processing's business). */
async function findings(id: string): Promise<string[]> {
  const res = await t.api.get(`/v1/scans/${id}/findings?limit=200&suppressed=all`).set(bearer(key));
  expect(res.status).toBe(200);
  return res.body.findings
    .map((f: Record<string, any>) =>
      JSON.stringify([
        f.cve,
        f.package,
        f.installedVersion,
        f.severity,
        f.fixedVersion,
        f.path,
        f.suppressed,
        f.suppressionReason,
      ]),
    )
    .sort();
}

itWithSharedData(
  'a multipart upload is scanned from its parts: completed, with the findings of the same graph uploaded inline',
  async () => {
    const inline = await t.api.post('/v1/scans/dependency-snapshots').set(bearer(key)).send(monorepo('inline'));
    expect(inline.status).toBe(201);
    const s = monorepo('in-parts');
    const { completion } = await uploadClient(t, () => key).all(s, splitInto(s, 3, prng(5)));
    expect(completion.status).toBe(201);
    expect(completion.body).toMatchObject({ status: 'queued', attributionMode: 'paged', moduleCount: 2 });

    const [a, b] = await Promise.all([finished(inline.body.id), finished(completion.body.id)]);
    expect(a.status).toBe('completed');
    expect(b).toMatchObject({
      status: 'completed',
      attributionMode: 'paged',
      moduleCount: 2,
      modules: [],
      metadata: { commit: 'f00d' },
    });
    expect(b.findings).toEqual(a.findings);
    expect(b.suppressed).toEqual(a.suppressed);
    expect(b.suppressed).toBeGreaterThan(0); // the create body's suppressions were applied
    const expected = await findings(inline.body.id);
    expect(expected.some((f) => f.includes('jackson-databind'))).toBe(true);
    expect(await findings(completion.body.id)).toEqual(expected);
  },
);
