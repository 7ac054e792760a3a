// GET /v1/openapi.json: the OpenAPI 3.1 document, built from the same objects the service runs on: the route table
// and credentials of src/http/auth/matrix.ts, the snapshot schemas ajv validates uploads with, and the response
// schemas of ./schemas (one place per resource, so tests can check real responses against them).
// test/unit/http/openapi.test.ts fails when the app serves a route this document does not describe.
import fs from 'node:fs';
import path from 'node:path';
import type { ErrorCode } from '../../domain/errors';
import { ROLES } from '../../domain/roles';
import { snapshotSchemaV1 } from '../../domain/snapshot/schema-v1';
import { snapshotSchemaV2 } from '../../domain/snapshot/schema-v2';
import { MATRIX, type Access, type Endpoint } from '../auth/matrix';
import { MACHINE_NAMES, roleScopes } from '../auth/principal';
import type { Operation, Resp } from './operation';
import { platformOperations } from './operations-platform';
import { scanOperations } from './operations-scans';
import { inventoryOperations } from './operations-inventory';
import { readOperations } from './operations-reads';
import { uploadOperations } from './operations-uploads';
import { exportOperations } from './operations-exports';
import { webhookOperations } from './operations-webhooks';
import { deliveryOperations } from './operations-deliveries';
import { sessionOperations } from './operations-sessions';
import { hostOperations } from './operations-hosts';
import { gatewayOperations } from './operations-gateways';
import { mcpOperations } from './operations-mcp';
import { commonSchemas, errorEnvelope, ref } from './schemas/common';
import { platformSchemas } from './schemas/platform';
import { scanSchemas } from './schemas/scans';
import { inventorySchemas } from './schemas/inventory';
import { readSchemas } from './schemas/reads';
import { uploadSchemas } from './schemas/uploads';
import { exportSchemas } from './schemas/exports';
import { webhookSchemas } from './schemas/webhooks';
import { deliverySchemas } from './schemas/deliveries';
import { sessionSchemas } from './schemas/sessions';
import { hostSchemas } from './schemas/hosts';
import { gatewaySchemas } from './schemas/gateways';
import { mcpSchemas } from './schemas/mcp';
import { alertSchemas } from './schemas/alerts';
import { alertOperations } from './operations-alerts';
import { triageOperations, triageRuleOperations, vexOperations } from './operations-triage';
import { triageRuleSchemas, triageSchemas } from './schemas/triage';
import { compareOperations } from './operations-compare';
import { compareSchemas } from './schemas/compare';
import { whereUsedOperations } from './operations-where-used';
import { metricsOperations } from './operations-metrics';
import { metricsSchemas } from './schemas/metrics';
import { whereUsedSchemas } from './schemas/where-used';

/** Routes outside the matrix: served without any guard (load balancers and orchestrators call them). */
export type Unguarded = 'GET /healthz' | 'GET /readyz';
export type Route = Endpoint | Unguarded;

// A Record over every matrix endpoint: a new MATRIX row without a description here does not typecheck.
export const OPERATIONS: Record<Route, Operation> = {
  ...platformOperations,
  ...scanOperations,
  ...inventoryOperations,
  ...uploadOperations,
  ...readOperations,
  ...exportOperations,
  ...webhookOperations,
  ...deliveryOperations,
  ...sessionOperations,
  ...hostOperations,
  ...gatewayOperations,
  ...mcpOperations,
  ...alertOperations,
  ...triageOperations,
  ...vexOperations,
  ...triageRuleOperations,
  ...compareOperations,
  ...whereUsedOperations,
  ...metricsOperations,
};

export function accessOf(route: Route): Access {
  return route in MATRIX ? MATRIX[route as Endpoint] : { kind: 'public' };
}

/** koa-router's `/v1/scans/:scanId` → OpenAPI's `/v1/scans/{scanId}`. */
export const openApiPath = (koaPath: string) => koaPath.replace(/:([A-Za-z0-9_]+)/g, '{$1}');

