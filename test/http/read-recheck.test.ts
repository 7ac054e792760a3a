// Reads re-check their credential after loading the data, just before answering: a session revoked
// while the read is in flight gets 401 invalid_token, not the data.
import type { Collection, Document } from 'mongodb';
import { revokeSession } from '../../src/storage/accounts';
import { forgetListGroups } from '../../src/storage/scan-list-cache';
import { bearer, newOrg, testContext, type TestContext } from '../helpers/context';
import { v1Snapshot } from '../helpers/snapshots';

let t: TestContext;
beforeAll(async () => {
  t = await testContext();
});
afterAll(() => t.close());

/**
 * The seam: the route's load (the first `method` call on `coll` whose filter `matches`; findOne also goes through
 * find, as authentication's does) revokes the session once its data has been read, so that only a check made after
 * the load can see the revocation. A cursor counts as read when toArray returns or its iteration ends.
 */
function revokeAfterLoad(
  coll: Collection<any>,
  method: 'find' | 'findOne',
  token: string,
  matches: (filter: Document) => boolean,
) {
  let revoked: Promise<boolean> | undefined;
  const revoke = () => (revoked ??= revokeSession(t.store, token));
  const original = (coll[method] as (...args: unknown[]) => any).bind(coll);
  const seam = { loaded: false, spy: jest.spyOn(coll, method) };
  seam.spy.mockImplementation(((filter: Document, ...rest: unknown[]) => {
    const result = original(filter, ...rest);
    if (seam.loaded || !matches(filter ?? {})) return result;
    seam.loaded = true;
    if (method === 'findOne') return result.then(async (doc: Document | null) => (await revoke(), doc));
    const toArray = result.toArray.bind(result);
    result.toArray = async () => {
      const docs = await toArray();
      await revoke();
      return docs;
    };
    const iterate = result[Symbol.asyncIterator].bind(result);
    result[Symbol.asyncIterator] = async function* () {
      try {
        yield* iterate();
      } finally {
        await revoke();
      }
    };
    return result;
  }) as any);
  return seam;
}

/** The read with the seam in place gets 401 invalid_token; the owner's session, untouched, still reads. */
async function expectRevokedMidRead(
  path: string,
  token: string,
  ownerToken: string,
  seam: ReturnType<typeof revokeAfterLoad>,
) {
  try {
    const res = await t.api.get(path).set(bearer(token));
    expect(seam.loaded).toBe(true);
    expect({ status: res.status, body: res.body }).toEqual({
      status: 401,
      body: { error: { code: 'invalid_token', message: expect.any(String) } },
    });
  } finally {
    seam.spy.mockRestore();
  }
  expect((await t.api.get(path).set(bearer(ownerToken))).status).toBe(200); // only that session ended
}

const reads: [string, string, (s: TestContext['store']) => Collection<any>, 'find' | 'findOne'][] = [
  ['GET /v1/me', '/v1/me', (s) => s.c.orgs, 'findOne'],
  ['GET /v1/api-keys', '/v1/api-keys', (s) => s.c.apiKeys, 'find'],
  ['GET /v1/members', '/v1/members', (s) => s.c.members, 'find'], // authentication's member lookup has no orgId
  ['GET /v1/invitations', '/v1/invitations', (s) => s.c.invitations, 'find'],
  ['GET /v1/audit-events', '/v1/audit-events', (s) => s.c.auditEvents, 'find'],
];

describe.each(reads)('%s', (_, path, collection, method) => {
  test('a session revoked while the read is in flight gets 401 invalid_token', async () => {
    const org = await newOrg(t.store);
    const admin = await org.session('admin');
    await t.api
      .post('/v1/invitations')
      .set(bearer(org.ownerToken))
      .send({ email: `recheck-${Date.now()}@example.test`, role: 'member' }); // something to list
    await t.api
      .post('/v1/api-keys')
      .set(bearer(org.ownerToken))
      .send({ name: 'ci', scopes: ['scans:read'], projects: 'all' });
    expect((await t.api.get(path).set(bearer(admin))).status).toBe(200);

    await expectRevokedMidRead(
      path,
      admin,
      org.ownerToken,
      revokeAfterLoad(collection(t.store), method, admin, (filter) => method === 'findOne' || 'orgId' in filter),
    );
  });
});

// The scan reads too: the list, one scan, its findings (a queued scan: no worker polls this test's task queue).
const scanReads: [string, (scanId: string) => string, 'find' | 'findOne'][] = [
  ['GET /v1/scans', () => '/v1/scans', 'find'],
  ['GET /v1/scans/:scanId', (id) => `/v1/scans/${id}`, 'findOne'],
  ['GET /v1/scans/:scanId/findings', (id) => `/v1/scans/${id}/findings`, 'findOne'],
];

describe.each(scanReads)('%s', (_, pathOf, method) => {
  test('a session revoked while the read is in flight gets 401 invalid_token', async () => {
    const org = await newOrg(t.store);
    const admin = await org.session('admin');
    const key = await org.key(['sca:upload']);
    const upload = await t.api.post('/v1/scans/dependency-snapshots').set(bearer(key)).send(v1Snapshot('recheck'));
    expect(upload.status).toBe(201);
    const path = pathOf(upload.body.id);
    expect((await t.api.get(path).set(bearer(admin))).status).toBe(200);
    await forgetListGroups(t.store); // the list would answer from the groups it kept (storage/scan-list-cache.ts): load them again

    await expectRevokedMidRead(
      path,
      admin,
      org.ownerToken,
      revokeAfterLoad(t.store.c.scans, method, admin, (filter) =>
        method === 'find' ? 'orgId' in filter : filter._id === upload.body.id,
      ),
    );
  });
});
