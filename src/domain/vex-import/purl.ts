// A package URL of a VEX statement as the package a scan names (docs/integrations.md#vex-import, "packages"): the purl
// type gives the ecosystems it can be in, its namespace and name the native name as that ecosystem compares names.
//
// | purl type | ecosystems             | native name                                              |
// |-----------|------------------------|----------------------------------------------------------|
// | npm       | javascript, typescript | `@scope/name` (namespace `%40scope`), lowercased         |
// | pypi      | python                 | the name, PEP 503 normalised (`Foo_Bar` = `foo-bar`)      |
// | maven     | gradle                 | `group:artifact` (namespace = groupId), case as written  |
//
// Qualifiers (`?type=jar`, `?classifier=`) and a subpath are ignored: a finding is about the package, not one of its
// files. A purl of another type, or that does not parse, names no package the service scans.
import { PackageURL } from 'packageurl-js';
import { normalizedName } from '../../shared/package-names';

export interface PurlPackage {
  /** The purl as the document wrote it. */
  purl: string;
  ecosystems: readonly string[];
  /** The native name, as the ecosystems compare names (an alert's `key`). */
  key: string;
  version: string | null;
}

const ECOSYSTEMS: Readonly<Record<string, readonly string[]>> = {
  npm: ['javascript', 'typescript'],
  pypi: ['python'],
  maven: ['gradle'],
};

/** The package a purl names, or a reason it names none the service scans. */
export function purlPackage(purl: string): PurlPackage | { error: string } {
  let p: PackageURL;
  try {
    p = PackageURL.fromString(purl.trim());
  } catch {
    return { error: 'is not a package URL' };
  }
  const ecosystems = ECOSYSTEMS[p.type];
  if (!ecosystems) return { error: `is a ${p.type} package: VEX is matched to npm, pypi and maven packages` };
  let native: string;
  if (p.type === 'maven') {
    if (!p.namespace) return { error: 'is a maven package without a groupId' };
    native = `${p.namespace}:${p.name}`;
  } else if (p.type === 'npm') native = p.namespace ? `${p.namespace}/${p.name}` : p.name;
  else native = p.namespace ? `${p.namespace}/${p.name}` : p.name;
  const version = p.version === undefined || p.version === null || p.version === '' ? null : p.version;
  return { purl, ecosystems, key: normalizedName(ecosystems[0], native), version };
}
