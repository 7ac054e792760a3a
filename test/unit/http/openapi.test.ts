// GET /v1/openapi.json: the document is valid OpenAPI 3.1, describes exactly the routes the app serves (a route added
// without a description fails here), carries the very snapshot schemas ajv validates uploads with and the credentials
// of the matrix, and real responses of the presenters and of the app validate against its response schemas.
import fs from 'node:fs';
import path from 'node:path';
import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import pino from 'pino';
import request from 'supertest';
import { createApp } from '../../../src/http/app';
import { MATRIX } from '../../../src/http/auth/matrix';
import { snapshotSchemaV1 } from '../../../src/domain/snapshot/schema-v1';
import { snapshotSchemaV2 } from '../../../src/domain/snapshot/schema-v2';
import { checkStructure } from '../../../src/domain/snapshot/structure';
import { OPERATIONS, openApiDocument, openApiPath } from '../../../src/http/openapi/document';
import { presentScan } from '../../../src/presenters/scans';
import { presentApiKey } from '../../../src/http/api-keys/routes';
import { presentInvitation } from '../../../src/http/invitations/routes';
import { presentMember } from '../../../src/http/members/routes';
import { presentAudit } from '../../../src/http/audit/routes';
import type { Finding } from '../../../src/shared/types';
import type { ApiKeyDoc, InvitationDoc, MemberDoc } from '../../../src/storage/documents/accounts';
import type { ScanDoc } from '../../../src/storage/documents/scans';
import type { AuditEventDoc } from '../../../src/storage/documents/service';
import { itWithSharedData, sharedDataPath } from '../../helpers/shared-data';
import { v1Snapshot } from '../../helpers/snapshots';
import { v2Snapshot } from '../../helpers/v2';

const doc = openApiDocument() as any;
const METHODS = ['get', 'put', 'post', 'delete', 'patch', 'head', 'options', 'trace'];

