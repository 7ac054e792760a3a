// An open-loop load driver for the request benches (heartbeats, MCP usage events): request k is sent at its scheduled
// instant (start + k / perSecond), whether or not the earlier ones were answered, and its latency counts from that
// instant, so a server that falls behind shows in the figures instead of slowing the sender. The server's own phases
// come from its Server-Timing header.
import { fmt, median, percentile, row } from './stats';

export interface OpenLoop {
  /** Sends request k; resolves to the response (its body is consumed here). */
  send(k: number): Promise<Response>;
  /** Requests sent before the measured run (connections, code paths). */
  warmUp: number;
  perSecond: number;
  seconds: number;
  /** What one request is, for the printed lines ("heartbeat", "batch"). */
  what: string;
  /** The p99 goal, printed beside the p99. */
  goal: string;
  /** The status every request must get (else the bench fails). */
  expect: number;
}

export async function runOpenLoop(o: OpenLoop): Promise<void> {
  const phases = new Map<string, number[]>();
  const send = async (k: number): Promise<number> => {
    const r = await o.send(k);
    await r.arrayBuffer();
    for (const part of (r.headers.get('server-timing') ?? '').split(', ')) {
      const [name, dur] = part.split(';dur=');
      if (dur) phases.set(name, [...(phases.get(name) ?? []), Number(dur)]);
    }
    return r.status;
  };
  for (let i = 0; i < o.warmUp; i++) await send(i);
  phases.clear();
  const interval = 1000 / o.perSecond;
  const total = o.perSecond * o.seconds;
  const latencies: number[] = [];
  const statuses = new Map<number, number>();
  let late = 0;
  const start = performance.now() + 50;
  const inFlight: Promise<void>[] = [];
  for (let k = 0; k < total; k++) {
    const due = start + k * interval;
    const wait = due - performance.now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    else if (wait < -interval) late++; // the sender itself fell behind (its latency still counts from `due`)
    inFlight.push(
      send(o.warmUp + k).then(
        (status) => {
          latencies.push(performance.now() - due);
          statuses.set(status, (statuses.get(status) ?? 0) + 1);
        },
        () => void statuses.set(0, (statuses.get(0) ?? 0) + 1),
      ),
    );
  }
  await Promise.all(inFlight);
  const elapsed = (performance.now() - start) / 1000;
  const answered = [...statuses].map(([s, n]) => `${n} × ${s || 'error'}`).join(', ');
  row(`  sent ${total} in ${elapsed.toFixed(1)} s (${(total / elapsed).toFixed(1)}/s), answers`, answered);
  if (late) row('  sends more than one interval late (the sender, not the server)', String(late));
  row(`  ${o.what} latency p50`, fmt(median(latencies)));
  row(`  ${o.what} latency p95`, fmt(percentile(latencies, 95)));
  row(`  ${o.what} latency p99`, fmt(percentile(latencies, 99)), o.goal);
  row(`  ${o.what} latency max`, fmt(Math.max(...latencies)));
  console.log(
    `  server phases (Server-Timing, p50 / p99 ms): ${[...phases].map(([k, v]) => `${k} ${median(v).toFixed(1)} / ${percentile(v, 99).toFixed(1)}`).join(', ')}`,
  );
  if ((statuses.get(o.expect) ?? 0) !== total)
    throw new Error(`not every ${o.what} was answered ${o.expect}: ${answered}`);
}
