// Response schemas of projects and the dependency inventory, written from src/http/projects/routes.ts.
import { ECOSYSTEMS, SEVERITIES } from '../../../shared/types';
import { listEnvelope, ref, str, strArray, timestamp } from './common';

const ecosystem = { type: 'string', enum: [...ECOSYSTEMS] } as const;

export const inventorySchemas = {
  ProjectLatestScan: {
    type: 'object',
    description: "The project's newest scan, as the scan list shows it first (newest startedAt, then id).",
    required: ['id', 'status', 'ecosystem', 'startedAt', 'findings'],
    properties: {
      id: { type: 'string', pattern: '^scn_' },
      status: { type: 'string', enum: ['queued', 'running', 'completed', 'failed'] },
      ecosystem,
      startedAt: timestamp,
      findings: {
        oneOf: [ref('SeverityCounts'), { type: 'null' }],
        description: `Unsuppressed counts (${SEVERITIES.join(', ')}); null until completed.`,
      },
    },
  },
  ProjectUpdate: {
    type: 'object',
    required: ['defaultBranch'],
    additionalProperties: false,
    properties: {
      defaultBranch: {
        type: 'string',
        minLength: 1,
        maxLength: 255,
        description:
          'A branch name as git allows it; refs/heads/ and origin/ prefixes are taken off. Applies from the next tracked scan.',
      },
    },
  },
  Project: {
    type: 'object',
    required: ['id', 'slug', 'createdAt', 'latestScan'],
    properties: {
      id: { type: 'string', pattern: '^prj_' },
      slug: str,
      createdAt: timestamp,
      defaultBranch: {
        ...str,
        description:
          'The branch whose scans are tracked (a scan whose metadata.ref is absent or names it; main, refs/heads/main and origin/main alike). Default main (additive).',
      },
      latestScan: {
        oneOf: [ref('ProjectLatestScan'), { type: 'null' }],
        description: 'null when the project has no scan.',
      },
    },
  },
  ProjectList: listEnvelope('projects', 'Project'),
  Dependency: {
    type: 'object',
    required: ['id', 'project', 'ecosystem', 'name', 'version', 'direct', 'path', 'manifest'],
    properties: {
      id: {
        type: 'string',
        pattern: '^dep_',
        description:
          "dep_ + a hash of (project id, ecosystem, name as the ecosystem compares names, version): the same package keeps its id across scans; a finding's packageRef.",
      },
      project: { type: 'string', pattern: '^prj_' },
      ecosystem,
      name: { ...str, description: 'Package coordinates as the snapshot gave them.' },
      version: str,
      direct: {
        type: 'boolean',
        description:
          "v1: the package is in some root's dependencies; v2: some module vertex has an edge to a vertex of it.",
      },
      path: {
        ...strArray,
        minItems: 2,
        description:
          "What a finding's path would be for the package: v1 [manifest, direct dependency, ..., package]; v2 module paths then package ids. The shortest over all roots, ties element by element.",
      },
      manifest: {
        ...str,
        description:
          "v1: path[0]. v2: the manifest of the root whose resolution gives path (the first such root in snapshot order), else the snapshot's first manifest, else that root's module.",
      },
    },
  },
  InventoryScans: {
    type: 'object',
    description:
      "The scan read per ecosystem: the project's latest completed scan of that ecosystem (newest startedAt, then id), keyed by ecosystem; only the filtered one with ?ecosystem=; {} when there is none. Every page of one listing reads the scans of its first page.",
    propertyNames: ecosystem,
    additionalProperties: { type: 'string', pattern: '^scn_' },
  },
  DependencyList: {
    ...listEnvelope('dependencies', 'Dependency', { scans: ref('InventoryScans') }),
    required: ['dependencies', 'nextCursor', 'scans'],
  },
};
