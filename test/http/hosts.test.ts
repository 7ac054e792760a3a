// Hosts over real HTTP against the real database: registration tokens (issue, list, revoke, uses,
// expiry, labels), attestation and re-attestation by machineId, heartbeats of the host's own id only, connectivity
// through an active gateway, expiry derived when read (and revived by a heartbeat), revocation effective at once, and
// GET /v1/hosts with its status and label filters. Decisions that must have one winner are tested concurrently. Every
// answer is checked against the OpenAPI document.
import { Writable } from 'node:stream';
import pino from 'pino';
import { fleetWindowsFromEnv } from '../../src/config';
import { createApp } from '../../src/http/app';
import { expiresAtField } from '../../src/http/hosts/fields';
import { createLogger } from '../../src/logger';
import { authorize } from '../../src/http/auth/matrix';
import type { Principal } from '../../src/http/auth/principal';
import { RateLimiter } from '../../src/http/rate-limit';
import { sha256Hex } from '../../src/domain/ids';
import { bearer, newOrg, type Org } from '../helpers/context';
import { endpoints, err, machine, type Fleet, fleetSetup } from './hosts-helpers';

let f: Fleet;
let e: ReturnType<typeof endpoints>;
let org: Org;
let owner: string;

beforeAll(async () => {
  ({ f, e, org, owner } = await fleetSetup());
}, 60_000);
afterAll(() => f?.close());

const DAY = 24 * 3600 * 1000;
const attestBody = (m = machine(), extra: Record<string, unknown> = {}) => ({
  hostname: `host-${m}`,
  machineId: m,
  ...extra,
});

/** A token of `uses` (default 1) and its secret. */
async function token(body: Record<string, unknown> = {}, session = owner) {
  const res = await e.issueToken(session, { name: 'sidecars', ...body });
  expect(res.status).toBe(201);
  return { id: res.body.registrationToken.id as string, token: res.body.token as string, res };
}

/** A registered host: its id and credential. */
async function host(extra: Record<string, unknown> = {}, o: { tokenBody?: Record<string, unknown>; m?: string } = {}) {
  const t = await token(o.tokenBody);
  const res = await e.attest(t.token, attestBody(o.m, extra));
  expect(res.status).toBe(201);
  return { id: res.body.host.id as string, credential: res.body.credential as string, res, token: t };
}

const ageHost = (id: string, ms: number) =>
  f.store.c.hosts.updateOne({ _id: id }, { $set: { lastHeartbeatAt: new Date(Date.now() - ms) } });

