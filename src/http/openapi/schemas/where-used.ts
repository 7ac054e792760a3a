// Response schemas of where-used (src/http/usages/routes.ts) and of the advisory page (src/http/advisories/routes.ts).
import { ECOSYSTEMS, SEVERITIES } from '../../../shared/types';
import { listEnvelope, ref, str, strArray, strOrNull, timestampOrNull } from './common';
import { epssOrNull, kevOrNull } from './scans';

const ecosystem = { type: 'string', enum: [...ECOSYSTEMS] } as const;
const projectId = { type: 'string', pattern: '^prj_' } as const;
const severity = { type: 'string', enum: [...SEVERITIES] } as const;

export const whereUsedSchemas = {
  DependencyUsage: {
    type: 'object',
    required: ['project', 'projectSlug', 'ecosystem', 'name', 'version', 'direct', 'path', 'scanId'],
    properties: {
      project: projectId,
      projectSlug: str,
      ecosystem,
      name: { ...str, description: 'Package coordinates as the scan gave them (the case the project installs).' },
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
          'The shortest dependency path from a root to the package, as the inventory holds it (GET /v1/dependencies): v1 [manifest, direct dependency, ..., package]; v2 module paths then package ids.',
      },
      scanId: {
        type: 'string',
        pattern: '^scn_',
        description: "The project's latest completed scan of the ecosystem, which holds the package.",
      },
    },
  },
  DependencyUsageList: listEnvelope('usages', 'DependencyUsage'),
  AdvisoryRange: {
    type: 'object',
    required: ['type', 'events'],
    properties: {
      type: { ...str, description: 'ECOSYSTEM, SEMVER or GIT, as OSV writes it.' },
      repo: { ...str, description: 'GIT ranges: the repository.' },
      events: {
        type: 'array',
        items: {
          type: 'object',
          properties: { introduced: str, fixed: str, last_affected: str, limit: str },
          additionalProperties: false,
        },
      },
    },
  },
  AdvisoryAffected: {
    type: 'object',
    required: ['ecosystem', 'name', 'ranges'],
    properties: {
      ecosystem: { ...str, description: "OSV's ecosystem name (npm, PyPI, Maven, ...)." },
      name: str,
      ranges: { type: 'array', items: ref('AdvisoryRange') },
      versions: { ...strArray, description: 'Affected versions listed one by one, when the advisory lists them.' },
    },
  },
  AdvisoryDetail: {
    type: 'object',
    required: [
      'id',
      'aliases',
      'summary',
      'severity',
      'cvss',
      'kev',
      'epss',
      'published',
      'modified',
      'withdrawn',
      'affected',
      'references',
    ],
    properties: {
      id: { ...str, description: "The advisory's own id (the one asked for when an advisory has it)." },
      aliases: {
        ...strArray,
        description:
          "Every other id of the advisory's alias group, sorted: its aliases and the group's other advisories.",
      },
      summary: { ...str, description: 'Its summary, else the first sentence of its details (at most 300 characters).' },
      details: { ...str, description: 'Its details (Markdown, as the database writes them); absent when it has none.' },
      severity: {
        ...severity,
        description:
          "The alias group's severity, as findings and alerts show it (the highest CVSS version present decides).",
      },
      cvss: {
        type: 'array',
        description: 'Every CVSS vector of the alias group, scored: highest version first, then highest score.',
        items: {
          type: 'object',
          required: ['version', 'vector', 'score'],
          properties: {
            version: { type: 'string', enum: ['2.0', '3.0', '3.1', '4.0'] },
            vector: str,
            score: { type: 'number', minimum: 0, maximum: 10 },
          },
        },
      },
      kev: kevOrNull,
      epss: epssOrNull,
      published: timestampOrNull,
      modified: timestampOrNull,
      withdrawn: { ...timestampOrNull, description: 'When the database withdrew it; null while it stands.' },
      affected: { type: 'array', items: ref('AdvisoryAffected') },
      references: {
        type: 'array',
        items: {
          type: 'object',
          required: ['type', 'url'],
          properties: {
            type: { ...str, description: 'ADVISORY, WEB, PACKAGE, FIX, REPORT, ... as OSV writes it.' },
            url: str,
          },
        },
      },
    },
  },
  AdvisoryProjectAlert: {
    type: 'object',
    required: ['id', 'ecosystem', 'package', 'installedVersions', 'severity', 'teams', 'suppressed'],
    properties: {
      id: { type: 'string', pattern: '^alr_', description: 'GET /v1/alerts/{alertId}.' },
      ecosystem,
      package: str,
      installedVersions: strArray,
      severity,
      teams: strArray,
      suppressed: { type: 'boolean', description: 'Suppressed (by the snapshot, an analysis or a rule); still open.' },
    },
  },
  AdvisoryProject: {
    type: 'object',
    required: ['project', 'projectSlug', 'openAlerts', 'alerts'],
    properties: {
      project: projectId,
      projectSlug: str,
      openAlerts: { type: 'integer', minimum: 1, description: 'How many open alerts of the advisory the project has.' },
      alerts: {
        type: 'array',
        items: ref('AdvisoryProjectAlert'),
        description: 'Every one of them, by ecosystem, package, then id.',
      },
    },
  },
  AdvisoryPage: {
    type: 'object',
    required: ['advisory', 'projects', 'nextCursor'],
    properties: {
      advisory: ref('AdvisoryDetail'),
      projects: { type: 'array', items: ref('AdvisoryProject') },
      nextCursor: strOrNull,
    },
  },
};
