// Shared by the host and gateway tests: a real API (no Temporal behind it) over the test run's database with the
// host and gateway windows injected, the OpenAPI check of every answer, and short-hands for the endpoints.
import { randomBytes } from 'node:crypto';
import type http from 'node:http';
import type request from 'supertest';
import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { openApiDocument } from '../../src/http/openapi/document';
import { DEFAULT_WINDOWS, type FleetWindows } from '../../src/domain/hosts/status';
import type { Logger } from '../../src/logger';
import type { RateLimiter } from '../../src/http/rate-limit';
import { connectStore, ensureIndexes, type Store } from '../../src/storage/mongo';
import { appWithoutTemporal, bearer, newOrg, requireEnv, type Org } from '../helpers/context';

export type Api = ReturnType<typeof request>;
export type Res = { status: number; body: any; headers: Record<string, string> };

export const noUploads = {
  prepare: async () => Promise.reject(new Error('no uploads here')),
  close: async () => undefined,
};

export interface Fleet {
  store: Store;
  api: Api;
  /** Another API over the same database with other windows (or a logger), closed with the rest. */
  app(o: { fleet?: FleetWindows; logger?: Logger; rateLimiter?: RateLimiter }): Promise<Api>;
  close(): Promise<void>;
}

export async function fleetContext(fleet: FleetWindows = DEFAULT_WINDOWS): Promise<Fleet> {
  const store = await connectStore(requireEnv('MONGODB_URI'), `t_${randomBytes(6).toString('hex')}`);
  await ensureIndexes(store);
  const servers: http.Server[] = [];
  const app = async (o: { fleet?: FleetWindows; logger?: Logger; rateLimiter?: RateLimiter }) => {
    const a = await appWithoutTemporal(store, {
      uploads: noUploads,
      fleet: o.fleet ?? fleet,
      ...(o.logger ? { logger: o.logger } : {}),
      ...(o.rateLimiter ? { rateLimiter: o.rateLimiter } : {}),
    });
    servers.push(a.server);
    return a.api;
  };
  const api = await app({});
  return {
    store,
    api,
    app,
    async close() {
      for (const s of servers) await new Promise((r) => s.close(r));
      await store.db.dropDatabase().catch(() => undefined);
      await store.close();
    },
  };
}

