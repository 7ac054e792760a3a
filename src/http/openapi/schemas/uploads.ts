// Request and response schemas of multipart uploads. The request bodies are the very objects ajv
// validates them with (src/domain/snapshot/parts.ts); the responses are written from src/presenters/uploads.ts
// and the part answer of src/http/multipart-uploads/routes.ts.
import { UPLOAD_BUDGETS, uploadCreateSchema, uploadPartSchema } from '../../../domain/snapshot/parts';
import { ref, timestamp } from './common';

const count = { type: 'integer', minimum: 0 } as const;
const budget = (value: number) => ({ type: 'integer', const: value }) as const;

export const uploadSchemas = {
  UploadCreate: {
    ...uploadCreateSchema,
    description:
      'A snapshot v2 without its graph (modules, roots and nodes go in the parts; here they are refused), and the number of parts that carry it. ' +
      'Field rules as for a snapshot v2 (422 invalid_snapshot); parts above 1,000: 413 snapshot_too_large.',
  },
  UploadPart: {
    ...uploadPartSchema,
    description:
      "Items exactly as in a snapshot v2, any grouping over the parts (a root whole in one part). At most 10 MB; the upload's counted budgets apply as parts arrive.",
  },
  Upload: {
    type: 'object',
    required: ['id', 'project', 'status', 'parts', 'received', 'expiresAt', 'budgets'],
    properties: {
      id: { type: 'string', pattern: '^upl_' },
      project: { type: 'string', pattern: '^prj_' },
      status: {
        type: 'string',
        enum: ['open', 'completed', 'rejected', 'expired'],
        description: 'expired: not completed before expiresAt (its parts are deleted).',
      },
      parts: { type: 'integer', minimum: 1, maximum: UPLOAD_BUDGETS.parts },
      received: {
        type: 'array',
        items: { type: 'integer', minimum: 1 },
        description: 'The part numbers received, ascending.',
      },
      expiresAt: timestamp,
      budgets: {
        type: 'object',
        required: ['nodes', 'modules', 'roots', 'vertices', 'edges', 'parts', 'partBytes'],
        properties: {
          nodes: budget(UPLOAD_BUDGETS.nodes),
          modules: budget(UPLOAD_BUDGETS.modules),
          roots: budget(UPLOAD_BUDGETS.roots),
          vertices: budget(UPLOAD_BUDGETS.vertices),
          edges: budget(UPLOAD_BUDGETS.edges),
          parts: budget(UPLOAD_BUDGETS.parts),
          partBytes: budget(UPLOAD_BUDGETS.partBytes),
        },
      },
      scanId: {
        type: ['string', 'null'],
        pattern: '^scn_',
        description: 'The scan its completion queued (additive); null until then.',
      },
    },
  },
  UploadResponse: { type: 'object', required: ['upload'], properties: { upload: ref('Upload') } },
  UploadPartResponse: {
    type: 'object',
    required: ['part'],
    properties: {
      part: {
        type: 'object',
        required: ['n', 'sha256', 'modules', 'nodes', 'roots'],
        properties: {
          n: { type: 'integer', minimum: 1 },
          sha256: {
            type: 'string',
            pattern: '^[0-9a-f]{64}$',
            description: "SHA-256 hex of the part's bytes as received.",
          },
          modules: count,
          nodes: count,
          roots: count,
        },
      },
    },
  },
};
