// Structural schema of snapshot v2 (module-aware builds), from the format's v2 constraints. The counted limits
// (nodes, modules, roots, vertices) are checked before this schema runs (413), so its maxItems never fire first;
// they stay to keep the schema a faithful statement of the contract.
import {
  MAX_ATTRIBUTES,
  MAX_ATTRIBUTE_KEY,
  MAX_TEAM_NAME,
  MAX_TEXT,
  NO_CONTROL,
  OPEN,
  ecosystem,
  project,
  relationship,
  suppressions,
  metadata,
  text,
  textArray,
  textOrNull,
} from '../../shared/snapshot-schema-parts';
import { LIMITS } from './limits';

const vertexSchema = {
  type: 'object',
  // module and node may be omitted (= null); "exactly one of them is set" is checked with the cross-references,
  // where the message can say so plainly instead of ajv's oneOf report.
  required: ['id', 'dependencies'],
  additionalProperties: OPEN,
  properties: { id: text, module: textOrNull, node: textOrNull, dependencies: textArray },
} as const;

const rootSchema = {
  type: 'object',
  required: ['module', 'context', 'dependencies', 'resolution'],
  additionalProperties: OPEN,
  properties: {
    module: text,
    manifest: text,
    context: text,
    dependencies: textArray,
    resolution: {
      type: 'object',
      required: ['root', 'vertices'],
      additionalProperties: OPEN,
      properties: {
        root: text,
        vertices: { type: 'array', maxItems: LIMITS.verticesPerResolution, items: vertexSchema },
      },
    },
  },
} as const;

const moduleSchema = {
  type: 'object',
  required: ['path'],
  additionalProperties: OPEN,
  properties: {
    path: text,
    dependencies: textArray,
    teamName: { type: ['string', 'null'], minLength: 1, maxLength: MAX_TEAM_NAME, pattern: NO_CONTROL },
    attributes: {
      type: 'object',
      maxProperties: MAX_ATTRIBUTES,
      propertyNames: { type: 'string', minLength: 1, maxLength: MAX_ATTRIBUTE_KEY, pattern: NO_CONTROL },
      additionalProperties: { type: 'string', maxLength: MAX_TEXT, pattern: NO_CONTROL },
    },
  },
} as const;

const nodeSchema = {
  type: 'object',
  required: ['id', 'name', 'version', 'relationship', 'dependencies'],
  additionalProperties: OPEN,
  properties: { id: text, name: text, version: text, relationship, dependencies: textArray, attributions: {} },
} as const;

export const snapshotSchemaV2 = {
  $id: 'snapshot-v2',
  type: 'object',
  required: ['schemaVersion', 'project', 'ecosystem', 'modules', 'roots', 'nodes'],
  additionalProperties: OPEN,
  properties: {
    schemaVersion: { const: 2 },
    project,
    ecosystem,
    manifests: textArray,
    modules: { type: 'array', maxItems: LIMITS.modules, items: moduleSchema },
    roots: { type: 'array', maxItems: LIMITS.roots, items: rootSchema },
    nodes: { type: 'array', maxItems: LIMITS.nodes, items: nodeSchema },
    metadata,
    suppressions,
  },
} as const;
