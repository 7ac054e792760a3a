// Hostile input on every host and gateway endpoint (issue 18, point 6): malformed and non-JSON bodies, bodies of the
// wrong shape, oversized and deeply nested ones, NULs, wrong types in every field, oversized fields and labels, bad
// CIDRs, hostile path ids and query values, then thousands of generated bodies. Whatever is sent, the answer is a
// documented 2xx or a 4xx envelope: never a 5xx, never another shape.
import fc from 'fast-check';
import { bearer, type Org } from '../helpers/context';
import { documented, endpoints, machine, type Fleet, type Res, fleetSetup } from './hosts-helpers';

let f: Fleet;
let e: ReturnType<typeof endpoints>;
let org: Org;
let owner: string;

beforeAll(async () => {
  ({ f, e, org, owner } = await fleetSetup());
}, 60_000);
afterAll(() => f?.close());

/** A fresh credential for each kind of endpoint, and the path it is used on. */
async function target(
  name: Target,
): Promise<{ method: 'post' | 'get' | 'delete'; path: string; doc: string; token: string }> {
  switch (name) {
    case 'registration-tokens':
      return {
        method: 'post',
        path: '/v1/hosts/registration-tokens',
        doc: '/v1/hosts/registration-tokens',
        token: owner,
      };
    case 'attestations': {
      const t = await e.issueToken(owner, { name: 'hostile', uses: 10000 });
      return { method: 'post', path: '/v1/hosts/attestations', doc: '/v1/hosts/attestations', token: t.body.token };
    }
    case 'host-heartbeats': {
      const t = await e.issueToken(owner, { name: 'hostile' });
      const h = await e.attest(t.body.token, { hostname: 'h', machineId: machine('hostile') });
      return {
        method: 'post',
        path: `/v1/hosts/${h.body.host.id}/heartbeats`,
        doc: '/v1/hosts/{hostId}/heartbeats',
        token: h.body.credential,
      };
    }
    case 'enrollment-tokens':
      return {
        method: 'post',
        path: '/v1/gateways/enrollment-tokens',
        doc: '/v1/gateways/enrollment-tokens',
        token: owner,
      };
    case 'enrollments': {
      const t = await e.issueEnrollment(owner, { name: 'hostile' });
      return { method: 'post', path: '/v1/gateways/enrollments', doc: '/v1/gateways/enrollments', token: t.body.token };
    }
    case 'approval': {
      const t = await e.issueEnrollment(owner, { name: 'hostile' });
      const g = await e.enroll(t.body.token, { version: '1', networkScope: ['10.0.0.0/8', '2001:db8::/32'] });
      return {
        method: 'post',
        path: `/v1/gateways/${g.body.gateway.id}/approval`,
        doc: '/v1/gateways/{gatewayId}/approval',
        token: owner,
      };
    }
    case 'gateway-heartbeats': {
      const t = await e.issueEnrollment(owner, { name: 'hostile' });
      const g = await e.enroll(t.body.token, { version: '1', networkScope: ['10.0.0.0/8'] });
      return {
        method: 'post',
        path: `/v1/gateways/${g.body.gateway.id}/heartbeats`,
        doc: '/v1/gateways/{gatewayId}/heartbeats',
        token: g.body.credential,
      };
    }
  }
}
type Target =
  | 'registration-tokens'
  | 'attestations'
  | 'host-heartbeats'
  | 'enrollment-tokens'
  | 'enrollments'
  | 'approval'
  | 'gateway-heartbeats';
const TARGETS: Target[] = [
  'registration-tokens',
  'attestations',
  'host-heartbeats',
  'enrollment-tokens',
  'enrollments',
  'approval',
  'gateway-heartbeats',
];

/** Sends raw bytes; the answer must be documented and, when not 2xx, a 4xx envelope. */
async function send(
  t: Awaited<ReturnType<typeof target>>,
  raw: string | Buffer,
  contentType = 'application/json',
): Promise<Res> {
  const res = await (f.api as any)[t.method](t.path).set(bearer(t.token)).set('Content-Type', contentType).send(raw);
  expect(res.headers['x-request-id']).toBeTruthy();
  documented(t.method, t.doc, res);
  expect(res.status).toBeLessThan(500);
  if (res.status >= 300) expect(res.body).toEqual({ error: { code: expect.any(String), message: expect.any(String) } });
  return res;
}

