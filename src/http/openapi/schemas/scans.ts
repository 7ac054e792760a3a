// Response schemas of scans and findings, written from the presenters (src/http/scans/presenter.ts, the Finding type
// of src/shared/types.ts served as stored). Objects stay open: the API's clients tolerate unknown fields, and
// additive fields may join within v1.
import { SEVERITIES } from '../../../shared/types';
import { ECOSYSTEMS } from '../../../shared/types';
import { listEnvelope, ref, str, strArray, strOrNull, timestamp, timestampOrNull } from './common';

const count = { type: 'integer', minimum: 0 } as const;
const severity = ref('Severity');

const severityCounts = {
  type: 'object',
  required: ['critical', 'high', 'medium', 'low'],
  properties: { critical: count, high: count, medium: count, low: count },
} as const;

/** A CVSS vector with its version and base score, or null (findings and alerts). */
/** KEV and EPSS of an alias group (docs/intelligence.md): on findings and alerts. */
export const kevOrNull = {
  type: ['object', 'null'],
  required: ['dateAdded', 'dueDate', 'knownRansomwareCampaignUse'],
  properties: {
    dateAdded: { type: 'string', format: 'date' },
    dueDate: { type: 'string', format: 'date' },
    knownRansomwareCampaignUse: { type: 'string', description: 'Known or Unknown, as CISA writes it.' },
  },
  description:
    "The CISA Known Exploited Vulnerabilities entry of any CVE of the advisory's alias group (the earliest added); null when the catalog has none, or was never imported (additive).",
} as const;
export const epssOrNull = {
  type: ['object', 'null'],
  required: ['score', 'percentile', 'date'],
  properties: {
    score: { type: 'number', minimum: 0, maximum: 1 },
    percentile: { type: 'number', minimum: 0, maximum: 1 },
    date: { type: 'string', format: 'date', description: 'The score date of the EPSS file.' },
  },
  description:
    "FIRST's EPSS score: the highest over the CVEs of the advisory's alias group; null when none has one, or no scores were imported (additive).",
} as const;
export const cvssOrNull = {
  oneOf: [
    { type: 'null' },
    {
      type: 'object',
      required: ['version', 'vector', 'score'],
      properties: {
        version: { type: 'string', enum: ['2.0', '3.0', '3.1', '4.0'] },
        vector: str,
        score: { type: 'number', minimum: 0, maximum: 10 },
      },
    },
  ],
};

