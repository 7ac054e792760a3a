export {
  buildAdvisoryIndex,
  packageKey,
  type AdvisoryIndex,
  type AffectedEntry,
  type ParsedRange,
  type ParsedEvent,
} from './build-index';
export { buildGroups, chooseCve, summaryOf, type AdvisoryGroup } from './groups';
export { groupSeverity, scoreVector, band } from './severity';
export { rulesFor, rulesForOsv, npmRules, mavenRules, pypiRules, type EcosystemRules } from './ecosystems';
