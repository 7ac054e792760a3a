// One interface for every ecosystem's version and name rules (google/osv-scanner's habit: each ecosystem's rules in
// a file of its own). Matching never looks at a version string itself.

export interface EcosystemRules {
  /** The OSV `affected[].package.ecosystem` value this snapshot ecosystem matches. */
  readonly osvEcosystem: string;
  /** Package name as compared on both sides (snapshot and advisory). */
  normalizeName(name: string): string;
  /** An opaque parsed version, or null when the ecosystem's rules cannot read it (reported, never thrown). */
  parse(version: string): unknown | null;
  /** Parses a range bound of an advisory: may accept more than an installed version does (partial versions). */
  parseBound(version: string): unknown | null;
  /** Total order over parsed versions: negative, zero or positive. */
  compare(a: unknown, b: unknown): number;
}
