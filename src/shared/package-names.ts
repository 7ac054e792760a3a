// Package names as each ecosystem compares them: the one rule behind advisory matching (src/domain/advisories/
// ecosystems), inventory ids (src/shared/inventory-ids.ts) and CycloneDX purls (src/shared/cyclonedx). Dependency-free
// on purpose: the CI client bundles it (its `--format cyclonedx` derives the same bom-refs as the service).
import type { Ecosystem } from './types';

/** npm: lowercased. The registry has refused new mixed-case names since 2017, and advisories name packages with
 * another case (GHSA-8hc4-vh64-cxmj says "Axios") that must still match the lowercase package installed. */
export const npmName = (name: string): string => name.toLowerCase();

/** PyPI: PEP 503 (lowercase, runs of `-`, `_` and `.` become one `-`), surrounding blanks dropped. */
export const pypiName = (name: string): string =>
  name
    .trim()
    .toLowerCase()
    .replace(/[-_.]+/g, '-');

/** Maven (gradle): `group:artifact` as written, surrounding blanks dropped: Maven Central coordinates are case-sensitive. */
export const mavenName = (name: string): string => name.trim();

/** A snapshot package name as its ecosystem compares names; an ecosystem the service does not scan: as written. */
export function normalizedName(ecosystem: Ecosystem | string, name: string): string {
  switch (ecosystem) {
    case 'javascript':
    case 'typescript':
      return npmName(name);
    case 'python':
      return pypiName(name);
    case 'gradle':
      return mavenName(name);
    default:
      return name;
  }
}