const deep = (open: string, close: string, n: number) => open.repeat(n) + close.repeat(n);

describe.each(TARGETS)('POST %s', (name) => {
  // every row names its Content-Type: a callback with more parameters than its row gets jest's done callback
  test.each<[string, string | Buffer, number, string, string]>([
    ['truncated JSON', '{"name":', 422, 'invalid_parameter', 'application/json'],
    ['not JSON at all', 'hostname=web-1', 422, 'invalid_parameter', 'application/json'],
    ['an empty body', '', 422, 'invalid_parameter', 'application/json'],
    // decoded with replacement characters: an object with one unknown key (each endpoint's own answer)
    ['invalid UTF-8', Buffer.from([0x7b, 0x22, 0xff, 0xfe, 0x22, 0x3a, 0x31, 0x7d]), 0, '*', 'application/json'],
    ['an array', '[{"name":"x"}]', 422, 'invalid_parameter', 'application/json'],
    ['a string', '"x"', 422, 'invalid_parameter', 'application/json'],
    ['a number', '42', 422, 'invalid_parameter', 'application/json'],
    ['null', 'null', 422, 'invalid_parameter', 'application/json'],
    [
      'a NUL in a value',
      '{"name":"a\\u0000","hostname":"a\\u0000","version":"\\u0000","networkScope":["\\u0000"]}',
      422,
      'invalid_parameter',
      'application/json',
    ],
    ['a NUL in a key', '{"\\u0000":1}', 422, 'invalid_parameter', 'application/json'],
    ['nested 30,000 deep (arrays)', deep('[', ']', 30_000), 422, 'invalid_parameter', 'application/json'],
    ['nested 10,000 deep (objects)', `${'{"a":'.repeat(10_000)}1${'}'.repeat(10_000)}`, 0, '*', 'application/json'],
    [
      'labels nested 10,000 deep',
      `{"name":"x","hostname":"h","machineId":"m","labels":${'{"a":'.repeat(10_000)}1${'}'.repeat(10_000)}}`,
      0,
      '*',
      'application/json',
    ],
    [
      'over 64 KB',
      JSON.stringify({ name: 'x', padding: 'p'.repeat(70 * 1024) }),
      413,
      'invalid_parameter',
      'application/json',
    ],
    ['sent as text/plain', '{"name":"x"}', 422, 'invalid_parameter', 'text/plain'],
    ['sent as form data', 'name=x', 422, 'invalid_parameter', 'application/x-www-form-urlencoded'],
  ])('%s → %i %s (0 *: whatever the endpoint answers, never a 5xx)', async (_, raw, status, code, contentType) => {
    const t = await target(name);
    const res = await send(t, raw, contentType);
    if (code !== '*') expect({ status: res.status, code: res.body.error?.code }).toEqual({ status, code });
  });

  test('a huge body refused by its Content-Length before it is read', async () => {
    const t = await target(name);
    const res = await send(t, Buffer.alloc(8 * 1024 * 1024, 0x20));
    expect(res.status).toBe(413);
  });

  test('generated bodies: a documented answer, never a 5xx', async () => {
    const t = await target(name);
    const field = fc.oneof(
      fc.jsonValue({ maxDepth: 3 }),
      fc.string({ maxLength: 300 }),
      fc.constantFrom(
        '',
        ' ',
        '10.0.0.0/8',
        '10.0.0.1/8',
        '::1/129',
        '0.0.0.0/0',
        '2001:db8::/32',
        'fe80::%1/64',
        'svc_hst_x',
        'gw_x',
        'gateway',
        'direct',
        '2030-01-01T00:00:00Z',
        '1999-01-01T00:00:00Z',
        'a'.repeat(254),
      ),
      fc.integer(),
      fc.double(),
      fc.dictionary(
        fc.string({ maxLength: 70 }),
        fc.oneof(fc.string({ maxLength: 260 }), fc.integer(), fc.constant(null)),
        { maxKeys: 70 },
      ),
      fc.array(
        fc.oneof(
          fc.ipV4().map((a) => `${a}/${a.length % 33}`),
          fc.ipV6().map((a) => `${a}/64`),
          fc.string({ maxLength: 50 }),
        ),
        { maxLength: 105 },
      ),
    );
    const keys = [
      'name',
      'uses',
      'expiresAt',
      'labels',
      'hostname',
      'machineId',
      'os',
      'arch',
      'agentVersion',
      'connectivity',
      'gatewayId',
      'version',
      'networkScope',
      '__proto__',
      'constructor',
    ];
    const body = fc.dictionary(fc.constantFrom(...keys), field, { maxKeys: 8 });
    await fc.assert(
      fc.asyncProperty(body, async (b) => void (await send(t, JSON.stringify(b)))),
      { numRuns: 120 },
    );
  }, 120_000);
});

