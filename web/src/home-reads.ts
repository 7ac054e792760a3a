// The dashboard's three first-screen reads (docs/dashboard.md), started by main.tsx when the app opens on its home,
// side by side with the session check instead of after it and after the view's code: the view takes each once. A
// session that turns out signed out leaves them unused (their refusals are swallowed here; the shell signs in).
import { api } from './api';

export const TOP_ALERTS = 10;

const READS = {
  trend: () => api.get('/metrics/alerts'),
  portfolio: () => api.get('/metrics/portfolio'),
  top: () => api.get('/alerts', { sort: 'risk', limit: TOP_ALERTS }),
};
type Read = keyof typeof READS;

const started = new Map<Read, Promise<unknown>>();

/** Starts the three reads (once per page load). */
export function startHomeReads(): void {
  for (const [name, read] of Object.entries(READS) as Array<[Read, () => Promise<unknown>]>) {
    const p = read();
    p.catch(() => undefined);
    started.set(name, p);
  }
}

/** A read started at load, taken once (undefined: none, or already taken: the view reads itself). */
export function takeHomeRead<T>(name: Read): Promise<T> | undefined {
  const p = started.get(name);
  started.delete(name);
  return p as Promise<T> | undefined;
}
