// The worker's deep check of a stored snapshot: a body stored with the SHA-256 of what the upload validated is checked
// against it (not validated again); one that differs fails the scan's preparation as invalid; a body stored by an
// earlier version, without the hash, is validated again in full.
import { gzipSync } from 'node:zlib';
import { MockActivityEnvironment } from '@temporalio/testing';
import { ApplicationFailure } from '@temporalio/common';
import { Binary } from 'mongodb';
import { createActivities } from '../../activities';
import { sha256Hex } from '../../src/domain/ids';
import { createLogger } from '../../src/logger';
import { bearer, newOrg, testContext, type TestContext } from '../helpers/context';
import { v1Snapshot } from '../helpers/snapshots';

let t: TestContext;
let key: string;
const acts = () => createActivities({ store: t.store, logger: createLogger('test', 'silent') });

beforeAll(async () => {
  t = await testContext(); // no worker polls this task queue: the test drives the activities itself
  key = await (await newOrg(t.store)).key(['sca:upload']);
});
afterAll(() => t.close());

async function upload(project: string): Promise<string> {
  const res = await t.api.post('/v1/scans/dependency-snapshots').set(bearer(key)).send(v1Snapshot(project));
  expect(res.status).toBe(201);
  return res.body.id;
}

async function prepareFailure(scanId: string): Promise<ApplicationFailure> {
  const err = await new MockActivityEnvironment().run(acts().prepareScan, { scanId }).then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ApplicationFailure);
  return err as ApplicationFailure;
}

test('an untouched body is the one validated: its hash is stored with it and the scan prepares', async () => {
  const scanId = await upload('untouched');
  const doc = await t.store.c.snapshots.findOne({ _id: scanId });
  const { gunzipSync } = await import('node:zlib');
  expect(doc!.sha256).toBe(sha256Hex(gunzipSync(Buffer.from(doc!.data.buffer))));
  const prep = await new MockActivityEnvironment().run(acts().prepareScan, { scanId });
  expect(prep).toMatchObject({ ecosystem: 'javascript', schemaVersion: 1 });
});

test('a body that differs from the one validated (even a valid one) fails as invalid, not retried', async () => {
  const scanId = await upload('tampered');
  const other = Buffer.from(JSON.stringify(v1Snapshot('tampered', { metadata: { commit: 'f00' } })));
  await t.store.c.snapshots.updateOne({ _id: scanId }, { $set: { data: new Binary(gzipSync(other)) } });
  const err = await prepareFailure(scanId);
  expect(err.type).toBe('invalid_snapshot');
  expect(err.nonRetryable).toBe(true);
  expect(err.message).toMatch(/not the one validated at upload/);
});

test('a body stored without its hash (an earlier version) is validated again: an invalid one fails', async () => {
  const valid = await upload('legacy-valid');
  await t.store.c.snapshots.updateOne({ _id: valid }, { $unset: { sha256: '' } });
  expect(await new MockActivityEnvironment().run(acts().prepareScan, { scanId: valid })).toMatchObject({
    schemaVersion: 1,
  });

  const invalid = await upload('legacy-invalid');
  const broken = Buffer.from(JSON.stringify({ ...v1Snapshot('legacy-invalid'), nodes: 'not a list' }));
  await t.store.c.snapshots.updateOne(
    { _id: invalid },
    { $set: { data: new Binary(gzipSync(broken)) }, $unset: { sha256: '' } },
  );
  const err = await prepareFailure(invalid);
  expect(err.type).toBe('invalid_snapshot');
});