/** The credential sentence of an operation's description: what kind, and which scope or role. */
export function credentialText(a: Access): string {
  switch (a.kind) {
    case 'public':
      return 'Public: no credential.';
    case 'session':
      return 'Credential: a session token (any signed-in user, with or without an organization). API keys get 403 insufficient_scope.';
    case 'roles':
      return `Credential: a session token of a member with role ${a.roles.join(' or ')}. API keys get 403 insufficient_scope.`;
    case 'scope': {
      const roles = ROLES.filter((r) => roleScopes(r).has(a.scope));
      const machines = a.machines?.length ? `, or ${a.machines.map((m) => MACHINE_NAMES[m]).join(' or ')}` : '';
      return `Credential: an API key with scope ${a.scope}, or a session token of a member whose role holds it (${roles.join(', ')})${machines}.`;
    }
    case 'credential':
      return `Credential: ${MACHINE_NAMES[a.credential]} as the Bearer token, and nothing else: sessions, API keys and the other machine credentials get 403 insufficient_scope.`;
  }
}

const requestIdHeader = { $ref: '#/components/headers/X-Request-Id' };
const retryAfter = { $ref: '#/components/headers/Retry-After' };

function errorResponse(codes: ErrorCode[], description: string, headers: Record<string, unknown>) {
  return { description, headers, content: { 'application/json': { schema: errorEnvelope(codes) } } };
}

// Set by src/http/rate-limit.ts on every authenticated request's answer, when the service runs a limiter.
const RATE_LIMIT_HEADERS = ['X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset'];

function response(status: number, r: Resp, guarded: boolean) {
  const headers: Record<string, unknown> = { 'X-Request-Id': requestIdHeader, ...(r.headers ?? {}) };
  // 401 is answered before the credential is known, so before any counting
  if (guarded && status !== 401) for (const h of RATE_LIMIT_HEADERS) headers[h] = { $ref: `#/components/headers/${h}` };
  if (status === 429 || status === 503) headers['Retry-After'] = retryAfter;
  if (r.codes) return errorResponse(r.codes, r.description, headers);
  const content = r.content ?? (r.schema ? { 'application/json': { schema: r.schema } } : undefined);
  return { description: r.description, headers, ...(content ? { content } : {}) };
}

/** What every route of a kind can answer besides its own statuses (merged with them when both name a status). */
function commonResponses(op: Operation, a: Access): Record<number, Resp> {
  const out: Record<number, Resp> = {};
  if (a.kind !== 'public') {
    out[401] = {
      description: 'invalid_token: missing, malformed, expired or revoked credential.',
      codes: ['invalid_token'],
    };
    out[403] = {
      description: 'insufficient_scope: the credential lacks the scope or role; the message names it.',
      codes: ['insufficient_scope'],
    };
    out[429] = {
      description: 'rate_limited: over the per-credential limit (when enforced). Retry after Retry-After seconds.',
      codes: ['rate_limited'],
    };
  }
  if (op.usesDatabase)
    out[503] = {
      description: 'service_unavailable: the database is unreachable. Retry after Retry-After seconds.',
      codes: ['service_unavailable'],
    };
  out[500] = {
    description: 'internal_error: an unexpected failure (logged with the request id).',
    codes: ['internal_error'],
  };
  return out;
}

function mergeResponses(
  own: Record<number, Resp>,
  common: Record<number, Resp>,
  guarded: boolean,
): Record<string, unknown> {
  const merged: Record<number, Resp> = { ...own };
  for (const [s, c] of Object.entries(common)) {
    const status = Number(s);
    const mine = merged[status];
    if (!mine) merged[status] = c;
    else if (mine.codes && c.codes)
      merged[status] = {
        ...mine,
        codes: [...new Set([...mine.codes, ...c.codes])],
        description: `${mine.description} Also ${c.description}`,
      };
  }
  const out: Record<string, unknown> = {};
  for (const status of Object.keys(merged)
    .map(Number)
    .sort((x, y) => x - y))
    out[String(status)] = response(status, merged[status], guarded);
  return out;
}

function operationObject(route: Route, op: Operation) {
  const a = accessOf(route);
  return {
    operationId: op.operationId,
    tags: [op.tag],
    summary: op.summary,
    description: [op.description, credentialText(a)].filter(Boolean).join('\n\n'),
    security: a.kind === 'public' ? [] : [{ bearer: [] }, { appSession: [] }],
    ...(a.kind !== 'public' ? { 'x-credential': a } : {}),
    ...(op.parameters?.length ? { parameters: op.parameters } : {}),
    ...(op.requestBody
      ? {
          requestBody: {
            description: op.requestBody.description,
            required: true,
            content: { 'application/json': { schema: op.requestBody.schema } },
          },
        }
      : {}),
    responses: mergeResponses(op.responses, commonResponses(op, a), a.kind !== 'public'),
  };
}

