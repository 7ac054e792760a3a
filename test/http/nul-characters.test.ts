// A NUL (U+0000) in a path id, a query value or a JSON body string answered 500 (FerretDB over PostgreSQL cannot hold
// one; the contract test found it): now the endpoint's own status for an unknown or invalid value.
import { bearer, newOrg, testContext, type TestContext } from '../helpers/context';

let t: TestContext;
beforeAll(async () => {
  t = await testContext();
});
afterAll(() => t.close());

const err = (res: { status: number; body: any }) => ({ status: res.status, code: res.body?.error?.code });

test('a path id holding a NUL is 404 not_found on every route that takes an id', async () => {
  const org = await newOrg(t.store);
  const auth = bearer(org.ownerToken);
  const notFound = { status: 404, code: 'not_found' };
  expect(err(await t.api.get('/v1/scans/scn_a%00b').set(auth))).toEqual(notFound);
  expect(err(await t.api.get('/v1/scans/scn_a%00b/findings').set(auth))).toEqual(notFound);
  expect(err(await t.api.patch('/v1/members/mem_%00').set(auth).send({ role: 'member' }))).toEqual(notFound);
  expect(err(await t.api.delete('/v1/members/mem_%00').set(auth))).toEqual(notFound);
  expect(err(await t.api.delete('/v1/invitations/inv_%00').set(auth))).toEqual(notFound);
  expect(err(await t.api.delete('/v1/api-keys/key_%00').set(auth))).toEqual(notFound);
  expect(err(await t.api.get('/v1/alerts/alr_%00').set(auth))).toEqual(notFound);
  expect(err(await t.api.get('/v1/alerts/alr_%00/history').set(auth))).toEqual(notFound);
  expect(err(await t.api.get('/v1/scans/scn_a%00b/compare').set(auth))).toEqual(notFound);
});

test('a query value holding a NUL is 422 invalid_parameter naming it', async () => {
  const org = await newOrg(t.store);
  const res = await t.api.get('/v1/scans?project=a%00b').set(bearer(org.ownerToken));
  expect(err(res)).toEqual({ status: 422, code: 'invalid_parameter' });
  expect(res.body.error.message).toMatch(/^project: /);
  for (const name of ['project', 'package', 'advisory', 'team', 'module', 'q', 'status', 'sort']) {
    const alerts = await t.api.get(`/v1/alerts?${name}=a%00b`).set(bearer(org.ownerToken));
    expect([name, err(alerts)]).toEqual([name, { status: 422, code: 'invalid_parameter' }]);
    expect(alerts.body.error.message).toMatch(new RegExp(`^${name}: `));
  }
  for (const name of ['baseline', 'suppressed', 'part', 'cursor']) {
    const compare = await t.api.get(`/v1/scans/scn_nope/compare?${name}=a%00b`).set(bearer(org.ownerToken));
    expect([name, err(compare)]).toEqual([name, { status: 422, code: 'invalid_parameter' }]);
    expect(compare.body.error.message).toMatch(new RegExp(`^${name}: `));
  }
  expect(err(await t.api.get('/v1/scans?cursor=%00').set(bearer(org.ownerToken)))).toEqual({
    status: 422,
    code: 'invalid_parameter',
  });
});

test('a JSON body string (or key) holding a NUL is 422 invalid_parameter, and nothing is stored', async () => {
  const org = await newOrg(t.store);
  const auth = bearer(org.ownerToken);
  const nul = '\u0000';
  for (const [path, body] of [
    ['/v1/api-keys', { name: 'k', scopes: ['scans:read'], projects: [`prj_${nul}`] }],
    ['/v1/api-keys', { name: `k${nul}`, scopes: ['scans:read'], projects: 'all' }],
    ['/v1/invitations', { email: `a${nul}@example.test`, role: 'member' }],
    ['/v1/invitations/lookups', { token: `t${nul}` }],
    ['/v1/invitations/acceptances', { token: 't', [`x${nul}`]: 1 }],
  ] as const) {
    const res = await t.api.post(path).set(auth).send(body);
    expect({ path, ...err(res) }).toEqual({ path, status: 422, code: 'invalid_parameter' });
  }
  expect((await t.api.get('/v1/api-keys').set(auth)).body.apiKeys).toEqual([]);
  expect((await t.api.get('/v1/invitations').set(auth)).body.invitations).toEqual([]);
});
