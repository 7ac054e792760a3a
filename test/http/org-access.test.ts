// Members, invitations, the audit trail, public IP ranges and rate limits over real HTTP on the real database.
import {
  addMember,
  createOrgWithOwner,
  createSession,
  findOrCreateUser,
  memberOfUser,
} from '../../src/storage/accounts';
import {
  acceptInvitation,
  createInvitation,
  findInvitationByToken,
  revokeInvitation,
} from '../../src/storage/invitations';
import { isCidr } from '../../src/http/platform';
import { bearer, newOrg, testContext, type Org, type TestContext } from '../helpers/context';

let t: TestContext;
beforeAll(async () => {
  t = await testContext({
    platform: {
      publicAppUrl: 'https://app.example.test',
      challengeSources: ['192.0.2.0/24', '2001:db8::/32'],
      challengeSourcesUpdatedAt: new Date('2026-01-02T03:04:05Z'),
    },
  });
});
afterAll(() => t.close());

const err = (res: { status: number; body: any }) => ({ status: res.status, code: res.body?.error?.code });
const userSession = async (email: string) =>
  (await createSession(t.store, (await findOrCreateUser(t.store, email))._id)).token;
let n = 0;
const email = (tag: string) => `${tag}-${Date.now()}-${n++}@example.test`;

async function memberIdOf(org: Org, token: string): Promise<string> {
  return (await t.api.get('/v1/me').set(bearer(token))).body.member.id;
}

describe('members', () => {
  test('listed by role rank then email, with a role filter and pagination', async () => {
    const org = await newOrg(t.store);
    for (const role of ['auditor', 'member', 'admin', 'member'] as const) await org.session(role);
    const all = await t.api.get('/v1/members').set(bearer(org.ownerToken));
    expect(all.status).toBe(200);
    const roles = all.body.members.map((m: any) => m.role);
    expect(roles).toEqual(['owner', 'admin', 'member', 'member', 'auditor']);
    const members = all.body.members.filter((m: any) => m.role === 'member').map((m: any) => m.email);
    expect(members).toEqual([...members].sort());
    expect(Object.keys(all.body.members[0]).sort()).toEqual(['email', 'id', 'joinedAt', 'role', 'userId']);
    const filtered = await t.api.get('/v1/members?role=member').set(bearer(await org.session('auditor')));
    expect(filtered.body.members.map((m: any) => m.role)).toEqual(['member', 'member']);
    const p1 = await t.api.get('/v1/members?limit=2').set(bearer(org.ownerToken));
    const p2 = await t.api
      .get(`/v1/members?limit=2&cursor=${encodeURIComponent(p1.body.nextCursor)}`)
      .set(bearer(org.ownerToken));
    expect([...p1.body.members, ...p2.body.members].map((m: any) => m.id)).toEqual(
      all.body.members.slice(0, 4).map((m: any) => m.id),
    );
    expect(err(await t.api.get('/v1/members?role=boss').set(bearer(org.ownerToken)))).toEqual({
      status: 422,
      code: 'invalid_parameter',
    });
  });

  test('role changes: owner-only promotions and owner changes, owner not assignable, the last owner stays', async () => {
    const org = await newOrg(t.store);
    const admin = await org.session('admin');
    const memberTok = await org.session('member');
    const memberId = await memberIdOf(org, memberTok);
    const patch = (tok: string, id: string, body: object) =>
      t.api.patch(`/v1/members/${id}`).set(bearer(tok)).send(body);
    expect(err(await patch(admin, memberId, { role: 'admin' }))).toEqual({ status: 403, code: 'insufficient_scope' });
    expect((await patch(admin, memberId, { role: 'admin' })).body.error.message).toMatch(/requires role owner/);
    expect(err(await patch(org.ownerToken, memberId, { role: 'owner' }))).toEqual({
      status: 422,
      code: 'invalid_parameter',
    });
    expect(err(await patch(org.ownerToken, memberId, {}))).toEqual({ status: 422, code: 'missing_parameter' });
    expect(err(await patch(admin, org.memberId, { role: 'member' }))).toEqual({
      status: 403,
      code: 'insufficient_scope',
    });
    expect(err(await patch(org.ownerToken, org.memberId, { role: 'admin' }))).toEqual({
      status: 409,
      code: 'last_owner',
    });
    expect(err(await patch(memberTok, memberId, { role: 'auditor' }))).toEqual({
      status: 403,
      code: 'insufficient_scope',
    });
    const ok = await patch(admin, memberId, { role: 'auditor' });
    expect([ok.status, ok.body.role, ok.body.id]).toEqual([200, 'auditor', memberId]);
    const promoted = await patch(org.ownerToken, memberId, { role: 'admin' });
    expect(promoted.body.role).toBe('admin');
    expect(err(await patch(org.ownerToken, 'mem_nope', { role: 'member' }))).toEqual({
      status: 404,
      code: 'not_found',
    });
  });

  test('removal and leaving: any role may leave, admins remove non-owners, the sole owner cannot go', async () => {
    const org = await newOrg(t.store);
    const admin = await org.session('admin');
    const auditor = await org.session('auditor');
    const memberTok = await org.session('member');
    const memberId = await memberIdOf(org, memberTok);
    expect(err(await t.api.delete(`/v1/members/${memberId}`).set(bearer(auditor)))).toEqual({
      status: 403,
      code: 'insufficient_scope',
    });
    expect((await t.api.delete(`/v1/members/${await memberIdOf(org, auditor)}`).set(bearer(auditor))).status).toBe(204); // leaving
    expect(err(await t.api.get('/v1/members').set(bearer(auditor)))).toEqual({
      status: 403,
      code: 'insufficient_scope',
    }); // no org any more
    expect(err(await t.api.delete(`/v1/members/${org.memberId}`).set(bearer(admin)))).toEqual({
      status: 403,
      code: 'insufficient_scope',
    });
    expect(err(await t.api.delete(`/v1/members/${org.memberId}`).set(bearer(org.ownerToken)))).toEqual({
      status: 409,
      code: 'last_owner',
    });
    expect((await t.api.delete(`/v1/members/${memberId}`).set(bearer(admin))).status).toBe(204);
    expect(err(await t.api.delete(`/v1/members/${memberId}`).set(bearer(admin)))).toEqual({
      status: 404,
      code: 'not_found',
    });
  });
});

