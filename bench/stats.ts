// Tiny statistics helpers for the benchmarks.
export function percentile(samples: number[], p: number): number {
  if (samples.length === 0) return NaN;
  const s = [...samples].sort((a, b) => a - b);
  const i = Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1));
  return s[i];
}

export const median = (xs: number[]) => percentile(xs, 50);

export function fmt(ms: number): string {
  return `${ms.toFixed(ms < 10 ? 2 : 1)} ms`;
}

export function row(label: string, value: string, target?: string): void {
  const verdict = target ? `   target ${target}` : '';
  console.log(`${label.padEnd(58)} ${value.padStart(14)}${verdict}`);
}

export async function timed<T>(fn: () => Promise<T>): Promise<[T, number]> {
  const t0 = performance.now();
  const r = await fn();
  return [r, performance.now() - t0];
}