export const scanSchemas = {
  Severity: { type: 'string', enum: [...SEVERITIES] },
  SeverityCounts: severityCounts,
  ScanModule: {
    type: 'object',
    required: ['path', 'dependencies'],
    properties: {
      path: str,
      dependencies: strArray,
      teamName: strOrNull,
      attributes: { type: 'object', additionalProperties: str },
    },
  },
  ScanMetadata: {
    type: 'object',
    description: 'Where the snapshot came from (the snapshot metadata, echoed).',
    properties: {
      commit: str,
      ref: str,
      runUrl: str,
      baseRef: {
        ...str,
        description: 'On a change under review (pull or merge request, merge queue): its target branch.',
      },
      baseCommit: {
        ...str,
        description: 'On a change under review: the commit of the target branch it is compared with.',
      },
    },
  },
  Scan: {
    type: 'object',
    required: [
      'id',
      'target',
      'project',
      'ecosystem',
      'status',
      'findings',
      'suppressed',
      'startedAt',
      'finishedAt',
      'failureReason',
      'modules',
    ],
    properties: {
      id: { type: 'string', pattern: '^scn_' },
      target: { ...str, description: 'The project slug.' },
      project: { type: 'string', pattern: '^prj_' },
      ecosystem: { type: 'string', enum: [...ECOSYSTEMS] },
      status: { type: 'string', enum: ['queued', 'running', 'completed', 'failed'] },
      findings: {
        oneOf: [ref('SeverityCounts'), { type: 'null' }],
        description: 'Unsuppressed counts; null until completed.',
      },
      suppressed: { type: ['integer', 'null'], minimum: 0 },
      startedAt: timestamp,
      finishedAt: timestampOrNull,
      failureReason: {
        type: ['string', 'null'],
        enum: ['unsupported_ecosystem', 'attribution_limit_exceeded', 'internal_error', null],
      },
      modules: {
        type: 'array',
        items: ref('ScanModule'),
        description: 'Inline v2 scans once completed: dependencies before consumers. v1 and unfinished scans: [].',
      },
      advisoryGeneration: strOrNull,
      unmatchedVersions: { type: ['integer', 'null'], minimum: 0 },
      metadata: { oneOf: [ref('ScanMetadata'), { type: 'null' }] },
      attributionMode: { type: 'string', enum: ['paged'], description: 'Present on multipart scans only.' },
      moduleCount: {
        type: 'integer',
        minimum: 0,
        description:
          'Present on multipart scans only: the modules, read from GET /v1/scans/{scanId}/modules (modules is [] on them).',
      },
    },
  },
  ScanList: listEnvelope('scans', 'Scan'),
  FindingOrigin: {
    type: 'object',
    required: ['module', 'dependency', 'path'],
    properties: { module: str, dependency: str, path: strArray },
  },
  FindingAttribution: {
    type: 'object',
    required: ['module', 'context', 'relationship', 'path', 'origins'],
    properties: {
      module: str,
      context: str,
      relationship: { type: 'string', enum: ['direct', 'transitive'] },
      path: strArray,
      origins: { type: 'array', items: ref('FindingOrigin') },
    },
  },
  Finding: {
    type: 'object',
    required: [
      'id',
      'scanId',
      'severity',
      'cve',
      'package',
      'installedVersion',
      'fixedVersion',
      'path',
      'suppressed',
      'suppressionReason',
      'attributions',
      'summary',
    ],
    properties: {
      id: { type: 'string', pattern: '^fnd_' },
      scanId: str,
      severity,
      cve: str,
      publishedAt: timestampOrNull,
      package: str,
      installedVersion: str,
      fixedVersion: strOrNull,
      path: strArray,
      suppressed: { type: 'boolean' },
      suppressionReason: strOrNull,
      attributions: { type: 'array', items: ref('FindingAttribution'), description: 'v1 findings: [].' },
      summary: str,
      aliases: { ...strArray, description: 'Every id of the advisory alias group (additive).' },
      packageRef: {
        type: 'string',
        pattern: '^dep_',
        description:
          "The id of the package's item in the dependency inventory (GET /v1/dependencies): dep_ + a hash of project, ecosystem, name as the ecosystem compares it and version. On every finding of scans completed since the inventory exists (additive).",
      },
      attributionCount: {
        type: 'integer',
        minimum: 0,
        description:
          "The light shape (paged scans, details=summary): the finding's attributions in the view and module/team scope; `attributions` is then [] (additive).",
      },
      cvss: {
        description:
          "The advisory's CVSS vector that decided the severity: the highest version present (4.0, then 3.x, then 2.0), its highest base score (additive). null when the advisory has none, or on findings of scans completed before findings carried it.",
        ...cvssOrNull,
      },
      alertId: {
        type: ['string', 'null'],
        pattern: '^alr_',
        description:
          'The project alert the finding belongs to (GET /v1/alerts/{alertId}): on any scan whose findings match an alert of the project, and the alert a tracked scan opens. null when none holds it (a finding of a branch scan that no tracked scan has), or on scans completed before alerts existed (additive).',
      },
      firstSeenAt: {
        ...timestampOrNull,
        description:
          "When the project first saw the finding's alert (the alert's firstSeenAt); null without an alert (additive).",
      },
      suppressionSource: {
        type: ['string', 'null'],
        enum: ['snapshot', 'analysis', 'rule', null],
        description:
          "Where the suppression comes from: the snapshot's suppressions, the alert's analysis (docs/triage.md), or a triage rule; null when not suppressed (additive).",
      },
      ruleId: { type: ['string', 'null'], description: 'The triage rule that suppressed the finding (additive).' },
      kev: kevOrNull,
      epss: epssOrNull,
      analysis: {
        oneOf: [ref('Analysis'), { type: 'null' }],
        description:
          "The current analysis of the finding's alert (docs/triage.md), as GET /v1/alerts/{alertId} shows it (with `expired`): on findings of the scan reads (GET /v1/scans/{scanId}/findings), so that an old scan shows today's decision, while its counts and the finding's `suppressed` stay as the scan was processed. null when the finding has no alert or the alert no analysis. Read by the finding's `alertId` as stored: a finding whose alert was since merged into another shows the merged alert's own analysis (usually none), not the survivor's. Not on the findings of a comparison (GET /v1/scans/{scanId}/compare) (additive).",
      },
    },
  },
  FindingCounts: {
    type: 'object',
    description:
      'Unsuppressed severity totals and the suppressed total of the module/team scope, before the severity and suppression filters.',
    required: ['critical', 'high', 'medium', 'low', 'suppressed'],
    properties: { critical: count, high: count, medium: count, low: count, suppressed: count },
  },
  FindingList: {
    ...listEnvelope('findings', 'Finding', {
      counts: { oneOf: [ref('FindingCounts'), { type: 'null' }], description: 'null while the scan is not completed.' },
    }),
    required: ['findings', 'nextCursor', 'counts'],
  },
};
