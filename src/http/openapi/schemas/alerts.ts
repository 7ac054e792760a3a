// Schemas of project alerts (src/presenters/alerts.ts).
import { SEVERITIES } from '../../../shared/types';
import { cvssOrNull, epssOrNull, kevOrNull } from './scans';
import { listEnvelope, ref, str, strArray, strOrNull, timestamp, timestampOrNull } from './common';

const alertId = { type: 'string', pattern: '^alr_' } as const;

export const alertSchemas = {
  Alert: {
    type: 'object',
    required: [
      'id',
      'project',
      'ecosystem',
      'package',
      'advisory',
      'aliases',
      'severity',
      'summary',
      'publishedAt',
      'installedVersions',
      'fixedVersion',
      'status',
      'firstSeenAt',
      'firstSeenScanId',
      'lastSeenAt',
      'lastSeenScanId',
      'fixedAt',
      'fixedScanId',
      'modules',
      'teams',
      'suppressed',
      'suppressionSource',
      'ruleId',
      'analysis',
      'kev',
      'epss',
      'cvss',
    ],
    properties: {
      id: alertId,
      project: { ...str, description: 'The project id (prj_...).' },
      ecosystem: { type: 'string', enum: ['gradle', 'python', 'javascript', 'typescript'] },
      package: { ...str, description: 'The package name as the latest tracked scan that had the alert gave it.' },
      advisory: { ...str, description: "The display id of the alias group (as findings' cve)." },
      aliases: { ...strArray, description: 'Every id of the alias group.' },
      severity: { type: 'string', enum: [...SEVERITIES] },
      summary: str,
      publishedAt: timestampOrNull,
      installedVersions: {
        ...strArray,
        description: 'Every affected installed version in the latest scan that had it.',
      },
      fixedVersion: strOrNull,
      status: { type: 'string', enum: ['open', 'fixed', 'merged'] },
      firstSeenAt: timestamp,
      firstSeenScanId: str,
      lastSeenAt: timestamp,
      lastSeenScanId: str,
      fixedAt: timestampOrNull,
      fixedScanId: {
        ...strOrNull,
        description:
          'The tracked scan that fixed the alert (for a fix by a re-match after an advisory import, the scan whose snapshot was matched again); null while open.',
      },
      modules: { ...strArray, description: 'Introducing modules (v2) in the latest scan that had it.' },
      teams: { ...strArray, description: 'Teams of those modules.' },
      suppressed: { type: 'boolean' },
      suppressionSource: { type: ['string', 'null'], enum: ['snapshot', 'analysis', 'rule', null] },
      ruleId: strOrNull,
      analysis: {
        description: 'The analysis (triage); null without one. An expired one is shown with expired: true.',
        oneOf: [ref('Analysis'), { type: 'null' }],
      },
      kev: kevOrNull,
      epss: epssOrNull,
      cvss: cvssOrNull,
      mergedInto: { ...alertId, description: 'Present on merged alerts only.' },
    },
  },
  AlertList: listEnvelope('alerts', 'Alert'),
  AlertEvent: {
    type: 'object',
    required: ['type', 'at', 'alertId', 'details'],
    properties: {
      type: {
        type: 'string',
        enum: [
          'opened',
          'fixed',
          'reopened',
          'versions_changed',
          'analysis_changed',
          'analysis_expired',
          'merged',
          'summarised',
        ],
      },
      at: timestamp,
      scanId: { ...str, description: 'The tracked scan that made the change.' },
      generation: { ...strOrNull, description: 'The advisory generation of that scan or re-match.' },
      alertId: {
        ...alertId,
        description: 'The alert the event happened to (an alert merged into this one keeps its own).',
      },
      details: {
        type: 'object',
        description:
          'versions_changed: {from, to}; fixed: {installedVersions}; reopened: {installedVersions, fixedAt}; merged: {mergedInto}; opened: {}; analysis_changed: {before, after, actor, bulkId?} (analyses), or, when a triage rule change moved the suppression of the alert (written in the background), {source: "rule", ruleId, suppressed, before: {ruleId, suppressed}}; analysis_expired (once per analysis, within the hour): {analysis: {state, expiresAt, updatedAt, updatedBy}, suppressed, suppressionSource, ruleId} (what the alert reads after); summarised (at most 1,000 events are kept per alert, the older ones folded into this one): {events, byType, from, to}.',
      },
    },
  },
  AlertHistory: listEnvelope('events', 'AlertEvent'),
};
