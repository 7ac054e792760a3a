// What npm advisory files predict for a set of installed packages, worked out with node-semver alone (independent
// of the service's matching code): `advisoryId|name|version` for every package inside an affected range.
import fs from 'node:fs';
import path from 'node:path';
import semver from 'semver';

type Events = Array<Record<string, string>>;

function inRanges(version: string, ranges: Array<{ events: Events }>): boolean {
  return ranges.some((r) => {
    let lo: string | undefined;
    for (const ev of r.events) {
      if (ev.introduced !== undefined) lo = ev.introduced === '0' ? '0.0.0-0' : ev.introduced;
      else if (lo !== undefined && ev.fixed !== undefined && semver.gte(version, lo) && semver.lt(version, ev.fixed))
        return true;
      else if (
        lo !== undefined &&
        ev.last_affected !== undefined &&
        semver.gte(version, lo) &&
        semver.lte(version, ev.last_affected)
      )
        return true;
      if (ev.fixed !== undefined || ev.last_affected !== undefined) lo = undefined;
    }
    return lo !== undefined && semver.gte(version, lo);
  });
}

export function predictNpmFindings(installed: Iterable<string>, advisoryDir: string): string[] {
  const byName = new Map<string, string[]>();
  for (const id of installed) {
    const at = id.lastIndexOf('@');
    const name = id.slice(0, at);
    byName.set(name, [...(byName.get(name) ?? []), id.slice(at + 1)]);
  }
  const out = new Set<string>();
  for (const file of fs.readdirSync(advisoryDir)) {
    const adv = JSON.parse(fs.readFileSync(path.join(advisoryDir, file), 'utf8'));
    for (const a of adv.affected ?? []) {
      if (a.package?.ecosystem !== 'npm') continue;
      const name = a.package.name.toLowerCase();
      for (const version of byName.get(name) ?? []) {
        if (!semver.valid(version)) continue;
        if (inRanges(version, a.ranges ?? []) || (a.versions ?? []).includes(version))
          out.add(`${adv.id}|${name}|${version}`);
      }
    }
  }
  return [...out].sort();
}

/** The same for PyPI advisories (PEP 440 order, PEP 503 names): `advisoryId|name|version`. */
export function predictPypiFindings(installed: Iterable<string>, advisoryDir: string): string[] {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const pep440 = require('@renovatebot/pep440') as {
    valid(v: string): string | null;
    gte(a: string, b: string): boolean;
    lt(a: string, b: string): boolean;
    lte(a: string, b: string): boolean;
    eq(a: string, b: string): boolean;
  };
  const norm = (n: string) => n.toLowerCase().replace(/[-_.]+/g, '-');
  const byName = new Map<string, string[]>();
  for (const id of installed) {
    const at = id.lastIndexOf('@');
    const name = norm(id.slice(0, at));
    byName.set(name, [...(byName.get(name) ?? []), id.slice(at + 1)]);
  }
  const out = new Set<string>();
  for (const file of fs.readdirSync(advisoryDir)) {
    const adv = JSON.parse(fs.readFileSync(path.join(advisoryDir, file), 'utf8'));
    if (adv.withdrawn) continue;
    for (const a of adv.affected ?? []) {
      if (a.package?.ecosystem !== 'PyPI') continue;
      for (const version of byName.get(norm(a.package.name)) ?? []) {
        if (!pep440.valid(version)) continue;
        const hit =
          (a.versions ?? []).some((v: string) => pep440.valid(v) && pep440.eq(v, version)) ||
          (a.ranges ?? []).some((r: { type: string; events: Events }) => {
            if (r.type !== 'ECOSYSTEM') return false;
            let lo: string | undefined;
            for (const ev of r.events) {
              if (ev.introduced !== undefined) lo = ev.introduced;
              else if (
                lo !== undefined &&
                ev.fixed !== undefined &&
                (lo === '0' || pep440.gte(version, lo)) &&
                pep440.lt(version, ev.fixed)
              )
                return true;
              else if (
                lo !== undefined &&
                ev.last_affected !== undefined &&
                (lo === '0' || pep440.gte(version, lo)) &&
                pep440.lte(version, ev.last_affected)
              )
                return true;
              if (ev.fixed !== undefined || ev.last_affected !== undefined) lo = undefined;
            }
            return lo !== undefined && (lo === '0' || pep440.gte(version, lo));
          });
        if (hit) out.add(`${adv.id}|${norm(a.package.name)}|${version}`);
      }
    }
  }
  return [...out].sort();
}
