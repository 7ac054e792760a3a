import type { AlertEvent } from '../domain/alerts/move';
import type { AlertView } from '../domain/alerts/query';

/** The Alert resource: the fields management's §1 names, in its order. */
export function presentAlert(a: AlertView) {
  return {
    id: a.id,
    project: a.projectId,
    ecosystem: a.ecosystem,
    package: a.package,
    advisory: a.advisory,
    aliases: a.aliases,
    severity: a.severity,
    summary: a.summary,
    publishedAt: a.publishedAt,
    installedVersions: a.installedVersions,
    fixedVersion: a.fixedVersion,
    status: a.status,
    firstSeenAt: a.firstSeenAt,
    firstSeenScanId: a.firstSeenScanId,
    lastSeenAt: a.lastSeenAt,
    lastSeenScanId: a.lastSeenScanId,
    fixedAt: a.fixedAt,
    fixedScanId: a.fixedScanId ?? null,
    modules: a.modules,
    teams: a.teams,
    suppressed: a.suppressed,
    suppressionSource: a.suppressionSource,
    ruleId: a.ruleId,
    analysis: a.analysis,
    kev: a.kev,
    epss: a.epss,
    cvss: a.cvss,
    ...(a.mergedInto ? { mergedInto: a.mergedInto } : {}),
  };
}

/** One history event as served. */
export function presentAlertEvent(e: AlertEvent) {
  return {
    type: e.type,
    at: e.at,
    ...(e.scanId !== undefined ? { scanId: e.scanId } : {}),
    ...(e.generation !== undefined ? { generation: e.generation } : {}),
    alertId: e.alertId,
    details: e.details,
  };
}
