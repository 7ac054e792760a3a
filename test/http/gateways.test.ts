// Gateways over real HTTP against the real database: enrollment tokens (issue, list, revoke, expiry),
// single-use enrollment with a validated networkScope, approval within the requested scope, heartbeats (a pending
// gateway stays pending), expiry of pending and silent gateways derived when read, revocation effective at once, and
// GET /v1/gateways. Decisions that must have one winner are tested concurrently. Every answer is checked against the
// OpenAPI document.
import { bearer, newOrg, type Org } from '../helpers/context';
import { endpoints, err, type Fleet, fleetSetup } from './hosts-helpers';

let f: Fleet;
let e: ReturnType<typeof endpoints>;
let org: Org;
let owner: string;

beforeAll(async () => {
  ({ f, e, org, owner } = await fleetSetup());
}, 60_000);
afterAll(() => f?.close());

const DAY = 24 * 3600 * 1000;
const SCOPE = ['10.0.0.0/8', '2001:db8::/32'];

async function enrollmentToken(body: Record<string, unknown> = {}, session = owner) {
  const res = await e.issueEnrollment(session, { name: 'edge', ...body });
  expect(res.status).toBe(201);
  return { id: res.body.enrollmentToken.id as string, token: res.body.token as string, res };
}

/** An enrolled (pending) gateway: its id and credential. */
async function gateway(body: Record<string, unknown> = {}, session = owner) {
  const t = await enrollmentToken({}, session);
  const res = await e.enroll(t.token, { version: '1.0.0', networkScope: SCOPE, ...body });
  expect(res.status).toBe(201);
  return { id: res.body.gateway.id as string, credential: res.body.credential as string, res, token: t };
}

const setGateway = (id: string, set: Record<string, unknown>) =>
  f.store.c.gateways.updateOne({ _id: id }, { $set: set });