describe('invitations', () => {
  test('create, list (no tokens), replace, lookup, accept, and the acceptance conflicts in order', async () => {
    const org = await newOrg(t.store, 'Acme Inc');
    const admin = await org.session('admin');
    const invitee = email('invitee');
    expect(err(await t.api.post('/v1/invitations').set(bearer(admin)).send({ email: invitee, role: 'admin' }))).toEqual(
      { status: 403, code: 'insufficient_scope' },
    );
    expect(err(await t.api.post('/v1/invitations').set(bearer(admin)).send({ role: 'member' }))).toEqual({
      status: 422,
      code: 'missing_parameter',
    });
    const first = await t.api.post('/v1/invitations').set(bearer(admin)).send({ email: invitee, role: 'member' });
    expect(first.status).toBe(201);
    const second = await t.api
      .post('/v1/invitations')
      .set(bearer(org.ownerToken))
      .send({ email: invitee.toUpperCase(), role: 'admin' });
    expect(second.status).toBe(201);
    expect(second.body.token).toMatch(/^svc_inv_[A-Za-z0-9]{40}$/);
    expect(second.body.inviteUrl).toBe(`https://app.example.test/invitations/accept#token=${second.body.token}`);
    expect(second.body.invitation).toMatchObject({
      email: invitee,
      role: 'admin',
      status: 'pending',
      acceptedAt: null,
      revokedAt: null,
    });
    // the token is stored only as a hash
    expect(JSON.stringify(await t.store.c.invitations.find({}).toArray())).not.toContain(second.body.token);
    const list = await t.api.get('/v1/invitations').set(bearer(admin));
    expect(list.body.invitations.map((i: any) => [i.id, i.status])).toEqual([
      [second.body.invitation.id, 'pending'],
      [first.body.invitation.id, 'revoked'], // re-inviting a pending email revokes and replaces
    ]);
    expect(JSON.stringify(list.body)).not.toContain('svc_inv_');
    expect(
      (await t.api.get('/v1/invitations?status=revoked').set(bearer(admin))).body.invitations.map((i: any) => i.id),
    ).toEqual([first.body.invitation.id]);

    const lookup = await t.api.post('/v1/invitations/lookups').send({ token: second.body.token });
    expect(lookup.body).toEqual({
      org: { name: 'Acme Inc' },
      email: invitee,
      role: 'admin',
      status: 'pending',
      expiresAt: second.body.invitation.expiresAt,
    });
    expect(err(await t.api.post('/v1/invitations/lookups').send({ token: 'svc_inv_unknown' }))).toEqual({
      status: 404,
      code: 'not_found',
    });
    expect(err(await t.api.post('/v1/invitations/lookups').send({}))).toEqual({
      status: 422,
      code: 'missing_parameter',
    });

    const accept = (tok: string, token: string) =>
      t.api.post('/v1/invitations/acceptances').set(bearer(tok)).send({ token });
    const stranger = await userSession(email('stranger'));
    expect(err(await accept(stranger, first.body.token))).toEqual({ status: 409, code: 'invite_revoked' });
    expect(err(await accept(stranger, second.body.token))).toEqual({ status: 409, code: 'invite_email_mismatch' });
    expect(err(await accept(org.ownerToken, 'svc_inv_' + 'x'.repeat(40)))).toEqual({ status: 404, code: 'not_found' });
    const inviteeTok = await userSession(invitee);
    const me0 = await t.api.get('/v1/me').set(bearer(inviteeTok));
    expect([me0.body.org, me0.body.member]).toEqual([null, null]);
    const ok = await accept(inviteeTok, second.body.token);
    expect(ok.status).toBe(200);
    expect(ok.body).toMatchObject({
      org: { id: org.orgId, name: 'Acme Inc' },
      member: { role: 'admin', email: invitee },
    });
    const me1 = await t.api.get('/v1/me').set(bearer(inviteeTok));
    expect(me1.body.member.role).toBe('admin');
    expect(err(await accept(inviteeTok, second.body.token))).toEqual({ status: 409, code: 'invite_already_accepted' });
    const audit = await t.api.get('/v1/audit-events').set(bearer(org.ownerToken));
    expect(audit.body.auditEvents[0]).toMatchObject({
      type: 'invitation.accepted',
      actor: { memberId: ok.body.member.id, email: invitee },
      target: { kind: 'invitation', id: second.body.invitation.id, role: 'admin' },
    });
    expect(audit.body.auditEvents.map((e: any) => e.type)).toEqual([
      'invitation.accepted',
      'invitation.created',
      'invitation.revoked',
      'invitation.created',
    ]);

    // a member is not invited again by this organization; another one's invitation is refused at acceptance, expired
    expect(
      err(await t.api.post('/v1/invitations').set(bearer(admin)).send({ email: invitee, role: 'member' })),
    ).toEqual({ status: 409, code: 'already_member' });
    const elsewhere = await newOrg(t.store, 'Elsewhere Inc');
    const later = await t.api
      .post('/v1/invitations')
      .set(bearer(elsewhere.ownerToken))
      .send({ email: invitee, role: 'member' });
    expect(err(await accept(inviteeTok, later.body.token))).toEqual({ status: 409, code: 'already_in_org' });
    await t.store.c.invitations.updateOne(
      { id: later.body.invitation.id },
      { $set: { expiresAt: new Date(Date.now() - 1000) } },
    );
    expect(err(await accept(inviteeTok, later.body.token))).toEqual({ status: 409, code: 'invite_expired' });
    expect((await t.api.post('/v1/invitations/lookups').send({ token: later.body.token })).body.status).toBe('expired');

    // revoke
    const third = await t.api
      .post('/v1/invitations')
      .set(bearer(admin))
      .send({ email: email('third'), role: 'auditor' });
    expect((await t.api.delete(`/v1/invitations/${third.body.invitation.id}`).set(bearer(admin))).status).toBe(204);
    expect((await t.api.post('/v1/invitations/lookups').send({ token: third.body.token })).body.status).toBe('revoked');
    expect(err(await t.api.delete('/v1/invitations/inv_nope').set(bearer(admin)))).toEqual({
      status: 404,
      code: 'not_found',
    });
  });
});

