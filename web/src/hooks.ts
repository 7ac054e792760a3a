// Data loading for views: one request per dependency change, aborted when the view changes before it answers.
import { useEffect, useState } from 'preact/hooks';

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