/** An ajv holding the document, to validate values against its component schemas and response schemas. */
function docAjv() {
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats(ajv);
  ajv.addSchema(doc, 'openapi.json');
  return ajv;
}
const ajv = docAjv();
const validator = (pointer: string) => ajv.compile({ $ref: `openapi.json#${pointer}` });
const component = (name: string) => validator(`/components/schemas/${name}`);
const esc = (s: string) => s.replace(/~/g, '~0').replace(/\//g, '~1');
/** The schema of a documented response body, by OpenAPI path, method, status (and media type). */
function responseValidator(p: string, method: string, status: number, media = 'application/json') {
  return validator(`/paths/${esc(p)}/${method}/responses/${status}/content/${esc(media)}/schema`);
}
function expectValid(v: ReturnType<typeof component>, value: unknown) {
  const ok = v(value);
  if (!ok) throw new Error(JSON.stringify(v.errors, null, 2) + '\n' + JSON.stringify(value));
}

function operations(): Array<{ route: string; op: any }> {
  const out: Array<{ route: string; op: any }> = [];
  for (const [p, item] of Object.entries<any>(doc.paths))
    for (const m of METHODS) if (item[m]) out.push({ route: `${m.toUpperCase()} ${p}`, op: item[m] });
  return out;
}

describe('the document', () => {
  itWithSharedData('validates against the OpenAPI 3.1 meta-schema', () => {
    const file = sharedDataPath('schemas', 'openapi-3.1-schema-2022-10-07.json');
    const meta = new Ajv2020({ strict: false, allErrors: true });
    addFormats(meta);
    meta.addFormat('media-range', true); // the meta-schema's own format name; not among ajv-formats'
    // Ajv 8 resolves `$dynamicRef: "#meta"` in this meta-schema wrongly (schema objects then fail the enclosing
    // object's unevaluatedProperties). With no dialect extending it, the only `$dynamicAnchor: meta` is
    // $defs/schema, so the static $ref to it is what the dynamic one means here.
    const text = fs.readFileSync(file, 'utf8').replace(/"\$dynamicRef": "#meta"/g, '"$ref": "#/$defs/schema"');
    expect(text).not.toContain('$dynamicRef');
    const validate = meta.compile(JSON.parse(text));
    expect(validate.errors ?? null).toBeNull();
    const ok = validate(doc);
    expect(ok ? [] : validate.errors).toEqual([]);
    // the meta-schema really checks: a broken document fails
    expect(validate({ ...doc, paths: { '/x': { get: { responses: 'nope' } } } })).toBe(false);
  });

  test('is version 3.1.0 of package.json, relative server, JSON-serializable and cached', () => {
    const pkg = JSON.parse(fs.readFileSync(path.join(__dirname, '../../../package.json'), 'utf8'));
    expect(doc.openapi).toBe('3.1.0');
    expect(doc.info.version).toBe(pkg.version);
    expect(doc.servers).toEqual([{ url: '/' }]);
    expect(JSON.parse(JSON.stringify(doc))).toEqual(doc);
    expect(openApiDocument()).toBe(doc);
  });

  test('every $ref resolves, every operationId is unique, every tag is declared', () => {
    const refs: string[] = [];
    const walk = (v: unknown) => {
      if (Array.isArray(v)) v.forEach(walk);
      else if (v && typeof v === 'object')
        for (const [k, x] of Object.entries(v)) k === '$ref' && typeof x === 'string' ? refs.push(x) : walk(x);
    };
    walk(doc);
    expect(refs.length).toBeGreaterThan(20);
    for (const r of refs) {
      expect(r.startsWith('#/')).toBe(true);
      const target = r
        .slice(2)
        .split('/')
        .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'))
        .reduce<any>((at, s) => at?.[s], doc);
      if (target === undefined) throw new Error(`unresolved $ref ${r}`);
    }
    const ids = operations().map((o) => o.op.operationId);
    expect(new Set(ids).size).toBe(ids.length);
    const tags = new Set(doc.tags.map((t: { name: string }) => t.name));
    for (const { op } of operations()) for (const t of op.tags) expect(tags).toContain(t);
  });

  test('every path parameter is declared, and every declared one is in the path', () => {
    for (const { route, op } of operations()) {
      const inPath = [...route.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]).sort();
      const declared = (op.parameters ?? [])
        .filter((p: any) => p.in === 'path')
        .map((p: any) => p.name)
        .sort();
      expect([route, declared]).toEqual([route, inPath]);
    }
  });

  test('every error response is the envelope, restricted to real codes, with X-Request-Id; 429 and 503 with Retry-After', () => {
    for (const { route, op } of operations()) {
      for (const [status, r] of Object.entries<any>(op.responses)) {
        expect(r.headers['X-Request-Id']).toBeDefined();
        if (Number(status) === 429 || (Number(status) === 503 && route !== 'GET /readyz'))
          expect(r.headers['Retry-After']).toBeDefined();
        const schema = r.content?.['application/json']?.schema;
        if (Number(status) >= 400 && route !== 'GET /readyz') {
          expect(schema.properties.error.properties.code.enum.length).toBeGreaterThan(0);
          for (const code of schema.properties.error.properties.code.enum) expect(r.description).toContain(code);
        }
      }
    }
  });
});

describe('route coverage', () => {
  /** METHOD /openapi/{path} of every route the app serves (HEAD is GET's shadow). */
  function served(): Set<string> {
    const app = createApp({ logger: pino({ level: 'silent' }) } as never);
    const out = new Set<string>();
    for (const mw of app.middleware as any[]) {
      // the web app's static files (src/http/web/routes.ts, public) are not part of the API
      for (const layer of mw.router?.stack ?? [])
        for (const m of layer.methods)
          if (m !== 'HEAD' && !/^\/app(\/|$)/.test(layer.path)) out.add(`${m} ${openApiPath(layer.path)}`);
    }
    return out;
  }

  test('every route the app serves is in the document, and every documented operation is served', () => {
    const routes = served();
    expect(routes.size).toBeGreaterThan(15);
    const documented = new Set(operations().map((o) => o.route));
    expect([...routes].filter((r) => !documented.has(r))).toEqual([]);
    expect([...documented].filter((r) => !routes.has(r))).toEqual([]);
  });

  test('every matrix endpoint is described (the matrix names what the app guards)', () => {
    const documented = new Set(operations().map((o) => o.route));
    for (const endpoint of Object.keys(MATRIX)) {
      const [m, p] = endpoint.split(' ');
      expect(documented).toContain(`${m} ${openApiPath(p)}`);
    }
  });
});

