// Multipart upload: create, parts, completion, read (src/http/multipart-uploads/routes.ts, completion.ts).
import type { Endpoint } from '../auth/matrix';
import { pathParam, type Operation, type Resp } from './operation';
import { ref } from './schemas/common';

type UploadRoute = Extract<Endpoint, `${string} /v1/scans/dependency-snapshots/uploads${string}`>;

const uploadId = pathParam(
  'uploadId',
  "The upload id (upl_...). Unknown, of another organization or out of the credential's reach: 404 not_found.",
);

const aborted: Resp = { description: 'bad_request: the body ended before its Content-Length.', codes: ['bad_request'] };
const busy: Resp = {
  description:
    'service_unavailable: too many large bodies (or whole-upload checks) in flight, or the database is unreachable. Retry after Retry-After seconds.',
  codes: ['service_unavailable'],
};

export const uploadOperations: Record<UploadRoute, Operation> = {
  'POST /v1/scans/dependency-snapshots/uploads': {
    operationId: 'createUpload',
    tag: 'uploads',
    summary: 'Start a multipart upload of a v2 snapshot',
    description:
      "For graphs above the single-document limits. The upload's budgets replace them: 100,000 nodes, 10,000 modules, 10,000 roots, 1,000,000 vertices, 5,000,000 edges, 256 hops, " +
      'at most 1,000 parts of at most 10 MB each; no attribution-work limit. The project is reached as for a single upload (a new slug creates it, unless the key has a project restriction). ' +
      'Idempotency-Key: the single upload\'s rules, where "identical body" means the create body\'s bytes; a replay answers 200 with the upload as it is now, unless it has expired ' +
      '(then the key is released and a new upload begins). First-party clients send the SHA-256 hex of the create body followed by every part body in order, so that two snapshots with ' +
      'the same create body get different keys. The upload expires 24 hours after its creation unless completed; its parts are then deleted.',
    parameters: [
      {
        name: 'Idempotency-Key',
        in: 'header',
        description:
          'Client token, at most 128 characters (more: 422 invalid_idempotency_key). The same key with an identical create body within 24 hours returns the upload with 200; with a different one, 409 idempotency_conflict.',
        schema: { type: 'string', maxLength: 128 },
      },
    ],
    requestBody: { description: 'The create body (application/json).', required: true, schema: ref('UploadCreate') },
    responses: {
      201: { description: 'The upload, open, no part received.', schema: ref('UploadResponse') },
      200: { description: 'An idempotent replay: the upload as it is now.', schema: ref('UploadResponse') },
      400: aborted,
      409: {
        description:
          'idempotency_conflict: the Idempotency-Key was used with a different body, or a concurrent request holds it.',
        codes: ['idempotency_conflict'],
      },
      413: {
        description: 'snapshot_too_large: a body over 10 MB, or more than 1,000 parts.',
        codes: ['snapshot_too_large'],
      },
      422: {
        description:
          'invalid_snapshot (not JSON, wrong Content-Type, schemaVersion other than 2, a field rule of v2, parts not an integer from 1, the graph in the create body), unknown_project, invalid_idempotency_key.',
        codes: ['invalid_snapshot', 'unknown_project', 'invalid_idempotency_key'],
      },
      503: busy,
    },
    usesDatabase: true,
  },
  'GET /v1/scans/dependency-snapshots/uploads/:uploadId': {
    operationId: 'getUpload',
    tag: 'uploads',
    summary: 'Get a multipart upload',
    description: 'status is expired once an upload not completed is past expiresAt (derived when read).',
    parameters: [uploadId],
    responses: {
      200: { description: 'The upload.', schema: ref('UploadResponse') },
      404: { description: "not_found: no such upload, or out of the credential's reach.", codes: ['not_found'] },
    },
    usesDatabase: true,
  },
  'PUT /v1/scans/dependency-snapshots/uploads/:uploadId/parts/:n': {
    operationId: 'putUploadPart',
    tag: 'uploads',
    summary: 'Send one part of a multipart upload',
    description:
      'Checked on its own: the counted budgets (413), then structure (422); errors name the part and a JSON pointer into it ("part 3: /roots/0/resolution/vertices/7/id: must not be empty"). ' +
      "The upload's budgets are counted as parts arrive, exactly under concurrent PUTs: the part that crosses one is answered 413 and not stored. " +
      'Cross-references between parts are checked at completion.',
    parameters: [
      uploadId,
      pathParam('n', "The part number, a whole number from 1 to the upload's parts; anything else: 404 not_found."),
    ],
    requestBody: {
      description: 'A part (application/json), at most 10 MB.',
      required: true,
      schema: ref('UploadPart'),
    },
    responses: {
      201: { description: 'The part, stored.', schema: ref('UploadPartResponse') },
      200: { description: 'The same bytes again: the part as stored.', schema: ref('UploadPartResponse') },
      400: aborted,
      404: {
        description: "not_found: no such upload, out of the credential's reach, or no such part number.",
        codes: ['not_found'],
      },
      409: {
        description:
          'upload_not_open: the upload is completed, rejected or expired; idempotency_conflict: other bytes for a part already received.',
        codes: ['upload_not_open', 'idempotency_conflict'],
      },
      413: {
        description: 'snapshot_too_large: a body over 10 MB, or a counted budget crossed by this part.',
        codes: ['snapshot_too_large'],
      },
      422: {
        description:
          'invalid_snapshot: not JSON, wrong Content-Type, or a structural error (the message names the part and a JSON pointer).',
        codes: ['invalid_snapshot'],
      },
      503: busy,
    },
    usesDatabase: true,
  },
  'POST /v1/scans/dependency-snapshots/uploads/:uploadId/completion': {
    operationId: 'completeUpload',
    tag: 'uploads',
    summary: 'Complete a multipart upload and queue its (paged) scan',
    description:
      'Every part received (else 409 upload_incomplete, listing the missing ones), then the whole graph: the counted budgets (413), every cross-reference rule of a single v2 upload, ' +
      'duplicates across parts included (422 naming the part and a JSON pointer), then shortest hops (413). A completion answered 413 or 422 leaves the upload rejected (its parts ' +
      'are deleted) and later completions get the same answer. Success queues a scan with attributionMode "paged". A repeated completion answers 200 with the same scan; concurrent ' +
      'completions make one scan. No request body.',
    parameters: [uploadId],
    responses: {
      201: {
        description: 'The scan, queued (attributionMode paged, moduleCount, modules empty).',
        schema: ref('Scan'),
      },
      200: { description: 'A repeated completion: the scan as it is now.', schema: ref('Scan') },
      404: { description: "not_found: no such upload, or out of the credential's reach.", codes: ['not_found'] },
      409: {
        description: 'upload_incomplete: parts missing (listed in the message); upload_not_open: the upload expired.',
        codes: ['upload_incomplete', 'upload_not_open'],
      },
      413: {
        description:
          'snapshot_too_large: a counted budget over the whole upload, or shortest hops over 256; the upload is rejected.',
        codes: ['snapshot_too_large'],
      },
      422: {
        description:
          'invalid_snapshot: a cross-reference rule over the whole graph (the message names the part and a JSON pointer); the upload is rejected.',
        codes: ['invalid_snapshot'],
      },
      503: busy,
    },
    usesDatabase: true,
  },
};