describe('registration tokens', () => {
  test('owners and admins issue them: the token once, defaults (1 use, 24 hours, no labels), stored only as a hash', async () => {
    const admin = await org.session('admin');
    for (const session of [owner, admin]) {
      const before = Date.now();
      const { res } = await token({}, session);
      const { registrationToken: t, token: secret } = res.body;
      expect(Object.keys(t)).toEqual([
        'id',
        'name',
        'usesLeft',
        'labels',
        'status',
        'createdBy',
        'createdAt',
        'expiresAt',
        'uses',
        'revokedAt',
      ]);
      expect(t).toMatchObject({
        id: expect.stringMatching(/^hrt_[0-9a-z]{22}$/),
        name: 'sidecars',
        usesLeft: 1,
        uses: 1,
        labels: {},
        status: 'active',
        createdBy: expect.stringMatching(/^mem_/),
        revokedAt: null,
      });
      expect(secret).toMatch(/^svc_reg_[0-9A-Za-z]{40}$/);
      const ttl = Date.parse(t.expiresAt) - Date.parse(t.createdAt);
      expect(ttl).toBe(DAY);
      expect(Date.parse(t.createdAt)).toBeGreaterThanOrEqual(before - 1000);
      for (const name of ['registrationTokens', 'auditEvents', 'claims'])
        expect(JSON.stringify(await f.store.db.collection(name).find({}).toArray())).not.toContain(secret.slice(8));
    }
    // createdBy is the issuing member
    expect((await token()).res.body.registrationToken.createdBy).toBe(org.memberId);
  });

  test('uses, expiry and labels as given', async () => {
    const expiresAt = new Date(Date.now() + 3 * DAY).toISOString();
    // a "__proto__" key is a label like any other (own property of the parsed body, never the object's prototype)
    const labels = JSON.parse('{"env":"prod","app.kubernetes.io/name":"web","__proto__":"kept","empty":""}');
    const { res } = await token({ uses: 10000, expiresAt, labels });
    expect(res.body.registrationToken).toMatchObject({
      uses: 10000,
      usesLeft: 10000,
      expiresAt,
      labels: { env: 'prod', 'app.kubernetes.io/name': 'web', empty: '' },
    });
    expect(Object.prototype.hasOwnProperty.call(res.body.registrationToken.labels, '__proto__')).toBe(true);
    expect(res.body.registrationToken.labels.__proto__).toBe('kept');
  });

  test('expiresAt: in the future, at most 30 days ahead, the bound included', () => {
    const now = new Date('2030-01-01T00:00:00Z');
    const at = (iso: string) => expiresAtField({ expiresAt: iso }, now, DAY, 30 * DAY, '30 days');
    expect(at('2030-01-31T00:00:00Z').toISOString()).toBe('2030-01-31T00:00:00.000Z');
    expect(() => at('2030-01-31T00:00:00.001Z')).toThrow(/at most 30 days ahead/);
    expect(() => at('2030-01-01T00:00:00Z')).toThrow(/in the future/);
    expect(at('2030-01-01T02:00:00+01:00').toISOString()).toBe('2030-01-01T01:00:00.000Z');
    expect(() => at('2030-01-02')).toThrow(/RFC 3339/);
  });

  test.each<[string, unknown, string, RegExp]>([
    ['no name', {}, 'missing_parameter', /^name: /],
    ['a blank name', { name: '  ' }, 'missing_parameter', /^name: /],
    ['a name of another type', { name: 5 }, 'invalid_parameter', /^name: /],
    ['a name over 200 characters', { name: 'n'.repeat(201) }, 'invalid_parameter', /^name: at most 200/],
    ['a name with a control character', { name: 'a\u0007b' }, 'invalid_parameter', /^name: .*control/],
    ['uses 0', { name: 'x', uses: 0 }, 'invalid_parameter', /^uses: /],
    ['uses 10,001', { name: 'x', uses: 10001 }, 'invalid_parameter', /^uses: /],
    ['uses 1.5', { name: 'x', uses: 1.5 }, 'invalid_parameter', /^uses: /],
    ['uses "2"', { name: 'x', uses: '2' }, 'invalid_parameter', /^uses: /],
    [
      'expiresAt in the past',
      { name: 'x', expiresAt: '2001-01-01T00:00:00Z' },
      'invalid_parameter',
      /^expiresAt: must be in the future/,
    ],
    [
      'expiresAt 31 days ahead',
      { name: 'x', expiresAt: new Date(Date.now() + 31 * DAY).toISOString() },
      'invalid_parameter',
      /^expiresAt: at most 30 days/,
    ],
    ['expiresAt not a timestamp', { name: 'x', expiresAt: 'tomorrow' }, 'invalid_parameter', /^expiresAt: /],
    ['expiresAt a number', { name: 'x', expiresAt: Date.now() + DAY }, 'invalid_parameter', /^expiresAt: /],
    ['labels an array', { name: 'x', labels: [['a', 'b']] }, 'invalid_parameter', /^labels: /],
    ['labels a string', { name: 'x', labels: 'a=b' }, 'invalid_parameter', /^labels: /],
    [
      'a label value that is a number',
      { name: 'x', labels: { a: 1 } },
      'invalid_parameter',
      /^labels: a: must be a string/,
    ],
    [
      'a label value that is null',
      { name: 'x', labels: { a: null } },
      'invalid_parameter',
      /^labels: a: must be a string/,
    ],
    ['an empty label key', { name: 'x', labels: { '': 'v' } }, 'invalid_parameter', /^labels: key "": /],
    ['a label key with a space', { name: 'x', labels: { 'a b': 'v' } }, 'invalid_parameter', /^labels: key "a b"/],
    ['a label key with "="', { name: 'x', labels: { 'a=b': 'v' } }, 'invalid_parameter', /^labels: key "a=b"/],
    [
      'a label key of 64 characters',
      { name: 'x', labels: { ['k'.repeat(64)]: 'v' } },
      'invalid_parameter',
      /^labels: key /,
    ],
    [
      'a label value of 256 characters',
      { name: 'x', labels: { k: 'v'.repeat(256) } },
      'invalid_parameter',
      /^labels: k: at most 255/,
    ],
    [
      'a label value with a newline',
      { name: 'x', labels: { k: 'a\nb' } },
      'invalid_parameter',
      /^labels: k: .*control/,
    ],
    [
      '65 labels',
      { name: 'x', labels: Object.fromEntries(Array.from({ length: 65 }, (_, i) => [`k${i}`, 'v'])) },
      'invalid_parameter',
      /^labels: at most 64/,
    ],
  ])('%s → 422 %s, nothing stored', async (_, body, code, message) => {
    const fresh = await newOrg(f.store);
    const res = await e.issueToken(fresh.ownerToken, body);
    expect(err(res)).toEqual({ status: 422, code });
    expect(res.body.error.message).toMatch(message);
    expect(await f.store.c.registrationTokens.countDocuments({ orgId: fresh.orgId })).toBe(0);
  });

  test('64 labels with keys of 63 characters and values of 255 are accepted', async () => {
    const labels = Object.fromEntries(
      Array.from({ length: 64 }, (_, i) => [`${String(i).padStart(2, '0')}${'k'.repeat(61)}`, 'v'.repeat(255)]),
    );
    const { res } = await token({ labels });
    expect(res.body.registrationToken.labels).toEqual(labels);
  });

  test('members, auditors, API keys and users without an organization are refused; no scope grants it', async () => {
    for (const role of ['member', 'auditor'] as const) {
      const s = await org.session(role);
      const res = await e.issueToken(s, { name: 'x' });
      expect(err(res)).toEqual({ status: 403, code: 'insufficient_scope' });
      expect(res.body.error.message).toMatch(/requires role owner or admin/);
      expect(err(await e.listTokens(s))).toEqual({ status: 403, code: 'insufficient_scope' });
    }
    const key = await org.key(['hosts:read', 'gateways:read', 'sca:upload']);
    for (const res of [
      await e.issueToken(key, { name: 'x' }),
      await e.listTokens(key),
      await e.revokeToken(key, 'hrt_x'),
    ])
      expect(err(res)).toEqual({ status: 403, code: 'insufficient_scope' });
  });

  test('the list: newest first, signed cursor pages, status filter (active, exhausted, expired, revoked); never a secret', async () => {
    const fresh = await newOrg(f.store);
    const made: string[] = [];
    const secrets: string[] = [];
    for (let i = 0; i < 5; i++) {
      const res = await e.issueToken(fresh.ownerToken, { name: `t${i}`, labels: { i: String(i) } });
      made.push(res.body.registrationToken.id);
      secrets.push(res.body.token);
    }
    // newest first: ids start with their creation millisecond (ties within one: by the rest of the id)
    const bySecret = new Map(made.map((id, i) => [id, secrets[i]]));
    made.sort().reverse();
    secrets.splice(0, 5, ...made.map((id) => bySecret.get(id)!));
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const res = await e.listTokens(
        fresh.ownerToken,
        `?limit=2${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
      );
      expect(res.status).toBe(200);
      seen.push(...res.body.registrationTokens.map((t: { id: string }) => t.id));
      for (const s of secrets) expect(JSON.stringify(res.body)).not.toContain(s.slice(8));
      cursor = res.body.nextCursor;
    } while (cursor);
    expect(seen).toEqual(made);
    // the oldest exhausted (its one use taken), the next expired, the middle one revoked
    expect((await e.attest(secrets[4], attestBody())).status).toBe(201);
    await f.store.c.registrationTokens.updateOne({ id: made[3] }, { $set: { expiresAt: new Date(Date.now() - 1000) } });
    expect((await e.revokeToken(fresh.ownerToken, made[2])).status).toBe(204);
    const by = async (status: string) =>
      (await e.listTokens(fresh.ownerToken, `?status=${status}`)).body.registrationTokens.map(
        (t: { id: string; status: string; usesLeft: number }) => [t.id, t.status, t.usesLeft],
      );
    expect(await by('exhausted')).toEqual([[made[4], 'exhausted', 0]]);
    expect(await by('expired')).toEqual([[made[3], 'expired', 1]]);
    expect(await by('revoked')).toEqual([[made[2], 'revoked', 1]]);
    expect(await by('active')).toEqual([
      [made[0], 'active', 1],
      [made[1], 'active', 1],
    ]);
    expect(err(await e.listTokens(fresh.ownerToken, '?status=used'))).toEqual({
      status: 422,
      code: 'invalid_parameter',
    });
    expect(err(await e.listTokens(fresh.ownerToken, '?cursor=abc'))).toEqual({ status: 422, code: 'invalid_cursor' });
    // another organization's tokens are never listed
    expect((await e.listTokens(owner)).body.registrationTokens.map((t: { id: string }) => t.id)).not.toContain(made[0]);
  });

  test("revocation: 204 once, then 404; unknown and other organizations' tokens 404; a revoked token registers nothing (401)", async () => {
    const t = await token({ uses: 5 });
    expect((await e.revokeToken(owner, t.id)).status).toBe(204);
    expect(err(await e.revokeToken(owner, t.id))).toEqual({ status: 404, code: 'not_found' });
    const res = await e.attest(t.token, attestBody());
    expect(err(res)).toEqual({ status: 401, code: 'invalid_token' });
    expect(res.body.error.message).toMatch(/revoked/);
    const other = await newOrg(f.store);
    const theirs = await token({}, other.ownerToken);
    expect(err(await e.revokeToken(owner, theirs.id))).toEqual({ status: 404, code: 'not_found' });
    expect(err(await e.revokeToken(owner, 'hrt_unknown'))).toEqual({ status: 404, code: 'not_found' });
    expect((await e.attest(theirs.token, attestBody())).status).toBe(201);
  });

  test('two revocations at once: one 204, the other 404, one audit event', async () => {
    const fresh = await newOrg(f.store);
    const t = await e.issueToken(fresh.ownerToken, { name: 'race' });
    const results = await Promise.all(
      Array.from({ length: 5 }, () => e.revokeToken(fresh.ownerToken, t.body.registrationToken.id)),
    );
    expect(results.map((r) => r.status).sort()).toEqual([204, 404, 404, 404, 404]);
    expect(await f.store.c.auditEvents.countDocuments({ orgId: fresh.orgId, type: 'registration_token.revoked' })).toBe(
      1,
    );
  });
});

describe('attestation', () => {
  test("201 with the host and its credential (once, stored as a hash); the token's labels win over the body's", async () => {
    const t = await token({ uses: 2, labels: { env: 'prod', team: 'core' } });
    const m = machine();
    const res = await e.attest(t.token, {
      hostname: 'web-1.example.test',
      machineId: m,
      os: 'linux',
      arch: 'amd64',
      agentVersion: '1.2.3',
      labels: { env: 'dev', rack: 'r1' },
      extra: 'ignored',
    });
    expect(res.status).toBe(201);
    const { host: h, credential } = res.body;
    expect(Object.keys(h)).toEqual([
      'id',
      'hostname',
      'status',
      'lastHeartbeatAt',
      'labels',
      'connectivity',
      'os',
      'arch',
      'agentVersion',
      'registeredAt',
    ]);
    expect(h).toEqual({
      id: expect.stringMatching(/^hst_[0-9a-z]{22}$/),
      hostname: 'web-1.example.test',
      status: 'active',
      lastHeartbeatAt: h.registeredAt,
      labels: { env: 'prod', rack: 'r1', team: 'core' },
      connectivity: 'direct',
      os: 'linux',
      arch: 'amd64',
      agentVersion: '1.2.3',
      registeredAt: expect.any(String),
    });
    expect(credential).toMatch(/^svc_hst_[0-9A-Za-z]{40}$/);
    for (const name of ['hosts', 'hostCredentials', 'auditEvents', 'claims', 'registrationUses'])
      expect(JSON.stringify(await f.store.db.collection(name).find({}).toArray())).not.toContain(credential.slice(8));
    expect(JSON.stringify(await f.store.c.hosts.findOne({ _id: h.id }))).not.toContain('ignored');
    // one of the token's uses is taken
    const listed = (await e.listTokens(owner)).body.registrationTokens.find((x: { id: string }) => x.id === t.id);
    expect(listed).toMatchObject({ usesLeft: 1, status: 'active' });
  });

  test('unknown, exhausted, expired and revoked tokens: 401 invalid_token', async () => {
    expect(err(await e.attest('svc_reg_' + '0'.repeat(40), attestBody()))).toEqual({
      status: 401,
      code: 'invalid_token',
    });
    const used = await token();
    expect((await e.attest(used.token, attestBody())).status).toBe(201);
    const exhausted = await e.attest(used.token, attestBody());
    expect(err(exhausted)).toEqual({ status: 401, code: 'invalid_token' });
    expect(exhausted.body.error.message).toMatch(/no uses left/);
    const old = await token();
    await f.store.c.registrationTokens.updateOne({ id: old.id }, { $set: { expiresAt: new Date(Date.now() - 1) } });
    const expired = await e.attest(old.token, attestBody());
    expect(err(expired)).toEqual({ status: 401, code: 'invalid_token' });
    expect(expired.body.error.message).toMatch(/expired/);
  });

  test('10 attestations at once with a token of 3 uses: exactly 3 hosts', async () => {
    const fresh = await newOrg(f.store);
    const t = await e.issueToken(fresh.ownerToken, { name: 'three', uses: 3 });
    const results = await Promise.all(Array.from({ length: 10 }, () => e.attest(t.body.token, attestBody())));
    expect(results.map((r) => r.status).sort()).toEqual([201, 201, 201, 401, 401, 401, 401, 401, 401, 401]);
    expect(await f.store.c.hosts.countDocuments({ orgId: fresh.orgId })).toBe(3);
    expect((await e.listTokens(fresh.ownerToken)).body.registrationTokens[0]).toMatchObject({
      usesLeft: 0,
      status: 'exhausted',
    });
    expect(await f.store.c.auditEvents.countDocuments({ orgId: fresh.orgId, type: 'host.registered' })).toBe(3);
  });

  test('the same machine again while its host is active: 409 invalid_state without its current credential (no use taken)', async () => {
    const h = await host({}, { tokenBody: { uses: 5 } });
    const again = await e.attest(h.token.token, attestBody(h.res.body.host.hostname.slice(5)));
    expect(err(again)).toEqual({ status: 409, code: 'invalid_state' });
    expect(again.body.error.message).toMatch(/X-Svc-Host-Credential/);
    // another host's credential is not its credential either
    const other = await host();
    expect(
      err(
        await e.attest(h.token.token, attestBody(h.res.body.host.hostname.slice(5)), {
          'X-Svc-Host-Credential': other.credential,
        }),
      ),
    ).toEqual({ status: 409, code: 'invalid_state' });
    expect(
      err(
        await e.attest(h.token.token, attestBody(h.res.body.host.hostname.slice(5)), {
          'X-Svc-Host-Credential': 'garbage',
        }),
      ),
    ).toEqual({ status: 409, code: 'invalid_state' });
    expect(
      (await e.listTokens(owner)).body.registrationTokens.find((x: { id: string }) => x.id === h.token.id).usesLeft,
    ).toBe(4);
  });

  test('with its current credential: the same host, active, a new credential; the previous one fails at once; a use taken', async () => {
    const m = machine();
    const h = await host({}, { tokenBody: { uses: 3, labels: { from: 'token' } }, m });
    const again = await e.attest(h.token.token, attestBody(m, { hostname: 'renamed', labels: { own: 'yes' } }), {
      'X-Svc-Host-Credential': h.credential,
    });
    expect(again.status).toBe(201);
    expect(again.body.host).toMatchObject({
      id: h.id,
      hostname: 'renamed',
      status: 'active',
      labels: { own: 'yes', from: 'token' },
      registeredAt: h.res.body.host.registeredAt,
    });
    expect(again.body.credential).not.toBe(h.credential);
    const stale = await e.heartbeat(h.credential, h.id);
    expect(err(stale)).toEqual({ status: 401, code: 'invalid_token' });
    expect(stale.body.error.message).toMatch(/replaced/);
    expect((await e.heartbeat(again.body.credential, h.id)).status).toBe(200);
    expect(
      (await e.listTokens(owner)).body.registrationTokens.find((x: { id: string }) => x.id === h.token.id).usesLeft,
    ).toBe(1);
    const audit = await f.store.c.auditEvents.findOne({ orgId: org.orgId, type: 'host.reattested', 'target.id': h.id });
    expect(audit).toMatchObject({
      actor: { memberId: null, userId: null, email: null, registrationTokenId: h.token.id },
      target: { kind: 'host', id: h.id, hostname: 'renamed' },
    });
  });

  test('after it expired: the same host again without any credential; a revoked host is never revived (a new host)', async () => {
    const m = machine();
    const h = await host({}, { tokenBody: { uses: 3 }, m });
    await ageHost(h.id, 16 * 60_000);
    expect((await e.listHosts(owner, '?status=expired')).body.hosts.map((x: { id: string }) => x.id)).toContain(h.id);
    const again = await e.attest(h.token.token, attestBody(m));
    expect(again.status).toBe(201);
    expect(again.body.host).toMatchObject({ id: h.id, status: 'active' });
    expect(err(await e.heartbeat(h.credential, h.id))).toEqual({ status: 401, code: 'invalid_token' });
    expect((await e.revokeHost(owner, h.id)).status).toBe(204);
    const fresh = await e.attest(h.token.token, attestBody(m), { 'X-Svc-Host-Credential': again.body.credential });
    expect(fresh.status).toBe(201);
    expect(fresh.body.host.id).not.toBe(h.id);
    const all = await f.store.c.hosts.find({ machineId: m }).sort({ machineSeq: 1 }).toArray();
    expect(all.map((x) => [x._id, x.machineSeq, !!x.revokedAt])).toEqual([
      [h.id, 0, true],
      [fresh.body.host.id, 1, false],
    ]);
  });

  test('5 re-attestations at once with the current credential: exactly one wins, and only its credential works', async () => {
    const m = machine();
    const h = await host({}, { tokenBody: { uses: 10 }, m });
    const results = await Promise.all(
      Array.from({ length: 5 }, () =>
        e.attest(h.token.token, attestBody(m), { 'X-Svc-Host-Credential': h.credential }),
      ),
    );
    expect(results.map((r) => r.status).sort()).toEqual([201, 409, 409, 409, 409]);
    const winner = results.find((r) => r.status === 201)!;
    expect(winner.body.host.id).toBe(h.id);
    expect((await e.heartbeat(winner.body.credential, h.id)).status).toBe(200);
    expect(
      (await e.listTokens(owner)).body.registrationTokens.find((x: { id: string }) => x.id === h.token.id).usesLeft,
    ).toBe(8);
  });

  test('5 first attestations of one machine at once: one host', async () => {
    const t = await token({ uses: 10 });
    const m = machine();
    const results = await Promise.all(Array.from({ length: 5 }, () => e.attest(t.token, attestBody(m))));
    expect(results.map((r) => r.status).sort()).toEqual([201, 409, 409, 409, 409]);
    expect(await f.store.c.hosts.countDocuments({ machineId: m })).toBe(1);
  });

  test('the same machineId in another organization is another host', async () => {
    const m = machine();
    const mine = await host({}, { m });
    const other = await newOrg(f.store);
    const t = await e.issueToken(other.ownerToken, { name: 'o' });
    const theirs = await e.attest(t.body.token, attestBody(m));
    expect(theirs.status).toBe(201);
    expect(theirs.body.host.id).not.toBe(mine.id);
  });
});

describe('heartbeats', () => {
  test("200 with the host and nextHeartbeatSeconds (60 with the default HOST_EXPIRY); only the host's own id", async () => {
    const h = await host();
    const res = await e.heartbeat(h.credential, h.id, { agentVersion: '2.0.0' });
    expect(res.status).toBe(200);
    expect(res.body.nextHeartbeatSeconds).toBe(60);
    // the steps the OpenAPI document names for this header, in order
    expect(res.headers['server-timing']).toMatch(/^auth;dur=[\d.]+, body;dur=[\d.]+, write;dur=[\d.]+$/);
    expect(res.body.host).toMatchObject({ id: h.id, status: 'active', agentVersion: '2.0.0' });
    expect(Date.parse(res.body.host.lastHeartbeatAt)).toBeGreaterThanOrEqual(
      Date.parse(h.res.body.host.lastHeartbeatAt),
    );
    const other = await host();
    for (const id of [other.id, 'hst_unknown', `${h.id}x`])
      expect(err(await e.heartbeat(h.credential, id))).toEqual({ status: 404, code: 'not_found' });
    expect((await f.store.c.hosts.findOne({ _id: other.id }))!.agentVersion).toBeNull();
  });

  test("labels replace the host's own; the token's stay and win", async () => {
    const h = await host({ labels: { a: '1', b: '2', team: 'mine' } }, { tokenBody: { labels: { team: 'token' } } });
    expect(h.res.body.host.labels).toEqual({ a: '1', b: '2', team: 'token' });
    const res = await e.heartbeat(h.credential, h.id, { labels: { c: '3', team: 'again' } });
    expect(res.body.host.labels).toEqual({ c: '3', team: 'token' });
    // absent labels: unchanged
    expect((await e.heartbeat(h.credential, h.id, {})).body.host.labels).toEqual({ c: '3', team: 'token' });
    expect((await e.heartbeat(h.credential, h.id, { labels: {} })).body.host.labels).toEqual({ team: 'token' });
  });

  test('connectivity through an active gateway of the organization; else 422 invalid_parameter', async () => {
    const h = await host();
    const enrollment = await e.issueEnrollment(owner, { name: 'gw' });
    const gw = await e.enroll(enrollment.body.token, { version: '1', networkScope: ['10.0.0.0/8'] });
    const gwId = gw.body.gateway.id;
    const pending = await e.heartbeat(h.credential, h.id, { connectivity: 'gateway', gatewayId: gwId });
    expect(err(pending)).toEqual({ status: 422, code: 'invalid_parameter' });
    expect(pending.body.error.message).toMatch(/^gatewayId: .*active gateway/);
    expect((await e.approve(owner, gwId, { networkScope: ['10.0.0.0/8'] })).status).toBe(200);
    const via = await e.heartbeat(h.credential, h.id, { connectivity: 'gateway', gatewayId: gwId });
    expect(via.status).toBe(200);
    expect(via.body.host).toMatchObject({ connectivity: 'gateway', gatewayId: gwId });
    expect(Object.keys(via.body.host)).toEqual([
      'id',
      'hostname',
      'status',
      'lastHeartbeatAt',
      'labels',
      'connectivity',
      'gatewayId',
      'os',
      'arch',
      'agentVersion',
      'registeredAt',
    ]);
    // absent connectivity keeps it; direct drops the gateway
    expect((await e.heartbeat(h.credential, h.id, {})).body.host.gatewayId).toBe(gwId);
    const direct = await e.heartbeat(h.credential, h.id, { connectivity: 'direct' });
    expect(direct.body.host.connectivity).toBe('direct');
    expect(direct.body.host).not.toHaveProperty('gatewayId');
    // another organization's gateway, an unknown one, none, one given without connectivity gateway, a revoked one
    const other = await newOrg(f.store);
    const theirEnrollment = await e.issueEnrollment(other.ownerToken, { name: 'theirs' });
    const theirs = (await e.enroll(theirEnrollment.body.token, { version: '1', networkScope: ['10.0.0.0/8'] })).body
      .gateway.id;
    expect((await e.approve(other.ownerToken, theirs, { networkScope: ['10.0.0.0/8'] })).status).toBe(200);
    for (const body of [
      { connectivity: 'gateway', gatewayId: theirs },
      { connectivity: 'gateway', gatewayId: 'gw_unknown' },
      { connectivity: 'gateway' },
      { connectivity: 'gateway', gatewayId: 5 },
      { gatewayId: gwId },
      { connectivity: 'direct', gatewayId: gwId },
      { connectivity: 'satellite' },
    ]) {
      expect([body, err(await e.heartbeat(h.credential, h.id, body))]).toEqual([
        body,
        { status: 422, code: 'invalid_parameter' },
      ]);
    }
    expect((await e.revokeGateway(owner, gwId)).status).toBe(204);
    expect(err(await e.heartbeat(h.credential, h.id, { connectivity: 'gateway', gatewayId: gwId }))).toEqual({
      status: 422,
      code: 'invalid_parameter',
    });
  });

  test('an expired host (no heartbeat for HOST_EXPIRY) is not refused: its next heartbeat makes it active again', async () => {
    const h = await host();
    await ageHost(h.id, 15 * 60_000);
    expect((await e.listHosts(owner, '?status=expired')).body.hosts.map((x: { id: string }) => x.id)).toContain(h.id);
    const res = await e.heartbeat(h.credential, h.id);
    expect(res.status).toBe(200);
    expect(res.body.host.status).toBe('active');
    expect((await e.listHosts(owner, '?status=active')).body.hosts.map((x: { id: string }) => x.id)).toContain(h.id);
  });

  test("HOST_EXPIRY is the app's: a window of 2 s (injected) expires a host silent for 3 s, and says to heartbeat every second", async () => {
    const short = await f.app({ fleet: { hostExpiryMs: 2000, gatewayExpiryMs: 2000, pendingGatewayMs: 7 * DAY } });
    const h = await host();
    await ageHost(h.id, 3000);
    const listed = (await e.listHosts(owner, '?status=expired', short)).body.hosts.map((x: { id: string }) => x.id);
    expect(listed).toContain(h.id);
    expect((await e.listHosts(owner, '?status=expired')).body.hosts.map((x: { id: string }) => x.id)).not.toContain(
      h.id,
    );
    const res = await e.heartbeat(h.credential, h.id, {}, short);
    expect(res.body).toMatchObject({ nextHeartbeatSeconds: 1, host: { status: 'active' } });
  });

  test('revocation is effective at once: 204, then the credential gets 401; the host stays listed as revoked; again 404', async () => {
    const h = await host();
    expect((await e.revokeHost(owner, h.id)).status).toBe(204);
    const res = await e.heartbeat(h.credential, h.id);
    expect(err(res)).toEqual({ status: 401, code: 'invalid_token' });
    expect(res.body.error.message).toMatch(/revoked/);
    expect((await e.listHosts(owner, '?status=revoked')).body.hosts.map((x: { id: string }) => x.id)).toContain(h.id);
    expect(err(await e.revokeHost(owner, h.id))).toEqual({ status: 404, code: 'not_found' });
    const other = await newOrg(f.store);
    const theirs = await e.attest((await e.issueToken(other.ownerToken, { name: 'o' })).body.token, attestBody());
    expect(err(await e.revokeHost(owner, theirs.body.host.id))).toEqual({ status: 404, code: 'not_found' });
    expect((await e.heartbeat(theirs.body.credential, theirs.body.host.id)).status).toBe(200);
    for (const role of ['member', 'auditor'] as const)
      expect(err(await e.revokeHost(await org.session(role), theirs.body.host.id))).toEqual({
        status: 403,
        code: 'insufficient_scope',
      });
  });

  test('five revocations at once: one 204, one audit event', async () => {
    const h = await host();
    const results = await Promise.all(Array.from({ length: 5 }, () => e.revokeHost(owner, h.id)));
    expect(results.map((r) => r.status).sort()).toEqual([204, 404, 404, 404, 404]);
    expect(await f.store.c.auditEvents.countDocuments({ type: 'host.revoked', 'target.id': h.id })).toBe(1);
  });
});

describe('GET /v1/hosts', () => {
  let lister: Org;
  const made: Array<{ id: string; hostname: string }> = [];
  beforeAll(async () => {
    lister = await newOrg(f.store, 'lister');
    const t = await e.issueToken(lister.ownerToken, { name: 'fleet', uses: 20, labels: { fleet: 'x' } });
    const names = ['delta', 'alpha', 'charlie', 'bravo', 'alpha', 'echo', 'foxtrot', 'bravo'];
    for (const [i, hostname] of names.entries()) {
      const res = await e.attest(t.body.token, {
        hostname,
        machineId: machine(),
        labels: { tier: i % 2 ? 'web' : 'db', zone: i < 4 ? 'a' : 'b' },
      });
      made.push({ id: res.body.host.id, hostname });
    }
    made.sort((x, y) => (x.hostname < y.hostname ? -1 : x.hostname > y.hostname ? 1 : x.id < y.id ? -1 : 1));
  });
  const page = async (query: string) => {
    const out: string[] = [];
    let cursor: string | null = null;
    do {
      const res = await e.listHosts(
        lister.ownerToken,
        `${query}&limit=3${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
      );
      expect(res.status).toBe(200);
      out.push(...res.body.hosts.map((h: { id: string }) => h.id));
      cursor = res.body.nextCursor;
    } while (cursor);
    return out;
  };

  test('ordered by hostname, then id, across pages', async () => {
    expect(await page('?')).toEqual(made.map((h) => h.id));
  });

  test('status filter, the derived expired one included, pages stay full and in order', async () => {
    const [a, b, c] = [made[0].id, made[3].id, made[6].id];
    await ageHost(a, 20 * 60_000);
    await ageHost(b, 20 * 60_000);
    expect((await e.revokeHost(lister.ownerToken, c)).status).toBe(204);
    expect(await page('?status=expired')).toEqual([a, b]);
    expect(await page('?status=revoked')).toEqual([c]);
    expect(await page('?status=active')).toEqual(made.map((h) => h.id).filter((id) => ![a, b, c].includes(id)));
    const first = await e.listHosts(lister.ownerToken, '?status=active&limit=2');
    expect(first.body.hosts).toHaveLength(2);
    expect(first.body.hosts.every((h: { status: string }) => h.status === 'active')).toBe(true);
  });

  test("label=key=value, repeatable: all must match; the token's labels count; unknown labels match nothing", async () => {
    const ids = async (q: string) => new Set(await page(q));
    const web = new Set(made.filter((_, i) => i % 2).map((h) => h.id));
    expect((await ids('?label=tier=web')).size).toBe(4);
    const webA = await ids('?label=tier=web&label=zone=a');
    expect(webA.size).toBe(2);
    for (const id of webA)
      expect((await f.store.c.hosts.findOne({ _id: id }))!.labels).toEqual(
        expect.arrayContaining(['tier=web', 'zone=a']),
      );
    expect((await ids('?label=fleet=x')).size).toBe(8);
    expect((await ids('?label=tier=web&label=tier=db')).size).toBe(0);
    expect((await ids('?label=nope=1')).size).toBe(0);
    expect((await ids('?label=tier=')).size).toBe(0);
    void web;
  });

  test.each([
    'label=novalue',
    'label==v',
    'label=a b=c',
    `label=${'k'.repeat(64)}=v`,
    `label=k=${'v'.repeat(256)}`,
    'label=k=%00',
    'status=pending',
    'status=active&status=revoked',
    'limit=0',
    'cursor=',
  ])('?%s → 422', async (q) => {
    const res = await e.listHosts(lister.ownerToken, `?${q}`);
    expect(res.status).toBe(422);
    expect(['invalid_parameter', 'invalid_cursor']).toContain(res.body.error.code);
  });

  test('a cursor is bound to its filters', async () => {
    const first = await e.listHosts(lister.ownerToken, '?label=fleet=x&limit=1');
    expect(
      err(
        await e.listHosts(
          lister.ownerToken,
          `?label=tier=web&limit=1&cursor=${encodeURIComponent(first.body.nextCursor)}`,
        ),
      ),
    ).toEqual({ status: 422, code: 'invalid_cursor' });
  });

  test('hosts:read: keys with it and every role; keys without it 403; another organization sees none of them', async () => {
    const key = await lister.key(['hosts:read']);
    expect((await e.listHosts(key)).body.hosts).toHaveLength(8);
    expect((await e.listHosts(await lister.session('auditor'))).status).toBe(200);
    const res = await e.listHosts(await lister.key(['gateways:read', 'scans:read']));
    expect(err(res)).toEqual({ status: 403, code: 'insufficient_scope' });
    expect(res.body.error.message).toMatch(/requires scope hosts:read/);
    const mine = (await e.listHosts(owner)).body.hosts.map((h: { id: string }) => h.id);
    for (const h of made) expect(mine).not.toContain(h.id);
  });
});

test('the audit trail: tokens issued and revoked, hosts registered, re-attested and revoked; never a heartbeat or a secret', async () => {
  const fresh = await newOrg(f.store);
  const t = await e.issueToken(fresh.ownerToken, { name: 'audited', uses: 3 });
  const m = machine();
  const a = await e.attest(t.body.token, attestBody(m));
  await e.heartbeat(a.body.credential, a.body.host.id);
  const b = await e.attest(t.body.token, attestBody(m), { 'X-Svc-Host-Credential': a.body.credential });
  await e.heartbeat(b.body.credential, b.body.host.id);
  await e.revokeHost(fresh.ownerToken, a.body.host.id);
  await e.revokeToken(fresh.ownerToken, t.body.registrationToken.id);
  const events = (await f.api.get('/v1/audit-events').set(bearer(fresh.ownerToken))).body.auditEvents;
  expect(events.map((x: { type: string }) => x.type)).toEqual([
    'registration_token.revoked',
    'host.revoked',
    'host.reattested',
    'host.registered',
    'registration_token.created',
  ]);
  expect(events[4]).toMatchObject({
    actor: { memberId: fresh.memberId },
    target: { kind: 'registration_token', id: t.body.registrationToken.id, name: 'audited', uses: 3 },
  });
  expect(events[3]).toMatchObject({
    actor: { memberId: null, registrationTokenId: t.body.registrationToken.id },
    target: { kind: 'host', id: a.body.host.id },
  });
  const text = JSON.stringify(events);
  for (const secret of [t.body.token, a.body.credential, b.body.credential])
    expect(text).not.toContain(secret.slice(8));
});

test('secrets never reach the log: Authorization, X-Svc-Host-Credential and the credentials answered', async () => {
  const lines: string[] = [];
  const logger = createLogger(
    'test',
    'trace',
    new Writable({ write: (chunk, _enc, cb) => (lines.push(String(chunk)), cb()) }),
  );
  const api = await f.app({ logger });
  const t = await e.issueToken(owner, { name: 'logged' }, api);
  const m = machine();
  const a = await e.attest(t.body.token, attestBody(m), {}, api);
  await e.attest(t.body.token, attestBody(m), { 'X-Svc-Host-Credential': a.body.credential }, api); // 401 (one use), logged
  await e.heartbeat(a.body.credential, a.body.host.id, { labels: { x: 'y' } }, api);
  logger.info(
    { req: { headers: { 'x-svc-host-credential': a.body.credential } }, credential: a.body.credential },
    'a careless line',
  );
  expect(lines.length).toBeGreaterThan(3);
  const text = lines.join('');
  for (const secret of [t.body.token, a.body.credential, owner]) expect(text).not.toContain(secret.slice(8));
});

test('HOST_EXPIRY and GATEWAY_EXPIRY: seconds or a number with ms, s, m or h; anything else stops the API at start, naming it', () => {
  expect(fleetWindowsFromEnv({})).toEqual({
    hostExpiryMs: 900_000,
    gatewayExpiryMs: 900_000,
    pendingGatewayMs: 7 * DAY,
  });
  expect(fleetWindowsFromEnv({ HOST_EXPIRY: '15m', GATEWAY_EXPIRY: '900' })).toMatchObject({
    hostExpiryMs: 900_000,
    gatewayExpiryMs: 900_000,
  });
  expect(fleetWindowsFromEnv({ HOST_EXPIRY: '500ms', GATEWAY_EXPIRY: '2h' })).toMatchObject({
    hostExpiryMs: 500,
    gatewayExpiryMs: 7_200_000,
  });
  expect(fleetWindowsFromEnv({ HOST_EXPIRY: ' 30s ' }).hostExpiryMs).toBe(30_000);
  for (const bad of ['0', '-5', '15 m', '1d', 'abc', '1.5m', '15M', '8d', '169h']) {
    expect(() => fleetWindowsFromEnv({ HOST_EXPIRY: bad })).toThrow(/HOST_EXPIRY/);
    expect(() => fleetWindowsFromEnv({ GATEWAY_EXPIRY: bad })).toThrow(/GATEWAY_EXPIRY/);
  }
  const saved = process.env.HOST_EXPIRY;
  process.env.HOST_EXPIRY = 'soon';
  try {
    expect(() => createApp({ logger: pino({ level: 'silent' }) } as never)).toThrow(
      /HOST_EXPIRY must be a positive duration/,
    );
  } finally {
    if (saved === undefined) delete process.env.HOST_EXPIRY;
    else process.env.HOST_EXPIRY = saved;
  }
});

test('rate limits: host credentials get the headers and are counted per process, never written to the shared counters', async () => {
  const limiter = new RateLimiter(f.store, { perMinute: 120, enforce: false });
  try {
    const api = await f.app({ rateLimiter: limiter });
    const h = await host();
    const first = await e.heartbeat(h.credential, h.id, {}, api);
    const second = await e.heartbeat(h.credential, h.id, {}, api);
    expect(first.headers['x-ratelimit-limit']).toBe('120');
    expect(Number(second.headers['x-ratelimit-remaining'])).toBe(Number(first.headers['x-ratelimit-remaining']) - 1);
    await e.listHosts(owner, '', api);
    await limiter.flush();
    const third = await e.heartbeat(h.credential, h.id, {}, api);
    expect(Number(third.headers['x-ratelimit-remaining'])).toBe(Number(second.headers['x-ratelimit-remaining']) - 1); // kept across the flush
    const counters = (await f.store.c.rateCounters.find({}).toArray()).map((c) => c._id);
    expect(counters.some((id) => id.startsWith(sha256Hex(owner)))).toBe(true);
    expect(counters.some((id) => id.startsWith(sha256Hex(h.credential)))).toBe(false);
  } finally {
    await limiter.close();
  }
});

test('the matrix can take a machine credential beside a scope (the seam issue 19 uses for the MCP uploads)', () => {
  const p = { kind: 'host', tokenHash: 'x', orgId: 'org_1' } as unknown as Principal;
  expect(() => authorize(p, { kind: 'scope', scope: 'mcp:upload', machines: ['host'] })).not.toThrow();
  expect(() => authorize(p, { kind: 'scope', scope: 'mcp:upload' })).toThrow(
    /requires scope mcp:upload; a host credential \(svc_hst_\) is valid only on its own endpoints/,
  );
  expect(() => authorize(p, { kind: 'scope', scope: 'mcp:upload', machines: ['gateway'] })).toThrow(
    /insufficient|requires/,
  );
  expect(() => authorize(p, { kind: 'credential', credential: 'gateway' })).toThrow(
    /requires a gateway credential \(svc_gwc_\)/,
  );
});
