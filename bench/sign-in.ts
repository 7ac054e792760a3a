// Issue 16: "no account enumeration (same answer and similar timing for known and unknown emails)". The answer is
// tested (test/http/sessions.test.ts); the timing is a figure: POST /v1/sessions/codes for emails with an account
// (members of an organization) and without, interleaved, against the API process, with the real mail path (console
// sender) behind it. The mechanism that makes them alike: no user is looked up and the mail goes out after the answer.
import { createOrgWithOwner } from '../src/storage/accounts';
import type { Harness } from './harness';
import { fmt, median, percentile, row } from './stats';

export async function signInBench(h: Harness, rounds = 300): Promise<void> {
  console.log('\nsign-in: POST /v1/sessions/codes, known vs unknown emails (interleaved)');
  const known: string[] = [];
  for (let i = 0; i < rounds; i++)
    known.push((await createOrgWithOwner(h.store, `signin-${i}`, `known-${i}-${Date.now()}@example.test`)).user.email);
  const ask = async (email: string) => {
    const t0 = performance.now();
    const r = await fetch(`${h.baseUrl}/v1/sessions/codes`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ email }),
    });
    await r.arrayBuffer();
    if (r.status !== 202)
      throw new Error(`code request answered ${r.status} (are SIGN_IN_CODES_PER_* raised for the bench?)`);
    return performance.now() - t0;
  };
  for (let i = 0; i < 20; i++) await ask(`warm-${i}-${Date.now()}@example.test`);
  const k: number[] = [];
  const u: number[] = [];
  for (let i = 0; i < rounds; i++) {
    // alternate which goes first, so that neither always follows the other
    if (i % 2) {
      k.push(await ask(known[i]));
      u.push(await ask(`unknown-${i}-${Date.now()}@example.test`));
    } else {
      u.push(await ask(`unknown-${i}-${Date.now()}@example.test`));
      k.push(await ask(known[i]));
    }
  }
  row('  known emails: p50 / p95', `${fmt(median(k))} / ${fmt(percentile(k, 95))}`);
  row('  unknown emails: p50 / p95', `${fmt(median(u))} / ${fmt(percentile(u, 95))}`);
  row('  p50 ratio known / unknown', (median(k) / median(u)).toFixed(2), '≈ 1.00 (similar timing)');
}
