// The upload pool moves large bodies to its thread (no copy) and bounds its queue: past the threads and the queue a
// task is refused with 503 service_unavailable, never queued without end. Uses the built thread (dist/).
import { syntheticSnapshot } from '../../../src/domain/snapshot';
import { INLINE_LIMIT, uploadPreparer, type UploadPreparer } from '../../../src/pool/upload-pool';

const text = JSON.stringify(
  syntheticSnapshot({ schemaVersion: 1, nodes: 4000, roots: 10, depsPerNode: 3, project: 'pool' }),
);
/** A body in a buffer that owns its ArrayBuffer, as the upload route reads it. */
const body = () => {
  const b = Buffer.allocUnsafeSlow(Buffer.byteLength(text));
  b.write(text);
  return b;
};

let prep: UploadPreparer;
afterEach(() => prep?.close());

test('a large body is moved to the thread, not copied; a body sharing its memory is copied and left intact', async () => {
  expect(text.length).toBeGreaterThan(INLINE_LIMIT);
  prep = uploadPreparer(1, { maxQueue: 2 });
  const raw = body();
  const done = prep.prepare(raw);
  expect(raw.byteLength).toBe(0); // detached: its memory now belongs to the thread
  const out = await done;
  expect(out.bytes).toBe(Buffer.byteLength(text));
  expect(out.summary.stats.nodes).toBe(4000);

  const slab = Buffer.allocUnsafeSlow(Buffer.byteLength(text) + 16);
  slab.write(text, 8);
  const view = slab.subarray(8, 8 + Buffer.byteLength(text));
  expect((await prep.prepare(view)).bodyHash).toBe(out.bodyHash);
  expect(slab.byteLength).toBe(Buffer.byteLength(text) + 16);
});

test('past the threads and the queue: 503 service_unavailable at once; room again once tasks finish', async () => {
  prep = uploadPreparer(1, { maxQueue: 1 });
  const first = prep.prepare(body()); // the thread's
  const second = prep.prepare(body()); // the queue's
  await expect(prep.prepare(body())).rejects.toMatchObject({ status: 503, code: 'service_unavailable' });
  await Promise.all([first, second]);
  expect((await prep.prepare(body())).summary.project).toBe('pool');
});

test('small bodies are prepared inline, whatever the pool holds', async () => {
  prep = uploadPreparer(1, { maxQueue: 0 });
  const busy = prep.prepare(body());
  const small = Buffer.from(
    JSON.stringify(syntheticSnapshot({ schemaVersion: 1, nodes: 20, roots: 2, depsPerNode: 2, project: 'small' })),
  );
  expect((await prep.prepare(small)).summary.project).toBe('small');
  await expect(prep.prepare(body())).rejects.toMatchObject({ status: 503 });
  await busy;
});
