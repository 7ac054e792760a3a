export { v1Paths } from './v1-paths';
export { derivePathBudget, AttributionLimitExceeded, MAX_PATH_CHARACTERS, MAX_PATH_SEGMENTS } from './budget';
