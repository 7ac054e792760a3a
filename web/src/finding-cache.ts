// Findings the list has shown, by id, so that opening one does not read the list again (there is no single-finding
// endpoint). Cleared when it grows large.
import type { Finding } from './types';

const cache = new Map<string, Finding>();

export function remember(findings: Finding[]): void {
  if (cache.size > 20_000) cache.clear();
  for (const f of findings) cache.set(f.id, f);
}

export function recall(id: string): Finding | undefined {
  return cache.get(id);
}