describe('wrong types in every field', () => {
  const wrong = [5, true, [], {}, null, 'x'.repeat(300)];
  test.each<[Target, string[]]>([
    ['registration-tokens', ['name', 'uses', 'expiresAt', 'labels']],
    ['attestations', ['hostname', 'machineId', 'labels', 'os', 'arch', 'agentVersion']],
    ['host-heartbeats', ['agentVersion', 'labels', 'connectivity', 'gatewayId']],
    ['enrollment-tokens', ['name', 'expiresAt']],
    ['enrollments', ['name', 'version', 'networkScope']],
    ['approval', ['networkScope']],
    ['gateway-heartbeats', ['version']],
  ])(
    '%s: %j each of the wrong type or too long → 4xx, nothing 5xx',
    async (name, fields) => {
      const valid: Record<Target, Record<string, unknown>> = {
        'registration-tokens': { name: 'x' },
        attestations: { hostname: 'h', machineId: machine('types') },
        'host-heartbeats': {},
        'enrollment-tokens': { name: 'x' },
        enrollments: { version: '1', networkScope: ['10.0.0.0/8'] },
        approval: { networkScope: ['10.0.0.0/8'] },
        'gateway-heartbeats': {},
      };
      for (const fieldName of fields) {
        for (const v of wrong) {
          const t = await target(name);
          const res = await send(
            t,
            JSON.stringify({
              ...valid[name],
              [fieldName]: v,
              ...(name === 'attestations' ? { machineId: fieldName === 'machineId' ? v : machine('types') } : {}),
            }),
          );
          // only null (an optional field left out), {} as labels and 5 as uses are valid here
          const accepted =
            v === null ||
            (fieldName === 'labels' && typeof v === 'object' && !Array.isArray(v)) ||
            (fieldName === 'uses' && v === 5);
          if (res.status < 300) expect([name, fieldName, v]).toEqual([name, fieldName, accepted ? v : 'refused']);
          else expect([name, fieldName, res.status]).toEqual([name, fieldName, 422]);
        }
      }
    },
    120_000,
  );
});

describe('unknown fields are ignored (as everywhere in the API), never stored', () => {
  test('on an attestation and a heartbeat', async () => {
    const t = await e.issueToken(owner, { name: 'extra' });
    const res = await e.attest(t.body.token, {
      hostname: 'h',
      machineId: machine('extra'),
      revokedAt: null,
      credentialGen: 99,
      orgId: 'org_other',
      _id: 'hst_mine',
      status: 'revoked',
    });
    expect(res.status).toBe(201);
    expect(res.body.host.status).toBe('active');
    const stored = (await f.store.c.hosts.findOne({ _id: res.body.host.id }))!;
    expect(stored).toMatchObject({ orgId: org.orgId, credentialGen: 1, revokedAt: null });
    const hb = await e.heartbeat(res.body.credential, res.body.host.id, {
      lastHeartbeatAt: '2001-01-01T00:00:00Z',
      revokedAt: '2001-01-01T00:00:00Z',
      hostname: 'renamed',
    });
    expect(hb.body.host).toMatchObject({ status: 'active', hostname: 'h' });
  });
});

