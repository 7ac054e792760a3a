// The pure parts of webhook deliveries: the event body, delivery ids, what ends a delivery.
import { newId } from '../../../src/domain/ids';
import {
  deliveryHeaders,
  deliveryId,
  delivered,
  eventBody,
  statusError,
} from '../../../src/domain/webhooks/deliveries';

test('the body is {id, type, createdAt, data: {scan}} in that key order, whatever order the fields came in', () => {
  const scan = { id: 'scn_1', status: 'completed', findings: { critical: 0, high: 1, medium: 0, low: 0 } };
  const body = eventBody({
    data: { scan },
    createdAt: '2026-01-02T03:04:05.000Z',
    type: 'scan.completed',
    id: 'evt_x',
  } as never);
  expect(body).toBe(
    `{"id":"evt_x","type":"scan.completed","createdAt":"2026-01-02T03:04:05.000Z","data":{"scan":${JSON.stringify(scan)}}}`,
  );
  expect(JSON.parse(body)).toEqual({
    id: 'evt_x',
    type: 'scan.completed',
    createdAt: '2026-01-02T03:04:05.000Z',
    data: { scan },
  });
});

test('a delivery id is the same for the same event and webhook, different for another, and shaped like other ids', () => {
  const evt = newId('evt');
  const a = deliveryId(evt, 'whk_a');
  expect(deliveryId(evt, 'whk_a')).toBe(a);
  expect(deliveryId(evt, 'whk_b')).not.toBe(a);
  expect(deliveryId(newId('evt'), 'whk_a')).not.toBe(a);
  expect(a).toMatch(/^dlv_[0-9a-hjkmnp-tv-z]{22}$/);
  expect(a.length).toBe(newId('dlv').length);
  // Its time part is the event's: deliveries sort by event time as every id sorts by creation time.
  expect(a.slice(4, 14)).toBe(evt.slice(4, 14));
  const older = deliveryId(newId('evt', Date.parse('2026-01-01T00:00:00Z')), 'whk_z');
  const newer = deliveryId(newId('evt', Date.parse('2026-01-01T00:00:01Z')), 'whk_a');
  expect(older < newer).toBe(true);
});

test.each([
  'evt_',
  'scn_01hx0000000000000000000000',
  'evt_0123456789abcdefghijkl0',
  'evt_0123456789ABCDEFGHJKMN',
  'evt_0123456789abcdefghijku',
])('%p is not an event id', (id) => {
  expect(() => deliveryId(id, 'whk_a')).toThrow('not an event id');
});

test('only 2xx ends a delivery', () => {
  expect([199, 200, 204, 299, 300, 301, 404, 500].map(delivered)).toEqual([
    false,
    true,
    true,
    true,
    false,
    false,
    false,
    false,
  ]);
  expect(statusError(503)).toBe('HTTP 503');
});

test('the headers of a delivery', () => {
  expect(deliveryHeaders('scan.failed', 'dlv_1', 't=1,v1=ab')).toEqual({
    'X-Svc-Event': 'scan.failed',
    'X-Svc-Delivery': 'dlv_1',
    'X-Svc-Signature': 't=1,v1=ab',
  });
});
