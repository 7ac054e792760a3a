// The API's ?wait= waiter races the workflow's close and the scan document's watch: the first to end ends the wait
// with what it read, and the others are told to stop (their long poll or reads cancelled).
import { firstWaiter } from '../../../src/scan-waiter';
import type { ScanWaiter } from '../../../src/ports';
import type { ScanDoc } from '../../../src/storage/documents/scans';

/** A waiter that ends when `end` is called or its signal aborts, recording which happened. */
function controlled() {
  const log: string[] = [];
  let end: (scan?: ScanDoc) => void = () => undefined;
  const w: ScanWaiter = {
    until: (scanId, _ms, signal) =>
      new Promise((resolve) => {
        end = (scan) => (log.push(`ended ${scanId}`), resolve(scan));
        signal?.addEventListener('abort', () => (log.push(`aborted ${scanId}`), resolve(undefined)), { once: true });
      }),
    close: () => log.push('closed'),
  };
  return { w, log, end: (scan?: ScanDoc) => end(scan) };
}

test('the first waiter to end answers with what it read; the other one is aborted', async () => {
  const a = controlled();
  const b = controlled();
  const wait = firstWaiter(a.w, b.w).until('scn_1', 60_000);
  const scan = { _id: 'scn_1', status: 'completed' } as ScanDoc;
  b.end(scan);
  expect(await wait).toBe(scan);
  expect(a.log).toEqual(['aborted scn_1']);
  expect(b.log[0]).toBe('ended scn_1'); // (then told to stop too, which an ended waiter ignores)
});

test("the caller's signal ends every waiter; close() closes every one", async () => {
  const a = controlled();
  const b = controlled();
  const both = firstWaiter(a.w, b.w);
  const ac = new AbortController();
  const wait = both.until('scn_2', 60_000, ac.signal);
  ac.abort();
  expect(await wait).toBeUndefined();
  expect([a.log, b.log]).toEqual([['aborted scn_2'], ['aborted scn_2']]);
  both.close();
  expect([a.log.at(-1), b.log.at(-1)]).toEqual(['closed', 'closed']);
});