describe('enrollment tokens', () => {
  test('owners and admins issue them: the token once, 24 hours by default, stored only as a hash', async () => {
    for (const session of [owner, await org.session('admin')]) {
      const { res } = await enrollmentToken({}, session);
      const { enrollmentToken: t, token } = res.body;
      expect(Object.keys(t)).toEqual([
        'id',
        'name',
        'status',
        'createdBy',
        'createdAt',
        'expiresAt',
        'usedAt',
        'gatewayId',
        'revokedAt',
      ]);
      expect(t).toMatchObject({
        id: expect.stringMatching(/^gwt_[0-9a-z]{22}$/),
        name: 'edge',
        status: 'active',
        createdBy: expect.stringMatching(/^mem_/),
        usedAt: null,
        gatewayId: null,
        revokedAt: null,
      });
      expect(Date.parse(t.expiresAt) - Date.parse(t.createdAt)).toBe(DAY);
      expect(token).toMatch(/^svc_gw_[0-9A-Za-z]{40}$/);
      for (const name of ['enrollmentTokens', 'auditEvents'])
        expect(JSON.stringify(await f.store.db.collection(name).find({}).toArray())).not.toContain(token.slice(7));
    }
  });

  test.each<[string, unknown, string]>([
    ['no name', {}, 'missing_parameter'],
    ['a name of another type', { name: ['edge'] }, 'invalid_parameter'],
    ['a name over 200 characters', { name: 'n'.repeat(201) }, 'invalid_parameter'],
    ['expiresAt in the past', { name: 'x', expiresAt: '2001-01-01T00:00:00Z' }, 'invalid_parameter'],
    [
      'expiresAt 8 days ahead',
      { name: 'x', expiresAt: new Date(Date.now() + 8 * DAY).toISOString() },
      'invalid_parameter',
    ],
    ['expiresAt not a timestamp', { name: 'x', expiresAt: 'next week' }, 'invalid_parameter'],
  ])('%s → 422 %s', async (_, body, code) => {
    const fresh = await newOrg(f.store);
    expect(err(await e.issueEnrollment(fresh.ownerToken, body))).toEqual({ status: 422, code });
    expect(await f.store.c.enrollmentTokens.countDocuments({ orgId: fresh.orgId })).toBe(0);
  });

  test('7 days ahead is accepted', async () => {
    const expiresAt = new Date(Date.now() + 7 * DAY - 60_000).toISOString();
    expect((await enrollmentToken({ expiresAt })).res.body.enrollmentToken.expiresAt).toBe(expiresAt);
  });

  test('members, auditors and API keys are refused', async () => {
    for (const s of [
      await org.session('member'),
      await org.session('auditor'),
      await org.key(['gateways:read', 'hosts:read']),
    ]) {
      for (const res of [
        await e.issueEnrollment(s, { name: 'x' }),
        await e.listEnrollments(s),
        await e.revokeEnrollment(s, 'gwt_x'),
      ])
        expect(err(res)).toEqual({ status: 403, code: 'insufficient_scope' });
    }
  });

  test('the list: newest first, pages, status active, used, expired, revoked', async () => {
    const fresh = await newOrg(f.store);
    const made: Array<{ id: string; token: string }> = [];
    for (let i = 0; i < 4; i++) {
      const t = await e.issueEnrollment(fresh.ownerToken, { name: `t${i}` });
      made.push({ id: t.body.enrollmentToken.id, token: t.body.token });
    }
    made.sort((a, b) => (a.id < b.id ? 1 : -1));
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const res = await e.listEnrollments(
        fresh.ownerToken,
        `?limit=3${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
      );
      seen.push(...res.body.enrollmentTokens.map((t: { id: string }) => t.id));
      for (const m of made) expect(JSON.stringify(res.body)).not.toContain(m.token.slice(7));
      cursor = res.body.nextCursor;
    } while (cursor);
    expect(seen).toEqual(made.map((m) => m.id));
    const g = await e.enroll(made[0].token, { version: '1', networkScope: SCOPE });
    await f.store.c.enrollmentTokens.updateOne({ id: made[1].id }, { $set: { expiresAt: new Date(Date.now() - 1) } });
    expect((await e.revokeEnrollment(fresh.ownerToken, made[2].id)).status).toBe(204);
    const by = async (status: string) =>
      (await e.listEnrollments(fresh.ownerToken, `?status=${status}`)).body.enrollmentTokens.map(
        (t: { id: string; gatewayId: string | null }) => [t.id, t.gatewayId],
      );
    expect(await by('used')).toEqual([[made[0].id, g.body.gateway.id]]);
    expect(await by('expired')).toEqual([[made[1].id, null]]);
    expect(await by('revoked')).toEqual([[made[2].id, null]]);
    expect(await by('active')).toEqual([[made[3].id, null]]);
    expect(err(await e.listEnrollments(fresh.ownerToken, '?status=exhausted'))).toEqual({
      status: 422,
      code: 'invalid_parameter',
    });
  });

  test("revocation: 204 once, then 404; a revoked token enrolls nothing; another organization's is 404", async () => {
    const t = await enrollmentToken();
    const results = await Promise.all(Array.from({ length: 4 }, () => e.revokeEnrollment(owner, t.id)));
    expect(results.map((r) => r.status).sort()).toEqual([204, 404, 404, 404]);
    const res = await e.enroll(t.token, { version: '1', networkScope: SCOPE });
    expect(err(res)).toEqual({ status: 401, code: 'invalid_token' });
    expect(res.body.error.message).toMatch(/revoked/);
    const other = await newOrg(f.store);
    const theirs = await enrollmentToken({}, other.ownerToken);
    expect(err(await e.revokeEnrollment(owner, theirs.id))).toEqual({ status: 404, code: 'not_found' });
  });
});

describe('enrollment', () => {
  test('201: the pending gateway and its credential (once, stored as a hash); name from the token unless given; scope normalised', async () => {
    const t = await enrollmentToken({ name: 'from-token' });
    const res = await e.enroll(t.token, {
      version: '2.1.0',
      networkScope: ['10.0.0.0/8', '2001:DB8:0:0::/32', '10.0.0.0/8', '192.168.1.0/24'],
      extra: 1,
    });
    expect(res.status).toBe(201);
    const { gateway: g, credential } = res.body;
    expect(Object.keys(g)).toEqual([
      'id',
      'name',
      'status',
      'networkScope',
      'version',
      'lastSeenAt',
      'requestedScope',
      'enrolledAt',
      'approvedAt',
    ]);
    expect(g).toEqual({
      id: expect.stringMatching(/^gw_[0-9a-z]{22}$/),
      name: 'from-token',
      status: 'pending',
      networkScope: ['10.0.0.0/8', '2001:db8::/32', '192.168.1.0/24'],
      version: '2.1.0',
      lastSeenAt: g.enrolledAt,
      requestedScope: ['10.0.0.0/8', '2001:db8::/32', '192.168.1.0/24'],
      enrolledAt: expect.any(String),
      approvedAt: null,
    });
    expect(credential).toMatch(/^svc_gwc_[0-9A-Za-z]{40}$/);
    for (const name of ['gateways', 'gatewayCredentials', 'auditEvents', 'claims'])
      expect(JSON.stringify(await f.store.db.collection(name).find({}).toArray())).not.toContain(credential.slice(8));
    const named = await e.enroll((await enrollmentToken()).token, {
      name: 'given',
      version: '1',
      networkScope: ['::/0'],
    });
    expect(named.body.gateway).toMatchObject({ name: 'given', networkScope: ['::/0'] });
  });

  test('once: a used token is 401; 5 enrollments at once with one token: exactly one gateway', async () => {
    const t = await enrollmentToken();
    expect((await e.enroll(t.token, { version: '1', networkScope: SCOPE })).status).toBe(201);
    const again = await e.enroll(t.token, { version: '1', networkScope: SCOPE });
    expect(err(again)).toEqual({ status: 401, code: 'invalid_token' });
    expect(again.body.error.message).toMatch(/used/);
    const fresh = await newOrg(f.store);
    const race = await e.issueEnrollment(fresh.ownerToken, { name: 'race' });
    const results = await Promise.all(
      Array.from({ length: 5 }, () => e.enroll(race.body.token, { version: '1', networkScope: SCOPE })),
    );
    expect(results.map((r) => r.status).sort()).toEqual([201, 401, 401, 401, 401]);
    expect(await f.store.c.gateways.countDocuments({ orgId: fresh.orgId })).toBe(1);
    expect(await f.store.c.auditEvents.countDocuments({ orgId: fresh.orgId, type: 'gateway.enrolled' })).toBe(1);
  });

  test('unknown and expired tokens are 401; a malformed body does not use the token', async () => {
    expect(err(await e.enroll('svc_gw_' + '0'.repeat(40), { version: '1', networkScope: SCOPE }))).toEqual({
      status: 401,
      code: 'invalid_token',
    });
    const old = await enrollmentToken();
    await f.store.c.enrollmentTokens.updateOne({ id: old.id }, { $set: { expiresAt: new Date(Date.now() - 1) } });
    expect(err(await e.enroll(old.token, { version: '1', networkScope: SCOPE }))).toEqual({
      status: 401,
      code: 'invalid_token',
    });
    const t = await enrollmentToken();
    expect(err(await e.enroll(t.token, { version: '1', networkScope: ['10.0.0.1/8'] }))).toEqual({
      status: 422,
      code: 'invalid_parameter',
    });
    expect((await e.enroll(t.token, { version: '1', networkScope: SCOPE })).status).toBe(201);
  });

  test.each<[string, unknown, string, RegExp]>([
    ['no version', { networkScope: SCOPE }, 'missing_parameter', /^version: /],
    ['a version of another type', { version: 1, networkScope: SCOPE }, 'invalid_parameter', /^version: /],
    [
      'a version over 100 characters',
      { version: 'v'.repeat(101), networkScope: SCOPE },
      'invalid_parameter',
      /^version: /,
    ],
    ['an empty name', { name: '', version: '1', networkScope: SCOPE }, 'missing_parameter', /^name: /],
    ['no networkScope', { version: '1' }, 'missing_parameter', /^networkScope: /],
    ['an empty networkScope', { version: '1', networkScope: [] }, 'missing_parameter', /^networkScope: /],
    [
      'networkScope a string',
      { version: '1', networkScope: '10.0.0.0/8' },
      'invalid_parameter',
      /^networkScope: must be an array/,
    ],
    [
      '101 CIDRs',
      { version: '1', networkScope: Array.from({ length: 101 }, (_, i) => `10.${i}.0.0/16`) },
      'invalid_parameter',
      /^networkScope: at most 100/,
    ],
    [
      '10.0.0.0/33',
      { version: '1', networkScope: ['10.0.0.0/33'] },
      'invalid_parameter',
      /^networkScope: \[0\]: .*at most \/32/,
    ],
    [
      '::1/129',
      { version: '1', networkScope: ['::/0', '::1/129'] },
      'invalid_parameter',
      /^networkScope: \[1\]: .*at most \/128/,
    ],
    [
      '10.0.0.1/8',
      { version: '1', networkScope: ['10.0.0.1/8'] },
      'invalid_parameter',
      /^networkScope: \[0\]: .*not a network address.*10\.0\.0\.0\/8/,
    ],
    ['abc', { version: '1', networkScope: ['abc'] }, 'invalid_parameter', /^networkScope: \[0\]: /],
    [
      'an empty string',
      { version: '1', networkScope: [''] },
      'invalid_parameter',
      /^networkScope: \[0\]: must not be empty/,
    ],
    ['a number', { version: '1', networkScope: [10] }, 'invalid_parameter', /^networkScope: \[0\]: must be a string/],
    ['a bare address', { version: '1', networkScope: ['10.0.0.0'] }, 'invalid_parameter', /^networkScope: \[0\]: /],
    ['a zone index', { version: '1', networkScope: ['fe80::%eth0/64'] }, 'invalid_parameter', /^networkScope: \[0\]: /],
    ['leading zeros', { version: '1', networkScope: ['010.0.0.0/8'] }, 'invalid_parameter', /^networkScope: \[0\]: /],
  ])('%s → 422 %s, nothing enrolled, the token still usable', async (_, body, code, message) => {
    const t = await enrollmentToken();
    const res = await e.enroll(t.token, body);
    expect(err(res)).toEqual({ status: 422, code });
    expect(res.body.error.message).toMatch(message);
    expect(await f.store.c.gateways.countDocuments({ enrollmentTokenId: t.id })).toBe(0);
  });

  test('100 CIDRs are accepted', async () => {
    const scope = Array.from({ length: 100 }, (_, i) => `10.${i}.0.0/16`);
    expect((await gateway({ networkScope: scope })).res.body.gateway.networkScope).toEqual(scope);
  });
});

describe('approval', () => {
  test('each approved CIDR within one requested: 200, the gateway active with networkScope as approved', async () => {
    const g = await gateway({ networkScope: ['10.0.0.0/8', '2001:db8::/32', '192.168.0.0/16'] });
    const res = await e.approve(owner, g.id, {
      networkScope: ['10.1.0.0/16', '10.2.3.0/24', '2001:DB8:1::/48', '192.168.0.0/16'],
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      id: g.id,
      status: 'active',
      networkScope: ['10.1.0.0/16', '10.2.3.0/24', '2001:db8:1::/48', '192.168.0.0/16'],
      requestedScope: ['10.0.0.0/8', '2001:db8::/32', '192.168.0.0/16'],
      approvedAt: expect.any(String),
    });
    expect((await e.listGateways(owner, '?status=active')).body.gateways.map((x: { id: string }) => x.id)).toContain(
      g.id,
    );
    const audit = await f.store.c.auditEvents.findOne({ type: 'gateway.approved', 'target.id': g.id });
    expect(audit).toMatchObject({ actor: { memberId: org.memberId }, target: { networkScope: res.body.networkScope } });
  });

  test.each<[string, string[]]>([
    ['wider than requested', ['10.0.0.0/7']],
    ['beside it', ['11.0.0.0/8']],
    ['the other family', ['::ffff:10.0.0.0/104']],
    ['partly outside', ['10.0.0.0/16', '172.16.0.0/12']],
  ])('a CIDR %s → 422 invalid_parameter, still pending', async (_, scope) => {
    const g = await gateway();
    const res = await e.approve(owner, g.id, { networkScope: scope });
    expect(err(res)).toEqual({ status: 422, code: 'invalid_parameter' });
    expect(res.body.error.message).toMatch(/^networkScope: .* is not within a CIDR the gateway requested/);
    expect((await f.store.c.gateways.findOne({ _id: g.id }))!.state).toBe('pending');
  });

  test('malformed scopes → 422', async () => {
    const g = await gateway();
    for (const body of [
      {},
      { networkScope: [] },
      { networkScope: ['10.0.0.1/8'] },
      { networkScope: 'x' },
      { networkScope: [null] },
    ]) {
      expect((await e.approve(owner, g.id, body)).status).toBe(422);
    }
  });

  test('only a pending gateway: active, revoked and expired pending ones (7 days, for good) → 409 invalid_state', async () => {
    const active = await gateway();
    expect((await e.approve(owner, active.id, { networkScope: ['10.0.0.0/8'] })).status).toBe(200);
    const revoked = await gateway();
    expect((await e.revokeGateway(owner, revoked.id)).status).toBe(204);
    const stale = await gateway();
    await setGateway(stale.id, { enrolledAt: new Date(Date.now() - 7 * DAY) });
    for (const [g, status] of [
      [active, 'active'],
      [revoked, 'revoked'],
      [stale, 'expired'],
    ] as const) {
      const res = await e.approve(owner, g.id, { networkScope: ['10.0.0.0/8'] });
      expect(err(res)).toEqual({ status: 409, code: 'invalid_state' });
      expect(res.body.error.message).toContain(`is ${status}`);
    }
    // a pending gateway 7 days less a minute old can still be approved
    const late = await gateway();
    await setGateway(late.id, { enrolledAt: new Date(Date.now() - 7 * DAY + 60_000) });
    expect((await e.approve(owner, late.id, { networkScope: ['10.0.0.0/8'] })).status).toBe(200);
  });

  test('5 approvals at once: one 200, the others 409; one audit event', async () => {
    const g = await gateway();
    const results = await Promise.all(
      Array.from({ length: 5 }, (_, i) => e.approve(owner, g.id, { networkScope: [`10.${i}.0.0/16`] })),
    );
    expect(results.map((r) => r.status).sort()).toEqual([200, 409, 409, 409, 409]);
    const won = results.find((r) => r.status === 200)!;
    expect(
      (await e.listGateways(owner, '?status=active')).body.gateways.find((x: { id: string }) => x.id === g.id)
        .networkScope,
    ).toEqual(won.body.networkScope);
    expect(await f.store.c.auditEvents.countDocuments({ type: 'gateway.approved', 'target.id': g.id })).toBe(1);
  });

  test("unknown, another organization's: 404; members, auditors, API keys and the gateway itself: 403", async () => {
    expect(err(await e.approve(owner, 'gw_unknown', { networkScope: ['10.0.0.0/8'] }))).toEqual({
      status: 404,
      code: 'not_found',
    });
    const other = await newOrg(f.store);
    const theirs = await gateway({}, other.ownerToken);
    expect(err(await e.approve(owner, theirs.id, { networkScope: ['10.0.0.0/8'] }))).toEqual({
      status: 404,
      code: 'not_found',
    });
    for (const s of [
      await other.session('member'),
      await other.session('auditor'),
      await other.key(['gateways:read']),
      theirs.credential,
    ]) {
      expect(err(await e.approve(s, theirs.id, { networkScope: ['10.0.0.0/8'] }))).toEqual({
        status: 403,
        code: 'insufficient_scope',
      });
    }
    expect((await f.store.c.gateways.findOne({ _id: theirs.id }))!.state).toBe('pending');
  });
});

describe('gateway heartbeats', () => {
  test('a pending gateway heartbeats and stays pending; its version is recorded; only its own id', async () => {
    const g = await gateway();
    const res = await e.gatewayHeartbeat(g.credential, g.id, { version: '1.0.1' });
    expect(res.status).toBe(200);
    expect(res.body.gateway).toMatchObject({ id: g.id, status: 'pending', version: '1.0.1' });
    expect(Date.parse(res.body.gateway.lastSeenAt)).toBeGreaterThanOrEqual(Date.parse(g.res.body.gateway.lastSeenAt));
    expect((await e.gatewayHeartbeat(g.credential, g.id, {})).body.gateway.version).toBe('1.0.1');
    const other = await gateway();
    for (const id of [other.id, 'gw_unknown'])
      expect(err(await e.gatewayHeartbeat(g.credential, id))).toEqual({ status: 404, code: 'not_found' });
    expect(err(await e.gatewayHeartbeat(g.credential, g.id, { version: 5 }))).toEqual({
      status: 422,
      code: 'invalid_parameter',
    });
  });

  test('an active gateway silent for GATEWAY_EXPIRY is expired until its next heartbeat; the clock counts from the approval too', async () => {
    const g = await gateway();
    await setGateway(g.id, { lastSeenAt: new Date(Date.now() - DAY), aliveAt: new Date(Date.now() - DAY) });
    const approved = await e.approve(owner, g.id, { networkScope: ['10.0.0.0/8'] });
    expect(approved.body.status).toBe('active'); // approved after a day of silence: active from the approval
    await setGateway(g.id, { aliveAt: new Date(Date.now() - 15 * 60_000) });
    expect((await e.listGateways(owner, '?status=expired')).body.gateways.map((x: { id: string }) => x.id)).toContain(
      g.id,
    );
    const res = await e.gatewayHeartbeat(g.credential, g.id);
    expect(res.body.gateway.status).toBe('active');
  });

  test('a pending gateway not approved within 7 days is expired for good: its credential is refused, its approval 409', async () => {
    const g = await gateway();
    await setGateway(g.id, { enrolledAt: new Date(Date.now() - 7 * DAY - 1000) });
    const res = await e.gatewayHeartbeat(g.credential, g.id);
    expect(err(res)).toEqual({ status: 401, code: 'invalid_token' });
    expect(res.body.error.message).toMatch(/without approval/);
    expect(
      (await e.listGateways(owner, '?status=expired')).body.gateways.find((x: { id: string }) => x.id === g.id),
    ).toMatchObject({ status: 'expired', networkScope: SCOPE });
  });

  test("revocation is effective at once: 204, then 401; again 404; another organization's 404", async () => {
    const g = await gateway();
    expect((await e.approve(owner, g.id, { networkScope: ['10.0.0.0/8'] })).status).toBe(200);
    const results = await Promise.all(Array.from({ length: 3 }, () => e.revokeGateway(owner, g.id)));
    expect(results.map((r) => r.status).sort()).toEqual([204, 404, 404]);
    const res = await e.gatewayHeartbeat(g.credential, g.id);
    expect(err(res)).toEqual({ status: 401, code: 'invalid_token' });
    expect(res.body.error.message).toMatch(/revoked/);
    const other = await newOrg(f.store);
    const theirs = await gateway({}, other.ownerToken);
    expect(err(await e.revokeGateway(owner, theirs.id))).toEqual({ status: 404, code: 'not_found' });
    expect((await e.gatewayHeartbeat(theirs.credential, theirs.id)).status).toBe(200);
  });

  test('svc_gw_ and svc_gwc_ are told apart: the enrollment token cannot heartbeat, the credential cannot enroll', async () => {
    const t = await enrollmentToken();
    const g = await gateway();
    expect(err(await e.gatewayHeartbeat(t.token, g.id))).toEqual({ status: 403, code: 'insufficient_scope' });
    const res = await e.enroll(g.credential, { version: '1', networkScope: SCOPE });
    expect(err(res)).toEqual({ status: 403, code: 'insufficient_scope' });
    expect(res.body.error.message).toMatch(/requires a gateway enrollment token.*svc_gw_/);
    // a credential whose prefix is svc_gwc_ never reaches the enrollment tokens, and the other way round
    expect(err(await e.gatewayHeartbeat('svc_gwc_' + t.token.slice(7), g.id))).toEqual({
      status: 401,
      code: 'invalid_token',
    });
    expect(err(await e.enroll('svc_gw_' + g.credential.slice(8), { version: '1', networkScope: SCOPE }))).toEqual({
      status: 401,
      code: 'invalid_token',
    });
  });
});

describe('GET /v1/gateways', () => {
  test('ordered by name, then id, across pages; status filters, expired of both kinds; gateways:read', async () => {
    const fresh = await newOrg(f.store);
    const names = ['kilo', 'alpha', 'echo', 'alpha', 'bravo', 'juliet'];
    const made: Array<{ id: string; name: string }> = [];
    for (const name of names) made.push({ id: (await gateway({ name }, fresh.ownerToken)).id, name });
    made.sort((x, y) => (x.name < y.name ? -1 : x.name > y.name ? 1 : x.id < y.id ? -1 : 1));
    const page = async (query: string, token = fresh.ownerToken) => {
      const out: string[] = [];
      let cursor: string | null = null;
      do {
        const res = await e.listGateways(
          token,
          `${query}&limit=2${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
        );
        expect(res.status).toBe(200);
        out.push(...res.body.gateways.map((g: { id: string }) => g.id));
        cursor = res.body.nextCursor;
      } while (cursor);
      return out;
    };
    expect(await page('?')).toEqual(made.map((g) => g.id));
    const [a, b, c, d] = made.map((g) => g.id);
    expect((await e.approve(fresh.ownerToken, a, { networkScope: ['10.0.0.0/8'] })).status).toBe(200);
    expect((await e.approve(fresh.ownerToken, b, { networkScope: ['10.0.0.0/8'] })).status).toBe(200);
    await setGateway(b, { aliveAt: new Date(Date.now() - 16 * 60_000) }); // active, silent: expired
    await setGateway(c, { enrolledAt: new Date(Date.now() - 8 * DAY) }); // pending too long: expired
    expect((await e.revokeGateway(fresh.ownerToken, d)).status).toBe(204);
    expect(await page('?status=active')).toEqual([a]);
    expect(await page('?status=expired')).toEqual([b, c]);
    expect(await page('?status=revoked')).toEqual([d]);
    expect(await page('?status=pending')).toEqual(made.slice(4).map((g) => g.id));
    expect(await page('?', await fresh.key(['gateways:read']))).toHaveLength(6);
    expect(await page('?', await fresh.session('auditor'))).toHaveLength(6);
    expect(err(await e.listGateways(await fresh.key(['hosts:read'])))).toEqual({
      status: 403,
      code: 'insufficient_scope',
    });
    expect(err(await e.listGateways(fresh.ownerToken, '?status=used'))).toEqual({
      status: 422,
      code: 'invalid_parameter',
    });
    expect(err(await e.listGateways(fresh.ownerToken, '?cursor=x.y'))).toEqual({ status: 422, code: 'invalid_cursor' });
    const mine = (await e.listGateways(owner)).body.gateways.map((g: { id: string }) => g.id);
    for (const g of made) expect(mine).not.toContain(g.id);
  });
});

