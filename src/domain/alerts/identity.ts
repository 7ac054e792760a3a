// Alert identity (the first piece of project-level alerts): which alert of one project and ecosystem each finding of a
// tracked scan belongs to. An alert is one vulnerability of one package: its package (as the ecosystem compares
// names) and its advisory alias group. A finding belongs to the alert of its package that shares any id of its alias
// group; a group that grew keeps its alert; when a group comes to join two alerts, the older survives and the others
// are merged into it; when a group splits, the part holding the alert's display id keeps the alert and the other parts
// open alerts of their own. Several installed versions of one package affected by one group are one alert.
//
// Pure and deterministic: the same alerts and findings give the same resolution whatever their order, so a retried or
// replayed step resolves as the first run did. The caller serialises the resolutions of one (project, ecosystem).
import { normalizedName } from '../../shared/package-names';

/** An alert as identity needs it. */
export interface AlertIdentity {
  id: string;
  /** The package name as the ecosystem compares names. */
  package: string;
  /** The display id (as findings' `cve`): the id a split leaves with the alert. */
  advisory: string;
  /** Every id of the alias group the alert was last resolved with. */
  ids: string[];
  /** When the alert was first seen (the older of two alerts that merge survives; then the smaller id). */
  firstSeenAt: string;
}

/** A finding as identity needs it. */
export interface FindingIdentity {
  /** The finding's own key (its id): what the resolution maps. */
  key: string;
  /** The package name as the snapshot gave it. */
  package: string;
  /** The display id of its alias group (the finding's `cve`). */
  advisory: string;
  /** Every id of its alias group. */
  ids: string[];
}

export interface AlertResolution {
  /** Each finding's alert id. */
  alertOf: Map<string, string>;
  /** New alerts, in a stable order (package, then display id). */
  opened: AlertIdentity[];
  /** Alerts whose group changed (grew, or kept its part of a split): their new ids and display id. */
  regrouped: Array<{ id: string; ids: string[]; advisory: string }>;
  /** Alerts merged into another: `mergedInto` survives. */
  merged: Array<{ id: string; mergedInto: string }>;
}

const byAge = (a: AlertIdentity, b: AlertIdentity) =>
  a.firstSeenAt < b.firstSeenAt ? -1 : a.firstSeenAt > b.firstSeenAt ? 1 : a.id < b.id ? -1 : a.id > b.id ? 1 : 0;

const sameIds = (a: string[], b: string[]) => a.length === b.length && a.every((x, i) => x === b[i]);

/**
 * Resolves the findings of one tracked scan (or re-match) of one project and ecosystem against that pair's alerts.
 * `ecosystem` normalises package names; `newAlertId(package, advisory)` names a new alert (the caller makes it
 * deterministic for retries, e.g. from the scan id); `now` is a new alert's firstSeenAt. Merged alerts must not be
 * passed in.
 */
export function resolveAlerts(
  ecosystem: string,
  alerts: readonly AlertIdentity[],
  findings: readonly FindingIdentity[],
  newAlertId: (pkg: string, advisory: string) => string,
  now: string,
): AlertResolution {
  const alertOf = new Map<string, string>();
  const opened: AlertIdentity[] = [];
  const regrouped: AlertResolution['regrouped'] = [];
  const merged: AlertResolution['merged'] = [];

  // One group per (package, alias group): the findings of its installed versions.
  const groups = new Map<string, { pkg: string; advisory: string; ids: string[]; keys: string[] }>();
  for (const f of findings) {
    const pkg = normalizedName(ecosystem, f.package);
    const ids = [...new Set(f.ids.length ? f.ids : [f.advisory])].sort();
    const k = `${pkg}\0${ids.join(',')}`;
    const g = groups.get(k) ?? { pkg, advisory: f.advisory, ids, keys: [] };
    g.keys.push(f.key);
    groups.set(k, g);
  }
  const ordered = [...groups.values()].sort((a, b) =>
    a.pkg < b.pkg ? -1 : a.pkg > b.pkg ? 1 : a.advisory < b.advisory ? -1 : a.advisory > b.advisory ? 1 : 0,
  );

  // Each group's members: the alerts whose display id it holds (groups are disjoint, so an alert claims one group at
  // most) and the alerts left free that share an id with it (an alert whose display id was withdrawn; each follows
  // one group only). The oldest member keeps the alert, the others are merged into it; a group without members opens
  // one.
  const byPackage = new Map<string, AlertIdentity[]>();
  for (const a of [...alerts].sort(byAge)) {
    const list = byPackage.get(a.package) ?? [];
    list.push(a);
    byPackage.set(a.package, list);
  }
  const claimed = new Set<string>();
  const claims = ordered.map((g) => {
    const own = new Set(g.ids);
    const list = (byPackage.get(g.pkg) ?? []).filter((a) => own.has(a.advisory));
    for (const a of list) claimed.add(a.id);
    return list;
  });
  const used = new Set<string>();
  ordered.forEach((g, i) => {
    const own = new Set(g.ids);
    const free = (byPackage.get(g.pkg) ?? []).filter(
      (a) => !claimed.has(a.id) && !used.has(a.id) && a.ids.some((id) => own.has(id)),
    );
    const members = [...claims[i], ...free].sort(byAge);
    let id: string;
    if (!members.length) {
      id = newAlertId(g.pkg, g.advisory);
      opened.push({ id, package: g.pkg, advisory: g.advisory, ids: g.ids, firstSeenAt: now });
    } else {
      const [survivor, ...others] = members; // already by age
      id = survivor.id;
      for (const o of others) merged.push({ id: o.id, mergedInto: survivor.id });
      for (const m of members) used.add(m.id);
      if (others.length || !sameIds([...survivor.ids].sort(), g.ids) || survivor.advisory !== g.advisory)
        regrouped.push({ id, ids: g.ids, advisory: g.advisory });
    }
    for (const key of g.keys) alertOf.set(key, id);
  });
  opened.sort((a, b) => (a.package < b.package ? -1 : a.package > b.package ? 1 : a.advisory < b.advisory ? -1 : 1));
  merged.sort((a, b) => (a.id < b.id ? -1 : 1));
  return { alertOf, opened, regrouped, merged };
}
