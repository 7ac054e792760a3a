// Structural schema of snapshot v1 (legacy; also produced by the JavaScript package-manager CLI).
// The v1 format has few constraints: the required fields are fixed here. Ids and other strings are used as
// sent (no "text" length or character rules), except project, whose v2 rule applies to v1 too.
import { OPEN, ecosystem, metadata, project, relationship, suppressions } from '../../shared/snapshot-schema-parts';

const str = { type: 'string' } as const;
const strArray = { type: 'array', items: str } as const;

export const snapshotSchemaV1 = {
  $id: 'snapshot-v1',
  type: 'object',
  required: ['schemaVersion', 'project', 'ecosystem', 'roots', 'nodes'],
  additionalProperties: OPEN,
  properties: {
    schemaVersion: { const: 1 },
    project,
    ecosystem,
    manifests: strArray,
    roots: {
      type: 'array',
      items: {
        type: 'object',
        required: ['module', 'context', 'dependencies'],
        additionalProperties: OPEN,
        properties: { module: str, manifest: str, context: str, dependencies: strArray },
      },
    },
    nodes: {
      type: 'array',
      items: {
        type: 'object',
        required: ['id', 'name', 'version', 'relationship', 'dependencies'],
        additionalProperties: OPEN,
        properties: { id: str, name: str, version: str, relationship, dependencies: strArray },
      },
    },
    suppressions,
    metadata,
  },
} as const;
