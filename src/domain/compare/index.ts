export { chooseBaseline, type BaselineCandidate } from './baseline';
export {
  bySeverityThenId,
  classify,
  dependencyChanges,
  suppressionsAdded,
  type Classified,
  type ClassifiedFinding,
  type CompareSide,
  type ComparedFinding,
} from './classify';
