// The Upload resource, from the stored document; `expired` is derived on read.
import { UPLOAD_BUDGETS } from '../domain/snapshot/parts';
import type { UploadDoc } from '../storage/documents/uploads';
import { uploadStatus } from '../storage/uploads';

export function presentUpload(u: UploadDoc, received: number[], now = new Date()) {
  return {
    upload: {
      id: u._id,
      project: u.projectId,
      status: uploadStatus(u, now),
      parts: u.parts,
      received,
      expiresAt: u.expiresAt.toISOString(),
      budgets: { ...UPLOAD_BUDGETS },
      // additive: the scan a completion queued (null until then)
      scanId: u.scanId,
    },
  };
}
