// Package URLs (purl-spec: docs/standard/characters-and-encoding.md and the npm, pypi and maven type definitions) for
// the three package types the service scans. Hand-written rather than taken from packageurl-js: the CI client bundles
// this file (it must stay small and dependency-free), and building a purl of these types is the encoding rule below
// plus one naming rule per type.
import { mavenName, npmName, pypiName } from '../package-names';
import type { Ecosystem } from '../types';

const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

/**
 * A purl component: UTF-8, every octet percent-encoded (upper-case hex) except the alphanumerics, `.-_~` and the colon,
 * which the spec says must never be encoded. encodeURIComponent leaves `!'()*` as they are, so those are encoded
 * here; a lone surrogate (valid in JSON, not in UTF-8) becomes U+FFFD instead of throwing.
 */
export function encodePurlComponent(s: string): string {
  return encodeURIComponent(s.replace(LONE_SURROGATE, '\ufffd'))
    .replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`)
    .replace(/%3A/g, ':');
}

const withVersion = (base: string, version: string) =>
  version === '' ? base : `${base}@${encodePurlComponent(version)}`;

/**
 * The purl of a package of a snapshot ecosystem, or undefined for one the service does not scan.
 * - npm (javascript, typescript): the name lowercased (the type is case-insensitive); a scope is the namespace,
 *   its `@` encoded: `pkg:npm/%40scope/name@1.0.0`.
 * - pypi (python): the PEP 503 name: `Foo_Bar` → `pkg:pypi/foo-bar@1.0`.
 * - maven (gradle): `group:artifact` → `pkg:maven/group/artifact@1.0`; a name without a group is the purl's name.
 * The name is normalised as the ecosystem compares names, so every node that one inventory id (bom-ref) merges has
 * the same purl.
 */
export function purlOf(ecosystem: Ecosystem | string, name: string, version: string): string | undefined {
  switch (ecosystem) {
    case 'javascript':
    case 'typescript': {
      const n = npmName(name);
      const slash = n.indexOf('/');
      if (n.startsWith('@') && slash > 1 && slash < n.length - 1) {
        return withVersion(
          `pkg:npm/${encodePurlComponent(n.slice(0, slash))}/${encodePurlComponent(n.slice(slash + 1))}`,
          version,
        );
      }
      return withVersion(`pkg:npm/${encodePurlComponent(n)}`, version);
    }
    case 'python':
      return withVersion(`pkg:pypi/${encodePurlComponent(pypiName(name))}`, version);
    case 'gradle': {
      const n = mavenName(name);
      const colon = n.indexOf(':');
      if (colon > 0 && colon < n.length - 1) {
        return withVersion(
          `pkg:maven/${encodePurlComponent(n.slice(0, colon))}/${encodePurlComponent(n.slice(colon + 1))}`,
          version,
        );
      }
      return withVersion(`pkg:maven/${encodePurlComponent(n)}`, version);
    }
    default:
      return undefined;
  }
}

/**
 * CycloneDX's group and name of a package (as its own tools write them): a Maven groupId is the group and the
 * artifactId the name; an npm scope (`@scope`) is the group. Names are shown as the snapshot writes them.
 */
export function groupAndName(ecosystem: Ecosystem | string, name: string): { group?: string; name: string } {
  if (ecosystem === 'gradle') {
    const colon = name.indexOf(':');
    if (colon > 0 && colon < name.length - 1) return { group: name.slice(0, colon), name: name.slice(colon + 1) };
  }
  if (ecosystem === 'javascript' || ecosystem === 'typescript') {
    const slash = name.indexOf('/');
    if (name.startsWith('@') && slash > 1 && slash < name.length - 1)
      return { group: name.slice(0, slash), name: name.slice(slash + 1) };
  }
  return { name };
}
