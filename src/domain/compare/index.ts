export { chooseBaseline, type BaselineCandidate } from './baseline';
export {
  bySeverityThenId,
  classify,
  dependencyChanges,
  sidePackages,
  suppressionsAdded,
  type Classified,
  type ClassifiedFinding,
  type CompareSide,
  type SidePackages,
  type ComparedFinding,
} from './classify';