test('inviting a member of this organization is 409 already_member (any case); a member of another organization is invited like anyone', async () => {
  const org = await newOrg(t.store, 'Members Inc');
  const other = await newOrg(t.store, 'Elsewhere Ltd');
  const owner = org.ownerToken;
  const inside = email('inside');
  await addMember(t.store, org.orgId, inside, 'member');
  const outside = email('outside');
  await addMember(t.store, other.orgId, outside, 'member');
  const before = await t.store.c.invitations.countDocuments({ orgId: org.orgId });
  for (const address of [inside, inside.toUpperCase(), ` ${inside} `]) {
    const res = await t.api.post('/v1/invitations').set(bearer(owner)).send({ email: address, role: 'member' });
    expect({ address, ...err(res), message: res.body.error?.message }).toEqual({
      address,
      status: 409,
      code: 'already_member',
      message: `email: ${inside} is already a member of this organization`,
    });
  }
  expect(await t.store.c.invitations.countDocuments({ orgId: org.orgId })).toBe(before); // nothing written
  // whether an address belongs to another organization is never said: its invitation is created as any other
  const res = await t.api.post('/v1/invitations').set(bearer(owner)).send({ email: outside, role: 'member' });
  expect(res.status).toBe(201);
});

describe('invitation decisions: revocation and acceptance have one winner', () => {
  const accept = (tok: string, token: string) =>
    t.api.post('/v1/invitations/acceptances').set(bearer(tok)).send({ token });
  async function invited(org: Org, role: 'member' | 'auditor' = 'member') {
    const address = email('race');
    const res = await t.api.post('/v1/invitations').set(bearer(org.ownerToken)).send({ email: address, role });
    const user = await findOrCreateUser(t.store, address);
    return {
      id: res.body.invitation.id as string,
      token: res.body.token as string,
      user,
      session: (await createSession(t.store, user._id)).token,
    };
  }
  const stored = async (id: string) => (await t.store.c.invitations.findOne({ id }))!;

  test('a revocation landing after the acceptance loaded the invitation wins: 409 invite_revoked, no member', async () => {
    const org = await newOrg(t.store);
    const inv = await invited(org);
    // The seam: the acceptance's load returns the invitation still pending, and the revocation lands right after.
    const original = t.store.c.invitations.findOne.bind(t.store.c.invitations);
    const spy = jest.spyOn(t.store.c.invitations, 'findOne').mockImplementationOnce((async (...args: unknown[]) => {
      const doc = await (original as (...a: unknown[]) => Promise<any>)(...args);
      expect(doc.status).toBe('pending');
      expect(await revokeInvitation(t.store, doc)).toBe(true);
      return doc;
    }) as any);
    try {
      expect(err(await accept(inv.session, inv.token))).toEqual({ status: 409, code: 'invite_revoked' });
    } finally {
      spy.mockRestore();
    }
    expect(await memberOfUser(t.store, inv.user._id)).toBeNull();
    expect((await stored(inv.id)).status).toBe('revoked');
    expect((await t.api.get('/v1/me').set(bearer(inv.session))).body.member).toBeNull();
  });

  test('in storage, in the order the race produces: load, revoke, accept → revoked; load, accept, revoke → accepted', async () => {
    const org = await newOrg(t.store);
    const a = await invited(org);
    const loadedA = (await findInvitationByToken(t.store, a.token))!;
    expect(await revokeInvitation(t.store, loadedA)).toBe(true);
    expect(await acceptInvitation(t.store, loadedA, { id: a.user._id, email: a.user.email })).toEqual({
      outcome: 'revoked',
    });
    expect(await memberOfUser(t.store, a.user._id)).toBeNull();

    const b = await invited(org);
    const loadedB = (await findInvitationByToken(t.store, b.token))!;
    const won = await acceptInvitation(t.store, loadedB, { id: b.user._id, email: b.user.email });
    expect(won).toMatchObject({ outcome: 'accepted', member: { orgId: org.orgId, userId: b.user._id } });
    expect(await revokeInvitation(t.store, loadedB)).toBe(false);
    expect(await stored(b.id)).toMatchObject({ status: 'accepted', revokedAt: null });
    expect(await acceptInvitation(t.store, loadedB, { id: b.user._id, email: b.user.email })).toEqual({
      outcome: 'already_accepted',
    });
  });

  test('an acceptance whose member cannot be added (already in an organization) gives the decision back', async () => {
    const org = await newOrg(t.store);
    const inv = await invited(org);
    const loaded = (await findInvitationByToken(t.store, inv.token))!;
    // the invitee joins another organization between the route's check and the claim
    const other = await createOrgWithOwner(t.store, 'elsewhere', email('elsewhere-owner'));
    await addMember(t.store, other.org._id, inv.user.email, 'member');
    expect(await acceptInvitation(t.store, loaded, { id: inv.user._id, email: inv.user.email })).toEqual({
      outcome: 'already_in_org',
    });
    expect((await stored(inv.id)).status).toBe('pending');
    expect(await t.store.c.claims.findOne({ _id: `invitation-decision:${inv.id}` })).toBeNull();
    expect(await revokeInvitation(t.store, loaded)).toBe(true); // nothing holds the decision any more
  });

  test('a revocation waits for an acceptance that holds the decision: it takes the decision once that is given back', async () => {
    const org = await newOrg(t.store);
    const inv = await invited(org);
    const loaded = (await findInvitationByToken(t.store, inv.token))!;
    const claim = { _id: `invitation-decision:${inv.id}`, value: `accepted:${inv.user._id}:inflight`, at: new Date() };
    await t.store.c.claims.insertOne(claim);
    const revoking = revokeInvitation(t.store, loaded);
    await new Promise((r) => setTimeout(r, 150));
    await t.store.c.claims.deleteOne({ _id: claim._id }); // the acceptance failed and gave it back
    expect(await revoking).toBe(true);
    expect((await stored(inv.id)).status).toBe('revoked');
  });

  test('re-inviting does not revoke an invitation an acceptance has won', async () => {
    const org = await newOrg(t.store);
    const inv = await invited(org);
    const loaded = (await findInvitationByToken(t.store, inv.token))!;
    const stale = { ...loaded }; // what the re-invite read: still pending
    expect((await acceptInvitation(t.store, loaded, { id: inv.user._id, email: inv.user.email })).outcome).toBe(
      'accepted',
    );
    await t.store.c.invitations.updateOne({ _id: stale._id }, { $set: { status: 'pending' } }); // as if the status write were still under way
    const again = createInvitation(t.store, {
      orgId: org.orgId,
      email: inv.user.email,
      role: 'member',
      createdBy: org.memberId,
    });
    await new Promise((r) => setTimeout(r, 100));
    await t.store.c.invitations.updateOne({ _id: stale._id }, { $set: { status: 'accepted' } });
    expect((await again).replaced).toEqual([]);
    expect((await stored(inv.id)).status).toBe('accepted');
  });

  test('accept and revoke fired together, many times: exactly one wins, and the member exists iff the invitation is accepted', async () => {
    const org = await newOrg(t.store);
    const outcomes = { accepted: 0, revoked: 0 };
    for (let round = 0; round < 24; round++) {
      const inv = await invited(org);
      const [acc, del] = await Promise.all([
        accept(inv.session, inv.token),
        t.api.delete(`/v1/invitations/${inv.id}`).set(bearer(org.ownerToken)),
      ]);
      expect(del.status).toBe(204);
      const doc = await stored(inv.id);
      const member = await memberOfUser(t.store, inv.user._id);
      if (acc.status === 200) {
        outcomes.accepted++;
        expect(doc.status).toBe('accepted');
        expect(member).toMatchObject({ _id: acc.body.member.id, orgId: org.orgId });
      } else {
        outcomes.revoked++;
        expect(err(acc)).toEqual({ status: 409, code: 'invite_revoked' });
        expect(doc.status).toBe('revoked');
        expect(member).toBeNull();
      }
    }
    // and in storage, without HTTP in between, so that the two decisions meet as closely as they can
    for (let round = 0; round < 40; round++) {
      const inv = await invited(org, 'auditor');
      const loaded = (await findInvitationByToken(t.store, inv.token))!;
      const [acc, revoked] = await Promise.all([
        acceptInvitation(t.store, loaded, { id: inv.user._id, email: inv.user.email }),
        revokeInvitation(t.store, loaded),
      ]);
      expect({ acc: acc.outcome, revoked }).toEqual(
        acc.outcome === 'accepted' ? { acc: 'accepted', revoked: false } : { acc: 'revoked', revoked: true },
      );
      const doc = await stored(inv.id);
      expect(doc.status).toBe(acc.outcome === 'accepted' ? 'accepted' : 'revoked');
      expect((await memberOfUser(t.store, inv.user._id)) !== null).toBe(doc.status === 'accepted');
      outcomes[acc.outcome === 'accepted' ? 'accepted' : 'revoked']++;
    }
    // audit: one revocation event per revoked invitation, one acceptance event per accepted one (HTTP rounds)
    const events = (await t.api.get('/v1/audit-events?limit=200').set(bearer(org.ownerToken))).body.auditEvents;
    const types = events.map((e: any) => e.type);
    expect(
      types.filter((x: string) => x === 'invitation.accepted').length +
        types.filter((x: string) => x === 'invitation.revoked').length,
    ).toBe(24);
    expect(outcomes.accepted + outcomes.revoked).toBe(64);
  });
});

