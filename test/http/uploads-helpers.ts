// Requests of the multipart upload over HTTP, and the OpenAPI response schemas they are checked against.
import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { openApiDocument } from '../../src/http/openapi/document';
import type { PartBody } from '../../src/domain/snapshot/parts';
import type { Snapshot } from '../../src/shared/types';
import { bearer, type TestContext } from '../helpers/context';
import { headerOf } from '../unit/domain/parts-helpers';

export const UPLOADS = '/v1/scans/dependency-snapshots/uploads';

type Res = { status: number; body: any; headers: Record<string, string> };

export function uploadClient(t: TestContext, token: () => string) {
  const json = (body: unknown) => (typeof body === 'string' ? body : JSON.stringify(body));
  return {
    create: (body: unknown, headers: Record<string, string> = {}, as = token()): Promise<Res> =>
      t.api
        .post(UPLOADS)
        .set(bearer(as))
        .set('Content-Type', 'application/json')
        .set(headers)
        .send(json(body)) as never,
    put: (id: string, n: number | string, body: unknown, as = token()): Promise<Res> =>
      t.api
        .put(`${UPLOADS}/${id}/parts/${n}`)
        .set(bearer(as))
        .set('Content-Type', 'application/json')
        .send(json(body)) as never,
    complete: (id: string, as = token()): Promise<Res> =>
      t.api.post(`${UPLOADS}/${id}/completion`).set(bearer(as)) as never,
    get: (id: string, as = token()): Promise<Res> => t.api.get(`${UPLOADS}/${id}`).set(bearer(as)) as never,
    /** Create, send every part (in order), complete: the completion's answer. */
    async all(s: Snapshot, parts: PartBody[], as = token()): Promise<{ id: string; completion: Res }> {
      const created = await this.create(headerOf(s, parts.length), {}, as);
      if (created.status !== 201) throw new Error(`create: ${created.status} ${JSON.stringify(created.body)}`);
      const id = created.body.upload.id as string;
      for (let n = 1; n <= parts.length; n++) {
        const r = await this.put(id, n, parts[n - 1], as);
        if (r.status !== 201) throw new Error(`part ${n}: ${r.status} ${JSON.stringify(r.body)}`);
      }
      return { id, completion: await this.complete(id, as) };
    },
  };
}

export const envelope = (
  res: { status: number; body: unknown },
  status: number,
  code: string,
  message?: string | RegExp,
) => {
  expect(res.body).toEqual({ error: { code, message: message ?? expect.any(String) } });
  expect(res.status).toBe(status);
};

const doc = openApiDocument() as any;
const ajv = new Ajv2020({ strict: false, allErrors: true });
addFormats(ajv);
ajv.addSchema(doc, 'openapi.json');
const esc = (s: string) => s.replace(/~/g, '~0').replace(/\//g, '~1');

/** The response as the OpenAPI document describes it for this operation and status (the body validates). */
export function expectDocumented(path: string, method: string, res: { status: number; body: unknown }) {
  const v = ajv.compile({
    $ref: `openapi.json#/paths/${esc(path)}/${method}/responses/${res.status}/content/application~1json/schema`,
  });
  if (!v(res.body))
    throw new Error(
      `${method} ${path} ${res.status}: ${JSON.stringify(v.errors)}\n${JSON.stringify(res.body).slice(0, 2000)}`,
    );
}
