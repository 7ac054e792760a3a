// A scan, kept current while it is queued or running: GET /v1/scans/{id}?wait=20 holds the answer until the scan is
// completed or failed, so progress shows without polling loops. Stops when the view goes away.
import { useEffect, useState } from 'preact/hooks';
import { api } from './api';
import type { Scan } from './types';

const live = (s: Scan) => s.status === 'queued' || s.status === 'running';

export async function followScan(
  id: string,
  signal: AbortSignal,
  onScan: (s: Scan) => void,
  first?: Scan,
): Promise<void> {
  let scan = first ?? (await api.get<Scan>(`/scans/${encodeURIComponent(id)}`, undefined, signal));
  onScan(scan);
  let failures = 0;
  while (live(scan) && !signal.aborted) {
    try {
      scan = await api.get<Scan>(`/scans/${encodeURIComponent(id)}`, { wait: 20 }, signal);
      failures = 0;
      onScan(scan);
    } catch (e) {
      if (signal.aborted) return;
      if (++failures > 5) throw e;
      await new Promise((r) => setTimeout(r, 1000 * failures));
    }
  }
}

export function useLiveScan(id: string): { scan?: Scan; error?: unknown } {
  const [state, setState] = useState<{ scan?: Scan; error?: unknown }>({});
  useEffect(() => {
    const ctl = new AbortController();
    setState({});
    followScan(id, ctl.signal, (scan) => !ctl.signal.aborted && setState({ scan })).catch(
      (error) => !ctl.signal.aborted && setState((s) => ({ ...s, error })),
    );
    return () => ctl.abort();
  }, [id]);
  return state;
}