test('the audit trail: tokens issued and revoked, gateways enrolled, approved, revoked; never a heartbeat or a secret', async () => {
  const fresh = await newOrg(f.store);
  const t = await e.issueEnrollment(fresh.ownerToken, { name: 'audited' });
  const g = await e.enroll(t.body.token, { version: '1', networkScope: SCOPE });
  await e.gatewayHeartbeat(g.body.credential, g.body.gateway.id);
  await e.approve(fresh.ownerToken, g.body.gateway.id, { networkScope: ['10.0.0.0/8'] });
  await e.gatewayHeartbeat(g.body.credential, g.body.gateway.id);
  await e.revokeGateway(fresh.ownerToken, g.body.gateway.id);
  const unused = await e.issueEnrollment(fresh.ownerToken, { name: 'unused' });
  await e.revokeEnrollment(fresh.ownerToken, unused.body.enrollmentToken.id);
  const events = (await f.api.get('/v1/audit-events').set(bearer(fresh.ownerToken))).body.auditEvents;
  expect(events.map((x: { type: string }) => x.type)).toEqual([
    'enrollment_token.revoked',
    'enrollment_token.created',
    'gateway.revoked',
    'gateway.approved',
    'gateway.enrolled',
    'enrollment_token.created',
  ]);
  expect(events[4]).toMatchObject({
    actor: { memberId: null, userId: null, email: null, enrollmentTokenId: t.body.enrollmentToken.id },
    target: { kind: 'gateway', id: g.body.gateway.id, name: 'audited', requestedScope: SCOPE },
  });
  const text = JSON.stringify(events);
  for (const secret of [t.body.token, g.body.credential]) expect(text).not.toContain(secret.slice(8));
});
