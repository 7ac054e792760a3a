// Every producer the client has, in the order their files are tried. One file per format.
import { gradleBuildProducer } from './gradle-build';
import { gradleLockfileProducer } from './gradle-lockfile';
import { npmLockProducer } from './npm-lock';
import { pnpmLockProducer } from './pnpm-lock';
import { poetryLockProducer } from './poetry-lock';
import { requirementsProducer } from './requirements-txt';
import type { Producer } from './types';
import { uvLockProducer } from './uv-lock';
import { yarnLockProducer } from './yarn-lock';

export const PRODUCERS: readonly Producer[] = [
  npmLockProducer,
  pnpmLockProducer,
  yarnLockProducer,
  uvLockProducer,
  poetryLockProducer,
  requirementsProducer,
  gradleBuildProducer,
  gradleLockfileProducer,
];
