// Multipart upload of a v2 snapshot: the create body (the snapshot without its graph, plus the number
// of parts) and the parts (`{modules?, nodes?, roots?}`, items exactly as in a v2 snapshot, any grouping). Each is
// checked here on its own, in the upload's order: the counted budgets first (413), then structure (422) with the v2
// item schemas themselves; errors of a part name it: `part 3: /roots/0/resolution/vertices/7/id: must not be empty`.
// The whole graph is checked at completion (parts-merge.ts); budgets crossed by a part as parts arrive are decided
// by parts-ledger.ts.
import Ajv from 'ajv';
import addFormats from 'ajv-formats';
import { ApiError, invalidSnapshot, tooLarge } from '../errors';
import type {
  Ecosystem,
  SnapshotMetadata,
  SnapshotModule,
  SnapshotNode,
  SnapshotRoot,
  SnapshotSuppression,
} from '../../shared/types';
import { MAX_BODY_BYTES } from './limits';
import { OPEN, ecosystem, metadata, project, suppressions, textArray } from '../../shared/snapshot-schema-parts';
import { snapshotSchemaV2 } from './schema-v2';
import { structuralError } from './structure';

/** What a multipart upload may hold; they replace the single document's per-array and total limits. */
export const UPLOAD_BUDGETS = {
  nodes: 100_000,
  modules: 10_000,
  roots: 10_000,
  vertices: 1_000_000,
  edges: 5_000_000,
  parts: 1_000,
  partBytes: MAX_BODY_BYTES,
} as const;

/** The counted budgets, in the order they are checked (and reported). */
export const COUNTED = ['nodes', 'modules', 'roots', 'vertices', 'edges'] as const;
export type Counted = (typeof COUNTED)[number];
export type PartCounts = Record<Counted, number>;

export const zeroCounts = (): PartCounts => ({ nodes: 0, modules: 0, roots: 0, vertices: 0, edges: 0 });

/** The create body, once checked: everything of the snapshot but its graph. */
export interface UploadHeader {
  schemaVersion: 2;
  project: string;
  ecosystem: Ecosystem;
  manifests?: string[];
  suppressions?: SnapshotSuppression[];
  metadata?: SnapshotMetadata;
  parts: number;
}

/** One part, once checked. */
export interface PartBody {
  modules?: SnapshotModule[];
  nodes?: SnapshotNode[];
  roots?: SnapshotRoot[];
}

// The v2 item schemas, as the single upload compiles them; a multipart root's resolution may hold every vertex of
// the upload (one resolution may hold all of them), so only its vertex bound changes.
const v2 = snapshotSchemaV2.properties;
const rootV2 = v2.roots.items;
const resolutionV2 = rootV2.properties.resolution;
const rootSchema = {
  ...rootV2,
  properties: {
    ...rootV2.properties,
    resolution: {
      ...resolutionV2,
      properties: {
        ...resolutionV2.properties,
        vertices: { ...resolutionV2.properties.vertices, maxItems: UPLOAD_BUDGETS.vertices },
      },
    },
  },
} as const;

/** A part body: items exactly as in a v2 snapshot (unknown fields ignored, as everywhere in a snapshot). */
export const uploadPartSchema = {
  type: 'object',
  additionalProperties: OPEN,
  properties: {
    modules: { type: 'array', maxItems: UPLOAD_BUDGETS.modules, items: v2.modules.items },
    nodes: { type: 'array', maxItems: UPLOAD_BUDGETS.nodes, items: v2.nodes.items },
    roots: { type: 'array', maxItems: UPLOAD_BUDGETS.roots, items: rootSchema },
  },
} as const;

/** The create body: the v2 snapshot's own fields but its graph, and how many parts carry the graph. */
export const uploadCreateSchema = {
  type: 'object',
  required: ['schemaVersion', 'project', 'ecosystem', 'parts'],
  additionalProperties: OPEN,
  properties: {
    schemaVersion: { const: 2 },
    project,
    ecosystem,
    manifests: textArray,
    metadata,
    suppressions,
    parts: { type: 'integer', minimum: 1, maximum: UPLOAD_BUDGETS.parts },
  },
} as const;

const ajv = new Ajv({ allErrors: false, strict: true, allowUnionTypes: true });
addFormats(ajv, ['date']);
const validatePart = ajv.compile(uploadPartSchema);
const validateCreate = ajv.compile(uploadCreateSchema);

