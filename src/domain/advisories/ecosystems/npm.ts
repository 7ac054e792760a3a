// npm: SemVer 2.0 as node-semver implements it. Names are compared lowercased: the registry has refused new
// mixed-case names since 2017, and real advisories name packages with another case (GHSA-8hc4-vh64-cxmj says
// "Axios"), which must still match the lowercase package that is installed.
import semver, { SemVer } from 'semver';
import { npmName } from '../../../shared/package-names';
import type { EcosystemRules } from './rules';

export const npmRules: EcosystemRules = {
  osvEcosystem: 'npm',
  normalizeName: npmName,
  parse(version) {
    try {
      // loose: npm itself tolerates a leading "v" or "=" in installed versions.
      return new SemVer(version.trim(), { loose: true });
    } catch {
      return null;
    }
  },
  parseBound(version) {
    // Advisories sometimes write a partial bound ("introduced": "1.0" in GHSA-r683-j2x4-v87g): read it as 1.0.0.
    return (
      npmRules.parse(version) ??
      (/^\d+(\.\d+)?$/.test(version.trim()) ? npmRules.parse(semver.coerce(version)!.version) : null)
    );
  },
  compare: (a, b) => semver.compare(a as SemVer, b as SemVer),
};
