// Reaching an upload: an id of another organization or out of the credential's project reach is 404, like an id that
// does not exist.
import type { Context } from 'koa';
import { ApiError, notFound } from '../../domain/errors';
import type { UploadDoc } from '../../storage/documents/uploads';
import { getUpload, listParts, uploadStatus } from '../../storage/uploads';
import { principalOf } from '../auth/authorize';
import { canReachProject } from '../auth/principal';
import type { AppDeps } from '../deps';
import { pathId } from '../params';

/** An upload the caller may see, or 404 exactly as for one that does not exist. */
export async function reachableUpload(deps: AppDeps, ctx: Context): Promise<UploadDoc> {
  const p = principalOf(ctx);
  const id = pathId(ctx, 'uploadId', 'upload');
  const u = await getUpload(deps.store, id);
  if (!u || u.orgId !== p.orgId || !canReachProject(p, u.projectId))
    throw notFound(`upload ${JSON.stringify(id.slice(0, 100))}`);
  return u;
}

/** Part numbers as received: while open from the parts stored, once closed as recorded then. */
export async function receivedOf(deps: AppDeps, u: UploadDoc): Promise<number[]> {
  if (u.received) return u.received;
  return (await listParts(deps.store, u._id)).map((p) => p.n);
}

export const notOpen = (u: UploadDoc, now = new Date()) =>
  new ApiError(409, 'upload_not_open', `upload ${u._id} is ${uploadStatus(u, now)}, not open`);
