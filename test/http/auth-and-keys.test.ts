// Credentials over real HTTP against the real database: 401 / 403 naming the scope or role / 404 / 422.
import { bearer, newOrg, testContext, type Org, type TestContext } from '../helpers/context';

let t: TestContext;
let org: Org;

beforeAll(async () => {
  t = await testContext();
  org = await newOrg(t.store);
});
afterAll(() => t.close());

const envelope = (res: { body: unknown }, status: number, code: string) => {
  expect(res.body).toEqual({ error: { code, message: expect.any(String) } });
  expect((res as unknown as { status: number }).status).toBe(status);
};

describe('authentication', () => {
  test.each([
    ['no header', {}],
    ['not bearer', { Authorization: 'Basic abc' }],
    ['malformed', { Authorization: 'Bearer x' }],
    ['unknown key', { Authorization: 'Bearer svc_key_0000000000000000000000000000000000000000' }],
    ['unknown session', { Authorization: 'Bearer svc_ses_0000000000000000000000000000000000000000' }],
    ['unknown kind', { Authorization: 'Bearer abcdefghijklmnop' }],
  ])('%s → 401 invalid_token', async (_, headers) => {
    const res = await t.api.get('/v1/scans').set(headers as Record<string, string>);
    envelope(res, 401, 'invalid_token');
    expect(res.headers['x-request-id']).toBeTruthy();
  });

  test('every response carries X-Request-Id; a well-formed client id is echoed', async () => {
    const res = await t.api.get('/healthz').set('X-Request-Id', 'ci-run.42_a');
    expect(res.status).toBe(200);
    expect(res.headers['x-request-id']).toBe('ci-run.42_a');
    const bad = await t.api.get('/healthz').set('X-Request-Id', 'has spaces!');
    expect(bad.headers['x-request-id']).not.toBe('has spaces!');
  });

  test('healthz answers without credentials; readyz is 503 while no worker polls the task queue', async () => {
    expect((await t.api.get('/healthz')).body).toEqual({ status: 'ok' });
    const ready = await t.api.get('/readyz');
    expect(ready.status).toBe(503);
    // Names and booleans only: the details (driver messages, addresses) go to the log.
    expect(ready.body).toEqual({
      status: 'not_ready',
      checks: [
        { name: 'mongodb', ok: true },
        { name: 'temporal', ok: false },
      ],
    });
  });

  test('unknown route → 404 not_found envelope', async () => {
    envelope(await t.api.get('/v1/nope'), 404, 'not_found');
    envelope(await t.api.get('/'), 404, 'not_found');
  });
});

describe('scopes and roles', () => {
  test('key without the scope → 403 naming the scope', async () => {
    const key = await org.key(['findings:read']);
    const res = await t.api.get('/v1/scans').set(bearer(key));
    envelope(res, 403, 'insufficient_scope');
    expect(res.body.error.message).toContain('scans:read');
  });

  test('auditor session may read but not upload (message names sca:upload)', async () => {
    const auditor = await org.session('auditor');
    expect((await t.api.get('/v1/scans').set(bearer(auditor))).status).toBe(200);
    const res = await t.api
      .post('/v1/scans/dependency-snapshots')
      .set(bearer(auditor))
      .set('Content-Type', 'application/json')
      .send('{}');
    envelope(res, 403, 'insufficient_scope');
    expect(res.body.error.message).toContain('sca:upload');
  });

  test('API keys never manage keys (403); members cannot either (role named)', async () => {
    const key = await org.key(['sca:upload', 'scans:read', 'findings:read']);
    envelope(await t.api.get('/v1/api-keys').set(bearer(key)), 403, 'insufficient_scope');
    const member = await org.session('member');
    const res = await t.api.get('/v1/api-keys').set(bearer(member));
    envelope(res, 403, 'insufficient_scope');
    expect(res.body.error.message).toMatch(/owner|admin/);
  });

  test('GET /v1/me: session only', async () => {
    const res = await t.api.get('/v1/me').set(bearer(org.ownerToken));
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      user: { id: expect.stringMatching(/^usr_/), email: expect.stringContaining('@example.test') },
      org: { id: org.orgId, name: 'acme' },
      member: { id: org.memberId, role: 'owner', joinedAt: expect.any(String) },
    });
    envelope(await t.api.get('/v1/me').set(bearer(await org.key(['scans:read']))), 403, 'insufficient_scope');
  });
});

