// Issue 18: "heartbeats of 1,000 hosts at 50 per second, p99 ≤ 20 ms". 1,000 hosts are registered through the API
// (POST /v1/hosts/attestations, one registration token of 1,000 uses), then heartbeats are sent open-loop (every
// 20 ms, the hosts in turn; bench/open-loop.ts).
import { createOrgWithOwner } from '../src/storage/accounts';
import { createRegistrationToken } from '../src/storage/registration-tokens';
import type { Harness } from './harness';
import { runOpenLoop } from './open-loop';
import { fmt, row } from './stats';

interface Host {
  id: string;
  credential: string;
}

async function postJson(url: string, token: string, body: unknown): Promise<{ status: number; body: any }> {
  const r = await fetch(url, {
    method: 'POST',
    headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: r.status, body: await r.json() };
}

/** Registers `count` hosts, `concurrency` attestations at a time. */
async function register(h: Harness, count: number, concurrency = 10): Promise<Host[]> {
  const { org, member } = await createOrgWithOwner(h.store, 'heartbeats', `heartbeats-${Date.now()}@example.test`);
  const expiresAt = new Date(Date.now() + 3600_000);
  const { token } = await createRegistrationToken(h.store, {
    orgId: org._id,
    name: 'bench',
    uses: count,
    labels: { bench: 'heartbeats' },
    createdBy: member._id,
    expiresAt,
  });
  const hosts: Host[] = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < count) {
        const i = next++;
        const res = await postJson(`${h.baseUrl}/v1/hosts/attestations`, token, {
          hostname: `bench-${String(i).padStart(4, '0')}`,
          machineId: `bench-machine-${i}`,
          os: 'linux',
          arch: 'amd64',
          agentVersion: '1.0.0',
        });
        if (res.status !== 201) throw new Error(`attestation answered ${res.status}: ${JSON.stringify(res.body)}`);
        hosts.push({ id: res.body.host.id, credential: res.body.credential });
      }
    }),
  );
  return hosts;
}

export async function heartbeatBench(
  h: Harness,
  o: { hosts?: number; perSecond?: number; seconds?: number } = {},
): Promise<void> {
  const count = o.hosts ?? 1000;
  const perSecond = o.perSecond ?? 50;
  const seconds = o.seconds ?? 30;
  console.log(
    `\nheartbeats: ${count.toLocaleString('en')} hosts, ${perSecond} heartbeats per second (open-loop) for ${seconds} s`,
  );
  const t0 = performance.now();
  const hosts = await register(h, count);
  row(`  registering ${count.toLocaleString('en')} hosts (10 attestations at a time)`, fmt(performance.now() - t0));
  await runOpenLoop({
    send: (k) =>
      fetch(`${h.baseUrl}/v1/hosts/${hosts[k % hosts.length].id}/heartbeats`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${hosts[k % hosts.length].credential}`, 'Content-Type': 'application/json' },
        body: JSON.stringify({ agentVersion: '1.0.0', labels: { beat: String(k % 7) } }),
      }),
    warmUp: 50,
    perSecond,
    seconds,
    what: 'heartbeat',
    goal: 'p99 ≤ 20 ms',
    expect: 200,
  });
}
