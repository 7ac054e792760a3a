// Webhook management over real HTTP against the real database: roles, validation of each field, the
// secret shown once and sealed at rest, pagination, deletion, other organizations, the bound per organization, and the
// destination rules through an injected resolver (no request ever leaves this process). Every answer is checked
// against the OpenAPI document's schema of its status.
import { randomBytes } from 'node:crypto';
import type http from 'node:http';
import type request from 'supertest';
import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import type { DestinationPolicy, Resolver } from '../../src/infra/webhooks/destination';
import { openApiDocument } from '../../src/http/openapi/document';
import { createSession, findOrCreateUser, revokeSession } from '../../src/storage/accounts';
import { connectStore, ensureIndexes, type Store } from '../../src/storage/mongo';
import { secretBox } from '../../src/storage/secrets';
import { createWebhook, MAX_WEBHOOKS_PER_ORG } from '../../src/storage/webhooks';
import { appWithoutTemporal, bearer, newOrg, requireEnv, type Org } from '../helpers/context';

type Api = ReturnType<typeof request>;
type Res = { status: number; body: any; headers: Record<string, string> };

const box = secretBox(randomBytes(32));
/** Host names this test's resolver knows; anything else does not resolve. Hooks run during a resolution. */
const HOSTS: Record<string, Array<{ address: string; family: 4 | 6 }>> = {
  'hooks.example.test': [{ address: '93.184.215.14', family: 4 }],
  'internal.example.test': [{ address: '10.0.0.5', family: 4 }],
  'mixed.example.test': [
    { address: '93.184.215.14', family: 4 },
    { address: 'fd00::1', family: 6 },
  ],
  'local.example.test': [{ address: '127.0.0.1', family: 4 }],
};
const duringResolve = new Map<string, () => Promise<void>>();
const resolved: string[] = [];
const resolve: Resolver = async (host) => {
  resolved.push(host);
  await duringResolve.get(host)?.();
  const found = HOSTS[host];
  if (!found) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
  return found;
};
const strict: DestinationPolicy = { allowedCidrs: [], resolve };
const loopbackAllowed: DestinationPolicy = { allowedCidrs: ['127.0.0.0/8'], resolve };

let store: Store;
let app: { server: http.Server; api: Api };
let lenient: { server: http.Server; api: Api };
let org: Org;
let owner: string;
let admin: string;
const noUploads = { prepare: async () => Promise.reject(new Error('no uploads here')), close: async () => undefined };

beforeAll(async () => {
  store = await connectStore(requireEnv('MONGODB_URI'), `t_${randomBytes(6).toString('hex')}`);
  await ensureIndexes(store);
  app = await appWithoutTemporal(store, { uploads: noUploads, webhooks: { box, policy: strict } });
  lenient = await appWithoutTemporal(store, { uploads: noUploads, webhooks: { box, policy: loopbackAllowed } });
  org = await newOrg(store);
  owner = org.ownerToken;
  admin = await org.session('admin');
}, 60_000);

afterAll(async () => {
  for (const a of [app, lenient]) await new Promise((r) => a?.server.close(r));
  await store?.db.dropDatabase().catch(() => undefined);
  await store?.close();
});

