// Property test at the HTTP boundary: thousands of malformed and mutated snapshots thrown at the upload route.
// Whatever the body, the answer is 201 or the 413/422 error envelope: never a 5xx, never another shape.
import fc from 'fast-check';
import { bearer, newOrg, testContext, type TestContext } from '../helpers/context';
import { v1Snapshot } from '../helpers/snapshots';
import { v2 } from '../unit/snapshot/fixtures';
import { apply, mutation } from '../unit/snapshot/mutations';

let t: TestContext;
let key: string;

beforeAll(async () => {
  t = await testContext();
  key = await (await newOrg(t.store)).key(['sca:upload']);
});
afterAll(() => t.close());

const seen = new Map<number, number>();

async function check(body: string): Promise<void> {
  const res = await t.api
    .post('/v1/scans/dependency-snapshots')
    .set(bearer(key))
    .set('Content-Type', 'application/json')
    .send(body);
  seen.set(res.status, (seen.get(res.status) ?? 0) + 1);
  expect(res.headers['x-request-id']).toBeTruthy();
  if (res.status === 201) {
    expect(res.body).toMatchObject({ id: expect.stringMatching(/^scn_/), status: 'queued' });
    return;
  }
  expect([413, 422]).toContain(res.status);
  expect(res.body).toEqual({
    error: {
      code: res.status === 413 ? 'snapshot_too_large' : expect.stringMatching(/^(invalid_snapshot|unknown_project)$/),
      message: expect.any(String),
    },
  });
}

test('arbitrary JSON bodies and arbitrary bytes', async () => {
  await fc.assert(
    fc.asyncProperty(fc.jsonValue({ maxDepth: 5 }), (v) => check(JSON.stringify(v) ?? 'null')),
    { numRuns: 500 },
  );
  await fc.assert(
    fc.asyncProperty(fc.string({ maxLength: 200 }), (s) => check(s)),
    { numRuns: 300 },
  );
}, 120_000);

test.each([
  ['v1', () => v1Snapshot('fuzz-v1')],
  ['v2', () => ({ ...v2(), project: 'fuzz-v2' })],
])(
  'mutations of a valid %s snapshot',
  async (_, base) => {
    await fc.assert(
      fc.asyncProperty(fc.array(mutation, { minLength: 1, maxLength: 4 }), async (ms) => {
        let doc = structuredClone(base()) as unknown;
        for (const m of ms) doc = apply(doc, m);
        await check(JSON.stringify(doc) ?? 'null');
      }),
      { numRuns: 600 },
    );
  },
  180_000,
);

afterAll(() => {
  // Both outcomes must have been exercised, or the property proved little.
  expect(seen.get(201) ?? 0).toBeGreaterThan(0);
  expect(seen.get(422) ?? 0).toBeGreaterThan(0);
});