describe('audit trail', () => {
  test('key, member and invitation events with actor, target, time and request id; newest first; admins only', async () => {
    const org = await newOrg(t.store);
    const memberTok = await org.session('member');
    const memberId = await memberIdOf(org, memberTok);
    const rid = (x: string) => ({ 'X-Request-Id': x });
    const key = await t.api
      .post('/v1/api-keys')
      .set(bearer(org.ownerToken))
      .set(rid('r-key'))
      .send({ name: 'ci', scopes: ['scans:read'], projects: 'all' });
    await t.api.delete(`/v1/api-keys/${key.body.apiKey.id}`).set(bearer(org.ownerToken)).set(rid('r-revoke'));
    await t.api
      .patch(`/v1/members/${memberId}`)
      .set(bearer(org.ownerToken))
      .set(rid('r-role'))
      .send({ role: 'auditor' });
    const inv = await t.api
      .post('/v1/invitations')
      .set(bearer(org.ownerToken))
      .set(rid('r-inv'))
      .send({ email: email('audit'), role: 'member' });
    await t.api
      .delete(`/v1/invitations/${inv.body.invitation.id}`)
      .set(bearer(org.ownerToken))
      .set(rid('r-inv-revoke'));
    await t.api.delete(`/v1/members/${memberId}`).set(bearer(org.ownerToken)).set(rid('r-remove'));
    const res = await t.api.get('/v1/audit-events').set(bearer(org.ownerToken));
    expect(res.status).toBe(200);
    expect(res.body.auditEvents.map((e: any) => [e.type, e.requestId])).toEqual([
      ['member.removed', 'r-remove'],
      ['invitation.revoked', 'r-inv-revoke'],
      ['invitation.created', 'r-inv'],
      ['member.role_changed', 'r-role'],
      ['api_key.revoked', 'r-revoke'],
      ['api_key.created', 'r-key'],
    ]);
    const roleChange = res.body.auditEvents[3];
    expect(roleChange).toMatchObject({
      actor: { memberId: org.memberId },
      target: { kind: 'member', id: memberId, from: 'member', to: 'auditor' },
      at: expect.any(String),
    });
    const page = await t.api.get('/v1/audit-events?limit=4').set(bearer(org.ownerToken));
    const rest = await t.api
      .get(`/v1/audit-events?limit=4&cursor=${encodeURIComponent(page.body.nextCursor)}`)
      .set(bearer(org.ownerToken));
    expect([...page.body.auditEvents, ...rest.body.auditEvents].map((e: any) => e.id)).toEqual(
      res.body.auditEvents.map((e: any) => e.id),
    );
    // a revoked key is named in its event
    expect(res.body.auditEvents[4].target).toEqual({ kind: 'api_key', id: key.body.apiKey.id, name: 'ci' });
    // by type, and by actor (email, any case); a cursor belongs to its filters
    const types = async (q: string) =>
      (await t.api.get(`/v1/audit-events?${q}`).set(bearer(org.ownerToken))).body.auditEvents.map((e: any) => e.type);
    expect(await types('type=invitation.created')).toEqual(['invitation.created']);
    expect(await types('type=api_key.revoked&limit=1')).toEqual(['api_key.revoked']);
    const ownerEmail = (await t.store.c.members.findOne({ _id: org.memberId }))!.email;
    expect(await types(`actor=${encodeURIComponent(ownerEmail.toUpperCase())}`)).toHaveLength(6);
    expect(await types('actor=nobody%40example.test')).toEqual([]);
    const first = await t.api.get('/v1/audit-events?type=member.removed&limit=1').set(bearer(org.ownerToken));
    expect(first.body.auditEvents).toHaveLength(1);
    expect(
      err(
        await t.api
          .get(`/v1/audit-events?limit=1&cursor=${encodeURIComponent(page.body.nextCursor)}&type=member.removed`)
          .set(bearer(org.ownerToken)),
      ),
    ).toEqual({ status: 422, code: 'invalid_cursor' });
    for (const bad of ['type=nope', 'actor=not-an-email', `actor=${'a'.repeat(320)}@x`, 'type=a&type=b'])
      expect(err(await t.api.get(`/v1/audit-events?${bad}`).set(bearer(org.ownerToken)))).toEqual({
        status: 422,
        code: 'invalid_parameter',
      });
    expect(err(await t.api.get('/v1/audit-events').set(bearer(await org.session('member'))))).toEqual({
      status: 403,
      code: 'insufficient_scope',
    });
    expect(err(await t.api.get('/v1/audit-events').set(bearer(await org.key(['scans:read']))))).toEqual({
      status: 403,
      code: 'insufficient_scope',
    });
  });
});