function version(): string {
  for (let dir = __dirname; ; dir = path.dirname(dir)) {
    const file = path.join(dir, 'package.json');
    if (fs.existsSync(file)) return JSON.parse(fs.readFileSync(file, 'utf8')).version;
    if (dir === path.dirname(dir)) return '0.0.0';
  }
}

/** The upload body: v1 or v2 by schemaVersion. SnapshotV1/V2 are the very objects ajv compiles (structure.ts). */
export const snapshotSchemas = {
  Snapshot: {
    oneOf: [ref('SnapshotV1'), ref('SnapshotV2')],
    description: 'A dependency snapshot; schemaVersion selects v1 or v2.',
  },
  SnapshotV1: snapshotSchemaV1,
  SnapshotV2: snapshotSchemaV2,
};

export function buildOpenApiDocument() {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const [route, op] of Object.entries(OPERATIONS) as Array<[Route, Operation]>) {
    const [method, koaPath] = route.split(' ');
    (paths[openApiPath(koaPath)] ??= {})[method.toLowerCase()] = operationObject(route, op);
  }
  const tags = [...new Set(Object.values(OPERATIONS).map((o) => o.tag))].sort().map((name) => ({ name }));
  return {
    openapi: '3.1.0',
    info: {
      title: 'Supply-chain scanner API',
      version: version(),
      description:
        'Dependency snapshots in, vulnerability findings out. Every response carries X-Request-Id; errors are {error: {code, message}}.',
    },
    servers: [{ url: '/' }],
    tags,
    paths,
    components: {
      securitySchemes: {
        bearer: {
          type: 'http',
          scheme: 'bearer',
          description:
            '`Authorization: Bearer <credential>`: an API key (`svc_key_...`, scoped and project-restricted, for integrations) or a session token ' +
            '(a signed-in human, role-gated; the only credential for organization, member, invitation and API-key management), ' +
            'or one of the machine credentials of hosts and gateways, each valid only on its own endpoints: a registration token (`svc_reg_...`), ' +
            'a host credential (`svc_hst_...`), a gateway enrollment token (`svc_gw_...`), a gateway credential (`svc_gwc_...`). ' +
            "Each operation's description and x-credential name the kind, scope or roles it takes.",
        },
        appSession: {
          type: 'apiKey',
          in: 'cookie',
          name: '__Host-svc_session',
          description:
            "The web app's session (POST /v1/sessions sets it; HttpOnly, Secure, SameSite=Lax). A session credential on /v1 only with the header " +
            "`X-Svc-App: 1`, and for requests other than GET and HEAD only when `Sec-Fetch-Site` is `same-origin` or `Origin` is PUBLIC_APP_URL's " +
            'origin; otherwise it is ignored. A Bearer credential, when sent too, is the one that counts. 30 days absolute, 7 days idle.',
        },
      },
      headers: {
        'X-Request-Id': {
          description: 'The request id (a well-formed client X-Request-Id is echoed).',
          schema: { type: 'string' },
        },
        'Retry-After': { description: 'Seconds to wait before retrying.', schema: { type: 'integer', minimum: 0 } },
        'X-RateLimit-Limit': {
          description:
            'Requests allowed per minute for this credential (when a limiter runs; clients must not depend on it).',
          schema: { type: 'integer', minimum: 0 },
        },
        'X-RateLimit-Remaining': {
          description: 'Requests left in the current minute (when a limiter runs).',
          schema: { type: 'integer', minimum: 0 },
        },
        'X-RateLimit-Reset': {
          description: 'Unix time (seconds) at which the current window ends (when a limiter runs).',
          schema: { type: 'integer', minimum: 0 },
        },
      },
      schemas: {
        ...commonSchemas,
        ...snapshotSchemas,
        ...scanSchemas,
        ...platformSchemas,
        ...inventorySchemas,
        ...uploadSchemas,
        ...readSchemas,
        ...exportSchemas,
        ...webhookSchemas,
        ...deliverySchemas,
        ...sessionSchemas,
        ...hostSchemas,
        ...gatewaySchemas,
        ...mcpSchemas,
        ...alertSchemas,
        ...triageSchemas,
        ...triageRuleSchemas,
        ...compareSchemas,
        ...whereUsedSchemas,
        ...metricsSchemas,
      },
    },
  };
}

let cached: ReturnType<typeof buildOpenApiDocument> | undefined;

/** Built once per process: everything it reads is fixed at load. */
export function openApiDocument(): ReturnType<typeof buildOpenApiDocument> {
  return (cached ??= buildOpenApiDocument());
}