describe('the upload body', () => {
  const upload = () => doc.paths['/v1/scans/dependency-snapshots'].post;

  test('is the schema ajv validates uploads with: the same objects, v1 or v2 by schemaVersion', () => {
    expect(upload().requestBody.content['application/json'].schema).toEqual({ $ref: '#/components/schemas/Snapshot' });
    expect(doc.components.schemas.Snapshot.oneOf).toEqual([
      { $ref: '#/components/schemas/SnapshotV1' },
      { $ref: '#/components/schemas/SnapshotV2' },
    ]);
    expect(doc.components.schemas.SnapshotV1).toBe(snapshotSchemaV1);
    expect(doc.components.schemas.SnapshotV2).toBe(snapshotSchemaV2);
    // and it survives serialization as it is
    const served = JSON.parse(JSON.stringify(doc));
    expect(served.components.schemas.SnapshotV2).toEqual(JSON.parse(JSON.stringify(snapshotSchemaV2)));
  });

  test('accepts and refuses what the service accepts and refuses', () => {
    const v = component('Snapshot');
    const v2 = v2Snapshot(
      [
        {
          module: ':app',
          context: 'runtimeClasspath',
          vertices: [
            ['0', ':app', '1'],
            ['1', 'org.x:y@1.0'],
          ],
        },
      ],
      [{ path: ':app' }],
    );
    const samples: unknown[] = [
      v1Snapshot(),
      v1Snapshot('p', { schemaVersion: 3 }),
      v1Snapshot('', {}),
      v1Snapshot('p', { suppressions: [{ cve: 'CVE-1', reason: 'x', expires: '2025-02-30' }] }),
      v2,
      { ...v2, modules: [{ path: ':app', teamName: '' }] },
      { ...v2, roots: [] },
    ];
    const outcomes: boolean[] = [];
    for (const s of samples) {
      const version = (s as { schemaVersion: number }).schemaVersion;
      let service = version === 1 || version === 2;
      if (service) {
        try {
          checkStructure(s, version as 1 | 2);
        } catch {
          service = false;
        }
      }
      expect([s, v(s)]).toEqual([s, service]);
      outcomes.push(service);
    }
    expect(outcomes).toEqual([true, false, false, false, true, false, true]);
  });
});

describe('credentials from the matrix', () => {
  test('public routes take no credential; every other a bearer credential or the app session cookie, its description naming the scope or roles', () => {
    for (const [route, op] of Object.entries(OPERATIONS)) {
      const [m, p] = route.split(' ');
      const o = doc.paths[openApiPath(p)][m.toLowerCase()];
      const a = (MATRIX as Record<string, any>)[route] ?? { kind: 'public' };
      if (a.kind === 'public') {
        expect([route, o.security]).toEqual([route, []]);
        // public routes answer no 401, except sign-in, whose 401 is the refused code (not a credential)
        if (route !== 'POST /v1/sessions') expect(o.responses['401']).toBeUndefined();
      } else {
        expect([route, o.security]).toEqual([route, [{ bearer: [] }, { appSession: [] }]]);
        expect(o['x-credential']).toEqual(a);
        expect(o.responses['401']).toBeDefined();
        expect(o.responses['403']).toBeDefined();
        expect(o.responses['429'].headers['X-RateLimit-Reset']).toBeDefined();
        if (a.kind === 'scope') expect(o.description).toContain(a.scope);
        if (a.kind === 'roles') for (const r of a.roles) expect(o.description).toContain(r);
        if (a.kind === 'session') expect(o.description).toContain('session');
      }
      expect(op.operationId).toBe(o.operationId);
    }
    expect(doc.components.securitySchemes.bearer).toMatchObject({ type: 'http', scheme: 'bearer' });
  });
});

