// An alert's history keeps at most `cap` events: past it, the oldest are folded into one `summarised` event (counts by
// type and the time they span), repeatedly, and a retried write adds nothing.
import { alertEvents, writeAlertEvents } from '../../src/storage/alerts';
import { testContext, type TestContext } from '../helpers/context';

let t: TestContext;
beforeAll(async () => {
  t = await testContext();
});
afterAll(() => t.close());

test('past the cap, the oldest events are summarised in one event; nothing is lost from the counts', async () => {
  const cap = 5;
  const at = (seq: number) => new Date(Date.UTC(2026, 0, 1, 0, seq)).toISOString();
  for (let seq = 2; seq <= 13; seq++) {
    const type = seq % 2 ? ('fixed' as const) : ('reopened' as const);
    const events = [{ alertId: 'alr_cap', type, at: at(seq), scanId: `scn_${seq}`, details: {} }];
    await writeAlertEvents(t.store, 'org_cap', seq, events, cap);
    await writeAlertEvents(t.store, 'org_cap', seq, events, cap); // a retry
  }
  const kept = await alertEvents(t.store, ['alr_cap']);
  expect(kept).toHaveLength(cap);
  const summary = kept.find((e) => e.type === 'summarised')!;
  const rest = kept.filter((e) => e.type !== 'summarised').sort((a, b) => a.seq - b.seq);
  expect(rest.map((e) => e.seq)).toEqual([10, 11, 12, 13]);
  // 12 events written: 4 kept, 8 summarised (seq 2 to 9).
  expect(summary.details).toEqual({
    events: 8,
    byType: { reopened: 4, fixed: 4 },
    from: at(2),
    to: at(9),
  });
});
