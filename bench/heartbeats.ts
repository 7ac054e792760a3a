// Issue 18: "heartbeats of 1,000 hosts at 50 per second, p99 ≤ 20 ms". 1,000 hosts are registered through the API
// (POST /v1/hosts/attestations, one registration token of 1,000 uses), then heartbeats are sent open-loop: each one
// at its scheduled instant (every 20 ms, the hosts in turn), whether or not the earlier ones were answered, and its
// latency counts from that instant, so a server that falls behind shows in the figure instead of slowing the sender.
import { createOrgWithOwner } from '../src/storage/accounts';
import { createRegistrationToken } from '../src/storage/registration-tokens';
import type { Harness } from './harness';
import { fmt, median, percentile, row } from './stats';

interface Host {
  id: string;
  credential: string;
}

async function postJson(url: string, token: string, body: unknown): Promise<{ status: number; body: any }> {
  const r = await fetch(url, { method: 'POST', headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
  return { status: r.status, body: await r.json() };
}

/** Registers `count` hosts, `concurrency` attestations at a time. */
async function register(h: Harness, count: number, concurrency = 10): Promise<Host[]> {
  const { org, member } = await createOrgWithOwner(h.store, 'heartbeats', `heartbeats-${Date.now()}@example.test`);
  const expiresAt = new Date(Date.now() + 3600_000);
  const { token } = await createRegistrationToken(h.store, { orgId: org._id, name: 'bench', uses: count, labels: { bench: 'heartbeats' }, createdBy: member._id, expiresAt });
  const hosts: Host[] = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < count) {
        const i = next++;
        const res = await postJson(`${h.baseUrl}/v1/hosts/attestations`, token, { hostname: `bench-${String(i).padStart(4, '0')}`, machineId: `bench-machine-${i}`, os: 'linux', arch: 'amd64', agentVersion: '1.0.0' });
        if (res.status !== 201) throw new Error(`attestation answered ${res.status}: ${JSON.stringify(res.body)}`);
        hosts.push({ id: res.body.host.id, credential: res.body.credential });
      }
    }),
  );
  return hosts;
}

export async function heartbeatBench(h: Harness, o: { hosts?: number; perSecond?: number; seconds?: number } = {}): Promise<void> {
  const count = o.hosts ?? 1000;
  const perSecond = o.perSecond ?? 50;
  const seconds = o.seconds ?? 30;
  console.log(`\nheartbeats: ${count.toLocaleString('en')} hosts, ${perSecond} heartbeats per second (open-loop) for ${seconds} s`);
  const t0 = performance.now();
  const hosts = await register(h, count);
  row(`  registering ${count.toLocaleString('en')} hosts (10 attestations at a time)`, fmt(performance.now() - t0));
  const beat = async (host: Host, k: number): Promise<number> => {
    const r = await fetch(`${h.baseUrl}/v1/hosts/${host.id}/heartbeats`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${host.credential}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ agentVersion: '1.0.0', labels: { beat: String(k % 7) } }),
    });
    await r.arrayBuffer();
    for (const part of (r.headers.get('server-timing') ?? '').split(', ')) {
      const [name, dur] = part.split(';dur=');
      if (dur) phases.set(name, [...(phases.get(name) ?? []), Number(dur)]);
    }
    return r.status;
  };
  const phases = new Map<string, number[]>();
  for (let i = 0; i < 50; i++) await beat(hosts[i], i); // warm-up: connections, code paths
  phases.clear();
  const interval = 1000 / perSecond;
  const total = perSecond * seconds;
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
    const host = hosts[k % hosts.length];
    inFlight.push(
      beat(host, k).then(
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
  row('  heartbeat latency p50', fmt(median(latencies)));
  row('  heartbeat latency p95', fmt(percentile(latencies, 95)));
  row('  heartbeat latency p99', fmt(percentile(latencies, 99)), 'p99 ≤ 20 ms');
  row('  heartbeat latency max', fmt(Math.max(...latencies)));
  console.log(`  server phases (Server-Timing, p50 / p99 ms): ${[...phases].map(([k, v]) => `${k} ${median(v).toFixed(1)} / ${percentile(v, 99).toFixed(1)}`).join(', ')}`);
  if ((statuses.get(200) ?? 0) !== total) throw new Error(`not every heartbeat was answered 200: ${answered}`);
}