describe('API keys', () => {
  test('lastUsedAt is kept current without a write per request; expired keys are listed as expired', async () => {
    const org = await newOrg(t.store);
    const created = await t.api
      .post('/v1/api-keys')
      .set(bearer(org.ownerToken))
      .send({ name: 'ci', scopes: ['scans:read'], projects: 'all' });
    expect(created.body.apiKey.lastUsedAt).toBeNull();
    await t.api.get('/v1/scans').set(bearer(created.body.secret));
    const stamped = async () => (await t.store.c.apiKeys.findOne({ id: created.body.apiKey.id }))!.lastUsedAt;
    let first: Date | null = null;
    for (let i = 0; i < 50 && !first; i++) (first = await stamped()) || (await new Promise((r) => setTimeout(r, 20)));
    expect(first).not.toBeNull();
    for (let i = 0; i < 5; i++) await t.api.get('/v1/scans').set(bearer(created.body.secret));
    await new Promise((r) => setTimeout(r, 100));
    expect(await stamped()).toEqual(first); // within the minute: no further writes
    const listed = await t.api.get('/v1/api-keys').set(bearer(org.ownerToken));
    expect(listed.body.apiKeys[0].lastUsedAt).toBe(first!.toISOString());
    await t.store.c.apiKeys.updateOne(
      { id: created.body.apiKey.id },
      { $set: { expiresAt: new Date(Date.now() - 1000) } },
    );
    expect(
      (await t.api.get('/v1/api-keys?status=expired').set(bearer(org.ownerToken))).body.apiKeys.map((k: any) => k.id),
    ).toEqual([created.body.apiKey.id]);
    expect(err(await t.api.get('/v1/scans').set(bearer(created.body.secret)))).toEqual({
      status: 401,
      code: 'invalid_token',
    });
  });
});

