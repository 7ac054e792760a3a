// An upload re-checks its credential before the scan is stored (beside the snapshot's write, for a known project):
// a key revoked while the upload is in flight gets 401 invalid_token, and nothing of the upload stays stored.
import { sha256Hex } from '../../src/domain/ids';
import { revokeApiKey } from '../../src/storage/api-keys';
import { bearer, newOrg, testContext, type TestContext } from '../helpers/context';
import { v1Snapshot } from '../helpers/snapshots';

let t: TestContext;
beforeAll(async () => {
  t = await testContext();
});
afterAll(() => t.close());

test.each([
  ['a known project', true],
  ['a new project', false],
])('a key revoked after authentication, uploading to %s: 401, no scan, no snapshot', async (_, known) => {
  const org = await newOrg(t.store);
  const key = await org.key(['sca:upload', 'scans:read']);
  const project = `recheck-${known ? 'known' : 'new'}`;
  if (known)
    expect((await t.api.post('/v1/scans/dependency-snapshots').set(bearer(key)).send(v1Snapshot(project))).status).toBe(
      201,
    );
  const before = await t.store.c.scans.countDocuments({ orgId: org.orgId });
  const snapshotsBefore = await t.store.c.snapshots.countDocuments({ orgId: org.orgId });

  // The seam: the upload's project lookup revokes the key once it has read the project (after authentication).
  const doc = (await t.store.c.apiKeys.findOne({ _id: sha256Hex(key) }))!;
  const original = t.store.c.projects.findOne.bind(t.store.c.projects);
  const spy = jest.spyOn(t.store.c.projects, 'findOne').mockImplementation((async (...args: unknown[]) => {
    const found = await (original as (...a: unknown[]) => Promise<unknown>)(...args);
    await revokeApiKey(t.store, org.orgId, doc.id);
    return found;
  }) as never);
  try {
    const res = await t.api.post('/v1/scans/dependency-snapshots').set(bearer(key)).send(v1Snapshot(project));
    expect(res.status).toBe(401);
    expect(res.body.error.code).toBe('invalid_token');
  } finally {
    spy.mockRestore();
  }
  expect(await t.store.c.scans.countDocuments({ orgId: org.orgId })).toBe(before);
  expect(await t.store.c.snapshots.countDocuments({ orgId: org.orgId })).toBe(snapshotsBefore);
});