// ---- the OpenAPI document's schema of every answer -------------------------------------------------------------
const ajv = new Ajv2020({ strict: false, allErrors: true });
addFormats(ajv);
ajv.addSchema(openApiDocument() as object, 'openapi.json');
const doc = openApiDocument() as any;
const validators = new Map<string, ReturnType<typeof ajv.compile>>();
const esc = (s: string) => s.replace(/~/g, '~0').replace(/\//g, '~1');

/** Checks the answer against the document's response of its status (an undocumented status fails). */
export function documented(method: string, path: string, res: Res): Res {
  const op = doc.paths[path]?.[method];
  if (!op) throw new Error(`${method} ${path} is not in the document`);
  const r = op.responses[String(res.status)];
  if (!r) throw new Error(`${method} ${path}: undocumented status ${res.status}: ${JSON.stringify(res.body)}`);
  const schema = r.content?.['application/json']?.schema;
  if (!schema) {
    if (res.status !== 204) throw new Error(`${method} ${path} ${res.status}: no schema`);
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

export const err = (res: Res) => ({ status: res.status, code: res.body?.error?.code });

/** The endpoints, each answer checked against the document. `api` defaults to the context's. */
export function endpoints(f: Fleet) {
  const json = (req: any, body: unknown) => req.set('Content-Type', 'application/json').send(JSON.stringify(body));
  return {
    issueToken: async (session: string, body: unknown, api = f.api): Promise<Res> =>
      documented(
        'post',
        '/v1/hosts/registration-tokens',
        await json(api.post('/v1/hosts/registration-tokens').set(bearer(session)), body),
      ),
    listTokens: async (session: string, query = '', api = f.api): Promise<Res> =>
      documented(
        'get',
        '/v1/hosts/registration-tokens',
        await api.get(`/v1/hosts/registration-tokens${query}`).set(bearer(session)),
      ),
    revokeToken: async (session: string, id: string, api = f.api): Promise<Res> =>
      documented(
        'delete',
        '/v1/hosts/registration-tokens/{tokenId}',
        await api.delete(`/v1/hosts/registration-tokens/${id}`).set(bearer(session)),
      ),
    attest: async (token: string, body: unknown, headers: Record<string, string> = {}, api = f.api): Promise<Res> =>
      documented(
        'post',
        '/v1/hosts/attestations',
        await json(api.post('/v1/hosts/attestations').set(bearer(token)).set(headers), body),
      ),
    heartbeat: async (credential: string, hostId: string, body: unknown = {}, api = f.api): Promise<Res> =>
      documented(
        'post',
        '/v1/hosts/{hostId}/heartbeats',
        await json(api.post(`/v1/hosts/${hostId}/heartbeats`).set(bearer(credential)), body),
      ),
    listHosts: async (token: string, query = '', api = f.api): Promise<Res> =>
      documented('get', '/v1/hosts', await api.get(`/v1/hosts${query}`).set(bearer(token))),
    revokeHost: async (session: string, id: string, api = f.api): Promise<Res> =>
      documented('delete', '/v1/hosts/{hostId}', await api.delete(`/v1/hosts/${id}`).set(bearer(session))),
    issueEnrollment: async (session: string, body: unknown, api = f.api): Promise<Res> =>
      documented(
        'post',
        '/v1/gateways/enrollment-tokens',
        await json(api.post('/v1/gateways/enrollment-tokens').set(bearer(session)), body),
      ),
    listEnrollments: async (session: string, query = '', api = f.api): Promise<Res> =>
      documented(
        'get',
        '/v1/gateways/enrollment-tokens',
        await api.get(`/v1/gateways/enrollment-tokens${query}`).set(bearer(session)),
      ),
    revokeEnrollment: async (session: string, id: string, api = f.api): Promise<Res> =>
      documented(
        'delete',
        '/v1/gateways/enrollment-tokens/{tokenId}',
        await api.delete(`/v1/gateways/enrollment-tokens/${id}`).set(bearer(session)),
      ),
    enroll: async (token: string, body: unknown, api = f.api): Promise<Res> =>
      documented(
        'post',
        '/v1/gateways/enrollments',
        await json(api.post('/v1/gateways/enrollments').set(bearer(token)), body),
      ),
    approve: async (session: string, id: string, body: unknown, api = f.api): Promise<Res> =>
      documented(
        'post',
        '/v1/gateways/{gatewayId}/approval',
        await json(api.post(`/v1/gateways/${id}/approval`).set(bearer(session)), body),
      ),
    gatewayHeartbeat: async (credential: string, id: string, body: unknown = {}, api = f.api): Promise<Res> =>
      documented(
        'post',
        '/v1/gateways/{gatewayId}/heartbeats',
        await json(api.post(`/v1/gateways/${id}/heartbeats`).set(bearer(credential)), body),
      ),
    listGateways: async (token: string, query = '', api = f.api): Promise<Res> =>
      documented('get', '/v1/gateways', await api.get(`/v1/gateways${query}`).set(bearer(token))),
    revokeGateway: async (session: string, id: string, api = f.api): Promise<Res> =>
      documented('delete', '/v1/gateways/{gatewayId}', await api.delete(`/v1/gateways/${id}`).set(bearer(session))),
  };
}

let machines = 0;
/** A unique machine id for this run. */
export const machine = (tag = 'm') => `${tag}-${Date.now()}-${machines++}`;

/** The usual start of a host or gateway test file: the service, its endpoints, and an organization with its owner. */
export async function fleetSetup(
  fleet?: FleetWindows,
): Promise<{ f: Fleet; e: ReturnType<typeof endpoints>; org: Org; owner: string }> {
  const f = await fleetContext(fleet);
  const org = await newOrg(f.store);
  return { f, e: endpoints(f), org, owner: org.ownerToken };
}
