// Multipart upload (platform.md §2): create, parts, completion, read (src/http/uploads/routes.ts).
import type { Endpoint } from '../auth/matrix';
import { pathParam, type Operation } from './operation';
import { ref } from './schemas/common';

type UploadRoute = Extract<Endpoint, `${string} /v1/scans/dependency-snapshots/uploads${string}`>;

const uploadId = pathParam('uploadId', 'The upload id (upl_...). Unknown, of another organization or out of the credential\'s reach: 404 not_found.');

export const uploadOperations: Record<UploadRoute, Operation> = {
  'POST /v1/scans/dependency-snapshots/uploads': {
    operationId: 'createUpload',
    tag: 'uploads',
    summary: 'Start a multipart upload of a v2 snapshot',
    responses: { 201: { description: 'The upload, open.', schema: ref('UploadResponse') } },
    usesDatabase: true,
  },
  'GET /v1/scans/dependency-snapshots/uploads/:uploadId': {
    operationId: 'getUpload',
    tag: 'uploads',
    summary: 'Get a multipart upload',
    parameters: [uploadId],
    responses: { 200: { description: 'The upload.', schema: ref('UploadResponse') }, 404: { description: 'not_found.', codes: ['not_found'] } },
    usesDatabase: true,
  },
  'PUT /v1/scans/dependency-snapshots/uploads/:uploadId/parts/:n': {
    operationId: 'putUploadPart',
    tag: 'uploads',
    summary: 'Send one part of a multipart upload',
    parameters: [uploadId, pathParam('n', 'The part number, 1 to the upload\'s parts; outside: 404 not_found.')],
    responses: { 201: { description: 'The part, stored.', schema: ref('UploadPartResponse') } },
    usesDatabase: true,
  },
  'POST /v1/scans/dependency-snapshots/uploads/:uploadId/completion': {
    operationId: 'completeUpload',
    tag: 'uploads',
    summary: 'Complete a multipart upload and queue its (paged) scan',
    parameters: [uploadId],
    responses: { 201: { description: 'The scan, queued.', schema: ref('Scan') } },
    usesDatabase: true,
  },
};
