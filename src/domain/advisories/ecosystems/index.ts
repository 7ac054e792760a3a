import type { Ecosystem } from '../../../shared/types';
import { mavenRules } from './maven';
import { npmRules } from './npm';
import { pypiRules } from './pypi';
import type { EcosystemRules } from './rules';

export type { EcosystemRules } from './rules';
export { npmRules } from './npm';
export { mavenRules } from './maven';
export { pypiRules } from './pypi';

const BY_ECOSYSTEM: Record<Ecosystem, EcosystemRules> = {
  javascript: npmRules,
  typescript: npmRules,
  python: pypiRules,
  gradle: mavenRules,
};
const BY_OSV: Record<string, EcosystemRules> = { npm: npmRules, PyPI: pypiRules, Maven: mavenRules };

/** The rules of a snapshot ecosystem, or null for an ecosystem the service does not scan. */
export function rulesFor(ecosystem: Ecosystem | string): EcosystemRules | null {
  return Object.hasOwn(BY_ECOSYSTEM, ecosystem) ? BY_ECOSYSTEM[ecosystem as Ecosystem] : null;
}

/** Rules by OSV ecosystem name (used when indexing advisories). */
export function rulesForOsv(osvEcosystem: string): EcosystemRules | null {
  return Object.hasOwn(BY_OSV, osvEcosystem) ? BY_OSV[osvEcosystem] : null;
}
