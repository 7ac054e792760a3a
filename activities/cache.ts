// Small per-worker caches. A scan's activities usually run on the same worker, one after another: the snapshot is
// parsed once, not once per activity; an advisory generation's index is built once per worker, not once per scan.
export class Lru<K, V> {
  private readonly map = new Map<K, V>();
  constructor(private readonly max: number) {}
  get(key: K): V | undefined {
    const v = this.map.get(key);
    if (v !== undefined) {
      this.map.delete(key);
      this.map.set(key, v);
    }
    return v;
  }
  set(key: K, value: V): void {
    this.map.delete(key);
    this.map.set(key, value);
    while (this.map.size > this.max) this.map.delete(this.map.keys().next().value as K);
  }
  delete(key: K): void {
    this.map.delete(key);
  }
  /** Memoises an async computation; a failed one is forgotten so that a retry computes it again. */
  async getOrCreate(key: K, make: () => Promise<V>): Promise<V> {
    const hit = this.get(key);
    if (hit !== undefined) return hit;
    const p = make();
    const v = await p;
    this.set(key, v);
    return v;
  }
  getOrCreateSync(key: K, make: () => V): V {
    const hit = this.get(key);
    if (hit !== undefined) return hit;
    const v = make();
    this.set(key, v);
    return v;
  }
}