describe('real responses validate against the documented schemas', () => {
  const t0 = new Date('2026-01-02T03:04:05.000Z');
  const scan: ScanDoc = {
    _id: 'scn_1',
    orgId: 'org_1',
    projectId: 'prj_1',
    target: 'web',
    ecosystem: 'gradle',
    schemaVersion: 2,
    status: 'queued',
    startedAt: t0,
    finishedAt: null,
    failureReason: null,
    findings: null,
    suppressed: null,
    nodeCount: 2,
    bodyBytes: 10,
    orgBucket: 0,
    projectBucket: 0,
  } as ScanDoc;
  const finding: Finding = {
    id: 'fnd_1',
    scanId: 'scn_1',
    severity: 'high',
    cve: 'GHSA-xxxx',
    publishedAt: '2024-05-01T00:00:00Z',
    package: 'org.x:y',
    installedVersion: '1.0',
    fixedVersion: null,
    path: [':app', 'org.x:y@1.0'],
    suppressed: true,
    suppressionReason: 'accepted',
    attributions: [
      {
        module: ':app',
        context: 'runtimeClasspath',
        relationship: 'direct',
        path: [':app', 'org.x:y@1.0'],
        origins: [{ module: ':app', dependency: 'org.x:y@1.0', path: [':app', 'org.x:y@1.0'] }],
      },
    ],
    summary: 'bad',
    aliases: ['CVE-2024-1'],
  };

  test('scans: queued, completed with modules, failed; lists; findings', () => {
    const completed = {
      ...scan,
      status: 'completed',
      finishedAt: t0,
      findings: { critical: 0, high: 1, medium: 0, low: 0 },
      suppressed: 1,
      advisoryGeneration: 'gen_1',
      unmatchedVersions: 0,
      modules: [{ path: ':app', dependencies: [], teamName: '@acme/web', attributes: { codeowners: '@acme/web' } }],
      metadata: { commit: 'abc' },
    } as ScanDoc;
    const failed = { ...scan, status: 'failed', finishedAt: t0, failureReason: 'internal_error' } as ScanDoc;
    for (const s of [scan, completed, failed]) {
      expectValid(responseValidator('/v1/scans/{scanId}', 'get', 200), presentScan(s));
      expectValid(responseValidator('/v1/scans/dependency-snapshots', 'post', 201), presentScan(s));
    }
    expectValid(responseValidator('/v1/scans', 'get', 200), {
      scans: [presentScan(scan), presentScan(completed)],
      nextCursor: 'c',
    });
    const findings = responseValidator('/v1/scans/{scanId}/findings', 'get', 200);
    expectValid(findings, {
      findings: [finding],
      nextCursor: null,
      counts: { critical: 0, high: 0, medium: 0, low: 0, suppressed: 1 },
    });
    expectValid(findings, { findings: [], nextCursor: null, counts: null });
    expect(component('Scan')({ ...presentScan(scan), status: 'done' })).toBe(false);
    expect(findings({ findings: [{ ...finding, severity: 'urgent' }], nextCursor: null })).toBe(false);
  });

  test('platform presenters', () => {
    const member: MemberDoc = {
      _id: 'mem_1',
      orgId: 'org_1',
      userId: 'usr_1',
      email: 'a@x.test',
      role: 'admin',
      joinedAt: t0,
    } as MemberDoc;
    const key = {
      id: 'key_1',
      name: 'ci',
      prefix: 'svc_key_abcd',
      scopes: ['sca:upload'],
      projects: 'all',
      createdBy: 'mem_1',
      createdAt: t0,
      expiresAt: null,
      lastUsedAt: null,
      revokedAt: null,
    } as unknown as ApiKeyDoc;
    const inv = {
      id: 'inv_1',
      email: 'b@x.test',
      role: 'member',
      status: 'pending',
      createdBy: 'mem_1',
      createdAt: t0,
      expiresAt: new Date(t0.getTime() + 7 * 864e5),
      acceptedAt: null,
      revokedAt: null,
    } as unknown as InvitationDoc;
    const audit: AuditEventDoc = {
      _id: 'aud_1',
      orgId: 'org_1',
      type: 'api_key.created',
      actor: { memberId: 'mem_1', userId: 'usr_1', email: 'a@x.test' },
      target: { kind: 'api_key', id: 'key_1', scopes: ['sca:upload'] },
      at: t0,
      requestId: 'r1',
    };
    expectValid(responseValidator('/v1/members', 'get', 200), { members: [presentMember(member)], nextCursor: null });
    expectValid(responseValidator('/v1/members/{memberId}', 'patch', 200), presentMember(member));
    expectValid(responseValidator('/v1/api-keys', 'get', 200), {
      apiKeys: [presentApiKey(key, t0), presentApiKey({ ...key, projects: ['prj_1'], revokedAt: t0 } as ApiKeyDoc, t0)],
      nextCursor: null,
    });
    expectValid(responseValidator('/v1/api-keys', 'post', 201), {
      apiKey: presentApiKey(key, t0),
      secret: 'svc_key_' + 'a'.repeat(32),
    });
    expectValid(responseValidator('/v1/invitations', 'get', 200), {
      invitations: [presentInvitation(inv, t0)],
      nextCursor: null,
    });
    expectValid(responseValidator('/v1/invitations', 'post', 201), {
      invitation: presentInvitation(inv, t0),
      token: 'svc_inv_x',
      inviteUrl: 'https://app/invitations/accept#token=svc_inv_x',
    });
    expectValid(responseValidator('/v1/invitations/acceptances', 'post', 200), {
      org: { id: 'org_1', name: 'acme' },
      member: presentMember(member),
    });
    expectValid(responseValidator('/v1/audit-events', 'get', 200), {
      auditEvents: [presentAudit(audit)],
      nextCursor: null,
    });
    expectValid(responseValidator('/v1/me', 'get', 200), {
      user: { id: 'usr_1', email: 'a@x.test' },
      org: null,
      member: null,
    });
  });

  test('from the app (routes that need no database): the document itself, health, ip ranges, 401 and 404 envelopes', async () => {
    const app = createApp({ logger: pino({ level: 'silent' }) } as never).callback();
    const res = await request(app).get('/v1/openapi.json');
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(res.body).toEqual(JSON.parse(JSON.stringify(doc)));
    expectValid(responseValidator('/v1/openapi.json', 'get', 200), res.body);
    const health = await request(app).get('/healthz');
    expectValid(responseValidator('/healthz', 'get', 200), health.body);
    const ranges = await request(app).get('/v1/meta/ip-ranges');
    expect(ranges.status).toBe(200);
    expectValid(responseValidator('/v1/meta/ip-ranges', 'get', 200), ranges.body);
    for (const [p, m, url] of [
      ['/v1/scans/{scanId}', 'get', '/v1/scans/scn_1'],
      ['/v1/api-keys', 'post', '/v1/api-keys'],
      ['/v1/me', 'get', '/v1/me'],
    ] as const) {
      const r = await (request(app) as any)[m](url);
      expect(r.status).toBe(401);
      expect(r.headers['x-request-id']).toBeTruthy();
      expectValid(responseValidator(p, m, 401), r.body);
      expect(responseValidator(p, m, 403)(r.body)).toBe(false); // the code is restricted per status
    }
    const missing = await request(app).get('/cli/scanner.mjs').set('If-None-Match', '"nope"');
    if (missing.status === 404) expectValid(responseValidator('/cli/scanner.mjs', 'get', 404), missing.body);
    else expect(missing.headers['x-scanner-version']).toBeTruthy();
  });
});
