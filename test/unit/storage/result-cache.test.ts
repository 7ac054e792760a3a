// The per-process result caches are bounded by bytes (storage/results.ts), whatever the number of scans read.
import { byteBoundedCache, type Sized } from '../../../src/storage/results';

interface Loads {
  calls: string[];
  sizes: Record<string, number>;
  fail?: string;
}

const cacheOf = (maxBytes: number) =>
  byteBoundedCache<{ key: string }, Loads>(maxBytes, async (key, loads): Promise<Sized<{ key: string }>> => {
    loads.calls.push(key);
    if (loads.fail === key) throw new Error(`load of ${key} failed`);
    return { value: { key }, bytes: loads.sizes[key] ?? 10 };
  });

test('least recently used entries go once the byte budget is exceeded', async () => {
  const cache = cacheOf(100);
  const loads: Loads = { calls: [], sizes: { a: 40, b: 40, c: 40 } };
  await cache.get('a', loads);
  await cache.get('b', loads);
  await cache.get('a', loads); // a is now the most recent
  await cache.get('c', loads); // 120 bytes: b goes
  expect(cache.calculatedSize()).toBeLessThanOrEqual(100);
  loads.calls = [];
  await cache.get('a', loads);
  await cache.get('c', loads);
  expect(loads.calls).toEqual([]);
  await cache.get('b', loads);
  expect(loads.calls).toEqual(['b']);
  expect(cache.calculatedSize()).toBeLessThanOrEqual(100);
});

test('an entry larger than the whole budget is returned but not kept', async () => {
  const cache = cacheOf(100);
  const loads: Loads = { calls: [], sizes: { small: 30, huge: 101 } };
  await cache.get('small', loads);
  expect(await cache.get('huge', loads)).toEqual({ key: 'huge' });
  expect(await cache.get('huge', loads)).toEqual({ key: 'huge' });
  expect(loads.calls).toEqual(['small', 'huge', 'huge']);
  expect(cache.calculatedSize()).toBe(30); // the small entry was not pushed out for it
  await cache.get('small', loads);
  expect(loads.calls).toHaveLength(3);
});

test('concurrent reads share one load; a failed load is not kept', async () => {
  const cache = cacheOf(100);
  const loads: Loads = { calls: [], sizes: {}, fail: 'x' };
  const [a, b] = await Promise.all([cache.get('k', loads), cache.get('k', loads)]);
  expect(a).toBe(b);
  expect(loads.calls).toEqual(['k']);
  await expect(cache.get('x', loads)).rejects.toThrow('load of x failed');
  loads.fail = undefined;
  expect(await cache.get('x', loads)).toEqual({ key: 'x' });
  expect(loads.calls).toEqual(['k', 'x', 'x']);
});

test('a budget of 0 turns the cache off', async () => {
  const cache = cacheOf(0);
  const loads: Loads = { calls: [], sizes: {} };
  await cache.get('a', loads);
  await cache.get('a', loads);
  expect(loads.calls).toEqual(['a', 'a']);
});