type Obj = Record<string, unknown>;
const isObject = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const arrayAt = (o: unknown, key: string): unknown[] => {
  const v = isObject(o) ? o[key] : undefined;
  return Array.isArray(v) ? v : [];
};

/** The graph belongs in the parts: a create body that carries one would have it silently dropped. */
const GRAPH_FIELDS = ['modules', 'roots', 'nodes'] as const;

/**
 * Checks a create body (parsed JSON, any shape): 413 for more parts than the budget, 422 invalid_snapshot for the v2
 * field rules. The body is returned typed; unknown fields stay (they are ignored downstream).
 */
export function checkUploadHeader(body: unknown): UploadHeader {
  if (!isObject(body)) throw invalidSnapshot('', 'must be a JSON object');
  if (!('schemaVersion' in body)) throw invalidSnapshot('/schemaVersion', 'is required (2)');
  if (body.schemaVersion !== 2) {
    throw invalidSnapshot(
      '/schemaVersion',
      `${JSON.stringify(body.schemaVersion)}: a multipart upload carries a snapshot v2 (schemaVersion 2)`,
    );
  }
  const parts = body.parts;
  if (typeof parts === 'number' && Number.isInteger(parts) && parts > UPLOAD_BUDGETS.parts) {
    throw tooLarge('/parts', `${parts} parts, over the budget of ${UPLOAD_BUDGETS.parts}`);
  }
  for (const f of GRAPH_FIELDS) {
    if (f in body) throw invalidSnapshot(`/${f}`, 'belongs in the parts of a multipart upload, not in its create body');
  }
  if (!validateCreate(body)) throw structuralError(validateCreate.errors ?? []);
  return body as unknown as UploadHeader;
}

/** `part n: <message>`: a part's errors name it, then the JSON pointer into its body. */
export function inPart(n: number, err: ApiError): ApiError {
  return new ApiError(err.status, err.code, `part ${n}: ${err.message}`);
}

/**
 * The counted sizes of one part (parsed JSON, any shape: only what really is an array is counted, nothing throws a
 * TypeError). Edges are the dependencies of resolution vertices, as for a single v2 document.
 */
export function countPart(body: unknown): PartCounts {
  const counts = zeroCounts();
  counts.modules = arrayAt(body, 'modules').length;
  counts.nodes = arrayAt(body, 'nodes').length;
  const roots = arrayAt(body, 'roots');
  counts.roots = roots.length;
  for (const r of roots) {
    const vertices = arrayAt(isObject(r) ? r.resolution : undefined, 'vertices');
    counts.vertices += vertices.length;
    for (const v of vertices) counts.edges += arrayAt(v, 'dependencies').length;
  }
  return counts;
}

/** The first counted budget that `prior + counts` goes over, or undefined when all hold. */
export function overBudget(
  prior: PartCounts,
  counts: PartCounts,
): { budget: Counted; total: number; limit: number } | undefined {
  for (const budget of COUNTED) {
    const total = prior[budget] + counts[budget];
    if (total > UPLOAD_BUDGETS[budget]) return { budget, total, limit: UPLOAD_BUDGETS[budget] };
  }
  return undefined;
}

/** Where in a part a budget is named: its array, or the roots for vertices and edges. */
const budgetPointer = (b: Counted) => (b === 'vertices' || b === 'edges' ? '/roots' : `/${b}`);

export function budgetError(
  n: number,
  over: { budget: Counted; total: number; limit: number },
  prior: boolean,
): ApiError {
  const what = prior
    ? `with the parts received before it, ${over.total} ${over.budget}, over the upload's budget of ${over.limit}`
    : `${over.total} ${over.budget}, over the upload's budget of ${over.limit}`;
  return inPart(n, tooLarge(budgetPointer(over.budget), what));
}

/**
 * Checks one part on its own: its counted sizes within the budgets (413), then its structure (422). Returns its
 * counts. `n` names the part in every error.
 */
export function checkPart(n: number, body: unknown): { part: PartBody; counts: PartCounts } {
  const counts = countPart(body);
  const over = overBudget(zeroCounts(), counts);
  if (over) throw budgetError(n, over, false);
  if (!isObject(body)) throw inPart(n, invalidSnapshot('', 'must be a JSON object'));
  if (!validatePart(body)) throw inPart(n, structuralError(validatePart.errors ?? []));
  return { part: body as PartBody, counts };
}
