// Response schemas of the module and attribution reads (src/http/scans/reads.ts).
import { listEnvelope, ref, str, strArray, strOrNull } from './common';

const count = { type: 'integer', minimum: 0 } as const;

export const readSchemas = {
  ModuleCounts: {
    type: 'object',
    description:
      'Affected view: unsuppressed severity totals and the suppressed total of the findings whose attributions include the module.',
    required: ['critical', 'high', 'medium', 'low', 'suppressed'],
    properties: { critical: count, high: count, medium: count, low: count, suppressed: count },
  },
  ScanModuleWithCounts: {
    type: 'object',
    required: ['path', 'dependencies', 'counts'],
    properties: {
      path: str,
      dependencies: strArray,
      teamName: strOrNull,
      attributes: { type: 'object', additionalProperties: str },
      counts: ref('ModuleCounts'),
    },
  },
  ScanModuleList: listEnvelope('modules', 'ScanModuleWithCounts'),
  AttributionOriginItem: {
    type: 'object',
    required: ['module', 'dependency'],
    properties: {
      module: { ...str, description: 'The introducing module.' },
      dependency: { ...str, description: 'The selected dependency (package id).' },
    },
  },
  AttributionItem: {
    type: 'object',
    required: ['id', 'module', 'context', 'relationship', 'origins'],
    properties: {
      id: { type: 'string', pattern: '^att_' },
      module: { ...str, description: 'Consuming module path.' },
      context: { ...str, description: 'Resolution context.' },
      relationship: { type: 'string', enum: ['direct', 'transitive'] },
      origins: { type: 'array', items: ref('AttributionOriginItem') },
    },
  },
  AttributionList: listEnvelope('attributions', 'AttributionItem'),
  AttributionPath: {
    type: 'object',
    required: ['path', 'origins'],
    properties: {
      path: { ...strArray, description: 'Module paths then package ids.' },
      origins: { type: 'array', items: ref('FindingOrigin') },
    },
  },
};