// ---- the OpenAPI document's schema of every answer -------------------------------------------------------------
const ajv = new Ajv2020({ strict: false, allErrors: true });
addFormats(ajv);
ajv.addSchema(openApiDocument() as object, 'openapi.json');
const doc = openApiDocument() as any;
const validators = new Map<string, ReturnType<typeof ajv.compile>>();
const esc = (s: string) => s.replace(/~/g, '~0').replace(/\//g, '~1');
function documented(method: string, path: string, res: Res): Res {
  const op = doc.paths[path][method];
  const r = op.responses[String(res.status)];
  if (!r) throw new Error(`${method} ${path}: undocumented status ${res.status}: ${JSON.stringify(res.body)}`);
  const schema = r.content?.['application/json']?.schema;
  if (!schema) {
    expect(res.body).toEqual({});
    return res;
  }
  const pointer = `openapi.json#/paths/${esc(path)}/${method}/responses/${res.status}/content/application~1json/schema`;
  const validate = validators.get(pointer) ?? validators.set(pointer, ajv.compile({ $ref: pointer })).get(pointer)!;
  if (!validate(res.body))
    throw new Error(
      `${method} ${path} ${res.status} does not match the document: ${JSON.stringify(validate.errors)} ${JSON.stringify(res.body)}`,
    );
  return res;
}

const create = async (token: string, body: unknown, api: Api = app.api): Promise<Res> =>
  documented(
    'post',
    '/v1/webhooks',
    await api
      .post('/v1/webhooks')
      .set(bearer(token))
      .set('Content-Type', 'application/json')
      .send(JSON.stringify(body)),
  );
const list = async (token: string, query = ''): Promise<Res> =>
  documented('get', '/v1/webhooks', await app.api.get(`/v1/webhooks${query}`).set(bearer(token)));
const remove = async (token: string, id: string): Promise<Res> =>
  documented('delete', '/v1/webhooks/{webhookId}', await app.api.delete(`/v1/webhooks/${id}`).set(bearer(token)));
const err = (res: Res) => ({ status: res.status, code: res.body?.error?.code });
const HOOK = { url: 'https://hooks.example.test/svc', events: ['scan.completed'] };

describe('POST /v1/webhooks', () => {
  test('owner and admin create; the secret comes once, in the 201; the stored document holds it only sealed', async () => {
    for (const token of [owner, admin]) {
      const res = await create(token, {
        url: 'https://hooks.example.test/a?x=1',
        events: ['scan.completed', 'scan.failed'],
      });
      expect(res.status).toBe(201);
      const { webhook, secret } = res.body;
      expect(webhook).toEqual({
        id: expect.stringMatching(/^whk_[0-9a-z]{22}$/),
        url: 'https://hooks.example.test/a?x=1',
        format: 'json',
        events: ['scan.completed', 'scan.failed'],
        createdBy: expect.stringMatching(/^mem_/),
        createdAt: expect.any(String),
        minSeverity: null, // alert events' filters: none
        projects: null,
      });
      expect(Math.abs(Date.parse(webhook.createdAt) - Date.now())).toBeLessThan(10 * 60_000);
      expect(secret).toMatch(/^svc_whs_[0-9A-Za-z]{40}$/);

      const stored = await store.c.webhooks.findOne({ _id: webhook.id });
      expect(stored).toMatchObject({ orgId: org.orgId, url: webhook.url, events: webhook.events, deletedAt: null });
      const text = JSON.stringify(stored);
      expect(text).not.toContain(secret);
      expect(text).not.toContain(secret.slice('svc_whs_'.length));
      expect(text).not.toContain(Buffer.from(secret).toString('base64'));
      expect(box.open(stored!.secret)).toBe(secret);
      // the secret is nowhere else in the database either (the audit trail included)
      for (const name of ['auditEvents', 'webhookDeliveries', 'settings'] as const) {
        expect(JSON.stringify(await store.db.collection(name).find({}).toArray())).not.toContain(
          secret.slice('svc_whs_'.length),
        );
      }
    }
    // createdBy is the creating member
    const mine = await create(owner, HOOK);
    expect(mine.body.webhook.createdBy).toBe(org.memberId);
  });

  test('member and auditor sessions are refused naming the role; API keys and users without an organization too', async () => {
    for (const role of ['member', 'auditor'] as const) {
      const res = await create(await org.session(role), HOOK);
      expect(err(res)).toEqual({ status: 403, code: 'insufficient_scope' });
      expect(res.body.error.message).toMatch(/requires role owner or admin/);
    }
    const key = await org.key(['sca:upload', 'scans:read', 'findings:read', 'deps:read']);
    for (const res of [await create(key, HOOK), await list(key), await remove(key, 'whk_0')])
      expect(err(res)).toEqual({ status: 403, code: 'insufficient_scope' });
    const loner = (await createSession(store, (await findOrCreateUser(store, `loner-${Date.now()}@example.test`))._id))
      .token;
    const res = await create(loner, HOOK);
    expect(err(res)).toEqual({ status: 403, code: 'insufficient_scope' });
    expect(res.body.error.message).toMatch(/organization membership/);
    for (const res2 of [await create('svc_ses_' + '0'.repeat(40), HOOK), await list('x')])
      expect(err(res2)).toEqual({ status: 401, code: 'invalid_token' });
  });

  test('the URL is stored and shown as the URL standard serializes it', async () => {
    for (const [sent, shown] of [
      ['HTTPS://Hooks.Example.TEST', 'https://hooks.example.test/'],
      [' https://hooks.example.test:443/a b?q=1#frag ', 'https://hooks.example.test/a%20b?q=1#frag'],
      ['https://hooks.example.test:8443/x/../y', 'https://hooks.example.test:8443/y'],
    ]) {
      const res = await create(owner, { url: sent, events: ['scan.completed'] });
      expect({ sent, status: res.status, url: res.body.webhook?.url }).toEqual({ sent, status: 201, url: shown });
      expect((await store.c.webhooks.findOne({ _id: res.body.webhook.id }))!.url).toBe(shown);
    }
  });

  test('duplicate events are folded, in the order first given', async () => {
    const res = await create(owner, {
      url: 'https://hooks.example.test/dup',
      events: ['scan.failed', 'scan.completed', 'scan.failed', 'scan.completed'],
    });
    expect(res.status).toBe(201);
    expect(res.body.webhook.events).toEqual(['scan.failed', 'scan.completed']);
    expect((await store.c.webhooks.findOne({ _id: res.body.webhook.id }))!.events).toEqual([
      'scan.failed',
      'scan.completed',
    ]);
  });

  test.each<[string, string, unknown, RegExp]>([
    ['no url', 'missing_parameter', { events: ['scan.completed'] }, /^url: /],
    ['null url', 'missing_parameter', { url: null, events: ['scan.completed'] }, /^url: /],
    ['empty url', 'missing_parameter', { url: '', events: ['scan.completed'] }, /^url: /],
    ['url a number', 'invalid_parameter', { url: 5, events: ['scan.completed'] }, /^url: /],
    [
      'url an object',
      'invalid_parameter',
      { url: { href: 'https://hooks.example.test' }, events: ['scan.completed'] },
      /^url: /,
    ],
    [
      'url over 2048 characters',
      'invalid_parameter',
      { url: `https://hooks.example.test/${'a'.repeat(2048)}`, events: ['scan.completed'] },
      /^url: /,
    ],
    ['no events', 'missing_parameter', { url: HOOK.url }, /^events: /],
    ['null events', 'missing_parameter', { url: HOOK.url, events: null }, /^events: /],
    ['empty events', 'missing_parameter', { url: HOOK.url, events: [] }, /^events: /],
    ['events a string', 'invalid_parameter', { url: HOOK.url, events: 'scan.completed' }, /^events: /],
    [
      'an unknown event',
      'invalid_parameter',
      { url: HOOK.url, events: ['scan.completed', 'scan.started'] },
      /^events: .*"scan\.started"/,
    ],
    ['an event of another type', 'invalid_parameter', { url: HOOK.url, events: [1] }, /^events: .*1/],
    [
      'an event in another case',
      'invalid_parameter',
      { url: HOOK.url, events: ['Scan.Completed'] },
      /^events: .*"Scan\.Completed"/,
    ],
    ['a body that is an array', 'invalid_parameter', [HOOK], /^body: /],
    ['a body that is a string', 'invalid_parameter', 'https://hooks.example.test', /^body: /],
    [
      'a NUL in the url',
      'invalid_parameter',
      { url: 'https://hooks.example.test/\u0000', events: ['scan.completed'] },
      /^body: /,
    ],
    [
      'http',
      'invalid_parameter',
      { url: 'http://hooks.example.test/svc', events: ['scan.completed'] },
      /^url: .*https/,
    ],
    ['not a URL', 'invalid_parameter', { url: 'hooks.example.test/svc', events: ['scan.completed'] }, /^url: /],
    [
      'another scheme',
      'invalid_parameter',
      { url: 'ftp://hooks.example.test/svc', events: ['scan.completed'] },
      /^url: /,
    ],
    [
      'credentials in the URL',
      'invalid_parameter',
      { url: 'https://user:pass@hooks.example.test/svc', events: ['scan.completed'] },
      /^url: /,
    ],
    [
      'a host that does not resolve',
      'invalid_parameter',
      { url: 'https://nowhere.example.test/svc', events: ['scan.completed'] },
      /^url: /,
    ],
  ])('%s → 422 %s, nothing stored', async (_, code, body, message) => {
    const fresh = await newOrg(store);
    const res = await create(fresh.ownerToken, body);
    expect(err(res)).toEqual({ status: 422, code });
    expect(res.body.error.message).toMatch(message);
    expect(await store.c.webhooks.countDocuments({ orgId: fresh.orgId })).toBe(0);
  });

  test('a body that is not JSON, or not sent as JSON, is 422 invalid_parameter; over 64 KB 413', async () => {
    const post = () => app.api.post('/v1/webhooks').set(bearer(owner));
    expect(
      err(documented('post', '/v1/webhooks', await post().set('Content-Type', 'application/json').send('{"url":'))),
    ).toEqual({ status: 422, code: 'invalid_parameter' });
    expect(
      err(
        documented('post', '/v1/webhooks', await post().set('Content-Type', 'text/plain').send(JSON.stringify(HOOK))),
      ),
    ).toEqual({ status: 422, code: 'invalid_parameter' });
    expect(
      err(documented('post', '/v1/webhooks', await post().send({ ...HOOK, padding: 'x'.repeat(70 * 1024) }))),
    ).toEqual({ status: 413, code: 'invalid_parameter' });
  });

  test('a host resolving to a private address is refused with the reason (the address and the setting); nothing stored', async () => {
    const fresh = await newOrg(store);
    const res = await create(fresh.ownerToken, { url: 'https://internal.example.test/hook', events: ['scan.failed'] });
    expect(err(res)).toEqual({ status: 422, code: 'invalid_parameter' });
    expect(res.body.error.message).toMatch(/^url: /);
    expect(res.body.error.message).toContain('10.0.0.5');
    expect(res.body.error.message).toContain('WEBHOOKS_ALLOWED_CIDRS');
    expect(resolved).toContain('internal.example.test');
    // one refused address among public ones refuses the host
    const mixed = await create(fresh.ownerToken, { url: 'https://mixed.example.test/hook', events: ['scan.failed'] });
    expect(err(mixed)).toEqual({ status: 422, code: 'invalid_parameter' });
    expect(mixed.body.error.message).toContain('fd00::1');
    expect(await store.c.webhooks.countDocuments({ orgId: fresh.orgId })).toBe(0);
  });

  test('a loopback URL is refused by default and accepted when an allowed CIDR holds it', async () => {
    const fresh = await newOrg(store);
    for (const url of ['https://127.0.0.1:8443/hook', 'https://local.example.test/hook', 'https://[::1]/hook']) {
      const refused = await create(fresh.ownerToken, { url, events: ['scan.completed'] });
      expect({ url, ...err(refused) }).toEqual({ url, status: 422, code: 'invalid_parameter' });
      expect(refused.body.error.message).toContain('WEBHOOKS_ALLOWED_CIDRS');
    }
    for (const url of ['https://127.0.0.1:8443/hook', 'https://local.example.test/hook']) {
      const ok = await create(fresh.ownerToken, { url, events: ['scan.completed'] }, lenient.api);
      expect({ url, status: ok.status }).toEqual({ url, status: 201 });
      expect(ok.body.webhook.url).toBe(url);
    }
    // ::1 is not in 127.0.0.0/8
    expect(
      err(await create(fresh.ownerToken, { url: 'https://[::1]/hook', events: ['scan.completed'] }, lenient.api)),
    ).toEqual({ status: 422, code: 'invalid_parameter' });
    expect(await store.c.webhooks.countDocuments({ orgId: fresh.orgId })).toBe(2);
  });

  test('a session revoked while the destination is checked gets 401 and nothing is stored', async () => {
    const fresh = await newOrg(store);
    const token = await fresh.session('admin');
    HOSTS['slow.example.test'] = HOSTS['hooks.example.test'];
    duringResolve.set('slow.example.test', async () => void (await revokeSession(store, token)));
    try {
      const res = await create(token, { url: 'https://slow.example.test/hook', events: ['scan.completed'] });
      expect(err(res)).toEqual({ status: 401, code: 'invalid_token' });
    } finally {
      duringResolve.delete('slow.example.test');
    }
    expect(await store.c.webhooks.countDocuments({ orgId: fresh.orgId })).toBe(0);
  });

  test(`at most ${MAX_WEBHOOKS_PER_ORG} live webhooks per organization; deleting one makes room`, async () => {
    const fresh = await newOrg(store);
    for (let i = 0; i < MAX_WEBHOOKS_PER_ORG - 1; i++)
      await createWebhook(store, box, {
        orgId: fresh.orgId,
        url: `https://hooks.example.test/${i}`,
        events: ['scan.completed'],
        createdBy: null,
      });
    const last = await create(fresh.ownerToken, HOOK);
    expect(last.status).toBe(201);
    const over = await create(fresh.ownerToken, HOOK);
    expect(err(over)).toEqual({ status: 422, code: 'invalid_parameter' });
    expect(over.body.error.message).toMatch(new RegExp(`at most ${MAX_WEBHOOKS_PER_ORG}`));
    expect(await store.c.webhooks.countDocuments({ orgId: fresh.orgId })).toBe(MAX_WEBHOOKS_PER_ORG);
    expect((await remove(fresh.ownerToken, last.body.webhook.id)).status).toBe(204);
    expect((await create(fresh.ownerToken, HOOK)).status).toBe(201);
    // another organization's count is its own
    expect((await create((await newOrg(store)).ownerToken, HOOK)).status).toBe(201);
  });

  test('creations that passed the count together: the one past the bound is withdrawn (422), the others stay', async () => {
    const fresh = await newOrg(store);
    for (let i = 0; i < MAX_WEBHOOKS_PER_ORG - 1; i++)
      await createWebhook(store, box, {
        orgId: fresh.orgId,
        url: `https://hooks.example.test/${i}`,
        events: ['scan.completed'],
        createdBy: null,
      });
    // while this request resolves its host (after its count, before its write), another creation takes the last place
    HOSTS['racing.example.test'] = HOSTS['hooks.example.test'];
    // (created a second earlier: its id sorts before the request's, as a creation that wrote first would)
    const winner = {
      orgId: fresh.orgId,
      url: 'https://hooks.example.test/winner',
      events: ['scan.failed' as const],
      createdBy: null,
    };
    duringResolve.set(
      'racing.example.test',
      async () => void (await createWebhook(store, box, winner, new Date(Date.now() - 1000))),
    );
    let res: Res;
    try {
      res = await create(fresh.ownerToken, { url: 'https://racing.example.test/hook', events: ['scan.completed'] });
    } finally {
      duringResolve.delete('racing.example.test');
    }
    expect(err(res)).toEqual({ status: 422, code: 'invalid_parameter' });
    const listed = (await list(fresh.ownerToken, '?limit=200')).body.webhooks;
    expect(listed).toHaveLength(MAX_WEBHOOKS_PER_ORG);
    expect(listed.map((w: { url: string }) => w.url)).toContain('https://hooks.example.test/winner');
    expect(listed.map((w: { url: string }) => w.url)).not.toContain('https://racing.example.test/hook');
    // the withdrawn one is marked deleted (a delivery that saw it stops), and no audit event tells of it
    expect(
      await store.c.webhooks.countDocuments({
        orgId: fresh.orgId,
        url: 'https://racing.example.test/hook',
        deletedAt: { $ne: null },
      }),
    ).toBe(1);
    expect(await store.c.auditEvents.countDocuments({ orgId: fresh.orgId, type: 'webhook.created' })).toBe(0);
  });
});

describe('GET /v1/webhooks', () => {
  test('newest first across pages of a signed cursor; never a secret; other organizations never listed', async () => {
    const fresh = await newOrg(store);
    const secrets: string[] = [];
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      const res = await create(fresh.ownerToken, {
        url: `https://hooks.example.test/p${i}`,
        events: ['scan.completed'],
      });
      secrets.push(res.body.secret);
      ids.push(res.body.webhook.id);
    }
    await create(owner, { url: 'https://hooks.example.test/other-org', events: ['scan.completed'] });
    const pages: Res[] = [];
    let cursor: string | null = null;
    do {
      const res: Res = await list(fresh.ownerToken, `?limit=2${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
      expect(res.status).toBe(200);
      pages.push(res);
      cursor = res.body.nextCursor;
    } while (cursor);
    expect(pages.map((p) => p.body.webhooks.length)).toEqual([2, 2, 1]);
    const listed = pages.flatMap((p) => p.body.webhooks);
    expect(listed.map((w: { id: string }) => w.id)).toEqual([...ids].reverse());
    expect(listed.map((w: { url: string }) => w.url)).toEqual(
      [4, 3, 2, 1, 0].map((i) => `https://hooks.example.test/p${i}`),
    );
    for (const w of listed)
      expect(Object.keys(w).sort()).toEqual([
        'createdAt',
        'createdBy',
        'events',
        'format',
        'id',
        'minSeverity',
        'projects',
        'url',
      ]);
    const text = JSON.stringify(pages.map((p) => p.body));
    for (const s of secrets) expect(text).not.toContain(s.slice('svc_whs_'.length));
    // the whole list at the default limit, and an admin sees the same
    expect((await list(await fresh.session('admin'))).body).toEqual({ webhooks: listed, nextCursor: null });
  });

  test('limit and cursor: below 1 or not an integer is 422 invalid_parameter; a tampered cursor, or one of another organization, 422 invalid_cursor', async () => {
    const fresh = await newOrg(store);
    for (let i = 0; i < 3; i++) await create(fresh.ownerToken, HOOK);
    const first = await list(fresh.ownerToken, '?limit=1');
    const cursor: string = first.body.nextCursor;
    expect(cursor).toEqual(expect.any(String));
    for (const q of ['?limit=0', '?limit=-1', '?limit=abc', '?limit=1&limit=2'])
      expect({ q, ...err(await list(fresh.ownerToken, q)) }).toEqual({ q, status: 422, code: 'invalid_parameter' });
    expect(err(await list(fresh.ownerToken, '?cursor='))).toEqual({ status: 422, code: 'invalid_cursor' });
    expect(
      err(
        await list(
          fresh.ownerToken,
          `?cursor=${encodeURIComponent(cursor.slice(0, -2) + (cursor.endsWith('A') ? 'BB' : 'AA'))}`,
        ),
      ),
    ).toEqual({ status: 422, code: 'invalid_cursor' });
    expect(err(await list(owner, `?cursor=${encodeURIComponent(cursor)}`))).toEqual({
      status: 422,
      code: 'invalid_cursor',
    });
    // an API-keys cursor of the same organization is not a webhooks cursor
    await app.api
      .post('/v1/api-keys')
      .set(bearer(fresh.ownerToken))
      .send({ name: 'a', scopes: ['scans:read'], projects: 'all' });
    await app.api
      .post('/v1/api-keys')
      .set(bearer(fresh.ownerToken))
      .send({ name: 'b', scopes: ['scans:read'], projects: 'all' });
    const keysCursor = (await app.api.get('/v1/api-keys?limit=1').set(bearer(fresh.ownerToken))).body.nextCursor;
    expect(err(await list(fresh.ownerToken, `?cursor=${encodeURIComponent(keysCursor)}`))).toEqual({
      status: 422,
      code: 'invalid_cursor',
    });
    // above 200 is clamped
    expect((await list(fresh.ownerToken, '?limit=1000')).body.webhooks).toHaveLength(3);
  });

  test('member and auditor sessions are refused', async () => {
    for (const role of ['member', 'auditor'] as const)
      expect(err(await list(await org.session(role)))).toEqual({ status: 403, code: 'insufficient_scope' });
  });
});

describe('DELETE /v1/webhooks/{webhookId}', () => {
  test('204, then no longer listed, marked deleted in the database; deleting again is 404', async () => {
    const fresh = await newOrg(store);
    const keep = (await create(fresh.ownerToken, HOOK)).body.webhook;
    const gone = (await create(fresh.ownerToken, HOOK)).body.webhook;
    const res = await remove(await fresh.session('admin'), gone.id);
    expect(res.status).toBe(204);
    expect(res.body).toEqual({});
    expect((await list(fresh.ownerToken)).body.webhooks.map((w: { id: string }) => w.id)).toEqual([keep.id]);
    const stored = await store.c.webhooks.findOne({ _id: gone.id });
    expect(stored!.deletedAt).toBeInstanceOf(Date);
    const again = await remove(fresh.ownerToken, gone.id);
    expect(err(again)).toEqual({ status: 404, code: 'not_found' });
    expect(again.body.error.message).toContain(gone.id);
  });

  test('two deletions at once: one 204, the other 404', async () => {
    const fresh = await newOrg(store);
    const id = (await create(fresh.ownerToken, HOOK)).body.webhook.id;
    const both = await Promise.all([remove(fresh.ownerToken, id), remove(fresh.ownerToken, id)]);
    expect(both.map((r) => r.status).sort()).toEqual([204, 404]);
    expect(await store.c.auditEvents.countDocuments({ orgId: fresh.orgId, type: 'webhook.deleted' })).toBe(1);
  });

  test("unknown ids, another organization's webhook and a NUL id are 404; the other organization's webhook is untouched", async () => {
    const theirs = (await create(owner, HOOK)).body.webhook;
    const other = await newOrg(store);
    for (const id of [theirs.id, 'whk_00000000000000000000', 'nope', 'whk_a%00b']) {
      expect({ id, ...err(await remove(other.ownerToken, id)) }).toEqual({ id, status: 404, code: 'not_found' });
    }
    expect((await store.c.webhooks.findOne({ _id: theirs.id }))!.deletedAt).toBeNull();
    expect((await list(owner, '?limit=200')).body.webhooks.map((w: { id: string }) => w.id)).toContain(theirs.id);
  });

  test('member and auditor sessions are refused; the webhook stays', async () => {
    const id = (await create(owner, HOOK)).body.webhook.id;
    for (const role of ['member', 'auditor'] as const)
      expect(err(await remove(await org.session(role), id))).toEqual({ status: 403, code: 'insufficient_scope' });
    expect((await store.c.webhooks.findOne({ _id: id }))!.deletedAt).toBeNull();
  });
});

test('creation and deletion are in the audit trail (who, which webhook; never the secret)', async () => {
  const fresh = await newOrg(store);
  const adminToken = await fresh.session('admin');
  const created = await create(adminToken, { url: 'https://hooks.example.test/audited', events: ['scan.failed'] });
  expect((await remove(fresh.ownerToken, created.body.webhook.id)).status).toBe(204);
  const events = (await app.api.get('/v1/audit-events').set(bearer(fresh.ownerToken))).body.auditEvents;
  expect(events.map((e: { type: string }) => e.type)).toEqual(['webhook.deleted', 'webhook.created']);
  expect(events[1]).toMatchObject({
    actor: { memberId: created.body.webhook.createdBy },
    target: {
      kind: 'webhook',
      id: created.body.webhook.id,
      url: 'https://hooks.example.test/audited',
      format: 'json',
      events: ['scan.failed'],
    },
    requestId: expect.any(String),
  });
  expect(events[0]).toMatchObject({
    actor: { memberId: fresh.memberId },
    target: { kind: 'webhook', id: created.body.webhook.id },
  });
  expect(JSON.stringify(events)).not.toContain(created.body.secret.slice('svc_whs_'.length));
});

describe('chat formats (slack, teams)', () => {
  const TOKEN = 'T0AAA/B0BBB/XyZsecretTokenXyZ';
  const SIG = 'sig=TeamsSignatureSecret';

  test('201 with no secret; the URL sealed at rest, shown and audited only as https://host/…', async () => {
    const fresh = await newOrg(store);
    const slack = await create(fresh.ownerToken, {
      url: `https://hooks.example.test/services/${TOKEN}`,
      events: ['scan.completed', 'alert.opened'],
      format: 'slack',
    });
    const teams = await create(fresh.ownerToken, {
      url: `https://hooks.example.test:8443/workflows/abc/triggers/manual/paths/invoke?api-version=1&${SIG}`,
      events: ['alert.opened'],
      format: 'teams',
      minSeverity: 'high',
    });
    const json = await create(fresh.ownerToken, { ...HOOK, format: null });
    expect([slack.status, teams.status, json.status]).toEqual([201, 201, 201]);
    expect(slack.body).toEqual({
      webhook: expect.objectContaining({ url: 'https://hooks.example.test/…', format: 'slack' }),
      secret: null,
    });
    expect(teams.body).toEqual({
      webhook: expect.objectContaining({
        url: 'https://hooks.example.test:8443/…',
        format: 'teams',
        minSeverity: 'high',
      }),
      secret: null,
    });
    expect(json.body.webhook).toMatchObject({ url: HOOK.url, format: 'json' });
    expect(json.body.secret).toMatch(/^svc_whs_/);

    // at rest: the masked form in clear, the URL only sealed
    const stored = await store.c.webhooks.findOne({ _id: slack.body.webhook.id });
    expect(stored).toMatchObject({ url: 'https://hooks.example.test/…', format: 'slack', secret: null });
    expect(box.open(stored!.sealedUrl!)).toBe(`https://hooks.example.test/services/${TOKEN}`);
    const storedTeams = await store.c.webhooks.findOne({ _id: teams.body.webhook.id });
    expect(box.open(storedTeams!.sealedUrl!)).toContain(SIG);

    // the list shows the masked form; an admin's too
    const listed = (await list(await fresh.session('admin'))).body.webhooks;
    expect(listed.map((w: any) => [w.format, w.url])).toEqual([
      ['json', HOOK.url],
      ['teams', 'https://hooks.example.test:8443/…'],
      ['slack', 'https://hooks.example.test/…'],
    ]);

    // deleted, then the audit trail: the masked form only
    expect((await remove(fresh.ownerToken, slack.body.webhook.id)).status).toBe(204);
    const events = (await app.api.get('/v1/audit-events').set(bearer(fresh.ownerToken))).body.auditEvents;
    expect(events.map((e: any) => [e.type, e.target.url ?? null, e.target.format ?? null])).toEqual([
      ['webhook.deleted', null, null],
      ['webhook.created', HOOK.url, 'json'],
      ['webhook.created', 'https://hooks.example.test:8443/…', 'teams'],
      ['webhook.created', 'https://hooks.example.test/…', 'slack'],
    ]);
    // nowhere in clear: not in the answers, the lists, the audit trail or any stored document
    const everything = JSON.stringify([
      slack.body,
      teams.body,
      listed,
      events,
      await store.db.collection('webhooks').find({ orgId: fresh.orgId }).toArray(),
      await store.db.collection('auditEvents').find({ orgId: fresh.orgId }).toArray(),
    ]);
    for (const part of ['XyZsecretTokenXyZ', 'TeamsSignatureSecret', '/services/', '/workflows/'])
      expect({ part, found: everything.includes(part) }).toEqual({ part, found: false });
  });

  test.each<[string, unknown]>([
    ['an unknown format', 'discord'],
    ['another case', 'Slack'],
    ['a number', 1],
    ['an array', ['slack']],
    ['empty', ''],
  ])('%s → 422 invalid_parameter naming format; nothing stored', async (_, format) => {
    const fresh = await newOrg(store);
    const res = await create(fresh.ownerToken, { ...HOOK, format });
    expect(err(res)).toEqual({ status: 422, code: 'invalid_parameter' });
    expect(res.body.error.message).toMatch(/^format: must be one of json, slack, teams/);
    expect(await store.c.webhooks.countDocuments({ orgId: fresh.orgId })).toBe(0);
  });

  test('the same destination rules as json: a private address, http, credentials are refused alike', async () => {
    const fresh = await newOrg(store);
    for (const url of [
      'https://internal.example.test/services/T/B/X',
      'https://mixed.example.test/hook',
      'https://127.0.0.1:8443/hook',
      'http://hooks.example.test/services/T/B/X',
      'https://user:pass@hooks.example.test/x',
      'https://nowhere.example.test/x',
    ]) {
      const json = await create(fresh.ownerToken, { url, events: ['scan.completed'] });
      for (const format of ['slack', 'teams']) {
        const chat = await create(fresh.ownerToken, { url, events: ['scan.completed'], format });
        expect({ url, format, ...err(chat), message: chat.body.error.message }).toEqual({
          url,
          format,
          ...err(json),
          message: json.body.error.message,
        });
      }
    }
    expect(await store.c.webhooks.countDocuments({ orgId: fresh.orgId })).toBe(0);
    // and where an allowed CIDR holds the address, a chat webhook is accepted as a json one is
    const ok = await create(
      fresh.ownerToken,
      { url: 'https://127.0.0.1:8443/hook', events: ['scan.completed'], format: 'teams' },
      lenient.api,
    );
    expect([ok.status, ok.body.webhook.url]).toEqual([201, 'https://127.0.0.1:8443/…']);
  });
});
