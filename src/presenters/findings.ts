import { suppressionSourceOf } from '../domain/triage/apply';
import type { ClassifiedFinding } from '../domain/compare';
import type { CompareFinding } from '../shared/compare';
import type { Finding } from '../shared/types';
import { intelOf, NO_INTEL, type Intel } from '../domain/intel/types';

/**
 * The Finding resource as the API serves it (the findings list, webhooks): the fields the contract names, in its
 * order, and nothing else a stored finding may carry. Fields absent on findings of older scans (aliases, packageRef)
 * stay absent. `light`: the shape of paged scans and `details=summary` (attributions read apart, their count given).
 */
export function presentFinding<E extends object = Record<never, never>>(
  f: Finding,
  light?: { attributionCount: number },
  extra?: E,
  intel: Intel = NO_INTEL,
) {
  const { kev, epss } = intelOf(f.aliases ?? [f.cve], intel);
  return {
    id: f.id,
    scanId: f.scanId,
    severity: f.severity,
    cve: f.cve,
    publishedAt: f.publishedAt,
    package: f.package,
    installedVersion: f.installedVersion,
    fixedVersion: f.fixedVersion,
    path: f.path,
    suppressed: f.suppressed,
    suppressionReason: f.suppressionReason,
    attributions: light ? [] : f.attributions,
    summary: f.summary,
    aliases: f.aliases,
    packageRef: f.packageRef,
    // null: the advisory has no CVSS vector, or the finding is from a scan made before findings carried it
    cvss: f.cvss ?? null,
    // null: no alert holds the finding (a branch-only finding), or a scan made before findings carried alerts
    alertId: f.alertId ?? null,
    firstSeenAt: f.firstSeenAt ?? null,
    // where the suppression comes from: the snapshot, the alert's analysis or a triage rule (additive)
    suppressionSource: suppressionSourceOf(f),
    ruleId: f.ruleId ?? null,
    // the intelligence feeds' entries of the alias group at the time of the read (docs/intelligence.md)
    kev,
    epss,
    ...(light ? { attributionCount: light.attributionCount } : {}),
    // Fields a read adds after the Finding's own (the comparison's modules and teams, the scan reads' current
    // `analysis` of the finding's alert), in one object.
    ...(extra as E),
  };
}

/** A finding of a comparison (GET /v1/scans/{id}/compare): the light shape, its introducing modules and teams. */
export function presentCompareFinding(c: ClassifiedFinding, intel: Intel = NO_INTEL): CompareFinding {
  const f = c.finding;
  const attributionCount = f.attributionCount ?? f.attributions.length;
  return presentFinding(
    f,
    { attributionCount },
    c.baselineVersions
      ? {
          attributionCount,
          modules: c.modules,
          teams: c.teams,
          baselineVersions: c.baselineVersions,
          versionsChanged: c.versionsChanged,
        }
      : { attributionCount, modules: c.modules, teams: c.teams },
    intel,
  );
}
