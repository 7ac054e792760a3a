// The snapshot's `metadata` (commit, ref, runUrl from the CI environment) is validated like any
// "text", echoed on the Scan (null when absent), and only its known fields are kept.
import { bearer, newOrg, testContext, type TestContext } from '../helpers/context';
import { v1Snapshot } from '../helpers/snapshots';
import { v2Snapshot } from '../helpers/v2';

let t: TestContext;
let key: string;
beforeAll(async () => {
  t = await testContext();
  key = await (await newOrg(t.store)).key(['sca:upload', 'scans:read']);
});
afterAll(() => t.close());

const metadata = {
  commit: '8f14e45fceea167a5a36dedd4bea2543c5e0a5a1',
  ref: 'refs/heads/main',
  runUrl: 'https://ci.example.test/acme/web/runs/42',
};

test.each([
  ['v1', () => v1Snapshot('meta-v1', { metadata: { ...metadata, runner: 'ignored' } })],
  [
    'v2',
    () => ({
      ...v2Snapshot([
        {
          module: ':',
          context: 'runtimeClasspath',
          vertices: [
            ['r', ':', 'a'],
            ['a', 'lodash@4.17.20'],
          ],
        },
      ]),
      project: 'meta-v2',
      metadata: { ...metadata, runner: 'ignored' },
    }),
  ],
])('%s: metadata is echoed on the Scan, in the upload answer, the scan and the list', async (_v, body) => {
  const up = await t.api.post('/v1/scans/dependency-snapshots').set(bearer(key)).send(body());
  expect(up.status).toBe(201);
  expect(up.body.metadata).toEqual(metadata);
  expect((await t.api.get(`/v1/scans/${up.body.id}`).set(bearer(key))).body.metadata).toEqual(metadata);
  const list = await t.api.get('/v1/scans').set(bearer(key));
  expect(list.body.scans.find((s: any) => s.id === up.body.id).metadata).toEqual(metadata);
});

test('no metadata: null; some fields: only those', async () => {
  const none = await t.api.post('/v1/scans/dependency-snapshots').set(bearer(key)).send(v1Snapshot('meta-none'));
  expect(none.body.metadata).toBeNull();
  const some = await t.api
    .post('/v1/scans/dependency-snapshots')
    .set(bearer(key))
    .send(v1Snapshot('meta-some', { metadata: { commit: 'abc' } }));
  expect(some.body.metadata).toEqual({ commit: 'abc' });
});

test.each([
  ['not an object', 'main'],
  ['an array', ['main']],
  ['a number as commit', { commit: 42 }],
  ['an empty ref', { ref: '' }],
  ['a control character', { ref: 'main\n' }],
  ['2,001 characters', { runUrl: `https://ci.example.test/${'x'.repeat(1977)}` }],
])('metadata with %s is 422 invalid_snapshot naming the field', async (_name, bad) => {
  const res = await t.api
    .post('/v1/scans/dependency-snapshots')
    .set(bearer(key))
    .send(v1Snapshot('meta-bad', { metadata: bad }));
  expect(res.status).toBe(422);
  expect(res.body.error).toEqual({ code: 'invalid_snapshot', message: expect.stringContaining('/metadata') });
});
