import type { Ecosystem } from '../../types';
import { npmRules } from './npm';
import type { EcosystemRules } from './rules';

export type { EcosystemRules } from './rules';
export { npmRules } from './npm';

/** The rules of a snapshot ecosystem, or null when the service does not scan it yet (python, gradle). */
export function rulesFor(ecosystem: Ecosystem | string): EcosystemRules | null {
  switch (ecosystem) {
    case 'javascript':
    case 'typescript':
      return npmRules;
    default:
      return null;
  }
}

/** Rules by OSV ecosystem name (used when indexing advisories). */
export function rulesForOsv(osvEcosystem: string): EcosystemRules | null {
  return osvEcosystem === 'npm' ? npmRules : null;
}