describe('public IP ranges and rate limits', () => {
  test('GET /v1/meta/ip-ranges is public and lists the configured CIDRs', async () => {
    const res = await t.api.get('/v1/meta/ip-ranges');
    expect(res.body).toEqual({
      challenge_sources: ['192.0.2.0/24', '2001:db8::/32'],
      updated_at: '2026-01-02T03:04:05.000Z',
    });
    expect(['10.0.0.0/8', '::/0', '2001:db8::1/128'].every(isCidr)).toBe(true);
    expect(['10.0.0.0/33', '10.0.0.0', 'example.com/8', '2001:db8::/129'].some(isCidr)).toBe(false);
  });

  test('every authenticated response carries X-RateLimit-*; enforcement (off by default) answers 429 with Retry-After', async () => {
    // counters are per minute: start well inside one
    const intoMinute = Date.now() % 60_000;
    if (intoMinute > 50_000) await new Promise((r) => setTimeout(r, 60_000 - intoMinute + 100));
    const org = await newOrg(t.store);
    const key = await org.key(['scans:read']);
    const first = await t.api.get('/v1/scans').set(bearer(key));
    expect(first.headers['x-ratelimit-limit']).toBe('120');
    expect(Number(first.headers['x-ratelimit-reset'])).toBeGreaterThan(Date.now() / 1000);
    const second = await t.api.get('/v1/scans').set(bearer(key));
    expect(Number(second.headers['x-ratelimit-remaining'])).toBe(Number(first.headers['x-ratelimit-remaining']) - 1);
    expect((await t.api.get('/v1/meta/ip-ranges')).headers['x-ratelimit-limit']).toBeUndefined();

    const strict = await testContext({ dbName: t.store.db.databaseName, rateLimit: { perMinute: 3, enforce: true } });
    const other = await testContext({ dbName: t.store.db.databaseName, rateLimit: { perMinute: 3, enforce: true } });
    try {
      const k2 = await org.key(['scans:read']);
      for (let i = 0; i < 2; i++) expect((await strict.api.get('/v1/scans').set(bearer(k2))).status).toBe(200);
      // the two API processes share the counters through MongoDB once they flush
      await strict.flushRateLimits();
      expect((await other.api.get('/v1/scans').set(bearer(k2))).status).toBe(200); // third request
      await other.flushRateLimits();
      const limited = await other.api.get('/v1/scans').set(bearer(k2));
      expect(err(limited)).toEqual({ status: 429, code: 'rate_limited' });
      expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
      // the seconds left in the window, not a fixed minute
      expect(Number(limited.headers['retry-after'])).toBeLessThanOrEqual(
        Number(limited.headers['x-ratelimit-reset']) - Math.floor(Date.now() / 1000) + 1,
      );
      expect(limited.headers['x-ratelimit-remaining']).toBe('0');
    } finally {
      await strict.close(false);
      await other.close(false);
    }
  });
});
