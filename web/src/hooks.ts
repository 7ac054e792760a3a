// Data loading for views: one request per dependency change, aborted when the view changes before it answers.
import { useEffect, useState } from 'preact/hooks';
import { pageCursor, withPage } from './pages';

export interface Loaded<T> {
  data?: T;
  error?: unknown;
  loading: boolean;
  reload(): void;
}

export function useLoad<T>(load: (signal: AbortSignal) => Promise<T>, deps: unknown[]): Loaded<T> {
  const [state, setState] = useState<{ data?: T; error?: unknown; loading: boolean }>({ loading: true });
  const [tick, setTick] = useState(0);
  useEffect(() => {
    const ctl = new AbortController();
    setState((s) => ({ data: s.data, loading: true }));
    load(ctl.signal).then(
      (data) => !ctl.signal.aborted && setState({ data, loading: false }),
      (error) => !ctl.signal.aborted && setState({ error, loading: false }),
    );
    return () => ctl.abort();
  }, [...deps, tick]);
  return { ...state, reload: () => setTick((t) => t + 1) };
}

/** A list read a page at a time and shown whole (GET with a cursor): `more` appends the next page to `items`. */
export interface Pages<T> {
  /** Every row read so far; those of the previous list stay until the first page of a new one arrives. */
  items: T[];
  /** Changes rows in place (a live update). */
  update(change: (items: T[]) => T[]): void;
  loading: boolean;
  /** A page of the current list has arrived (and the last request did not fail). */
  loaded: boolean;
  error?: unknown;
  /** The cursor of the page being shown last (undefined: the first page). */
  cursor?: string;
  /** The next page's cursor, null on the last page. */
  next: string | null;
  more(): void;
}

/**
 * A list shown whole, read a page at a time: the first page when `key` changes (another project, other filters),
 * the next one on `more()`.
 */
export function usePages<T>(
  key: string,
  load: (cursor: string | undefined, signal: AbortSignal) => Promise<{ items: T[]; nextCursor: string | null }>,
): Pages<T> {
  const [at, setAt] = useState<{ key: string; cursor?: string }>({ key });
  const cursor = pageCursor(at, key);
  const [items, setItems] = useState<T[]>([]);
  const page = useLoad(
    async (signal) => {
      const p = await load(cursor, signal);
      if (!signal.aborted) setItems((shown) => withPage(shown, cursor, p.items));
      return p;
    },
    [key, cursor],
  );
  const next = page.data?.nextCursor ?? null;
  return {
    items,
    update: setItems,
    loading: page.loading,
    loaded: page.data !== undefined,
    error: page.error,
    cursor,
    next,
    more: () => {
      if (next) setAt({ key, cursor: next });
    },
  };
}

/** Whether a CSS media query matches now, following its changes (a narrow screen's layout). */
export function useMedia(query: string): boolean {
  const get = () => typeof matchMedia === 'function' && matchMedia(query).matches;
  const [matches, setMatches] = useState(get);
  useEffect(() => {
    if (typeof matchMedia !== 'function') return;
    const m = matchMedia(query);
    const on = () => setMatches(m.matches);
    on();
    m.addEventListener('change', on);
    return () => m.removeEventListener('change', on);
  }, [query]);
  return matches;
}
