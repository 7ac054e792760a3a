// Path order used everywhere a shortest path is chosen: fewer elements first, then element by element (UTF-16
// code units, as JavaScript compares strings).
export const cmpStr = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

export function comparePaths(a: readonly string[], b: readonly string[]): number {
  if (a.length !== b.length) return a.length - b.length;
  for (let i = 0; i < a.length; i++) {
    const c = cmpStr(a[i], b[i]);
    if (c) return c;
  }
  return 0;
}