describe('hostile path ids and queries', () => {
  test('ids that name nothing (NUL, very long, another kind, traversal) are 404 not_found', async () => {
    const t = await e.issueToken(owner, { name: 'ids' });
    const h = await e.attest(t.body.token, { hostname: 'h', machineId: machine('ids') });
    const enrollment = await e.issueEnrollment(owner, { name: 'ids' });
    const g = await e.enroll(enrollment.body.token, { version: '1', networkScope: ['10.0.0.0/8'] });
    const misses = [
      'hst_%00',
      'gw_%00',
      'hrt_%00',
      'x'.repeat(2000),
      '..%2F..%2Fv1%2Fhosts',
      '%E2%80%AE',
      'hst_unknown',
      'gw_unknown',
    ];
    const checks = (id: string): Array<[string, string, () => Promise<any>]> => [
      [
        'delete',
        '/v1/hosts/registration-tokens/{tokenId}',
        () => f.api.delete(`/v1/hosts/registration-tokens/${id}`).set(bearer(owner)),
      ],
      ['delete', '/v1/hosts/{hostId}', () => f.api.delete(`/v1/hosts/${id}`).set(bearer(owner))],
      [
        'post',
        '/v1/hosts/{hostId}/heartbeats',
        () => f.api.post(`/v1/hosts/${id}/heartbeats`).set(bearer(h.body.credential)).send({}),
      ],
      [
        'delete',
        '/v1/gateways/enrollment-tokens/{tokenId}',
        () => f.api.delete(`/v1/gateways/enrollment-tokens/${id}`).set(bearer(owner)),
      ],
      ['delete', '/v1/gateways/{gatewayId}', () => f.api.delete(`/v1/gateways/${id}`).set(bearer(owner))],
      [
        'post',
        '/v1/gateways/{gatewayId}/approval',
        () =>
          f.api
            .post(`/v1/gateways/${id}/approval`)
            .set(bearer(owner))
            .send({ networkScope: ['10.0.0.0/8'] }),
      ],
      [
        'post',
        '/v1/gateways/{gatewayId}/heartbeats',
        () => f.api.post(`/v1/gateways/${id}/heartbeats`).set(bearer(g.body.credential)).send({}),
      ],
    ];
    // every miss on every route, and ids of the other kind (a gateway's id as a host's, a host's as a gateway's)
    const tokens = [t.body.registrationToken.id, enrollment.body.enrollmentToken.id];
    const cases = [
      ...misses.flatMap(checks),
      ...checks(g.body.gateway.id).slice(0, 4),
      ...checks(h.body.host.id).slice(3),
      ...tokens.flatMap((id) => checks(id).filter(([, doc]) => !doc.includes('{tokenId}'))),
    ];
    for (const [method, doc, send] of cases) {
      const res = await send();
      documented(method, doc, res);
      expect([doc, res.status, res.body.error?.code]).toEqual([doc, 404, 'not_found']);
    }
    // and nothing was touched
    expect((await e.heartbeat(h.body.credential, h.body.host.id)).status).toBe(200);
    expect((await e.gatewayHeartbeat(g.body.credential, g.body.gateway.id)).body.gateway.status).toBe('pending');
  });

  test('list queries: hostile values are 422, never 5xx', async () => {
    const queries = [
      'status=%00',
      'status=ACTIVE',
      'label=%00',
      'label=a%00=b',
      `label=${'a=b&label='.repeat(70)}a=b`,
      'limit=1e3',
      'limit=-1',
      'limit=%00',
      'cursor=%00',
      `cursor=${'x'.repeat(5000)}`,
      'cursor=a.b.c',
      'status[]=active',
      'label[a]=b',
    ];
    for (const [path, doc] of [
      ['/v1/hosts', '/v1/hosts'],
      ['/v1/gateways', '/v1/gateways'],
      ['/v1/hosts/registration-tokens', '/v1/hosts/registration-tokens'],
      ['/v1/gateways/enrollment-tokens', '/v1/gateways/enrollment-tokens'],
    ]) {
      for (const q of queries) {
        const res = documented('get', doc, await f.api.get(`${path}?${q}`).set(bearer(owner)));
        if (res.status === 200) continue; // a parameter this list does not take is ignored
        expect([path, q, res.status]).toEqual([path, q, 422]);
        expect(['invalid_parameter', 'invalid_cursor']).toContain(res.body.error.code);
      }
    }
  });

  test('an X-Svc-Host-Credential of any shape is just not the credential (409 while the host is active)', async () => {
    const t = await e.issueToken(owner, { name: 'header', uses: 10 });
    const m = machine('header');
    expect((await e.attest(t.body.token, { hostname: 'h', machineId: m })).status).toBe(201);
    for (const header of [
      'x',
      'svc_hst_' + 'A'.repeat(40),
      'svc_hst_' + 'A'.repeat(4000),
      'Bearer svc_hst_x',
      t.body.token,
    ]) {
      const res = await e.attest(t.body.token, { hostname: 'h', machineId: m }, { 'X-Svc-Host-Credential': header });
      expect([header.slice(0, 20), res.status]).toEqual([header.slice(0, 20), 409]);
    }
  });
});