describe('API key lifecycle', () => {
  test('create → list (newest first, no secret) → revoke → 401 from that moment', async () => {
    const admin = await org.session('admin');
    const created = await t.api
      .post('/v1/api-keys')
      .set(bearer(admin))
      .send({ name: 'ci', scopes: ['scans:read'], projects: 'all' });
    expect(created.status).toBe(201);
    const { apiKey, secret } = created.body;
    expect(secret).toMatch(/^svc_key_[0-9A-Za-z]{40}$/);
    expect(apiKey).toMatchObject({
      id: expect.stringMatching(/^key_/),
      name: 'ci',
      prefix: secret.slice(0, 12),
      scopes: ['scans:read'],
      projects: 'all',
      status: 'active',
      revokedAt: null,
    });
    expect((await t.api.get('/v1/scans').set(bearer(secret))).status).toBe(200);

    const second = await t.api
      .post('/v1/api-keys')
      .set(bearer(admin))
      .send({ name: 'ci2', scopes: ['scans:read'], projects: 'all' });
    const list = await t.api.get('/v1/api-keys').set(bearer(admin));
    expect(list.status).toBe(200);
    const ids = list.body.apiKeys.map((k: { id: string }) => k.id);
    expect(ids.indexOf(second.body.apiKey.id)).toBeLessThan(ids.indexOf(apiKey.id));
    expect(JSON.stringify(list.body)).not.toContain(secret);

    expect((await t.api.delete(`/v1/api-keys/${apiKey.id}`).set(bearer(admin))).status).toBe(204);
    envelope(await t.api.get('/v1/scans').set(bearer(secret)), 401, 'invalid_token');
    const revoked = await t.api.get('/v1/api-keys?status=revoked').set(bearer(admin));
    expect(revoked.body.apiKeys.map((k: { id: string }) => k.id)).toContain(apiKey.id);
    envelope(await t.api.delete('/v1/api-keys/key_doesnotexist').set(bearer(admin)), 404, 'not_found');
  });

  test.each([
    [{ scopes: ['scans:read'], projects: 'all' }, 'missing_parameter'],
    [{ name: '', scopes: ['scans:read'], projects: 'all' }, 'missing_parameter'],
    [{ name: 'x', scopes: [], projects: 'all' }, 'missing_parameter'],
    [{ name: 'x', scopes: ['admin:all'], projects: 'all' }, 'invalid_scope'],
    [{ name: 'x', scopes: ['scans:read'], projects: ['prj_unknown'] }, 'unknown_project'],
    // A project-restricted key cannot hold org-wide scopes
    ...['hosts:read', 'gateways:read', 'mcp:upload', 'mcp:read'].map(
      (scope) =>
        [{ name: 'x', scopes: ['scans:read', scope], projects: ['prj_unknown'] }, 'invalid_scope'] as [object, string],
    ),
    [{ name: 'x', scopes: ['scans:read'], projects: 'all', expiresAt: 'yesterday' }, 'invalid_parameter'],
  ])('bad create body %j → 422 %s', async (body, code) => {
    envelope(await t.api.post('/v1/api-keys').set(bearer(org.ownerToken)).send(body), 422, code);
  });

  test('an expired key is 401', async () => {
    const { createApiKey } = await import('../../src/storage/api-keys');
    const { secret } = await createApiKey(t.store, {
      orgId: org.orgId,
      name: 'old',
      scopes: ['scans:read'],
      projects: 'all',
      createdBy: null,
      expiresAt: new Date(Date.now() - 1000),
    });
    envelope(await t.api.get('/v1/scans').set(bearer(secret)), 401, 'invalid_token');
  });

  test('another organization cannot see or revoke our keys (404)', async () => {
    const other = await newOrg(t.store, 'other');
    const created = await t.api
      .post('/v1/api-keys')
      .set(bearer(org.ownerToken))
      .send({ name: 'mine', scopes: ['scans:read'], projects: 'all' });
    envelope(
      await t.api.delete(`/v1/api-keys/${created.body.apiKey.id}`).set(bearer(other.ownerToken)),
      404,
      'not_found',
    );
  });
});

describe('query parameters', () => {
  test.each([
    ['/v1/scans?limit=0', 'invalid_parameter'],
    ['/v1/scans?limit=abc', 'invalid_parameter'],
    ['/v1/scans?status=done', 'invalid_parameter'],
    ['/v1/scans?cursor=garbage', 'invalid_cursor'],
    ['/v1/scans?project=nope', 'unknown_project'],
  ])('%s → 422 %s', async (url, code) => {
    envelope(await t.api.get(url).set(bearer(org.ownerToken)), 422, code);
  });
});
