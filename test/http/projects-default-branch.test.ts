// PATCH /v1/projects/{id} {defaultBranch}: owners and admins set the branch whose scans are tracked; refs/heads/ and
// origin/ are taken off, names git refuses are 422, the change is audited once; projects show their default branch.
import { bearer, newOrg, testContext, type TestContext } from '../helpers/context';
import { v1Snapshot } from '../helpers/snapshots';

let t: TestContext;
beforeAll(async () => {
  t = await testContext();
});
afterAll(() => t.close());

const err = (res: { status: number; body: any }) => ({ status: res.status, code: res.body?.error?.code });

test('owners and admins set the default branch; everyone sees it on the project; refusals name the field', async () => {
  const org = await newOrg(t.store, 'Branches Inc');
  const key = await org.key(['sca:upload', 'scans:read']);
  const up = await t.api.post('/v1/scans/dependency-snapshots').set(bearer(key)).send(v1Snapshot('branchy'));
  expect(up.status).toBe(201);
  const projectId = up.body.project as string;
  const list = async () => (await t.api.get('/v1/projects').set(bearer(key))).body.projects[0];
  expect((await list()).defaultBranch).toBe('main'); // the default

  const patch = (token: string, body: unknown, ref = projectId) =>
    t.api
      .patch(`/v1/projects/${ref}`)
      .set(bearer(token))
      .send(body as object);
  const admin = await org.session('admin');
  const ok = await patch(admin, { defaultBranch: 'refs/heads/develop' });
  expect(ok.status).toBe(200);
  expect(ok.body).toMatchObject({ id: projectId, slug: 'branchy', defaultBranch: 'develop' });
  expect((await list()).defaultBranch).toBe('develop');
  // by slug too; the same value again changes nothing and records nothing
  expect((await patch(org.ownerToken, { defaultBranch: 'origin/develop' }, 'branchy')).body.defaultBranch).toBe(
    'develop',
  );
  const audit = await t.api.get('/v1/audit-events?type=project.default_branch_changed').set(bearer(org.ownerToken));
  expect(audit.body.auditEvents).toHaveLength(1);
  expect(audit.body.auditEvents[0].target).toEqual({
    kind: 'project',
    id: projectId,
    name: 'branchy',
    from: 'main',
    to: 'develop',
  });

  for (const [body, field, code] of [
    [{}, 'defaultBranch', 'missing_parameter'],
    [{ defaultBranch: '' }, 'defaultBranch', 'missing_parameter'],
    [{ defaultBranch: 7 }, 'defaultBranch', 'invalid_parameter'],
    [{ defaultBranch: 'a b' }, 'defaultBranch', 'invalid_parameter'],
    [{ defaultBranch: 'x..y' }, 'defaultBranch', 'invalid_parameter'],
    [{ defaultBranch: 'refs/heads/' }, 'defaultBranch', 'invalid_parameter'],
    [{ defaultBranch: 'x'.repeat(256) }, 'defaultBranch', 'invalid_parameter'],
    [{ defaultBranch: 'main', slug: 'renamed' }, 'slug', 'invalid_parameter'],
  ] as const) {
    const res = await patch(admin, body);
    expect({ body, ...err(res), names: String(res.body.error?.message).startsWith(`${field}:`) }).toEqual({
      body,
      status: 422,
      code,
      names: true,
    });
  }
  expect((await list()).defaultBranch).toBe('develop'); // nothing refused was written

  // members, auditors and keys cannot; another organization's project is not there
  expect(err(await patch(await org.session('member'), { defaultBranch: 'main' }))).toEqual({
    status: 403,
    code: 'insufficient_scope',
  });
  expect(err(await patch(await org.session('auditor'), { defaultBranch: 'main' }))).toEqual({
    status: 403,
    code: 'insufficient_scope',
  });
  expect(err(await patch(key, { defaultBranch: 'main' }))).toEqual({ status: 403, code: 'insufficient_scope' });
  const other = await newOrg(t.store, 'Elsewhere');
  expect(err(await patch(other.ownerToken, { defaultBranch: 'main' }))).toEqual({ status: 404, code: 'not_found' });
  expect(err(await patch(other.ownerToken, { defaultBranch: 'main' }, 'branchy'))).toEqual({
    status: 404,
    code: 'not_found',
  });
});
