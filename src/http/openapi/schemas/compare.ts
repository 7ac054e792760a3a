// Schemas of the comparison of a scan with its baseline (src/shared/compare.ts, src/http/compare/routes.ts).
import { COMPARE_PARTS } from '../../../shared/compare';
import { suppression } from '../../../shared/snapshot-schema-parts';
import { ref, str, strArray, strOrNull, timestamp } from './common';

const classes = (item: Record<string, unknown>) => ({
  type: 'object',
  required: ['added', 'unchanged', 'disclosed', 'removed'],
  properties: { added: item, unchanged: item, disclosed: item, removed: item },
});

const dependency = {
  type: 'object',
  required: ['name', 'version'],
  properties: { name: str, version: str },
};

const cursorOrNull = { type: ['string', 'null'] } as const;

export const compareSchemas = {
  CompareFinding: {
    description:
      "A finding in the findings list's light shape (`attributions: []`, `attributionCount`), with its introducing modules and their teams. A removed finding is the baseline's.",
    allOf: [
      ref('Finding'),
      {
        type: 'object',
        required: ['attributionCount', 'modules', 'teams'],
        properties: {
          modules: {
            ...strArray,
            description:
              "Introducing modules (the origins' modules of its attributions), sorted; [] for v1 scans and multipart scans, whose attributions are read apart.",
          },
          teams: { ...strArray, description: 'The teams of those modules, sorted, without repeats.' },
          baselineVersions: {
            ...strArray,
            description: "Unchanged findings: the baseline's installed versions of the package for the advisory.",
          },
          versionsChanged: {
            type: 'boolean',
            description: 'Unchanged findings: true when the installed version is not one of baselineVersions.',
          },
        },
      },
    ],
  },
  CompareBaseline: {
    type: 'object',
    required: ['id', 'ref', 'commit', 'startedAt'],
    properties: { id: str, ref: strOrNull, commit: strOrNull, startedAt: timestamp },
  },
  Compare: {
    type: 'object',
    required: [
      'scanId',
      'baseline',
      'baselineMissing',
      'counts',
      'findings',
      'suppressionsAdded',
      'dependencies',
      'parts',
    ],
    properties: {
      scanId: str,
      baseline: { oneOf: [ref('CompareBaseline'), { type: 'null' }] },
      baselineMissing: {
        type: ['string', 'null'],
        enum: ['no_tracked_scan', null],
        description:
          'no_tracked_scan: the project has no completed tracked scan of the ecosystem before this one (nor one of its base commit): every finding is `added`, every package a dependency added.',
      },
      counts: { ...classes(ref('SeverityCounts')), description: 'Unsuppressed findings of each class by severity.' },
      findings: {
        ...classes({ type: 'array', items: ref('CompareFinding') }),
        description: `Each class in severity then id order; the query's suppressed filter applies. A part above 2,000 findings carries its first 2,000: read on with part= and the cursor in parts.`,
      },
      suppressionsAdded: {
        type: 'array',
        items: suppression,
        description:
          "Suppressions in the scan's snapshot that the baseline's did not carry (same advisory id, package and expiry): a change that silences its own findings is visible.",
      },
      dependencies: {
        type: 'object',
        required: ['added', 'removed', 'changed'],
        properties: {
          added: { type: 'array', items: dependency },
          removed: { type: 'array', items: dependency },
          changed: {
            type: 'array',
            items: {
              type: 'object',
              required: ['name', 'from', 'to'],
              properties: { name: str, from: strArray, to: strArray },
            },
          },
        },
        description:
          'By package name as the ecosystem compares names, in name then version order. A part above 10,000 entries carries its first 10,000.',
      },
      parts: {
        type: 'object',
        required: [...COMPARE_PARTS],
        properties: Object.fromEntries(
          COMPARE_PARTS.map((p) => [
            p,
            {
              type: 'object',
              required: ['count', 'nextCursor'],
              properties: { count: { type: 'integer', minimum: 0 }, nextCursor: cursorOrNull },
            },
          ]),
        ),
        description:
          "Each part's size, and the cursor to read on with part= when this answer carries only its first items.",
      },
    },
  },
  ComparePartPage: {
    type: 'object',
    required: ['scanId', 'baseline', 'part', 'items', 'nextCursor'],
    properties: {
      scanId: str,
      baseline: { oneOf: [ref('CompareBaseline'), { type: 'null' }] },
      part: { type: 'string', enum: [...COMPARE_PARTS] },
      items: {
        type: 'array',
        items: {},
        description:
          'Findings (CompareFinding) for findings.* parts, dependencies or changes for dependencies.* parts.',
      },
      nextCursor: cursorOrNull,
    },
  },
};
