// Snapshot validation and producers (pure domain).
export { validateSnapshot, type ValidatedSnapshot } from './validate';
export { LIMITS, MAX_BODY_BYTES, checkCountedLimits } from './limits';
export { attributionWork, bfs, type Csr, type FlatGraph, type ResolutionGraph } from './graph-checks';
export { crossReferenceV1, crossReferenceV2 } from './cross-reference';
export { snapshotSchemaV1 } from './schema-v1';
export { snapshotSchemaV2 } from './schema-v2';
export { syntheticSnapshot, dependencyOffsets, type SyntheticOptions } from './synthetic';
export { snapshotFromNpmLock, type NpmLockOptions } from './from-npm-lock';
export { snapshotFromGradleLock, type GradleLockOptions } from './from-gradle-lock';
